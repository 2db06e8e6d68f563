/**
 * The bytes of an upload, opened afresh for every attempt: a storage upload's `multipart/form-data`
 * body (every presigned field, then the `file` part last, [EKA-V2] file-upload.mdx) or, without the
 * frame, a session's raw audio upload. Files from n8n's binary store (filesystem, S3, database modes)
 * are streamed with the exact Content-Length computed up front, so nothing is held whole in memory
 * (`multipartBody`); a file that changes size while it is sent fails the upload.
 */
import { randomBytes } from 'crypto';
import type { IExecuteFunctions } from 'n8n-workflow';

/** What n8n's `getBinaryStream` gives: a Node readable stream. */
type BinaryStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

export interface StorageFile {
	/** The name the file is stored under (the end of its key, and the part's filename). */
	fileName: string;
	/**
	 * How messages name the file, e.g. `the file in binary field "data" of item 0`. Not the file
	 * name: recordings are often named after the patient.
	 */
	label: string;
	contentType: string;
	/** Exact byte length; the Content-Length is computed from it. */
	size: number;
	/** Opens the file's bytes afresh (called again for a retry). */
	open(): Promise<BinaryStream | Buffer | Base64Text>;
}

/** A file n8n keeps in the item as Base64 text (its default binary mode). */
interface Base64Text {
	base64: string;
}

export interface StorageTarget {
	url: string;
	fields: Record<string, string>;
	folderPath: string;
}

const CRLF = '\r\n';

/** Field names and file names in a part header, escaped as browsers do (WHATWG). */
function headerValue(value: string): string {
	return value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}

export interface MultipartFrame {
	boundary: string;
	head: Buffer;
	tail: Buffer;
	contentLength: number;
}

/**
 * Everything of the body except the file's bytes: each presigned field (with `key` set to the
 * folder plus the file name), then the file part's header; the tail closes the body.
 */
export function multipartFrame(
	target: StorageTarget,
	file: Pick<StorageFile, 'fileName' | 'contentType' | 'size'>,
	boundary = newBoundary(),
): MultipartFrame {
	const fields: Array<[string, string]> = [];
	const key = `${target.folderPath}${file.fileName}`;
	if (!Object.prototype.hasOwnProperty.call(target.fields, 'key')) fields.push(['key', key]);
	for (const [name, value] of Object.entries(target.fields))
		fields.push([name, name === 'key' ? key : value]);

	let head = '';
	for (const [name, value] of fields) {
		head += `--${boundary}${CRLF}Content-Disposition: form-data; name="${headerValue(name)}"${CRLF}${CRLF}${value}${CRLF}`;
	}
	head +=
		`--${boundary}${CRLF}Content-Disposition: form-data; name="file"; filename="${headerValue(file.fileName)}"${CRLF}` +
		`Content-Type: ${file.contentType}${CRLF}${CRLF}`;
	const headBytes = Buffer.from(head, 'utf8');
	const tailBytes = Buffer.from(`${CRLF}--${boundary}--${CRLF}`, 'utf8');
	return {
		boundary,
		head: headBytes,
		tail: tailBytes,
		contentLength: headBytes.length + file.size + tailBytes.length,
	};
}

function newBoundary(): string {
	return `----ClinicScribeBoundary${randomBytes(16).toString('hex')}`;
}

/** Raised while the body is produced when the file does not have the size it was announced with. */
class FileSizeChanged extends Error {
	constructor(
		readonly expected: number,
		readonly actual: number,
	) {
		super(`expected ${expected} bytes, read ${actual}`);
	}
}

/**
 * What an upload sends: the stream n8n's binary store gives, framed as it passes; or, for a file
 * n8n holds in memory, one buffer.
 */
export type UploadBody = BinaryStream | Buffer;

/**
 * The multipart body: head, the file's bytes, tail, with exactly `size` file bytes.
 *
 * A file in n8n's binary store (filesystem, S3 or database mode) is streamed: the stream n8n's
 * `getBinaryStream` gives is composed (`readable.compose`, stable since Node 22.17 and 24, which
 * n8n 2.41 requires) with a generator that sends the head first, passes each chunk on as it is
 * read, checks the size and sends the tail. Memory stays at a few chunks whatever the file size:
 * the source is read only as the socket drains.
 *
 * A file n8n holds in memory (its `default` binary mode keeps Base64 text in the item) has no stream
 * to compose with: its bytes are decoded straight into one buffer holding the whole body (one copy
 * of the file, the copy n8n's own nodes make in that mode). docs/verification.md gives the measured
 * cost.
 */
