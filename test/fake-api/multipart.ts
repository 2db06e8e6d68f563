/**
 * A streaming `multipart/form-data` parser for the fake storage endpoint. It never holds a file
 * part in memory: file bytes are hashed (SHA-256) and counted as they pass; only small field values
 * are kept (bounded). It reports the parts in order, so a caller can check that `file` came last.
 *
 * Strict where a real client could go wrong: CRLF line ends, a boundary line at the start (a
 * preamble is counted, not allowed silently), a closing boundary, header block size.
 */
import { createHash, type Hash } from 'node:crypto';

export interface MultipartField {
	kind: 'field';
	name: string;
	value: string;
}

export interface MultipartFile {
	kind: 'file';
	name: string;
	filename: string;
	contentType: string | undefined;
	size: number;
	sha256: string;
}

export type MultipartPart = MultipartField | MultipartFile;

export interface MultipartResult {
	parts: MultipartPart[];
	/** Bytes read from the stream in all. */
	totalBytes: number;
	preambleBytes: number;
	epilogueBytes: number;
	/** Set when the body is not well-formed multipart; the parts read up to then are kept. */
	error?: string;
}

export interface MultipartOptions {
	/** A field value longer than this is an error. Default 64 KiB. */
	maxFieldBytes?: number;
	/** Called when a part's headers are read, before its body: e.g. to check the fields so far. */
	onPartStart?(
		part: { name: string; filename: string | undefined; contentType: string | undefined },
		before: MultipartPart[],
	): void;
	/** Called as file bytes arrive (running total of this part). */
	onFileBytes?(bytesSoFar: number): void;
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const MAX_HEADER_BYTES = 16 * 1024;

export function boundaryFromContentType(contentType: string | undefined): string | undefined {
	if (!contentType) return undefined;
	const [type, ...params] = contentType.split(';').map((part) => part.trim());
	if (type.toLowerCase() !== 'multipart/form-data') return undefined;
	for (const param of params) {
		const eq = param.indexOf('=');
		if (eq === -1) continue;
		if (param.slice(0, eq).trim().toLowerCase() !== 'boundary') continue;
		const value = param
			.slice(eq + 1)
			.trim()
			.replace(/^"(.*)"$/, '$1');
		return value.length > 0 && value.length <= 70 ? value : undefined;
	}
	return undefined;
}

type State = 'preamble' | 'after-boundary' | 'headers' | 'body' | 'done';

export async function parseMultipart(
	stream: AsyncIterable<Buffer | string>,
	boundary: string,
	options: MultipartOptions = {},
): Promise<MultipartResult> {
	const maxField = options.maxFieldBytes ?? 64 * 1024;
	const firstDelimiter = Buffer.from(`--${boundary}`);
	const delimiter = Buffer.from(`\r\n--${boundary}`);
	const result: MultipartResult = { parts: [], totalBytes: 0, preambleBytes: 0, epilogueBytes: 0 };

	let state: State = 'preamble';
	let buffer: Buffer = Buffer.alloc(0);
	let current:
		| { kind: 'field'; name: string; chunks: Buffer[]; length: number }
		| {
				kind: 'file';
				name: string;
				filename: string;
				contentType: string | undefined;
				hash: Hash;
				size: number;
		  }
		| undefined;

	const fail = (message: string): void => {
		result.error ??= message;
	};

	const emitBody = (bytes: Buffer): string | undefined => {
		if (!current || bytes.length === 0) return undefined;
		if (current.kind === 'field') {
			current.length += bytes.length;
			if (current.length > maxField)
				return `field "${current.name}" is longer than ${maxField} bytes`;
			current.chunks.push(bytes);
		} else {
			current.hash.update(bytes);
			current.size += bytes.length;
			options.onFileBytes?.(current.size);
		}
		return undefined;
	};

	const finishPart = () => {
		if (!current) return;
		if (current.kind === 'field') {
			result.parts.push({
				kind: 'field',
				name: current.name,
				value: Buffer.concat(current.chunks, current.length).toString('utf8'),
			});
		} else {
			result.parts.push({
				kind: 'file',
				name: current.name,
				filename: current.filename,
				contentType: current.contentType,
				size: current.size,
				sha256: current.hash.digest('hex'),
			});
		}
		current = undefined;
	};

	for await (const raw of stream) {
		const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
		result.totalBytes += chunk.length;
		if (result.error) continue; // after an error: keep counting (and draining) the rest
		if (state === 'done') {
			result.epilogueBytes += chunk.length;
			continue;
		}
		buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);

		for (;;) {
			if (state === 'preamble') {
				const at = buffer.indexOf(firstDelimiter);
				if (at === -1) {
					// Keep what may be the start of the boundary.
					const keep = Math.min(buffer.length, firstDelimiter.length - 1);
					result.preambleBytes += buffer.length - keep;
					buffer = buffer.subarray(buffer.length - keep);
					break;
				}
				result.preambleBytes += at;
				buffer = buffer.subarray(at + firstDelimiter.length);
				state = 'after-boundary';
				continue;
			}
			if (state === 'after-boundary') {
				if (buffer.length < 2) break;
				if (buffer[0] === 0x2d && buffer[1] === 0x2d) {
					// "--": the closing boundary. What follows is the epilogue (normally CRLF).
					state = 'done';
					result.epilogueBytes += buffer.length - 2;
					buffer = Buffer.alloc(0);
					break;
				}
				if (!buffer.subarray(0, 2).equals(CRLF)) {
					fail('boundary line not followed by CRLF');
					break;
				}
				buffer = buffer.subarray(2);
				state = 'headers';
				continue;
			}
			if (state === 'headers') {
				const end = buffer.indexOf(HEADER_END);
				if (end === -1) {
					if (buffer.length > MAX_HEADER_BYTES) {
						fail('part headers too long');
						break;
					}
					break;
				}
				const headers = parseHeaders(buffer.subarray(0, end).toString('utf8'));
				buffer = buffer.subarray(end + HEADER_END.length);
				const disposition = parseDisposition(headers['content-disposition']);
				if (!disposition || disposition.type !== 'form-data' || disposition.name === undefined) {
					fail('part without Content-Disposition: form-data; name="…"');
					break;
				}
				const contentType = headers['content-type'];
				options.onPartStart?.(
					{ name: disposition.name, filename: disposition.filename, contentType },
					[...result.parts],
				);
				current =
					disposition.filename !== undefined
						? {
								kind: 'file',
								name: disposition.name,
								filename: disposition.filename,
								contentType,
								hash: createHash('sha256'),
								size: 0,
							}
						: { kind: 'field', name: disposition.name, chunks: [], length: 0 };
				state = 'body';
				continue;
			}
			if (state === 'body') {
				const at = buffer.indexOf(delimiter);
				if (at === -1) {
					// Everything but a possible partial delimiter at the end is part data.
					const safe = buffer.length - (delimiter.length - 1);
					if (safe > 0) {
						const problem = emitBody(buffer.subarray(0, safe));
						if (problem) {
							fail(problem);
							break;
						}
						buffer = buffer.subarray(safe);
					}
					// Copy the small remainder so the big chunk it came from can be freed.
					buffer = Buffer.from(buffer);
					break;
				}
				const problem = emitBody(buffer.subarray(0, at));
				if (problem) {
					fail(problem);
					break;
				}
				finishPart();
				buffer = buffer.subarray(at + delimiter.length);
				state = 'after-boundary';
				continue;
			}
			break;
		}
	}
	if (!result.error && state !== 'done')
		fail(
			state === 'body'
				? 'body ended inside a part (no closing boundary)'
				: 'body ended before the closing boundary',
		);
	return result;
}

function parseHeaders(block: string): Record<string, string> {
	const headers: Record<string, string> = {};
	for (const line of block.split('\r\n')) {
		const colon = line.indexOf(':');
		if (colon <= 0) continue;
		headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
	}
	return headers;
}

/** `form-data; name="x"; filename="y"` → {type, name, filename}; quoted values with %22 escapes. */
export function parseDisposition(
	value: string | undefined,
): { type: string; name?: string; filename?: string } | undefined {
	if (!value) return undefined;
	const [type, ...rest] = value.split(';');
	const result: { type: string; name?: string; filename?: string } = {
		type: type.trim().toLowerCase(),
	};
	const text = rest.join(';');
	const pattern = /\s*([a-zA-Z*]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))\s*;?/g;
	for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
		const key = match[1].toLowerCase();
		const raw = match[2] !== undefined ? match[2] : (match[3] ?? '').trim();
		const decoded = raw.replace(/%22/g, '"').replace(/%0D/g, '\r').replace(/%0A/g, '\n');
		if (key === 'name') result.name = decoded;
		if (key === 'filename') result.filename = decoded;
	}
	return result;
}
