/**
 * Deadlines for work that must end in bounded time (a wait for results, the trigger's fetch before it
 * answers the service), built on n8n-workflow's `sleep` (through abortableSleep, which n8n 1.x's
 * signal-less `sleep` needs): no raw timer.
 */
import { abortableSleep } from './abortableSleep';

interface DeadlineSignal {
	/** Fires on `cancel` (Stop) or once the time is up. */
	signal: AbortSignal;
	/** Ends the deadline's pause and lets go of the cancel signal. */
	dispose: () => void;
}

/** A signal that fires when `cancel` does (Stop) or after `ms` (the deadline). */
export function deadlineSignal(ms: number, cancel?: AbortSignal): DeadlineSignal {
	const controller = new AbortController();
	const timer = new AbortController();
	const onCancel = () => controller.abort(cancel?.reason);
	if (cancel?.aborted) controller.abort(cancel.reason);
	else cancel?.addEventListener('abort', onCancel, { once: true });
	if (ms <= 0) controller.abort(new Error('deadline'));
	else {
		void abortableSleep(ms, timer.signal).then(
			() => controller.abort(new Error('deadline')),
			() => undefined,
		);
	}
	return {
		signal: controller.signal,
		dispose: () => {
			timer.abort();
			cancel?.removeEventListener('abort', onCancel);
		},
	};
}

/**
 * The promise's outcome, or `{ expired: true }` once the signal fires first, whatever the work is
 * doing then (a token exchange, a pause between retries): the caller's answer never waits longer.
 */
export async function settledBefore<T>(
	work: Promise<T>,
	signal: AbortSignal,
): Promise<{ value: T } | { error: unknown } | { expired: true }> {
	if (signal.aborted) {
		work.catch(() => undefined);
		return { expired: true };
	}
	return await new Promise((resolve) => {
		const onAbort = () => resolve({ expired: true });
		signal.addEventListener('abort', onAbort, { once: true });
		work.then(
			(value) => {
				signal.removeEventListener('abort', onAbort);
				resolve({ value });
			},
			(error: unknown) => {
				signal.removeEventListener('abort', onAbort);
				resolve({ error });
			},
		);
	});
}
