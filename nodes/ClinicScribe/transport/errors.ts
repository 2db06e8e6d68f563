/**
 * What a failure says: reading what came back (an error body of the clinic API, a redirect's target,
 * a failure without an answer, an error's chain of causes), the advice for each known refusal, and
 * the errors a call ends with in words a user can act on; secrets are scrubbed out of all of it
 * (secretScrubbing.ts), a token that could not be had is tokenErrors.ts. Knows no node context: the
 * credential's token exchange uses it too.
 */
import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';

import { classifyTemplateRefusal } from '../shared/answers/templateRecords';
import { capitalised, textOf } from '../shared/values';
import { scrubSecrets } from './secretScrubbing';

// ─── Reading ─────────────────────────────────────────────────────────────────────────────────────

/** An error and the causes it wraps, as plain records, outermost first (n8n wraps up to 3 deep). */
export function errorChain(error: unknown): Array<Record<string, unknown>> {
	const chain: Array<Record<string, unknown>> = [];
	let current: unknown = error;
	while (
		typeof current === 'object' &&
		current !== null &&
		chain.length < 5 &&
		!chain.includes(current as Record<string, unknown>)
	) {
		chain.push(current as Record<string, unknown>);
		current = (current as { cause?: unknown }).cause;
	}
	return chain;
}

interface ErrorFields {
	code?: string;
	message?: string;
}

/**
 * The code and message of an error body. Each group of endpoints has its own shape ([IFD §7] `/dr`,
 * [EKA-AUTH], [EKA-OAS] voice, [EKA-WH]); callers only ever see a code and a message.
 */
export function readErrorFields(body: unknown): ErrorFields {
	if (typeof body === 'string') {
		const trimmed = body.trim();
		return trimmed ? { message: trimmed.slice(0, 300) } : {};
	}
	if (typeof body !== 'object' || body === null) return {};
	const record = body as Record<string, unknown>;
	const error = record.error;
	if (typeof error === 'object' && error !== null) {
		// `/dr` envelope [IFD §7], voice and webhook APIs: {error: {code, message | msg}}.
		const inner = error as Record<string, unknown>;
		return {
			code: textOf(inner.code),
			message: textOf(inner.message) ?? textOf(inner.msg) ?? textOf(record.message),
		};
	}
	// Auth API: {code, error} [EKA-AUTH]; some `/dr` responses add a top-level message [EKA-DT].
	return { code: textOf(record.code), message: textOf(error) ?? textOf(record.message) };
}

/** The host a redirect's Location header points at (a relative location stays on the request's host). */
export function redirectTargetHost(
	location: string | string[] | undefined,
	requestUrl: string | undefined,
): string {
	const value = Array.isArray(location) ? location[0] : location;
	if (!value) return 'an address it did not give (no Location header)';
	try {
		return new URL(value, requestUrl).host;
	} catch {
		return 'an address that is not a valid URL';
	}
}

/**
 * The system error code of a failure without an answer: on the error or a cause (n8n 2.x keeps the
 * HTTP client's error as the cause), or as a NodeApiError's httpCode (n8n 1.x keeps only that:
 * `{httpCode: 'ECONNRESET'}`).
 */
export function networkErrorCode(error: unknown): string | undefined {
	const chain = errorChain(error);
	const code = chain.map((record) => textOf(record.code)).find((found) => found !== undefined);
	const httpCode = textOf(chain[0]?.httpCode);
	return code ?? (httpCode !== undefined && /^E[A-Z_]+$/.test(httpCode) ? httpCode : undefined);
}

/** A short, safe description of a failure that produced no HTTP answer. */
export function describeNetworkFailure(error: unknown): string {
	const blocked = ssrfBlockOf(error);
	if (blocked) {
		return `n8n's SSRF protection does not allow ${blocked}; an n8n administrator can allow it with N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES`;
	}
	const code = networkErrorCode(error);
	switch (code) {
		case 'ECONNREFUSED':
			return 'connection refused';
		case 'ECONNRESET':
		case 'EPIPE':
			return 'the connection was closed before an answer arrived';
		case 'ETIMEDOUT':
		case 'ECONNABORTED':
		case 'ESOCKETTIMEDOUT':
			return 'no answer within the time limit';
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return 'the host name could not be resolved';
		case 'ERR_CANCELED':
			return 'the execution was cancelled';
		default:
			return code ? `network error ${code}` : 'network error';
	}
}

const SSRF_BLOCK_NAMES = ['SsrfBlockedIpError', 'SsrfBlockedHostnameError'];

/**
 * The address n8n's SSRF protection refused (N8N_SSRF_PROTECTION_ENABLED, n8n 2.x; n8n 3.0 blocks
 * more ranges by default), found on the error or its causes; undefined for any other failure.
 */
