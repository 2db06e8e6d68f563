/**
 * What a failure says: reading what came back (an error body of the clinic API, a redirect's target,
 * a failure without an answer, an error's chain of causes), the advice for each known refusal, the
 * errors a call ends with in words a user can act on, and scrubbing secrets out of all of it. Knows
 * no node context: the credential's token exchange uses it too.
 */
import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';

import { classifyTemplateRefusal } from '../shared/templateRecords';
import { capitalised, textOf } from '../shared/values';

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

// ─── Scrubbing ───────────────────────────────────────────────────────────────────────────────────

const REDACTED = '[redacted]';

/** A value to remove from text: a secret as it is, or a pattern (a mobile number in any spelling). */
type Redaction = string | RegExp;

/**
 * Never let a secret reach a message, whatever the server echoed back: a copy of a text or a JSON
 * value (an API answer: every string in it, keys included) with the credential's values (`secrets`)
 * as they are, and the values a call sent (`sent`: patient data, a signing key), a 10-digit mobile
 * number in any spelling, replaced. Used on every error answer as it arrives, so no message built
 * from it can carry a secret.
 */
export function scrubSecrets<T>(
	value: T,
	secrets: Array<string | undefined>,
	sent: string[] = [],
): T {
	return scrubCopy(value, redactionsOf(secrets, sent), new WeakSet()) as T;
}

function scrubText(text: string, redactions: Redaction[]): string {
	let result = text;
	for (const secret of redactions) {
		result =
			typeof secret === 'string'
				? result.split(secret).join(REDACTED)
				: result.replace(secret, REDACTED);
	}
	return result;
}

/**
 * What to remove, longest first, so a secret that contains another is replaced whole; too short ones
 * are skipped. A value a call sent that is a 10-digit mobile number is removed in any spelling.
 */
function redactionsOf(secrets: Array<string | undefined>, sent: string[]): Redaction[] {
	const all = [
		...secrets,
		...sent.map((value) => (/^\d{10}$/.test(value) ? mobileNumberPattern(value) : value)),
	];
	const strings = all
		.filter((s): s is string => typeof s === 'string' && s.length >= 4)
		.sort((a, b) => b.length - a.length);
	const patterns = all.filter((s): s is RegExp => s instanceof RegExp);
	return [...patterns, ...strings];
}

/**
 * A 10-digit number as an API may echo it: digits apart by spaces, dashes, dots or brackets, and
 * after a +91, 0091, 91 or 0 prefix.
 */
function mobileNumberPattern(digits: string): RegExp {
	const separator = '[\\s\\-.()]*';
	const body = [...digits].join(separator);
	return new RegExp(`[(]?(?:(?:\\+|00)?91${separator}|0${separator})?${body}`, 'g');
}

function scrubCopy(value: unknown, redactions: Redaction[], seen: WeakSet<object>): unknown {
	if (typeof value === 'string') return scrubText(value, redactions);
	if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return value;
	if (seen.has(value)) return undefined;
	seen.add(value);
	if (Array.isArray(value)) return value.map((entry) => scrubCopy(entry, redactions, seen));
	const copy: Record<string, unknown> = {};
	for (const [key, entry] of Object.entries(value))
		copy[scrubText(key, redactions)] = scrubCopy(entry, redactions, seen);
	return copy;
}

/**
 * Replaces every secret (as `scrubSecrets` takes them) in an error as n8n keeps it, in place:
 * message, description, messages, context, errorResponse, stack and cause, and every object below
 * them (n8n stores these with the execution and shows them).
 */
export function scrubErrorInPlace(
	error: unknown,
	secrets: Array<string | undefined>,
	sent: string[] = [],
): void {
	const redactions = redactionsOf(secrets, sent);
	if (redactions.length === 0) return;
	scrubObjectInPlace(error, redactions, new WeakSet(), 0);
}

const ERROR_TEXT_KEYS = ['message', 'description', 'stack'];

