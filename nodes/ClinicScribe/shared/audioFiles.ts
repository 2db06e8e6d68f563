/**
 * Pure rules for the recordings of an upload: content type by extension (n8n's MIME type when the
 * extension says nothing, the file's first bytes when both say nothing), what counts as audio, and
 * the file names a transaction's files are stored under.
 *
 * The service reads webm, wav, mp3, m4a, mp4 and ogg, and tells them by the file's extension
 * ([IFD §4.7]; [EKA-OAS] upload-audio.mdx and its Content-Type list: audio/webm;codecs=opus,
 * audio/wav, audio/ogg, audio/mp4, audio/m4a, audio/mp3). Voice notes from WhatsApp and Telegram are Opus in an
 * Ogg file, named `.opus` or `.oga`: they are Ogg, so they are stored as `.ogg`, audio/ogg.
 */

/** The extensions the service documents, in the order messages list them. */
const ACCEPTED_EXTENSIONS: readonly string[] = ['wav', 'mp3', 'm4a', 'ogg', 'webm', 'mp4'];

/** Content types for storage, by extension, as [EKA-PYSDK] sends them (Python's mimetypes: `.mp3` is audio/mpeg). */
const AUDIO_CONTENT_TYPES: Readonly<Record<string, string>> = {
	wav: 'audio/wav',
	mp3: 'audio/mpeg',
	m4a: 'audio/mp4',
	ogg: 'audio/ogg',
	webm: 'audio/webm',
	mp4: 'audio/mp4',
	// Ogg files under other names: Opus in Ogg is registered as audio/ogg, `.opus`; Ogg audio as `.oga`.
	opus: 'audio/ogg',
	oga: 'audio/ogg',
};

/** MIME types n8n may report for those containers, mapped to the type stored. */
const AUDIO_MIME_TYPES: Readonly<Record<string, string>> = {
	'audio/wav': 'audio/wav',
	'audio/wave': 'audio/wav',
	'audio/x-wav': 'audio/wav',
	'audio/vnd.wave': 'audio/wav',
	'audio/mpeg': 'audio/mpeg',
	'audio/mp3': 'audio/mpeg',
	'audio/mpeg3': 'audio/mpeg',
	'audio/x-mpeg-3': 'audio/mpeg',
	'audio/mp4': 'audio/mp4',
	'audio/m4a': 'audio/mp4',
	'audio/x-m4a': 'audio/mp4',
	'audio/aac': 'audio/mp4',
	'audio/ogg': 'audio/ogg',
	'audio/opus': 'audio/ogg',
	'audio/x-opus+ogg': 'audio/ogg',
	'audio/vorbis': 'audio/ogg',
	'application/ogg': 'audio/ogg',
	'audio/webm': 'audio/webm',
	'video/mp4': 'audio/mp4',
	'video/webm': 'audio/webm',
};

/** MIME types that say only "some bytes": the file's first bytes may then tell. */
const GENERIC_MIME_TYPES: ReadonlySet<string> = new Set([
	'',
	'application/octet-stream',
	'binary/octet-stream',
	'application/binary',
	'application/x-binary',
	'application/unknown',
]);

/** Extensions for a MIME type, used when a file's own name has no accepted one. */
const EXTENSION_BY_CONTENT_TYPE: Readonly<Record<string, string>> = {
	'audio/wav': 'wav',
	'audio/mpeg': 'mp3',
	'audio/mp4': 'm4a',
	'audio/ogg': 'ogg',
	'audio/webm': 'webm',
};

/** How many of a file's first bytes `audioSignatureType` reads. */
export const SIGNATURE_BYTES = 12;