function multipartBody(
	source: BinaryStream | Buffer | Base64Text,
	frame: MultipartFrame,
	size: number,
	onSizeChanged: (error: FileSizeChanged) => void,
): UploadBody {
	const sizeChanged = (actual: number): FileSizeChanged => {
		const error = new FileSizeChanged(size, actual);
		onSizeChanged(error);
		return error;
	};
	if (Buffer.isBuffer(source) || !isStream(source))
		return inMemoryBody(source, frame, size, sizeChanged);
	async function* framed(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer> {
		if (frame.head.length > 0) yield frame.head;
		let sent = 0;
		for await (const chunk of chunks) {
			const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			sent += bytes.length;
			// Never send more bytes than the Content-Length announced.
			if (sent > size) throw sizeChanged(sent);
			if (bytes.length >= WHOLE_CHUNK_BYTES) {
				// The store read the whole file into memory at once (the database mode gives it as one
				// chunk): passed on as it is, the socket takes it in one write, with no read-ahead to bound.
				yield bytes;
				continue;
			}
			// Passed on as views (no copy) of at most BODY_ITEM_BYTES: the composed stream reads up to
			// 16 items ahead of a slower socket, so small items keep that read-ahead of fresh reads small.
			for (let at = 0; at < bytes.length; at += BODY_ITEM_BYTES)
				yield bytes.subarray(at, at + BODY_ITEM_BYTES);
		}
		if (sent !== size) throw sizeChanged(sent);
		if (frame.tail.length > 0) yield frame.tail;
	}
	// An error in `framed` ends the read of the binary store too, as does the end of the file.
	return source.compose<BinaryStream>(framed);
}

/** The largest item the body stream passes on from a file read piece by piece. */
const BODY_ITEM_BYTES = 128 * 1024;

/**
 * A chunk this large was not read piece by piece (n8n's stores read 512 KiB at a time when asked to
 * stream): the store held the whole file already.
 */
const WHOLE_CHUNK_BYTES = 8 * 1024 * 1024;

const NO_FRAME: MultipartFrame = {
	boundary: '',
	head: Buffer.alloc(0),
	tail: Buffer.alloc(0),
	contentLength: 0,
};

/**
 * The file's bytes alone (a session's raw audio upload): the same body as the multipart one with
 * nothing before or after the file. Never more than `size` bytes; a buffer of the right size is
 * sent as it is.
 */
function rawBody(
	source: BinaryStream | Buffer | Base64Text,
	size: number,
	onSizeChanged: (error: FileSizeChanged) => void,
): UploadBody {
	if (Buffer.isBuffer(source) && source.length === size) return source;
	return multipartBody(source, { ...NO_FRAME, contentLength: size }, size, onSizeChanged);
}

/** Size of a piece of Base64 text decoded at a time (a multiple of 4, so each piece decodes on its own). */
const BASE64_PIECE_CHARS = 1024 * 1024;

function isStream(source: BinaryStream | Base64Text): source is BinaryStream {
	return typeof (source as { pipe?: unknown }).pipe === 'function';
}

/**
 * An in-memory file's body as one buffer: the head, the file, the tail. Base64 text is decoded a
 * piece at a time straight into place, so the body is the only copy made.
 */
function inMemoryBody(
	source: Buffer | Base64Text,
	frame: MultipartFrame,
	size: number,
	sizeChanged: (actual: number) => FileSizeChanged,
): Buffer {
	if (Buffer.isBuffer(source)) {
		if (source.length !== size) throw sizeChanged(source.length);
		return Buffer.concat([frame.head, source, frame.tail]);
	}
	const body = Buffer.alloc(frame.head.length + size + frame.tail.length);
	frame.head.copy(body, 0);
	let written = 0;
	for (let at = 0; at < source.base64.length; at += BASE64_PIECE_CHARS) {
		const piece = source.base64.slice(at, at + BASE64_PIECE_CHARS);
		const length = Buffer.byteLength(piece, 'base64');
		// Never more bytes than the Content-Length announced (the body has no room for them).
		if (written + length > size) throw sizeChanged(written + length);
		written += body.write(piece, frame.head.length + written, length, 'base64');
	}
	if (written !== size) throw sizeChanged(written);
	frame.tail.copy(body, frame.head.length + size);
	return body;
}

/** Notes a size change where the body is produced: n8n's HTTP client wraps what the body throws. */
interface SizeWatch {
	sizeChanged?: FileSizeChanged;
}

/**
 * Opens the file afresh and gives the body that sends exactly `file.size` bytes of it: framed
 * (multipart) or, without a frame, raw. A size change is thrown while the body is produced and
 * noted in `watch`, which is how the caller tells it apart once the HTTP client has wrapped it.
 */
async function openUploadBody(
	file: Pick<StorageFile, 'open' | 'size'>,
	frame: MultipartFrame | undefined,
	watch: SizeWatch,
): Promise<UploadBody> {
	const opened = await file.open();
	const noteSizeChange = (error: FileSizeChanged) => (watch.sizeChanged = error);
	return frame
		? multipartBody(opened, frame, file.size, noteSizeChange)
		: rawBody(opened, file.size, noteSizeChange);
}

/**
 * A file's body, opened afresh for each attempt: framed (multipart) or raw. n8n's HTTP client wraps
 * what the body throws, so `changedSize` tells whether a failure was the file changing size.
 */
function watchedFileBody(
	file: Pick<StorageFile, 'open' | 'size'>,
	frame: MultipartFrame | undefined,
): { open: () => Promise<UploadBody>; changedSize: (error: unknown) => boolean } {
	const watch: SizeWatch = {};
	return {
		open: async () => await openUploadBody(file, frame, watch),
		changedSize: (error: unknown) =>
			error instanceof FileSizeChanged || watch.sizeChanged !== undefined,
	};
}

/**
 * A file as a storage upload's body: the presigned fields, then the file (the frame, with a fresh
 * boundary for each upload).
 */
export function multipartFileBody(target: StorageTarget, file: StorageFile) {
	const frame = multipartFrame(target, file);
	return { frame, ...watchedFileBody(file, frame) };
}

/**
 * A file as the raw body of a clinic API call (a session's audio upload): the same bytes as a
 * storage upload without the multipart frame.
 */
export function rawFileBody(file: Pick<StorageFile, 'open' | 'size'>, contentType: string) {
	return { ...watchedFileBody(file, undefined), contentLength: file.size, contentType };
}
