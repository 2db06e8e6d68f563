/**
 * Upload step 2 of the service notes: one `multipart/form-data` POST per file to the presigned
 * storage URL: every presigned field, then the `file` part last. It goes through the plain
 * `httpRequest` helper, never the authenticated one, so no token reaches the storage host.
 *
 * Files from n8n's binary store (filesystem, S3, database modes) are streamed: the body is a
 * readable made from an async generator (multipart head, the binary stream's chunks, the closing
 * boundary) with the exact Content-Length computed up front, so nothing is held whole in memory.
 * The readable is built with the binary stream's own class (`Readable.from`, inherited by every
 * Node stream class), because this package may not import `stream`. In-memory binaries (n8n's
 * default mode: Base64 text in the item) go the same way, decoded a piece at a time as the socket
 * drains, so no whole-file copy is made (a decoded buffer plus a concatenated body held about 3x the
 * file before).
 */
import { createHash, randomBytes } from 'crypto';
import {
	NodeApiError,
	NodeOperationError,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type JsonObject,
} from 'n8n-workflow';

import { abortableSleep } from '../shared/abortableSleep';
import { describeNetworkFailure } from './errorBodies';
import { retryDelayMs, transportPolicyOf } from './retryPolicy';

/** What n8n's `getBinaryStream` gives: a Node readable stream. */
export type BinaryStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

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
export interface Base64Text {
	base64: string;
}

export interface StorageTarget {
	url: string;
	fields: Record<string, string>;
	folderPath: string;
}

export type StorageUploadOutcome =
	| { kind: 'stored'; statusCode: number; attempts: number }
	/** 403: the presigned policy expired or was refused; a fresh presign may help. */
	| { kind: 'refused'; statusCode: number; detail: string };

/**
 * A gate that lets at most `limit` tasks run at once; the others wait in the order they asked.
 * Uses no timer: a finished task hands its place to the next waiting one.
 */
export function concurrencyGate(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
	let running = 0;
	const waiting: Array<() => void> = [];
	return async <T>(task: () => Promise<T>): Promise<T> => {
		if (running >= limit) await new Promise<void>((resolveTurn) => waiting.push(resolveTurn));
		else running++;
		try {
			return await task();
		} finally {
			const next = waiting.shift();
			// The place passes straight to the next task, so `running` stays as it is.
			if (next) next();
			else running--;
		}
	};
}

/**
 * The request is bounded by a wall-clock timeout until the answer starts (n8n's HTTP client), so it
 * grows with the file: a floor, plus the time at a slow 128 KiB/s.
 */
