/**
 * The fetch behind Include Results and Include Appointment or Prescription, bounded: the service
 * waits for the webhook's answer while it runs, so it gets the transport policy's `triggerFetchMs`
 * (6 s) in all, every attempt, pause and token renewal included. A fetch that fails or runs out of
 * time does not lose the event: the workflow starts with it and an `error` saying what is missing,
 * a permanent answer (404) as much as a passing one, so the service is never asked to deliver again
 * for a record that will not come.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { deadlineSignal, settledBefore } from '../shared/deadline';
import { PRODUCTION_POLICY } from '../transport/retryPolicy';

/** What the fetch may use to end itself in time. */
export interface FetchBounds {
	abortSignal: AbortSignal;
	timeoutMs: number;
}

export interface IncludedFetch {
	/** "the appointment", "the prescription", "the results of the session". */
	what: string;
	/** Where the user reads it later: "Appointment → Get with its appointmentId". */
	later: string;
}

/** The fetched value, or the `error` field of an item that goes without it. */
export async function fetchWithinBudget<T>(
	ctx: IWebhookFunctions,
	include: IncludedFetch,
	read: (bounds: FetchBounds) => Promise<T>,
): Promise<{ value: T } | { error: IDataObject }> {
	const budgetMs = PRODUCTION_POLICY.timeouts.triggerFetchMs;
	const bound = deadlineSignal(budgetMs);
	try {
		let work: Promise<T>;
		try {
			work = read({ abortSignal: bound.signal, timeoutMs: budgetMs });
		} catch (error) {
			work = Promise.reject(error);
		}
		const outcome = await settledBefore(work, bound.signal);
		if ('value' in outcome) return outcome;
		// The deadline may also surface as the call's own "stopped" error: it is the deadline all the same.
		const expired = 'expired' in outcome || bound.signal.aborted;
		const failure = expired ? undefined : readThrownError(outcome.error);
		ctx.logger.warn(
			`Clinic Scribe Trigger: started the workflow without ${include.what}: ${expired ? `no answer within ${seconds(budgetMs)}` : failure?.httpCode ? `HTTP ${failure.httpCode}` : 'the fetch failed'}`,
		);
		const message = expired
			? `The clinic API did not give ${include.what} within ${seconds(budgetMs)}`
			: `Could not fetch ${include.what}: ${failure!.message}`;
		const advice = expired
			? 'The service waits for this answer, so the fetch is not allowed longer.'
			: failure!.description;
		return {
			error: {
				message,
				description: `The workflow started with the event alone, so the event is not lost. Get ${include.what} later with ${include.later}.${advice ? ` ${advice}` : ''}`,
				httpCode: failure?.httpCode ?? null,
			},
		};
	} finally {
		bound.dispose();
	}
}

/** What a thrown error says: its message, n8n's description, and the HTTP status when it has one. */
function readThrownError(error: unknown): {
	message: string;
	description: string;
	httpCode: string | null;
} {
	const record = (typeof error === 'object' && error !== null ? error : {}) as {
		message?: unknown;
		description?: unknown;
		httpCode?: unknown;
	};
	return {
		message:
			typeof record.message === 'string' && record.message !== '' ? record.message : String(error),
		description: typeof record.description === 'string' ? record.description : '',
		httpCode:
			typeof record.httpCode === 'string' && /^\d{3}$/.test(record.httpCode)
				? record.httpCode
				: null,
	};
}

function seconds(ms: number): string {
	return `${Math.round(ms / 100) / 10} s`;
}