function ssrfBlockOf(error: unknown): string | undefined {
	const record = errorChain(error).find(
		(candidate) => typeof candidate.name === 'string' && SSRF_BLOCK_NAMES.includes(candidate.name),
	);
	if (!record) return undefined;
	const extra = (
		typeof record.extra === 'object' && record.extra !== null ? record.extra : {}
	) as Record<string, unknown>;
	const target =
		textOf(record.hostname) ?? textOf(extra.hostname) ?? textOf(record.ip) ?? textOf(extra.ip);
	return target ? `"${target}"` : 'the address';
}

// ─── Advice ──────────────────────────────────────────────────────────────────────────────────────

/** What the user should do next, for each failure the API is known to give. */
const ADVICE_BY_CODE: Record<string, string> = {
	UNAUTHORIZED_ACCESS:
		"The token's user or business lacks permission for this call. Ask your workspace admin to grant it, or use a credential of the business that owns the data.",
	PATIENTS_NOT_FOUND:
		'No patient with this mobile number is registered with the business. Only a full 10-digit number that is already registered can be found.',
	BUSINESS_NOT_FOUND:
		'No business matches the token. Check that the credential belongs to the right business and environment (production or sandbox).',
	SERVER_ERROR:
		'The clinic API had an unexpected server error. Try again later; if it persists, contact the API provider.',
	txn_limit_exceeded:
		"The workspace has used its daily transcription quota. Wait until tomorrow, or ask the API provider to raise the workspace's limit.",
};

const UNKNOWN_TEMPLATE_ADVICE =
	'An output template is not one the workspace has (deleted, or a typo). Pick it from the Custom Template ID list, or see the IDs with Template → Get Many.';

const ADVICE_BY_STATUS: Record<number, string> = {
	400: 'The API rejected the request as invalid. Check the node parameters.',
	401: 'The API rejected the access token even after renewing it. Check the Clinic Scribe API credential (run its test), and that it belongs to this environment.',
	403: 'The credential is not allowed to do this. Check its permissions with your workspace admin.',
	404: 'The API found nothing at this address. Check the ids you passed and the credential environment.',
	408: 'The API timed out. Try again later.',
	409: 'The API reports a conflict with the current state.',
	422: 'The API says a required field is missing or invalid. Check the node parameters.',
	429: 'The API is rate limiting this workspace. Wait a while, or send fewer items at once.',
};

/**
 * A refusal that says a template the call names is not one the workspace has. The service says so
 * in words, not in a documented code ("Template 'x' is not available" for a session [EKA-SCRIBE]),
 * read as the template calls' refusals are.
 */
function isUnknownTemplateRefusal(message: string | undefined): boolean {
	return /template/i.test(message ?? '') && classifyTemplateRefusal(400, message) === 'not-found';
}

/** Codes come from the API: only own entries count ("constructor" is no advice). */
function adviceFor(statusCode: number, code: string | undefined, message?: string): string {
	if (code && Object.prototype.hasOwnProperty.call(ADVICE_BY_CODE, code))
		return ADVICE_BY_CODE[code];
	if (statusCode >= 400 && statusCode < 500 && isUnknownTemplateRefusal(message))
		return UNKNOWN_TEMPLATE_ADVICE;
	if (Object.prototype.hasOwnProperty.call(ADVICE_BY_STATUS, statusCode))
		return ADVICE_BY_STATUS[statusCode];
	if (statusCode >= 500) return ADVICE_BY_CODE.SERVER_ERROR;
	return 'Check the node parameters and the credential, then run again.';
}

// ─── The errors a call ends with ─────────────────────────────────────────────────────────────────

/** Whatever can name the node in an error (every n8n function context). */
export interface NodeOwner {
	getNode(): INode;
}

/** What a call was for, for its messages. */
export interface CallLabel {
	/** What the user asked for, in words ("the doctor's services"). */
	purpose: string;
	itemIndex?: number;
	/** Values the caller sent that must not come back in an error (patient data, a signing key). */
	redact?: string[];
}

/** The error for an HTTP answer the caller cannot use: status, API code and message, and advice. */
export function clinicApiError(
	ctx: NodeOwner,
	call: CallLabel,
	statusCode: number,
	body: unknown,
	attempts = 1,
): NodeApiError {
	const fields = readErrorFields(body);
	if (fields.message !== undefined && call.redact?.length)
		fields.message = scrubSecrets(fields.message, [], call.redact);
	const advice = adviceFor(statusCode, fields.code, fields.message);
	const label = fields.code ? `${statusCode} ${fields.code}` : `${statusCode}`;
	const apiSaid = fields.message ? `: ${fields.message}` : '';
	const retried = attempts > 1 ? ` (tried ${attempts} times)` : '';
	return new NodeApiError(
		ctx.getNode(),
		{
			status_code: statusCode,
			code: fields.code ?? null,
			message: fields.message ?? null,
		} as JsonObject,
		{
			message: `The clinic API refused ${call.purpose} (HTTP ${label})${apiSaid}`,
			description: `${advice}${retried}`,
			httpCode: String(statusCode),
			itemIndex: call.itemIndex,
		},
	);
}

