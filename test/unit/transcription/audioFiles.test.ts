import {
	audioContentType,
	audioFileProblem,
	audioSignatureType,
	needsSignature,
	readInputLanguages,
	storageFileNames,
} from '../../../nodes/ClinicScribe/shared/audioFiles';

/** A file's first bytes: text, then any bytes given as numbers. */
const bytes = (text: string, ...more: number[]) =>
	new Uint8Array([...Buffer.from(text, 'latin1'), ...more]);
const OGG = bytes('OggS', 0, 2, 0, 0, 0, 0, 0, 0);

describe('audioContentType', () => {
	test.each([
		['visit.wav', undefined, 'audio/wav'],
		['visit.MP3', 'application/octet-stream', 'audio/mpeg'],
		['visit.m4a', undefined, 'audio/mp4'],
		['visit.ogg', undefined, 'audio/ogg'],
		['visit.webm', undefined, 'audio/webm'],
		['visit.mp4', 'video/mp4', 'audio/mp4'],
		// The extension says nothing: n8n's MIME type decides.
		['recording', 'audio/x-m4a', 'audio/mp4'],
		['recording.bin', 'audio/mpeg; charset=binary', 'audio/mpeg'],
		[undefined, 'audio/wav', 'audio/wav'],
	])('%s (%s) → %s', (name, mime, expected) => {
		expect(audioContentType(name, mime)).toBe(expected);
	});

	// Voice notes: Opus in Ogg, as WhatsApp (.opus) and Telegram (.oga) name them, often with a generic MIME type.
	test.each([
		['PTT-20250101-WA0001.opus', 'application/octet-stream'],
		['PTT-20250101-WA0001.opus', 'audio/ogg; codecs=opus'],
		['file_12.oga', 'application/octet-stream'],
		['file_12.OGA', undefined],
		['voice.ogg', 'application/octet-stream'],
		['voice', 'audio/ogg; codecs=opus'],
		['voice', 'application/ogg'],
		['voice', 'audio/opus'],
		['voice', 'audio/x-opus+ogg'],
	])('voice note %s (%s) is Ogg: audio/ogg', (name, mime) => {
		expect(audioContentType(name, mime)).toBe('audio/ogg');
	});

	test('name and type say nothing: the first bytes tell (only with a generic or no MIME type)', () => {
		expect(needsSignature('voice', 'application/octet-stream')).toBe(true);
		expect(needsSignature(undefined, undefined)).toBe(true);
		expect(needsSignature('voice.bin', 'binary/octet-stream')).toBe(true);
		expect(needsSignature('voice.opus', 'application/octet-stream')).toBe(false);
		expect(needsSignature('scan', 'image/png')).toBe(false);
		expect(audioContentType('voice', 'application/octet-stream', OGG)).toBe('audio/ogg');
		expect(audioContentType(undefined, undefined, OGG)).toBe('audio/ogg');
		// A specific type that is not audio is believed: the wrong binary field, not a voice note.
		expect(audioContentType('scan', 'image/png', OGG)).toBeUndefined();
		expect(
			audioContentType('voice', 'application/octet-stream', bytes('hello, world')),
		).toBeUndefined();
	});

	test.each([
		['Ogg', OGG, 'audio/ogg'],
		['WAVE', bytes('RIFF', 36, 0, 0, 0, ...Buffer.from('WAVE')), 'audio/wav'],
		['MP4 / M4A', bytes('\0\0\0\x20ftypM4A '), 'audio/mp4'],
		['WebM (EBML)', bytes('', 0x1a, 0x45, 0xdf, 0xa3, 0x9f), 'audio/webm'],
		['MP3 with ID3', bytes('ID3', 4, 0), 'audio/mpeg'],
		['MP3 frame', bytes('', 0xff, 0xfb, 0x90, 0x64), 'audio/mpeg'],
		['RIFF that is not WAVE (AVI)', bytes('RIFF', 0, 0, 0, 0, ...Buffer.from('AVI ')), undefined],
		['JPEG', bytes('', 0xff, 0xd8, 0xff, 0xe0), undefined],
		['PDF', bytes('%PDF-1.7'), undefined],
		['nothing', bytes(''), undefined],
	])('signature: %s', (_name, first, expected) => {
		expect(audioSignatureType(first)).toBe(expected);
	});

	test('not audio', () => {
		expect(audioContentType('notes.txt', 'text/plain')).toBeUndefined();
		expect(audioContentType('scan.pdf', 'application/pdf')).toBeUndefined();
		expect(audioContentType(undefined, undefined)).toBeUndefined();
	});
});

