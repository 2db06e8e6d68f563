/**
 * The storage hosts, never with a token: a recording's upload to the presigned storage URL (upload
 * step 2 of the transaction flow, [EKA-V2] file-upload.mdx: one `multipart/form-data` POST per file,
 * every presigned field, then the `file` part last), the bytes of an upload (the session's raw audio
 * upload sends the same body without the frame: uploadBody.ts), and downloads from links the
 * service gives on another host (a prescription PDF, a session's audio). All go through n8n's plain
 * `httpRequest` helper, so no token, `auth` header or client-id reaches another host; no redirect is
 * followed.
 */
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
import {
	multipartFileBody,
	type MultipartFrame,
	type StorageFile,
	type StorageTarget,
	type UploadBody,
} from './uploadBody';

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
			const upload = multipartFileBody(target, file);
			let answer: {
				statusCode?: number;
				body?: unknown;
				headers?: Record<string, string | string[] | undefined>;
			};
			try {
				const body = await upload.open();
				answer = (await ctx.helpers.httpRequest(
					storageRequest(target, upload.frame, body, file.size, signal),
				)) as typeof answer;
			} catch (error) {
				if (upload.changedSize(error)) throw fileSizeChangedError(ctx, file.label, itemIndex);
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
