/**
 * Sending answers (JSON, text, the two error body styles) and reading request bodies (bounded
 * JSON, drained and counted bodies).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TextDecoder } from 'node:util';

import type { ErrorStyle, JsonBody, RecordedRequest } from './types';

export function envelopeError(status: number, code: string, message: string) {
	return { status_code: status, success: false, data: {}, error: { code, message } };
}

export function authError(code: string, message: string) {
	return { code, error: message };
}

/** Lets sendText record the status before the first byte leaves (a test may read the record at once). */
const responseRecords = new WeakMap<ServerResponse, RecordedRequest>();

export function sendText(
	res: ServerResponse,
	status: number,
	text: string,
	headers: Record<string, string> = {},
): void {
	if (res.headersSent || res.destroyed) return;
	const noBody = status === 204 || status === 304 || (status >= 100 && status < 200);
	const payload = noBody ? '' : text;
	const finalHeaders: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8' };
	for (const [name, value] of Object.entries(headers)) finalHeaders[name.toLowerCase()] = value;
	if (noBody) delete finalHeaders['content-type'];
	else finalHeaders['content-length'] = String(Buffer.byteLength(payload));
	const record = responseRecords.get(res);
	if (record) record.status = status; // before the client can see the answer
	res.writeHead(status, finalHeaders);
	res.end(payload);
}

export function sendJson(
	res: ServerResponse,
	status: number,
	value: unknown,
	headers: Record<string, string> = {},
): void {
	sendText(res, status, JSON.stringify(value), {
		'content-type': 'application/json; charset=utf-8',
		...lowerKeys(headers),
	});
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
	return out;
}

/** Parses a Content-Type header value into a lower-case media type and whether it is UTF-8 JSON. */
export function parseMediaType(contentType: string | undefined): {
	mediaType: string | undefined;
	isJson: boolean;
} {
	if (!contentType) return { mediaType: undefined, isJson: false };
	const [type, ...params] = contentType.split(';');
	const mediaType = type.trim().toLowerCase();
	const jsonType =
		mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
	const charset = params
		.map((p) => p.trim().toLowerCase())
		.find((p) => p.startsWith('charset='))
		?.slice('charset='.length)
		.replace(/^"|"$/g, '');
	const charsetOk = charset === undefined || charset === 'utf-8' || charset === 'utf8';
	return { mediaType, isJson: jsonType && charsetOk };
}

/** Links a response to its request record, so sendText can record the status (see responseRecords). */
export function linkResponseRecord(res: ServerResponse, record: RecordedRequest): void {
	responseRecords.set(res, record);
}

/** The request record of a response, when it has one. */
export function recordOfResponse(res: ServerResponse): RecordedRequest | undefined {
	return responseRecords.get(res);
}

export function sendError(
	res: ServerResponse,
	style: ErrorStyle,
	status: number,
	code: string,
	message: string,
	headers: Record<string, string> = {},
): void {
	const body =
		style === 'auth'
			? authError(code.toLowerCase(), message)
			: envelopeError(status, code, message);
	sendJson(res, status, body, headers);
}

export function sendNotFound(res: ServerResponse, method: string, rawPath: string): void {
	sendJson(res, 404, envelopeError(404, 'NOT_FOUND', `no route for ${method} ${rawPath}`));
}

export type BoundedRead =
	| { bytes: Buffer; length: number; tooLarge: false }
	| { length: number; tooLarge: true }
	| 'aborted';

/** Reads at most `limit` bytes; beyond that stops buffering and lets the rest drain unread. */
export function readBoundedBody(req: IncomingMessage, limit: number): Promise<BoundedRead> {
	const declared = Number(req.headers['content-length']);
	if (Number.isFinite(declared) && declared > limit) {
		req.resume();
		return Promise.resolve({ length: declared, tooLarge: true });
	}
	return new Promise((resolve) => {
		const chunks: Buffer[] = [];
		let length = 0;
		const cleanup = () => {
			req.off('data', onData);
			req.off('end', onEnd);
			req.off('error', onAbort);
			req.off('close', onClose);
		};
		const onData = (chunk: Buffer) => {
			length += chunk.length;
			if (length > limit) {
				cleanup();
				req.resume();
				resolve({ length, tooLarge: true });
				return;
			}
			chunks.push(chunk);
		};
		const onEnd = () => {
			cleanup();
			resolve({ bytes: Buffer.concat(chunks, length), length, tooLarge: false });
		};
		const onAbort = () => {
			cleanup();
			resolve('aborted');
		};
		const onClose = () => {
			if (!req.complete) onAbort();
		};
		req.on('data', onData);
		req.on('end', onEnd);
		req.on('error', onAbort);
		req.on('close', onClose);
	});
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function interpretJsonBody(contentType: string | undefined, bytes: Buffer): JsonBody {
	const { mediaType, isJson } = parseMediaType(contentType);
	const body: JsonBody = {
		mediaType,
		isJsonMediaType: isJson,
		length: bytes.length,
		value: undefined,
	};
	if (!isJson || bytes.length === 0) return body;
	try {
		body.value = JSON.parse(utf8.decode(bytes));
	} catch (e) {
		body.parseError = (e as Error).message;
	}
	return body;
}

/**
 * Drains a body nobody reads, counting its bytes into the record; resolves when it ended (or the
 * client went away). Callers answer after this: if they answered first, Node's response-finish
 * handling would dump the request and drop our 'data' listener. Nothing is buffered.
 */
export function drainCounting(req: IncomingMessage, record: RecordedRequest): Promise<void> {
	if (req.readableEnded) return Promise.resolve();
	return new Promise((resolve) => {
		req.on('data', (chunk: Buffer) => {
			record.bodyLength += chunk.length;
		});
		req.on('end', () => {
			if (record.bodyLength > 0 && record.body === undefined) record.body = record.bodyLength;
			resolve();
		});
		req.on('error', () => resolve());
		req.on('close', () => resolve());
		req.resume();
	});
}
