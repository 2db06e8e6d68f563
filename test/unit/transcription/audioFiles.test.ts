import {
	audioContentType,
	audioFileProblem,
	readInputLanguages,
	storageFileNames,
} from '../../../nodes/ClinicScribe/shared/audioFiles';

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

	test('not audio', () => {
		expect(audioContentType('notes.txt', 'text/plain')).toBeUndefined();
		expect(audioContentType('scan.pdf', 'application/pdf')).toBeUndefined();
		expect(audioContentType(undefined, undefined)).toBeUndefined();
	});
});

describe('audioFileProblem', () => {
	test('empty, unknown size, not audio, fine', () => {
		expect(audioFileProblem({ fileName: 'a.wav', mimeType: undefined, size: 0 })).toBe('is empty (0 bytes)');
		expect(audioFileProblem({ fileName: 'a.wav', mimeType: undefined, size: undefined })).toBe('has an unknown size');
		expect(audioFileProblem({ fileName: 'a.txt', mimeType: 'text/plain', size: 3 })).toBe(
			'is not an audio file the service accepts (extension ".txt", type text/plain)',
		);
		expect(audioFileProblem({ fileName: undefined, mimeType: undefined, size: 3 })).toBe(
			'is not an audio file the service accepts (no extension, no type)',
		);
		expect(audioFileProblem({ fileName: 'a.wav', mimeType: undefined, size: 3 })).toBeUndefined();
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
			'noext',
			'noext-2',
		]);
	});
});

describe('readInputLanguages', () => {
	test('multi-select values, comma lists from expressions, case, duplicates, unknown ids', () => {
		expect(readInputLanguages(['en-IN', 'hi'])).toEqual({ ids: ['en-IN', 'hi'], unknown: [] });
		expect(readInputLanguages('en-in, HI ;ta')).toEqual({ ids: ['en-IN', 'hi', 'ta'], unknown: [] });
		expect(readInputLanguages(['hi', 'hi', 'fr', 'english'])).toEqual({ ids: ['hi'], unknown: ['fr', 'english'] });
		expect(readInputLanguages(undefined)).toEqual({ ids: [], unknown: [] });
	});
});