describe('audioFileProblem', () => {
	test('empty, unknown size, not audio, fine', () => {
		expect(audioFileProblem({ fileName: 'a.wav', mimeType: undefined, size: 0 })).toBe(
			'is empty (0 bytes)',
		);
		expect(audioFileProblem({ fileName: 'a.wav', mimeType: undefined, size: undefined })).toBe(
			'has an unknown size',
		);
		expect(audioFileProblem({ fileName: 'a.txt', mimeType: 'text/plain', size: 3 })).toBe(
			'is not an audio file the service accepts (extension ".txt", type text/plain)',
		);
		expect(audioFileProblem({ fileName: undefined, mimeType: undefined, size: 3 })).toBe(
			'is not an audio file the service accepts (no extension, no type)',
		);
		expect(audioFileProblem({ fileName: 'a.wav', mimeType: undefined, size: 3 })).toBeUndefined();
		expect(
			audioFileProblem({
				fileName: 'voice',
				mimeType: 'application/octet-stream',
				size: 3,
				firstBytes: OGG,
			}),
		).toBeUndefined();
		expect(
			audioFileProblem({
				fileName: 'voice',
				mimeType: 'application/octet-stream',
				size: 3,
				firstBytes: bytes('text'),
			}),
		).toBe(
			'is not an audio file the service accepts (no extension, type application/octet-stream)',
		);
	});
});

describe('storageFileNames', () => {
	test('keep names, make them unique and safe, name the unnamed', () => {
		expect(
			storageFileNames([
				{ fileName: 'visit.wav', contentType: 'audio/wav' },
				{ fileName: 'VISIT.wav', contentType: 'audio/wav' },
				{ fileName: 'dir/sub/visit.wav', contentType: 'audio/wav' },
				{ fileName: undefined, contentType: 'audio/mpeg' },
				{ fileName: 'a "quoted" #1?.m4a', contentType: 'audio/mp4' },
				{ fileName: '..hidden.ogg', contentType: 'audio/ogg' },
				{ fileName: 'noext', contentType: 'audio/ogg' },
				{ fileName: 'noext', contentType: 'audio/ogg' },
			]),
		).toEqual([
			'visit.wav',
			'VISIT-2.wav',
			'visit-3.wav',
			'recording-4.mp3',
			'a _quoted_ _1_.m4a',
			'hidden.ogg',
			'noext.ogg',
			'noext-2.ogg',
		]);
	});

	test('every name ends in an extension the service reads: voice notes as .ogg, one added where none is', () => {
		expect(
			storageFileNames([
				{ fileName: 'PTT-20250101-WA0001.opus', contentType: 'audio/ogg' },
				{ fileName: 'file_12.oga', contentType: 'audio/ogg' },
				{ fileName: 'file_12.ogg', contentType: 'audio/ogg' },
				{ fileName: 'Dr. Rao consult', contentType: 'audio/mpeg' },
				{ fileName: 'visit.bin', contentType: 'audio/wav' },
				{ fileName: 'visit.mp4', contentType: 'audio/mp4' },
			]),
		).toEqual([
			'PTT-20250101-WA0001.ogg',
			'file_12.ogg',
			'file_12-2.ogg',
			'Dr. Rao consult.mp3',
			'visit.bin.wav',
			'visit.mp4',
		]);
	});
});

describe('readInputLanguages', () => {
	test('multi-select values, comma lists from expressions, case, duplicates, unknown ids', () => {
		expect(readInputLanguages(['en-IN', 'hi'])).toEqual({ ids: ['en-IN', 'hi'], unknown: [] });
		expect(readInputLanguages('en-in, HI ;ta')).toEqual({
			ids: ['en-IN', 'hi', 'ta'],
			unknown: [],
		});
		expect(readInputLanguages(['hi', 'hi', 'fr', 'english'])).toEqual({
			ids: ['hi'],
			unknown: ['fr', 'english'],
		});
		expect(readInputLanguages(undefined)).toEqual({ ids: [], unknown: [] });
	});
});
