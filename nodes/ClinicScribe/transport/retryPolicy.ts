/**
 * How often and how long: the one frozen policy of every request (attempts, pauses, timeouts, how
 * many at once), which nothing in the package can change; the one rule of what may be sent again
 * (`mayRetry`); and the one retry loop (`withRetries`), which every repeated request goes through:
 * clinic API calls, the token exchange, storage uploads, downloads from links. Knows no node context,
 * so the credential's token exchange uses it too.
 */
import { abortableSleep } from '../shared/abortableSleep';
import { networkErrorCode } from './errors';

interface RetryPolicy {
	/** Attempts in all (first try + retries) for retryable failures. */
	readonly attempts: number;
	readonly baseDelayMs: number;
	readonly maxDelayMs: number;
}

/** How long one request may wait for its answer (milliseconds). */
interface RequestTimeouts {
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

interface TransportPolicy {
	readonly retry: RetryPolicy;
	readonly timeouts: RequestTimeouts;
	/** Uploads to the storage host (the file is opened anew for each attempt). */
	readonly storageRetry: RetryPolicy;
	/**
	 * How many transactions one node run sends at once, and how many storage uploads are in flight
	 * at once across them (files of one transaction share the bound). Six keeps a far region's round
	 * trips overlapped without opening many sockets to one storage host.
	 */
	readonly uploadConcurrency: number;
	/**
	 * How many items of an operation that only reads one node run sends at once. More than uploads:
	 * reads are small, and it takes this many overlapping round trips for an API up to about 100 ms
	 * away to keep pace with n8n's own work per call (1–3 ms); six let the network set the pace.
	 * n8n's HTTP Request node sends every item at once; a bound still keeps the sockets few.
	 */
	readonly readConcurrency: number;
}

export const PRODUCTION_POLICY: TransportPolicy = Object.freeze({
	retry: Object.freeze({ attempts: 4, baseDelayMs: 500, maxDelayMs: 8_000 }),
	timeouts: Object.freeze({
		apiCallMs: 60_000,
		tokenMs: 30_000,
		statusMs: 30_000,
		presignMs: 60_000,
		initMs: 60_000,
		triggerFetchMs: 6_000,
	}),
	storageRetry: Object.freeze({ attempts: 3, baseDelayMs: 1_000, maxDelayMs: 8_000 }),
	uploadConcurrency: 6,
	readConcurrency: 32,
});

// ─── What may be sent again ──────────────────────────────────────────────────────────────────────

/** Answers that say "not now" rather than "no": worth another try after a pause. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** 408 and 429 say the request was not taken: any call may be sent again after them. */
const NOT_TAKEN_STATUSES: ReadonlySet<number> = new Set([408, 429]);

/** No answer, for a reason worth another try: the connection broke or timed out, not the request itself. */
const TRANSIENT_NETWORK_CODES = [
	'ECONNREFUSED',
	'ECONNRESET',
	'EPIPE',
	'ETIMEDOUT',
	'ECONNABORTED',
	'ESOCKETTIMEDOUT',
	'EAI_AGAIN',
];

/** How safe a call is to send again. */
export interface RepeatSafety {
	/** Sending it twice does what sending it once does (reads, writes the API deduplicates). */
	idempotent: boolean;
	/** Not idempotent, but the API makes a repeat after a 5xx harmless (the caller says why). */
	repeatAfterServerError?: boolean;
}

/** A request whose repeat does nothing new: a read, a token request, a file stored under its name. */
const REPEATABLE: RepeatSafety = { idempotent: true };

/** What a failed attempt came to: an answer with this status, or none (what was thrown instead). */
type Failure = { status: number } | { noAnswer: unknown };

/**
 * Whether a failed attempt may be sent again: the one rule of the package. A "not now" answer
 * (RETRYABLE_STATUSES) or a connection that broke or timed out is worth another try, as long as
 * the call is safe to repeat after it (`mayRepeat`).
 */
export function mayRetry(failure: Failure, call: RepeatSafety = REPEATABLE): boolean {
	if ('status' in failure)
		return RETRYABLE_STATUSES.has(failure.status) && mayRepeat(call, failure.status);
	return isTransientNetworkFailure(failure.noAnswer) && mayRepeat(call);
}

/** A failure without an answer that is worth another try (reset, refused, timed out). */
export function isTransientNetworkFailure(error: unknown): boolean {
	const code = networkErrorCode(error);
	return code !== undefined && TRANSIENT_NETWORK_CODES.includes(code);
}

/**
 * Whether a failed call may be sent again, by what came back (`statusCode` undefined: no answer).
 * A call that is not idempotent is repeated only after an answer that says it was not taken
 * (408/429), or after a 5xx when the API makes that harmless: a 5xx or a lost answer may come after
 * the work was done (a second paid document, a second booking).
 */
function mayRepeat(call: RepeatSafety, statusCode?: number): boolean {
	if (call.idempotent) return true;
	if (statusCode === undefined) return false;
	return (
		NOT_TAKEN_STATUSES.has(statusCode) ||
		(call.repeatAfterServerError === true && statusCode >= 500)
	);
}

/**
 * Whether a failure leaves open what the service did: no answer came, or a 5xx (the service may
 * have carried the call out before failing). A repeat that then hears "exists" or "already ended"
 * may be hearing about its own first attempt.
 */
export function outcomeUnknown(statusCode?: number): boolean {
	return statusCode === undefined || statusCode >= 500;
}

// ─── The retry loop ──────────────────────────────────────────────────────────────────────────────

/** What one attempt came to: a value, or a failure worth another try. */
export type AttemptResult<T> =
	| { kind: 'done'; value: T }
	/** `error` is thrown when no attempt is left; `retryAfter` is the answer's header, if any. */
	| { kind: 'retry'; error: Error; retryAfter?: string | string[] };

interface RetryStop {
	/** Stop or a deadline: ends the loop, and a pause between attempts at once. */
	signal?: AbortSignal;
	/** The error thrown when the signal has ended the loop. */
	stopped: () => Error;
}

/**
 * Runs `attempt` (numbered from 1) until it is done, throws, or the policy's attempts are used up;
 * between attempts it pauses (the answer's Retry-After, bounded, else exponential back-off) on n8n's
 * own sleep. Once the signal has fired nothing is tried again: the stop is what is reported.
 */
export async function withRetries<T>(
	policy: RetryPolicy,
	attempt: (attempt: number) => Promise<AttemptResult<T>>,
	stop?: RetryStop,
): Promise<T> {
	for (let number = 1; ; number++) {
		const result = await attempt(number);
		if (result.kind === 'done') return result.value;
		if (stop?.signal?.aborted) throw stop.stopped();
		if (number >= policy.attempts) throw result.error;
		try {
			await abortableSleep(retryDelayMs(number, result.retryAfter, policy), stop?.signal);
		} catch (error) {
			// Stopped during the pause (n8n 1.x's sleep takes no signal, abortableSleep listens beside it).
			throw stop ? stop.stopped() : error;
		}
	}
}

/**
 * The pause before the next attempt: Retry-After when the API sent one (bounded), else exponential
 * back-off, half of it fixed and half random, so that calls refused together (up to a run's reads in
 * flight) do not all come back together.
 */
function retryDelayMs(
	attempt: number,
	retryAfter: string | string[] | undefined,
	retry: RetryPolicy,
): number {
	const header = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
	if (header !== undefined) {
		const seconds = Number(header);
		if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, retry.maxDelayMs);
		const date = Date.parse(header);
		if (!Number.isNaN(date)) return Math.min(Math.max(date - Date.now(), 0), retry.maxDelayMs);
	}
	const backOff = Math.min(retry.baseDelayMs * 2 ** (attempt - 1), retry.maxDelayMs);
	return backOff / 2 + Math.random() * (backOff / 2);
}
