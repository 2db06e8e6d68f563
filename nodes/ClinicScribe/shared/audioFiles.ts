/**
 * Pure rules for the recordings of an upload ([IFD §4.7]; formats wav, mp3, m4a, [EKA-V2]): content
 * type by extension (n8n's MIME type when the extension says nothing), what counts as audio, and
 * the file names a transaction's files are stored under.
 */

/** Content types for storage, by extension, as [EKA-PYSDK] sends them (Python's mimetypes: `.mp3` is audio/mpeg). */
export const AUDIO_CONTENT_TYPES: Readonly<Record<string, string>> = {
	wav: 'audio/wav',
	mp3: 'audio/mpeg',
	m4a: 'audio/mp4',
	ogg: 'audio/ogg',
	webm: 'audio/webm',
	mp4: 'audio/mp4',
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
	'audio/webm': 'audio/webm',
	'video/mp4': 'audio/mp4',
	'video/webm': 'audio/webm',
};

/** Extensions for a MIME type, used when a file has no name to take one from. */
const EXTENSION_BY_CONTENT_TYPE: Readonly<Record<string, string>> = {
	'audio/wav': 'wav',
	'audio/mpeg': 'mp3',
	'audio/mp4': 'm4a',
	'audio/ogg': 'ogg',
	'audio/webm': 'webm',
};

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
 * else from n8n's MIME type; undefined when neither says audio.
 */
export function audioContentType(fileName: string | undefined, mimeType: string | undefined): string | undefined {
	const byExtension = AUDIO_CONTENT_TYPES[extensionOf(fileName)];
	if (byExtension) return byExtension;
	return AUDIO_MIME_TYPES[bareMimeType(mimeType)];
}

export interface AudioFileFacts {
	fileName: string | undefined;
	mimeType: string | undefined;
	/** Bytes; undefined when unknown. */
	size: number | undefined;
}

/** What is wrong with a file as a recording, in words for an error message; undefined when fine. */
export function audioFileProblem(file: AudioFileFacts): string | undefined {
	if (file.size === undefined || !Number.isFinite(file.size)) return 'has an unknown size';
	if (file.size <= 0) return 'is empty (0 bytes)';
	if (!audioContentType(file.fileName, file.mimeType)) {
		const extension = extensionOf(file.fileName);
		const said = [extension ? `extension ".${extension}"` : 'no extension', file.mimeType ? `type ${file.mimeType}` : 'no type']
			.filter(Boolean)
			.join(', ');
		return `is not an audio file the service accepts (${said})`;
	}
	return undefined;
}

/**
 * Names for the files of one transaction: each file keeps its own name (path parts and characters
 * that would break a storage key removed); unnamed files get `recording-<n>.<ext>`; repeated names
 * get `-2`, `-3`… so no file overwrites another in the transaction's folder.
 */
export function storageFileNames(files: Array<{ fileName: string | undefined; contentType: string }>): string[] {
	const used = new Set<string>();
	return files.map((file, index) => {
		const base = cleanFileName(file.fileName) || `recording-${index + 1}.${EXTENSION_BY_CONTENT_TYPE[file.contentType] ?? 'audio'}`;
		let candidate = base;
		for (let n = 2; used.has(candidate.toLowerCase()); n++) candidate = withSuffix(base, n);
		used.add(candidate.toLowerCase());
		return candidate;
	});
}

function cleanFileName(fileName: string | undefined): string {
	if (!fileName) return '';
	const base = fileName.split(/[\\/]/).pop() ?? '';
	// Control characters, quotes and characters with a meaning in URLs or storage keys go.
	return [...base]
		.map((character) => (isControlCharacter(character) || FILE_NAME_UNSAFE.has(character) ? '_' : character))
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
	const raw: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,;\s]+/) : [];
	const ids: string[] = [];
	const unknown: string[] = [];
	for (const entry of raw) {
		const wanted = String(entry ?? '').trim();
		if (wanted === '') continue;
		const match = INPUT_LANGUAGES.find((language) => language.id.toLowerCase() === wanted.toLowerCase());
		if (!match) unknown.push(wanted);
		else if (!ids.includes(match.id)) ids.push(match.id);
	}
	return { ids, unknown };
}
