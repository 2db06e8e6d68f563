/**
 * How every call to the clinic API (token exchange included) retries and how long it waits for an
 * answer: one frozen policy, which nothing in the package can change.
 */

export interface RetryPolicy {
	/** Attempts in all (first try + retries) for retryable failures. */
	readonly attempts: number;
	readonly baseDelayMs: number;
	readonly maxDelayMs: number;
}

/** How long one request may wait for its answer (milliseconds). */
export interface RequestTimeouts {
	readonly apiCallMs: number;
	readonly tokenMs: number;
	/** The server holds a status call up to 14 s before it answers 202 ([EKA-SCRIBE] result_service_v2.py). */
	readonly statusMs: number;
	readonly presignMs: number;
	readonly initMs: number;
	/**
	 * The trigger's fetch of a delivery's record or results, every attempt, pause and token renewal
	 * included. The service waits for the webhook's answer meanwhile, and webhook senders give up
	 * after about 10 s: past this the workflow starts with the event and an `error` instead.
	 */
	readonly triggerFetchMs: number;
}

export interface TransportPolicy {
	readonly retry: RetryPolicy;
	readonly timeouts: RequestTimeouts;
	/** Uploads to the storage host (5xx/408/429 and network failures; the file is opened anew). */
	readonly storageRetry: RetryPolicy;
	/**
	 * How many transactions one node run sends at once, and how many storage uploads are in flight
	 * at once across them (files of one transaction share the bound). Six keeps a far region's round
	 * trips overlapped without opening many sockets to one storage host.
	 */
	readonly uploadConcurrency: number;
	/** How many items of an operation that only reads one node run sends at once (the same reasoning). */
	readonly readConcurrency: number;
}

export const PRODUCTION_POLICY: TransportPolicy = Object.freeze({
	retry: Object.freeze({ attempts: 4, baseDelayMs: 500, maxDelayMs: 8_000 }),
	timeouts: Object.freeze({ apiCallMs: 60_000, tokenMs: 30_000, statusMs: 30_000, presignMs: 60_000, initMs: 60_000, triggerFetchMs: 6_000 }),
	storageRetry: Object.freeze({ attempts: 3, baseDelayMs: 1_000, maxDelayMs: 8_000 }),
	uploadConcurrency: 6,
	readConcurrency: 6,
});

/** Answers that say "not now" rather than "no": worth another try after a pause. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** The pause before the next attempt: Retry-After when the API sent one (bounded), else exponential. */
export function retryDelayMs(
	attempt: number,
	retryAfter: string | string[] | undefined,
	retry: RetryPolicy = PRODUCTION_POLICY.retry,
): number {
	const header = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
	if (header !== undefined) {
		const seconds = Number(header);
		if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, retry.maxDelayMs);
		const date = Date.parse(header);
		if (!Number.isNaN(date)) return Math.min(Math.max(date - Date.now(), 0), retry.maxDelayMs);
	}
	return Math.min(retry.baseDelayMs * 2 ** (attempt - 1), retry.maxDelayMs);
}