export function storageTimeoutMs(size: number): number {
	return 120_000 + Math.ceil(size / (128 * 1024)) * 1_000;
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
export function multipartFrame(target: StorageTarget, file: Pick<StorageFile, 'fileName' | 'contentType' | 'size'>, boundary = newBoundary()): MultipartFrame {
	const fields: Array<[string, string]> = [];
	const key = `${target.folderPath}${file.fileName}`;
	if (!Object.prototype.hasOwnProperty.call(target.fields, 'key')) fields.push(['key', key]);
	for (const [name, value] of Object.entries(target.fields)) fields.push([name, name === 'key' ? key : value]);

	let head = '';
	for (const [name, value] of fields) {
		head += `--${boundary}${CRLF}Content-Disposition: form-data; name="${headerValue(name)}"${CRLF}${CRLF}${value}${CRLF}`;
	}
	head +=
		`--${boundary}${CRLF}Content-Disposition: form-data; name="file"; filename="${headerValue(file.fileName)}"${CRLF}` +
		`Content-Type: ${file.contentType}${CRLF}${CRLF}`;
	const headBytes = Buffer.from(head, 'utf8');
	const tailBytes = Buffer.from(`${CRLF}--${boundary}--${CRLF}`, 'utf8');
	return { boundary, head: headBytes, tail: tailBytes, contentLength: headBytes.length + file.size + tailBytes.length };
}

function newBoundary(): string {
	return `----ClinicScribeBoundary${randomBytes(16).toString('hex')}`;
}

/** Raised inside the body generator when the file does not have the size it was announced with. */
export class FileSizeChanged extends Error {
	constructor(readonly expected: number, readonly actual: number) {
		super(`expected ${expected} bytes, read ${actual}`);
	}
}

/**
 * The body as a readable: head, the file's chunks as they are read, tail. Memory stays at a few
 * chunks whatever the file size (the readable pulls from the generator only as the socket drains).
 */
export function streamedMultipartBody(
	source: BinaryStream | Buffer | Base64Text,
	frame: MultipartFrame,
	size: number,
	onSizeChanged: (error: FileSizeChanged) => void = () => undefined,
): BinaryStream {
	if (Buffer.isBuffer(source) || !isStream(source)) {
		return inMemoryMultipartBody(source, frame, size, onSizeChanged);
	}
	const stream: BinaryStream = source;
	const readableClass = readableClassOf(stream);
	const sizeChanged = (actual: number): FileSizeChanged => {
		const error = new FileSizeChanged(size, actual);
		onSizeChanged(error);
		return error;
	};
	async function* parts(): AsyncGenerator<Buffer> {
		let sent = 0;
		try {
			yield frame.head;
			for await (const chunk of stream as AsyncIterable<Buffer | string>) {
				const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
				sent += bytes.length;
				// Never send more bytes than the Content-Length announced.
				if (sent > size) throw sizeChanged(sent);
				yield bytes;
			}
			if (sent !== size) throw sizeChanged(sent);
			yield frame.tail;
		} finally {
			// Ends the read of the binary store whether the upload finished, failed or was stopped.
			stream.destroy();
		}
	}
	return readableClass.from(parts(), { objectMode: false, highWaterMark: 1024 * 1024 });
}

const NO_FRAME: MultipartFrame = { boundary: '', head: Buffer.alloc(0), tail: Buffer.alloc(0), contentLength: 0 };

/**
 * The file's bytes alone, as a readable (a session's raw audio upload): the same bounded streaming
 * as the multipart body, with nothing before or after the file. Never more than `size` bytes.
 */
export function streamedRawBody(
	source: BinaryStream | Buffer | Base64Text,
	size: number,
	onSizeChanged: (error: FileSizeChanged) => void = () => undefined,
): BinaryStream {
	return streamedMultipartBody(source, { ...NO_FRAME, contentLength: size }, size, onSizeChanged);
}

/** Size of a piece of an in-memory file (bytes, or Base64 characters: a multiple of 4 so each piece decodes on its own). */
export const IN_MEMORY_PIECE_CHARS = 1024 * 1024;

function isStream(source: BinaryStream | Base64Text): source is BinaryStream {
	return typeof (source as { pipe?: unknown }).pipe === 'function';
}

/**
 * An in-memory file's body: the head, the file in pieces, the tail. A buffer is sent as views of
 * itself (subarray copies nothing); Base64 text is decoded one piece at a time, so only a piece
 * is ever held besides the item's own text.
 */
function inMemoryMultipartBody(
	source: Buffer | Base64Text,
	frame: MultipartFrame,
	size: number,
	onSizeChanged: (error: FileSizeChanged) => void,
): BinaryStream {
	async function* parts(): AsyncGenerator<Buffer> {
		yield frame.head;
		let sent = 0;
		if (Buffer.isBuffer(source)) {
			for (let at = 0; at < source.length; at += IN_MEMORY_PIECE_CHARS) {
				const piece = source.subarray(at, at + IN_MEMORY_PIECE_CHARS);
				sent += piece.length;
				yield piece;
			}
		} else {
			for (let at = 0; at < source.base64.length && sent <= size; at += IN_MEMORY_PIECE_CHARS) {
				const piece = Buffer.from(source.base64.slice(at, at + IN_MEMORY_PIECE_CHARS), 'base64');
				sent += piece.length;
				// Never send more bytes than the Content-Length announced.
				if (sent <= size) yield piece;
			}
		}
		if (sent !== size) {
			const error = new FileSizeChanged(size, sent);
			onSizeChanged(error);
			throw error;
		}
		yield frame.tail;
	}
	// Node's Readable, reached through a stream class crypto gives (Hash is a Transform stream).
	return readableClassOf(createHash('sha256') as unknown as BinaryStream).from(parts(), {
		objectMode: false,
		highWaterMark: 1024 * 1024,
	});
}

interface ReadableClass {
	from(iterable: AsyncIterable<Buffer>, options: { objectMode: boolean; highWaterMark: number }): BinaryStream;
}

/**
 * Node's `Readable`, found through the binary stream's class chain: the topmost class with a
 * static `from` (fs.ReadStream and IncomingMessage inherit Readable's; Duplex/Transform, which an
 * S3 or chunking binary mode may give, have a `from` of their own with other semantics, so the
 * walk goes past them up to Readable).
 */
function readableClassOf(source: BinaryStream): ReadableClass {
	let found: ReadableClass | undefined;
	let candidate: unknown = (source as { constructor?: unknown }).constructor;
	while (typeof candidate === 'function') {
		if (typeof (candidate as Partial<ReadableClass>).from === 'function') found = candidate as unknown as ReadableClass;
		candidate = Object.getPrototypeOf(candidate);
	}
	if (!found) throw new Error('the binary data stream is not a Node.js readable stream');
	return found;
}

interface AttemptResult {
	statusCode: number;
	body: unknown;
}

/**
 * Stores one file. Returns `stored` (204, also 200/201) or `refused` (403); retries 5xx, 408, 429
 * and network failures with a freshly opened file; throws a NodeApiError for anything else.
 */
export async function uploadToStorage(
	ctx: IExecuteFunctions,
	target: StorageTarget,
	file: StorageFile,
	itemIndex: number,
): Promise<StorageUploadOutcome> {
	const signal = ctx.getExecutionCancelSignal?.();
	const retry = transportPolicyOf(ctx).storageRetry;
	for (let attempt = 1; ; attempt++) {
		const lastAttempt = attempt >= retry.attempts;
		let result: AttemptResult;
		const problems: { sizeChanged?: FileSizeChanged } = {};
		try {
			result = await sendOnce(ctx, target, file, problems);
		} catch (error) {
			if (error instanceof FileSizeChanged || problems.sizeChanged) {
				throw new NodeOperationError(ctx.getNode(), `${capitalise(file.label)} changed size while it was uploaded`, {
					description: 'The binary data was announced with one size but had another. Run the workflow again.',
					itemIndex,
				});
			}
			if (signal?.aborted) throw cancelledError(ctx, file, itemIndex);
			if (!lastAttempt) {
				await pause(retryDelayMs(attempt, undefined, retry), signal, () => cancelledError(ctx, file, itemIndex));
				continue;
			}
			throw new NodeApiError(ctx.getNode(), { message: describeNetworkFailure(error) } as JsonObject, {
				message: `Could not upload ${file.label} to the storage address: ${describeNetworkFailure(error)}`,
				description: `Tried ${attempt} times. Check that n8n can reach the storage host of the presigned URL (an outbound proxy or firewall may block it), then run again.`,
				itemIndex,
			});
		}
		const { statusCode } = result;
		if (statusCode === 200 || statusCode === 201 || statusCode === 204) return { kind: 'stored', statusCode, attempts: attempt };
		if (statusCode === 403) return { kind: 'refused', statusCode, detail: storageErrorDetail(result.body) };
		const retryable = statusCode >= 500 || statusCode === 408 || statusCode === 429;
		if (retryable && !lastAttempt) {
			await pause(retryDelayMs(attempt, undefined, retry), signal, () => cancelledError(ctx, file, itemIndex));
			continue;
		}
		throw storageRejectedError(ctx, file, statusCode, result.body, attempt, itemIndex);
	}
}

async function sendOnce(
	ctx: IExecuteFunctions,
	target: StorageTarget,
	file: StorageFile,
	problems: { sizeChanged?: FileSizeChanged },
): Promise<AttemptResult> {
	const frame = multipartFrame(target, file);
	const opened = await file.open();
	if (Buffer.isBuffer(opened) && opened.length !== file.size) throw new FileSizeChanged(file.size, opened.length);
	const body = streamedMultipartBody(opened, frame, file.size, (error) => (problems.sizeChanged = error));
	const options: IHttpRequestOptions = {
		method: 'POST',
		url: target.url,
		body: body as unknown as Buffer,
		headers: {
			'Content-Type': `multipart/form-data; boundary=${frame.boundary}`,
			'Content-Length': String(frame.contentLength),
		},
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// Following a redirect would make the HTTP client keep a copy of the whole body to resend it.
		disableFollowRedirect: true,
		encoding: 'text',
		timeout: storageTimeoutMs(file.size),
	};
	const signal = ctx.getExecutionCancelSignal?.();
	if (signal) options.abortSignal = signal;
	const response = (await ctx.helpers.httpRequest(options)) as { statusCode?: number; body?: unknown };
	return { statusCode: Number(response.statusCode ?? 0), body: response.body };
}

/** S3 answers errors as XML (`<Code>`, `<Message>`); anything else is shown short. */
export function storageErrorDetail(body: unknown): string {
	const textBody = typeof body === 'string' ? body : body === undefined || body === null ? '' : JSON.stringify(body);
	const code = /<Code>([^<]{1,100})<\/Code>/.exec(textBody)?.[1];
	const message = /<Message>([^<]{1,300})<\/Message>/.exec(textBody)?.[1];
	if (code || message) return [code, message].filter(Boolean).join(': ');
	return textBody.replace(/\s+/g, ' ').trim().slice(0, 200);
}

function storageRejectedError(
	ctx: IExecuteFunctions,
	file: StorageFile,
	statusCode: number,
	body: unknown,
	attempts: number,
	itemIndex: number,
): NodeApiError {
	const detail = storageErrorDetail(body);
	return new NodeApiError(ctx.getNode(), { status_code: statusCode } as JsonObject, {
		message: `The storage service refused ${file.label} (HTTP ${statusCode})${detail ? `: ${detail}` : ''}`,
		description:
			statusCode === 400 && /EntityTooLarge|size/i.test(detail)
				? 'The file is larger than the upload policy allows. Split the recording, or ask the API provider about the size limit.'
				: `The transaction was not started. Run again; if it persists, contact the API provider${attempts > 1 ? ` (tried ${attempts} times)` : ''}.`,
		httpCode: String(statusCode),
		itemIndex,
	});
}

/** A refused upload after a fresh presign: the policy itself does not allow this file. */
export function storageRefusedError(ctx: IExecuteFunctions, label: string, detail: string, itemIndex: number): NodeApiError {
	return new NodeApiError(ctx.getNode(), { status_code: 403 } as JsonObject, {
		message: `The storage service refused ${label} (HTTP 403)${detail ? `: ${detail}` : ''}`,
		description:
			'The upload policy was refused even after asking the clinic API for a fresh one. Check that the n8n server clock is right and that the credential belongs to this environment, then run again.',
		httpCode: '403',
		itemIndex,
	});
}

function cancelledError(ctx: IExecuteFunctions, file: StorageFile, itemIndex: number): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `The upload of ${file.label} was stopped because the execution was cancelled`, {
		itemIndex,
	});
}

function capitalise(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}


async function pause(ms: number, signal: AbortSignal | undefined, onCancel: () => Error): Promise<void> {
	try {
		await abortableSleep(ms, signal);
	} catch {
		throw onCancel();
	}
}