export function extensionOf(fileName: string | undefined): string {
	if (!fileName) return '';
	const base = fileName.split(/[\\/]/).pop() ?? '';
	const dot = base.lastIndexOf('.');
	return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

function bareMimeType(mimeType: string | undefined): string {
	return (mimeType ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * The content type to store a recording with: from the extension when it names an audio type,
 * else from n8n's MIME type, else (a generic or no MIME type) from the file's first bytes;
 * undefined when none says audio.
 */
export function audioContentType(
	fileName: string | undefined,
	mimeType: string | undefined,
	firstBytes?: Uint8Array,
): string | undefined {
	const byExtension = AUDIO_CONTENT_TYPES[extensionOf(fileName)];
	if (byExtension) return byExtension;
	const byMimeType = AUDIO_MIME_TYPES[bareMimeType(mimeType)];
	if (byMimeType) return byMimeType;
	return firstBytes && GENERIC_MIME_TYPES.has(bareMimeType(mimeType))
		? audioSignatureType(firstBytes)
		: undefined;
}

/** True when only the file's first bytes can tell whether it is audio (worth reading them). */
export function needsSignature(
	fileName: string | undefined,
	mimeType: string | undefined,
): boolean {
	return (
		audioContentType(fileName, mimeType) === undefined &&
		GENERIC_MIME_TYPES.has(bareMimeType(mimeType))
	);
}

/** The audio container the first bytes announce (each format's own signature), if any. */
export function audioSignatureType(bytes: Uint8Array): string | undefined {
	const text = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
	if (text(0, 4) === 'OggS') return 'audio/ogg';
	if (text(0, 4) === 'RIFF' && text(8, 12) === 'WAVE') return 'audio/wav';
	if (text(4, 8) === 'ftyp') return 'audio/mp4';
	if (bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3)
		return 'audio/webm';
	// ID3 tags, or an MPEG audio layer III frame header (11 sync bits, layer bits 01).
	if (text(0, 3) === 'ID3' || (bytes[0] === 0xff && (bytes[1] & 0xe6) === 0xe2))
		return 'audio/mpeg';
	return undefined;
}

interface AudioFileFacts {
	fileName: string | undefined;
	mimeType: string | undefined;
	/** Bytes; undefined when unknown. */
	size: number | undefined;
	/** The file's first bytes, read only when its name and type say nothing (`needsSignature`). */
	firstBytes?: Uint8Array;
}

/** What to send instead, for the message that refuses a file. */
export const ACCEPTED_FORMATS_ADVICE = `Send a recording in one of the formats the service reads: ${ACCEPTED_EXTENSIONS.join(', ')} (voice notes from WhatsApp or Telegram, .opus or .oga, are Ogg and accepted). If the file is audio but has neither such an extension nor an audio MIME type, give its file name one of these extensions.`;

/** What is wrong with a file as a recording, in words for an error message; undefined when fine. */
export function audioFileProblem(file: AudioFileFacts): string | undefined {
	if (file.size === undefined || !Number.isFinite(file.size)) return 'has an unknown size';
	if (file.size <= 0) return 'is empty (0 bytes)';
	if (!audioContentType(file.fileName, file.mimeType, file.firstBytes)) {
		const extension = extensionOf(file.fileName);
		const said = [
			extension ? `extension ".${extension}"` : 'no extension',
			file.mimeType ? `type ${file.mimeType}` : 'no type',
		]
			.filter(Boolean)
			.join(', ');
		return `is not an audio file the service accepts (${said})`;
	}
	return undefined;
}

/**
 * Names for the files of one transaction: each file keeps its own name (path parts and characters
 * that would break a storage key removed) and ends in an extension the service reads, that of its
 * content type (`.opus` → `.ogg`; one added to a name without one); unnamed files get
 * `recording-<n>.<ext>`; repeated names get `-2`, `-3`… so no file overwrites another in the
 * transaction's folder.
 */
export function storageFileNames(
	files: Array<{ fileName: string | undefined; contentType: string }>,
): string[] {
	const used = new Set<string>();
	return files.map((file, index) => {
		const extension = EXTENSION_BY_CONTENT_TYPE[file.contentType] ?? 'audio';
		const own = cleanFileName(file.fileName);
		const base = own
			? withAcceptedExtension(own, extension)
			: `recording-${index + 1}.${extension}`;
		let candidate = base;
		for (let n = 2; used.has(candidate.toLowerCase()); n++) candidate = withSuffix(base, n);
		used.add(candidate.toLowerCase());
		return candidate;
	});
}

/** The name as it is when it ends in an accepted extension; another audio extension replaced; else one added. */
function withAcceptedExtension(fileName: string, extension: string): string {
	const own = extensionOf(fileName);
	if (ACCEPTED_EXTENSIONS.includes(own)) return fileName;
	if (AUDIO_CONTENT_TYPES[own])
		return `${fileName.slice(0, fileName.length - own.length)}${extension}`;
	return `${fileName}.${extension}`;
}

function cleanFileName(fileName: string | undefined): string {
	if (!fileName) return '';
	const base = fileName.split(/[\\/]/).pop() ?? '';
	// Control characters, quotes and characters with a meaning in URLs or storage keys go.
	return [...base]
		.map((character) =>
			isControlCharacter(character) || FILE_NAME_UNSAFE.has(character) ? '_' : character,
		)
		.join('')
		.replace(/^\.+/, '')
		.trim()
		.slice(0, 200);
}

const FILE_NAME_UNSAFE: ReadonlySet<string> = new Set('"#%?*<>|:{}$');

function isControlCharacter(character: string): boolean {
	const code = character.charCodeAt(0);
	return code < 32 || code === 127;
}

function withSuffix(fileName: string, n: number): string {
	const dot = fileName.lastIndexOf('.');
	return dot <= 0 ? `${fileName}-${n}` : `${fileName.slice(0, dot)}-${n}${fileName.slice(dot)}`;
}

/** The 11 input languages of [IFD §2.5]. */
export const INPUT_LANGUAGES: ReadonlyArray<{ id: string; name: string }> = [
	{ id: 'en-IN', name: 'English (India)' },
	{ id: 'en-US', name: 'English (US)' },
	{ id: 'hi', name: 'Hindi' },
	{ id: 'gu', name: 'Gujarati' },
	{ id: 'kn', name: 'Kannada' },
	{ id: 'ml', name: 'Malayalam' },
	{ id: 'ta', name: 'Tamil' },
	{ id: 'te', name: 'Telugu' },
	{ id: 'bn', name: 'Bengali' },
	{ id: 'mr', name: 'Marathi' },
	{ id: 'pa', name: 'Punjabi' },
];

/**
 * Language ids from a multi-select or an expression ("en-IN, hi", ["hi"]). Returns the ids, and
 * those that are not among [IFD §2.5]'s (matched case-insensitively and returned as documented).
 */
export function readInputLanguages(value: unknown): { ids: string[]; unknown: string[] } {
	const raw: unknown[] = Array.isArray(value)
		? value
		: typeof value === 'string'
			? value.split(/[,;\s]+/)
			: [];
	const ids: string[] = [];
	const unknown: string[] = [];
	for (const entry of raw) {
		const wanted = String(entry ?? '').trim();
		if (wanted === '') continue;
		const match = INPUT_LANGUAGES.find(
			(language) => language.id.toLowerCase() === wanted.toLowerCase(),
		);
		if (!match) unknown.push(wanted);
		else if (!ids.includes(match.id)) ids.push(match.id);
	}
	return { ids, unknown };
}
