/**
 * The storage hosts, never with a token: a recording's upload to the presigned storage URL (upload
 * step 2 of the transaction flow, [EKA-V2] file-upload.mdx: one `multipart/form-data` POST per file,
 * every presigned field, then the `file` part last), the bytes of an upload (the session's raw audio
 * upload sends the same body without the frame), and downloads from links the service gives on
 * another host (a prescription PDF, a session's audio). All go through n8n's plain `httpRequest`
 * helper, so no token, `auth` header or client-id reaches another host; no redirect is followed.
 *
 * Files from n8n's binary store (filesystem, S3, database modes) are streamed with the exact
 * Content-Length computed up front, so nothing is held whole in memory (`multipartBody`).
 */
import { randomBytes } from 'crypto';
import {
	NodeApiError,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type JsonObject,
} from 'n8n-workflow';

import type { ClinicApiContext } from './apiCall';
import {
	describeNetworkFailure,
	fileSizeChangedError,
	requestStoppedError,
	type CallLabel,
} from './errors';
import { executionCancelSignal } from './request';
import { mayRetry, PRODUCTION_POLICY, withRetries } from './retryPolicy';

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

type StorageUploadOutcome =
	| { kind: 'stored'; statusCode: number; attempts: number }
	/** 403: the presigned policy expired or was refused; a fresh presign may help. */
	| { kind: 'refused'; statusCode: number; detail: string };

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