function scrubObjectInPlace(
	target: unknown,
	redactions: Redaction[],
	seen: WeakSet<object>,
	depth: number,
): void {
	if (typeof target !== 'object' || target === null || seen.has(target) || depth > 8) return;
	seen.add(target);
	const record = target as Record<string, unknown>;
	const keys = new Set([
		...Object.keys(record),
		...(target instanceof Error ? [...ERROR_TEXT_KEYS, 'cause'] : []),
	]);
	for (const key of keys) {
		let entry: unknown;
		try {
			entry = record[key];
		} catch {
			continue;
		}
		if (typeof entry === 'string') {
			const clean = scrubText(entry, redactions);
			if (clean !== entry) {
				try {
					record[key] = clean;
				} catch {
					// A read-only property keeps its value; the error's own fields are writable.
				}
			}
		} else if (typeof entry === 'object' && entry !== null) {
			scrubObjectInPlace(entry, redactions, seen, depth + 1);
		}
	}
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
interface NodeOwner {
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

// ─── Tokens that could not be had ────────────────────────────────────────────────────────────────

/**
 * rejected: the API said no to the credential (or it is incomplete), so the user must fix it;
 * unavailable: the token service did not answer usefully (5xx, 429, network) even after retries;
 * redirected: the token endpoint pointed elsewhere, which is never followed.
 */
type TokenFailureKind = 'rejected' | 'unavailable' | 'redirected';
const TOKEN_FAILURE_KINDS: TokenFailureKind[] = ['rejected', 'unavailable', 'redirected'];

const TOKEN_FAILURE_CODE_PREFIX = 'CLINIC_SCRIBE_TOKEN_';

/**
 * Raised when no token could be had; its message says why, and `kind` what the user can do. Its
 * `errorCode` names the kind too: n8n 1.x wraps it in a NodeApiError that keeps no cause, only that
 * code (as httpCode) and the message (first of its messages). Not `code`: n8n's credential test
 * shows a cause's `code` instead of its message.
 */
export class TokenExchangeError extends Error {
	readonly errorCode: string;

	constructor(
		message: string,
		readonly kind: TokenFailureKind = 'rejected',
	) {
		super(message);
		this.name = 'TokenExchangeError';
		this.errorCode = `${TOKEN_FAILURE_CODE_PREFIX}${kind.toUpperCase()}`;
	}
}

/** A token that could not be had or renewed: what to say, and (when not the kind's) what to do. */
interface TokenProblem {
	message: string;
	kind: TokenFailureKind;
	description?: string;
}

/**
 * The API credential's failed token exchange, as it reaches a call wrapped by n8n: its message is
 * already written for the user. n8n 2.x keeps it as the cause; n8n 1.x keeps only its code (as the
 * NodeApiError's httpCode) and its message, first among the messages.
 */
function tokenExchangeFailureOf(error: unknown): TokenProblem | undefined {
	for (const record of errorChain(error)) {
		if (
			record.name === 'TokenExchangeError' &&
			typeof record.message === 'string' &&
			record.message
		) {
			const kind = TOKEN_FAILURE_KINDS.find((candidate) => candidate === record.kind) ?? 'rejected';
			return { message: record.message, kind };
		}
	}
	const wrapped = errorChain(error)[0] ?? {};
	const kind = TOKEN_FAILURE_KINDS.find(
		(candidate) => wrapped.httpCode === `${TOKEN_FAILURE_CODE_PREFIX}${candidate.toUpperCase()}`,
	);
	if (!kind) return undefined;
	const first = Array.isArray(wrapped.messages) ? wrapped.messages[0] : undefined;
	const message =
		typeof first === 'string' && first
			? first
			: typeof wrapped.message === 'string'
				? wrapped.message
				: '';
	return message ? { message, kind } : undefined;
}

const TOKEN_PROBLEM_ADVICE: Record<TokenFailureKind, string> = {
	rejected:
		'Open the Clinic Scribe API credential, correct it and run its test, then run the workflow again.',
	unavailable:
		'The credential was not rejected: the token service did not answer. Run the workflow again later; if it persists, check that the API is reachable from n8n.',
	redirected:
		"Check the credential's Environment / Base URL: it must be the API's own address (for example https:// and no path), not one that redirects elsewhere.",
};

/**
 * The error for a call that got no token, from what n8n threw: the API credential's failed
 * exchange, or n8n's failed renewal of the OAuth2 credential (`signInCredential`: its name, when the
 * call uses it), with what to do; undefined for any other failure.
 */
export function tokenProblemError(
	ctx: NodeOwner,
	call: CallLabel,
	error: unknown,
	signInCredential?: string,
): NodeApiError | undefined {
	const problem =
		tokenExchangeFailureOf(error) ??
		(signInCredential === undefined ? undefined : signInRenewalFailureOf(error, signInCredential));
	if (!problem) return undefined;
	return new NodeApiError(ctx.getNode(), { message: problem.message } as JsonObject, {
		message: problem.message,
		description: problem.description ?? TOKEN_PROBLEM_ADVICE[problem.kind],
		itemIndex: call.itemIndex,
	});
}

// ─── The OAuth2 credential's own failures ────────────────────────────────────────────────────────

function signInCredentialLabel(name: string): string {
	return name
		? `the Clinic Scribe OAuth2 credential "${name}"`
		: 'the Clinic Scribe OAuth2 credential';
}

/** The credential has no token: nobody connected it (or connecting failed). Nothing was sent. */
export function notConnectedError(
	node: INode,
	credentialName: string,
	request: { purpose: string; itemIndex?: number },
): NodeApiError {
	const message = `${capitalised(signInCredentialLabel(credentialName))} is not connected to a clinic account, so nothing was sent for ${request.purpose}`;
	return new NodeApiError(node, { message } as JsonObject, {
		message,
		description:
			'Open the credential, click Connect ("Connect my account" in older n8n versions) and sign in with the clinic account, then run again.',
		itemIndex: request.itemIndex,
	});
}

/** What to do when the API answered 401 to the renewed token too. */
export function signInTokenRejectedAdvice(credentialName: string, attempts: number): string {
	const tried = attempts > 1 ? ` (tried ${attempts} times)` : '';
	return `The API rejected the clinic account's token even after n8n renewed it. Open ${signInCredentialLabel(credentialName)} and sign in with the clinic account again (its Switch account or Connect button); check that its Environment is the one the account and client belong to.${tried}`;
}

/**
 * Why n8n could not renew the OAuth2 token after a 401, in words, or undefined when the failure was
 * something else. The sign-in provider answers OAuth errors ([RFC6749 §5.2], [EKA-OIDC]); n8n 2.41 turns
 * invalid_grant into a "needs to be reconnected" error of its own, older versions pass it through.
 */
function signInRenewalFailureOf(error: unknown, credentialName: string): TokenProblem | undefined {
	const label = signInCredentialLabel(credentialName);
	const reconnect = `Open ${label} and sign in with the clinic account again (its Switch account or Connect button), then run again.`;
	for (const candidate of errorChain(error)) {
		const failureCause = (candidate.failure as { cause?: unknown } | undefined)?.cause;
		const body = (
			typeof candidate.body === 'object' && candidate.body !== null ? candidate.body : {}
		) as Record<string, unknown>;
		const oauthError = typeof body.error === 'string' ? body.error : undefined;
		if (
			failureCause === 'credential-invalid' ||
			oauthError === 'invalid_grant' ||
			/no refresh token is available/i.test(String(candidate.message))
		) {
			return {
				message: `${capitalised(label)} needs to be reconnected: the sign-in provider no longer accepts its refresh token`,
				kind: 'rejected',
				description: `The clinic account's sign-in expired, was revoked, or its refresh token was already used elsewhere (the provider answered invalid_grant). ${reconnect}`,
			};
		}
		if (oauthError === 'invalid_client' || oauthError === 'unauthorized_client') {
			return {
				message: `The sign-in provider rejected the Client ID or Client Secret of ${label} when n8n renewed the token (${oauthError})`,
				kind: 'rejected',
				description:
					'Correct the Client ID and Client Secret in the credential (the secret may have been rotated where the client was made), then run again.',
			};
		}
		if (oauthError !== undefined) {
			return {
				message: `The sign-in provider refused to renew the token of ${label} (${oauthError})`,
				kind: 'rejected',
				description: reconnect,
			};
		}
		// The token endpoint's answer without an OAuth error (client-oauth2's ResponseError), or its 5xx.
		// The API's own answers other than 401 are returned, not thrown: a thrown 5xx is the token endpoint's.
		const fromTokenEndpoint = candidate.code === 'ESTATUS';
		const status = Number(
			fromTokenEndpoint
				? candidate.status
				: (candidate.response as { status?: unknown } | undefined)?.status,
		);
		if (Number.isInteger(status) && status >= 400 && (fromTokenEndpoint || status !== 401)) {
			return {
				message: `The sign-in provider did not renew the token of ${label} (HTTP ${status})`,
				kind: status >= 500 || status === 429 ? 'unavailable' : 'rejected',
				description:
					status >= 500 || status === 429
						? 'The credential was not rejected: the sign-in provider did not answer. Run the workflow again later.'
						: `Check the credential's Environment (or its Access Token URL), then reconnect the account. ${reconnect}`,
			};
		}
	}
	return undefined;
}