/** No HTTP answer came (`description` says why: refused, reset, timed out, SSRF protection). */
export function unreachableError(
	ctx: NodeOwner,
	call: CallLabel,
	description: string,
	attempts: number,
): NodeApiError {
	const advice =
		"Check that the credential's Base URL is right and the API is reachable from n8n, then run again.";
	return new NodeApiError(ctx.getNode(), { message: description } as JsonObject, {
		message: `Could not reach the clinic API for ${call.purpose}: ${description}`,
		description: attempts > 1 ? `Tried ${attempts} times. ${advice}` : advice,
		itemIndex: call.itemIndex,
	});
}

export function redirectRefusedError(
	ctx: NodeOwner,
	call: CallLabel,
	statusCode: number,
	location: string | string[] | undefined,
	requestUrl: string | undefined,
): NodeApiError {
	const host = redirectTargetHost(location, requestUrl);
	return new NodeApiError(ctx.getNode(), { status_code: statusCode } as JsonObject, {
		message: `The clinic API answered ${call.purpose} with a redirect (HTTP ${statusCode}) to ${host}, which was not followed`,
		description:
			"Clinic Scribe never follows a redirect, so the credential's token and keys cannot reach another host. Check the credential's Environment / Base URL: it must be the API's own address (for example https:// and no path).",
		httpCode: String(statusCode),
		itemIndex: call.itemIndex,
	});
}

/** The call was abandoned because its signal fired (Stop, or a caller's deadline). */
export function requestStoppedError(ctx: NodeOwner, call: CallLabel): NodeApiError {
	return new NodeApiError(ctx.getNode(), { message: 'stopped' } as JsonObject, {
		message: `Stopped the request for ${call.purpose} because the execution was stopped`,
		itemIndex: call.itemIndex,
	});
}

/** The answer had a success status but not the documented JSON (a proxy page, a truncated body). */
export function unexpectedBodyError(
	ctx: NodeOwner,
	call: CallLabel,
	statusCode: number,
): NodeApiError {
	return new NodeApiError(ctx.getNode(), { status_code: statusCode } as JsonObject, {
		message: `The clinic API answered ${call.purpose} with a body that is not the documented JSON (HTTP ${statusCode})`,
		description:
			"Run again; if it persists, check that the credential's Base URL points at the clinic API itself and not at a proxy or web page.",
		httpCode: String(statusCode),
		itemIndex: call.itemIndex,
	});
}

/** A file whose bytes were not the size it was announced with (the upload stopped before more went). */
export function fileSizeChangedError(
	ctx: NodeOwner,
	fileLabel: string,
	itemIndex: number,
): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`${capitalised(fileLabel)} changed size while it was uploaded`,
		{
			description:
				'The binary data was announced with one size but had another. Run the workflow again.',
			itemIndex,
		},
	);
}

/**
 * The workspace's daily transcription quota is used up ([EKA-SCRIBE] core/exceptions.py: 400
 * `txn_limit_exceeded`): the upload's runner sends nothing more after one.
 */
export class DailyQuotaError extends NodeApiError {
	constructor(
		node: INode,
		of: { transaction: string } | { session: string },
		stage: 'beforeUpload' | 'afterUpload',
		itemIndex: number | undefined,
	) {
		const named =
			'transaction' in of ? `transaction "${of.transaction}"` : `session "${of.session}"`;
		const uploaded =
			stage === 'afterUpload'
				? 'Its recordings were uploaded but will not be transcribed. '
				: 'Nothing was uploaded. ';
		super(node, { status_code: 400, code: 'txn_limit_exceeded' } as JsonObject, {
			message: `The workspace has used up its daily transcription quota, so ${named} was not started (txn_limit_exceeded)`,
			description: `${uploaded}Run again tomorrow (the quota resets daily; free workspaces get about 20 transcriptions a day), or ask the API provider to raise the workspace's limit.`,
			httpCode: '400',
			itemIndex,
		});
		// n8n shows and stores an error under its class name: this one is a NodeApiError like the others.
		this.name = 'NodeApiError';
	}
}

/** A 400 that is the daily quota's answer (presign, init, a session's create or End). */
export function isDailyQuotaAnswer(body: unknown): boolean {
	const fields = readErrorFields(body);
	return fields.code === 'txn_limit_exceeded' || /txn_limit_exceeded/i.test(fields.message ?? '');
}