interface MultipartFrame {
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
type UploadBody = BinaryStream | Buffer;

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
 * A file as the raw body of a clinic API call (a session's audio upload): the same bytes as a
 * storage upload without the multipart frame, opened afresh for each attempt. n8n's HTTP client
 * wraps what the body throws, so `changedSize` tells whether a failure was the file changing size.
 */
export function rawFileBody(file: Pick<StorageFile, 'open' | 'size'>, contentType: string) {
	const watch: SizeWatch = {};
	return {
		open: async () => await openUploadBody(file, undefined, watch),
		contentLength: file.size,
		contentType,
		changedSize: (error: unknown) =>
			error instanceof FileSizeChanged || watch.sizeChanged !== undefined,
	};
}

/**
 * Stores one file. Returns `stored` (204, also 200/201) or `refused` (403: the presigned policy
 * expired or was refused, a fresh presign may help); sends it again, opened afresh, when the rule of
 * what may be sent again says so (`mayRetry`: a file stored twice under its name is stored once);
 * throws a NodeApiError for anything else.
 */
export async function uploadToStorage(
	ctx: IExecuteFunctions,
	target: StorageTarget,
	file: StorageFile,
	itemIndex: number,
): Promise<StorageUploadOutcome> {
	const signal = ctx.getExecutionCancelSignal?.();
	const stopped = () =>
		requestStoppedError(ctx, { purpose: `the upload of ${file.label}`, itemIndex });
	return await withRetries<StorageUploadOutcome>(
		PRODUCTION_POLICY.storageRetry,
		async (attempt) => {
			const watch: SizeWatch = {};
			const frame = multipartFrame(target, file);
			let answer: {
				statusCode?: number;
				body?: unknown;
				headers?: Record<string, string | string[] | undefined>;
			};
			try {
				const body = await openUploadBody(file, frame, watch);
				answer = (await ctx.helpers.httpRequest(
					storageRequest(target, frame, body, file.size, signal),
				)) as typeof answer;
			} catch (error) {
				if (error instanceof FileSizeChanged || watch.sizeChanged)
					throw fileSizeChangedError(ctx, file.label, itemIndex);
				const failure = describeNetworkFailure(error);
				const unreachable = new NodeApiError(ctx.getNode(), { message: failure } as JsonObject, {
					message: `Could not upload ${file.label} to the storage address: ${failure}`,
					description: `Tried ${attempt} times. Check that n8n can reach the storage host of the presigned URL (an outbound proxy or firewall may block it), then run again.`,
					itemIndex,
				});
				if (mayRetry({ noAnswer: error })) return { kind: 'retry', error: unreachable };
				// An upload Stop ended fails as stopped, not as unreachable.
				throw signal?.aborted ? stopped() : unreachable;
			}
			const statusCode = Number(answer.statusCode ?? 0);
			if (statusCode === 200 || statusCode === 201 || statusCode === 204)
				return { kind: 'done', value: { kind: 'stored', statusCode, attempts: attempt } };
			if (statusCode === 403)
				return {
					kind: 'done',
					value: { kind: 'refused', statusCode, detail: storageErrorDetail(answer.body) },
				};
			const rejected = storageStatusError(ctx, file, statusCode, answer.body, attempt, itemIndex);
			if (mayRetry({ status: statusCode }))
				return { kind: 'retry', error: rejected, retryAfter: answer.headers?.['retry-after'] };
			throw rejected;
		},
		{ signal, stopped },
	);
}

/** One POST of the file to the storage host. */
function storageRequest(
	target: StorageTarget,
	frame: MultipartFrame,
	body: UploadBody,
	size: number,
	signal: AbortSignal | undefined,
): IHttpRequestOptions {
	const options: IHttpRequestOptions = {
		method: 'POST',
		url: target.url,
		// n8n's HTTP client sends a stream as it is read and a buffer as it is.
		body,
		headers: {
			'Content-Type': `multipart/form-data; boundary=${frame.boundary}`,
			'Content-Length': String(frame.contentLength),
		},
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// Following a redirect would make the HTTP client keep a copy of the whole body to resend it.
		disableFollowRedirect: true,
		encoding: 'text',
		timeout: storageTimeoutMs(size),
	};
	if (signal) options.abortSignal = signal;
	return options;
}

/** S3 answers errors as XML (`<Code>`, `<Message>`); anything else is shown short. */
function storageErrorDetail(body: unknown): string {
	const textBody =
		typeof body === 'string'
			? body
			: body === undefined || body === null
				? ''
				: JSON.stringify(body);
	const code = /<Code>([^<]{1,100})<\/Code>/.exec(textBody)?.[1];
	const message = /<Message>([^<]{1,300})<\/Message>/.exec(textBody)?.[1];
	if (code || message) return [code, message].filter(Boolean).join(': ');
	return textBody.replace(/\s+/g, ' ').trim().slice(0, 200);
}

function storageStatusError(
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

// ─── Downloads from links ────────────────────────────────────────────────────────────────────────

interface LinkRequest extends CallLabel {
	url: string;
	/** Names the link in messages (never the whole link, which may be signed). */
	host: string;
	/** `stream` hands the body on as it arrives; `arraybuffer` reads it whole. */
	encoding: 'arraybuffer' | 'stream';
	accept?: string;
}

/**
 * The 2xx answer of a link on another host. Any other status is sent again when the rule of what
 * may be sent again says so (a download is a read), and then thrown as `refused(statusCode,
 * attempts)` makes it; no answer after the retries is "Could not reach".
 */
export async function getFromLink(
	ctx: ClinicApiContext,
	link: LinkRequest,
	refused: (statusCode: number, attempts: number) => Error,
): Promise<{ statusCode: number; body: unknown; headers: Record<string, unknown> }> {
	const options: IHttpRequestOptions = {
		method: 'GET',
		url: link.url,
		...(link.accept ? { headers: { Accept: link.accept } } : {}),
		encoding: link.encoding,
		timeout: PRODUCTION_POLICY.timeouts.apiCallMs,
	};
	return await sendToLink(
		ctx,
		link,
		options,
		PRODUCTION_POLICY.retry,
		(statusCode, body, attempt) => {
			// A stream of an answer that is not used is let go at once (its socket with it).
			(body as { destroy?: () => void } | undefined)?.destroy?.();
			return refused(statusCode, attempt);
		},
	);
}

interface PutRequest extends CallLabel {
	url: string;
	/** Names the link in messages (never the whole link, which is signed). */
	host: string;
	body: Buffer;
	contentType: string;
}

/**
 * Stores a small body at a presigned PUT URL (a document's markdown, [EKA-OAS]
 * create-update-document.mdx). A PUT stores the body under the URL's key, so a repeat replaces it
 * with the same bytes: it is sent again as the rule of what may be sent again says (the storage
 * upload's attempts). Any answer but 2xx is thrown as `refused(statusCode, detail, attempts)`.
 */
export async function putToLink(
	ctx: ClinicApiContext,
	put: PutRequest,
	refused: (statusCode: number, detail: string, attempts: number) => Error,
): Promise<{ statusCode: number; attempts: number }> {
	const options: IHttpRequestOptions = {
		method: 'PUT',
		url: put.url,
		body: put.body,
		headers: { 'Content-Type': put.contentType, 'Content-Length': String(put.body.length) },
		encoding: 'text',
		timeout: storageTimeoutMs(put.body.length),
	};
	const answer = await sendToLink(
		ctx,
		put,
		options,
		PRODUCTION_POLICY.storageRetry,
		(statusCode, body, attempt) => refused(statusCode, storageErrorDetail(body), attempt),
	);
	return { statusCode: answer.statusCode, attempts: answer.attempts };
}

/**
 * One call to a link on another host, through n8n's plain `httpRequest` (no token, no auth
 * header), retried by the one rule: a 2xx is returned, another status is thrown as `refused` makes
 * it (after the retries the rule allows), no answer is "Could not reach". A redirect could lead
 * anywhere; a storage link that redirects is not what the sources describe, so it is reported
 * rather than followed.
 */
async function sendToLink(
	ctx: ClinicApiContext,
	link: CallLabel & { host: string },
	request: IHttpRequestOptions,
	policy: typeof PRODUCTION_POLICY.retry,
	refused: (statusCode: number, body: unknown, attempts: number) => Error,
): Promise<{
	statusCode: number;
	body: unknown;
	headers: Record<string, unknown>;
	attempts: number;
}> {
	const signal = executionCancelSignal(ctx);
	const options: IHttpRequestOptions = {
		...request,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		disableFollowRedirect: true,
		...(signal ? { abortSignal: signal } : {}),
	};
	return await withRetries(
		policy,
		async (attempt) => {
			let response: { statusCode?: number; body?: unknown; headers?: Record<string, unknown> };
			try {
				response = (await ctx.helpers.httpRequest(options)) as typeof response;
			} catch (error) {
				const unreachable = new NodeApiError(ctx.getNode(), { message: 'network' } as JsonObject, {
					message: `Could not reach ${link.host} for ${link.purpose}: ${describeNetworkFailure(error)}`,
					description: `Check that n8n can reach ${link.host}, then run again${attempt > 1 ? ` (tried ${attempt} times)` : ''}.`,
					itemIndex: link.itemIndex,
				});
				if (mayRetry({ noAnswer: error })) return { kind: 'retry', error: unreachable };
				// A call Stop ended fails as stopped, not as unreachable.
				throw signal?.aborted ? requestStoppedError(ctx, link) : unreachable;
			}
			const statusCode = Number(response.statusCode ?? 0);
			const headers = response.headers ?? {};
			if (statusCode >= 200 && statusCode < 300)
				return {
					kind: 'done',
					value: { statusCode, body: response.body, headers, attempts: attempt },
				};
			const error = refused(statusCode, response.body, attempt);
			if (!mayRetry({ status: statusCode })) throw error;
			const retryAfter = headers['retry-after'];
			return {
				kind: 'retry',
				error,
				retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
			};
		},
		{ signal, stopped: () => requestStoppedError(ctx, link) },
	);
}
