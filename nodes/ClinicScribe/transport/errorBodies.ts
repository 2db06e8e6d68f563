/**
 * Reading what a failed call gave: the error bodies of the clinic API (each group of endpoints has
 * its own shape: [IFD §7] `/dr`, [EKA-AUTH], [EKA-OAS] voice, [EKA-WH]; callers only ever see a
 * code and a message), a redirect's
 * target, a failure without an answer; and scrubbing secrets out of all of it.
 */
import { textOf } from '../shared/values';

export interface ErrorFields {
	code?: string;
	message?: string;
}

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

export const REDACTED = '[redacted]';

/** A value to remove from text: a secret as it is, or a pattern (a mobile number in any spelling). */
export type Redaction = string | RegExp;

/** Never let a secret the caller holds reach a message, whatever the server echoed back. */
export function scrubSecrets(text: string, secrets: Array<Redaction | undefined>): string {
	let result = text;
	for (const secret of orderedRedactions(secrets)) {
		result = typeof secret === 'string' ? result.split(secret).join(REDACTED) : result.replace(secret, REDACTED);
	}
	return result;
}

/** Longest first, so a secret that contains another is replaced whole; too short ones are skipped. */
function orderedRedactions(secrets: Array<Redaction | undefined>): Redaction[] {
	const strings = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4).sort((a, b) => b.length - a.length);
	const patterns = secrets.filter((s): s is RegExp => s instanceof RegExp);
	return [...patterns, ...strings];
}

/** What to remove for values a call sent: a 10-digit mobile number in any spelling, else the value. */
export function redactionsFor(values: string[]): Redaction[] {
	return values.map((value) => (/^\d{10}$/.test(value) ? mobileNumberPattern(value) : value));
}

/**
 * A 10-digit number as an API may echo it: digits apart by spaces, dashes, dots or brackets, and
 * after a +91, 0091, 91 or 0 prefix.
 */
export function mobileNumberPattern(digits: string): RegExp {
	const separator = '[\\s\\-.()]*';
	const body = [...digits].join(separator);
	return new RegExp(`[(]?(?:(?:\\+|00)?91${separator}|0${separator})?${body}`, 'g');
}

/**
 * A copy of a JSON value (an API answer) with every secret replaced in every string, keys included.
 * Used on every error answer as it arrives, so no message built from it can carry a secret.
 */
export function scrubValue<T>(value: T, secrets: Array<Redaction | undefined>): T {
	return scrubCopy(value, secrets, new WeakSet()) as T;
}

function scrubCopy(value: unknown, secrets: Array<Redaction | undefined>, seen: WeakSet<object>): unknown {
	if (typeof value === 'string') return scrubSecrets(value, secrets);
	if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return value;
	if (seen.has(value)) return undefined;
	seen.add(value);
	if (Array.isArray(value)) return value.map((entry) => scrubCopy(entry, secrets, seen));
	const copy: Record<string, unknown> = {};
	for (const [key, entry] of Object.entries(value)) copy[scrubSecrets(key, secrets)] = scrubCopy(entry, secrets, seen);
	return copy;
}

/**
 * Replaces every secret in an error as n8n keeps it: message, description, messages, context,
 * errorResponse, stack and cause, in place (n8n stores these with the execution and shows them).
 */
export function scrubErrorInPlace(error: unknown, secrets: Array<Redaction | undefined>): void {
	if (orderedRedactions(secrets).length === 0) return;
	scrubObjectInPlace(error, secrets, new WeakSet(), 0);
}

const ERROR_TEXT_KEYS = ['message', 'description', 'stack'];

function scrubObjectInPlace(target: unknown, secrets: Array<Redaction | undefined>, seen: WeakSet<object>, depth: number): void {
	if (typeof target !== 'object' || target === null || seen.has(target) || depth > 8) return;
	seen.add(target);
	const record = target as Record<string, unknown>;
	const keys = new Set([...Object.keys(record), ...(target instanceof Error ? [...ERROR_TEXT_KEYS, 'cause'] : [])]);
	for (const key of keys) {
		let entry: unknown;
		try {
			entry = record[key];
		} catch {
			continue;
		}
		if (typeof entry === 'string') {
			const clean = scrubSecrets(entry, secrets);
			if (clean !== entry) {
				try {
					record[key] = clean;
				} catch {
					// A read-only property keeps its value; the error's own fields are writable.
				}
			}
		} else if (typeof entry === 'object' && entry !== null) {
			scrubObjectInPlace(entry, secrets, seen, depth + 1);
		}
	}
}

/** The host a redirect's Location header points at (a relative location stays on the request's host). */
export function redirectTargetHost(location: string | string[] | undefined, requestUrl: string | undefined): string {
	const value = Array.isArray(location) ? location[0] : location;
	if (!value) return 'an address it did not give (no Location header)';
	try {
		return new URL(value, requestUrl).host;
	} catch {
		return 'an address that is not a valid URL';
	}
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

const TRANSIENT_NETWORK_CODES = ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'ESOCKETTIMEDOUT', 'EAI_AGAIN'];

/** A failure worth one more try: the connection broke or timed out, not the request itself. */
export function isNetworkFailure(error: unknown): boolean {
	const code = networkErrorCode(error);
	return code !== undefined && TRANSIENT_NETWORK_CODES.includes(code);
}

/**
 * The system error code, on the error itself, on the error n8n wrapped (n8n 2.x keeps it as the
 * NodeApiError's cause), or as the NodeApiError's httpCode (n8n 1.x drops the cause and keeps only
 * that: `{httpCode: 'ECONNRESET'}`).
 */
function networkErrorCode(error: unknown): string | undefined {
	const record = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
	const cause = (typeof record.cause === 'object' && record.cause !== null ? record.cause : {}) as Record<
		string,
		unknown
	>;
	const httpCode = textOf(record.httpCode);
	const codeInHttpCode = httpCode !== undefined && /^E[A-Z_]+$/.test(httpCode) ? httpCode : undefined;
	return textOf(record.code) ?? textOf(cause.code) ?? codeInHttpCode;
}

const SSRF_BLOCK_NAMES = ['SsrfBlockedIpError', 'SsrfBlockedHostnameError'];

/**
 * The address n8n's SSRF protection refused (N8N_SSRF_PROTECTION_ENABLED, n8n 2.x; n8n 3.0 blocks
 * more ranges by default), found on the error or its causes; undefined for any other failure.
 */
function ssrfBlockOf(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
		const record = current as Record<string, unknown>;
		if (typeof record.name === 'string' && SSRF_BLOCK_NAMES.includes(record.name)) {
			const extra = (typeof record.extra === 'object' && record.extra !== null ? record.extra : {}) as Record<string, unknown>;
			const target = textOf(record.hostname) ?? textOf(extra.hostname) ?? textOf(record.ip) ?? textOf(extra.ip);
			return target ? `"${target}"` : 'the address';
		}
		current = record.cause;
	}
	return undefined;
}
