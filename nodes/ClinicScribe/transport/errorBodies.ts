/**
 * Reading the error bodies of the clinic API. Each group of endpoints has its own shape
 * (service notes, "Errors"); callers only ever see a code and a message.
 */
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
		// `/dr` envelope (document §7), voice and webhook APIs: {error: {code, message | msg}}.
		const inner = error as Record<string, unknown>;
		return {
			code: asText(inner.code),
			message: asText(inner.message) ?? asText(inner.msg) ?? asText(record.message),
		};
	}
	// Auth API: {code, error}; some `/dr` responses add a top-level message.
	return { code: asText(record.code), message: asText(error) ?? asText(record.message) };
}

/** Never let a secret the caller holds reach a message, whatever the server echoed back. */
export function scrubSecrets(text: string, secrets: Array<string | undefined>): string {
	let result = text;
	for (const secret of secrets) {
		if (secret && secret.length >= 4) result = result.split(secret).join('[redacted]');
	}
	return result;
}

/** A short, safe description of a failure that produced no HTTP answer. */
export function describeNetworkFailure(error: unknown): string {
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

/** The system error code, on the error itself or on the error n8n wrapped. */
function networkErrorCode(error: unknown): string | undefined {
	const record = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
	const cause = (typeof record.cause === 'object' && record.cause !== null ? record.cause : {}) as Record<
		string,
		unknown
	>;
	return asText(record.code) ?? asText(cause.code);
}

function asText(value: unknown): string | undefined {
	if (typeof value === 'string' && value.trim() !== '') return value.trim();
	if (typeof value === 'number') return String(value);
	return undefined;
}
