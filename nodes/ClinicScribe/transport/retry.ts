/**
 * The one retry loop of the package and the rule of what may be sent again. Every call that is
 * repeated goes through `withRetries`: clinic API calls (request.ts), the token exchange, storage
 * uploads, downloads from links, the status call's passing answers. Knows no n8n context, so the
 * credential's token exchange uses it too.
 */
import { abortableSleep } from '../shared/abortableSleep';
import { retryDelayMs, type RetryPolicy } from './retryPolicy';

/** What one attempt came to: a value, or a failure worth another try. */
export type AttemptResult<T> =
	| { kind: 'done'; value: T }
	/** `error` is thrown when no attempt is left; `retryAfter` is the answer's header, if any. */
	| { kind: 'retry'; error: Error; retryAfter?: string | string[] };

export interface RetryStop {
	/** Stop or a deadline: ends the loop, and a pause between attempts at once. */
	signal?: AbortSignal;
	/** The error thrown when the signal has ended the loop. */
	stopped: () => Error;
}

/**
 * Runs `attempt` (numbered from 1) until it is done, throws, or the policy's attempts are used up;
 * between attempts it pauses (the answer's Retry-After, bounded, else exponential back-off). Once
 * the signal has fired nothing is tried again: the stop is what is reported.
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
		await pauseBeforeRepeat(retryDelayMs(number, result.retryAfter, policy), stop);
	}
}

/**
 * The pause between two attempts, on n8n's own sleep (abortableSleep: n8n 1.x's takes no signal, so
 * the signal is listened to beside it). A stop during the pause throws the stop's error at once.
 */
async function pauseBeforeRepeat(ms: number, stop: RetryStop | undefined): Promise<void> {
	try {
		await abortableSleep(ms, stop?.signal);
	} catch (error) {
		throw stop ? stop.stopped() : error;
	}
}

/** 408 and 429 say the request was not taken: any call may be sent again after them. */
const NOT_TAKEN_STATUSES: ReadonlySet<number> = new Set([408, 429]);

/** How safe a call is to send again. */
export interface RepeatSafety {
	/** Sending it twice does what sending it once does (reads, writes the API deduplicates). */
	idempotent: boolean;
	/** Not idempotent, but the API makes a repeat after a 5xx harmless (the caller says why). */
	repeatAfterServerError?: boolean;
}

/**
 * Whether a failed call may be sent again, by what came back (`statusCode` undefined: no answer).
 * A call that is not idempotent is repeated only after an answer that says it was not taken
 * (408/429), or after a 5xx when the API makes that harmless: a 5xx or a lost answer may come after
 * the work was done (a second paid document, a second booking).
 */
export function mayRepeat(call: RepeatSafety, statusCode?: number): boolean {
	if (call.idempotent) return true;
	if (statusCode === undefined) return false;
	return NOT_TAKEN_STATUSES.has(statusCode) || (call.repeatAfterServerError === true && statusCode >= 500);
}

/**
 * Whether a failure leaves open what the service did: no answer came, or a 5xx (the service may
 * have carried the call out before failing). A repeat that then hears "exists" or "already ended"
 * may be hearing about its own first attempt.
 */
export function outcomeUnknown(statusCode?: number): boolean {
	return statusCode === undefined || statusCode >= 500;
}
