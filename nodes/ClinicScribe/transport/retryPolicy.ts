/**
 * How every call to the clinic API (token exchange included) retries and how long it waits for an
 * answer. Objects, not constants, so tests can shorten them.
 */

/** Attempts in all (first try + retries) for retryable failures, and the back-off bounds. */
export const RETRY_POLICY = { attempts: 4, baseDelayMs: 500, maxDelayMs: 8_000 };

/** How long one request may wait for its answer. */
export const REQUEST_TIMEOUTS = { apiCallMs: 60_000, tokenMs: 30_000 };

/** Answers that say "not now" rather than "no": worth another try after a pause. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** The pause before the next attempt: Retry-After when the API sent one (bounded), else exponential. */
export function retryDelayMs(attempt: number, retryAfter: string | string[] | undefined): number {
	const header = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
	if (header !== undefined) {
		const seconds = Number(header);
		if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, RETRY_POLICY.maxDelayMs);
		const date = Date.parse(header);
		if (!Number.isNaN(date)) return Math.min(Math.max(date - Date.now(), 0), RETRY_POLICY.maxDelayMs);
	}
	return Math.min(RETRY_POLICY.baseDelayMs * 2 ** (attempt - 1), RETRY_POLICY.maxDelayMs);
}
