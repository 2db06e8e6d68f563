import { sleep } from 'n8n-workflow';

/**
 * Waits `ms`, or rejects with the signal's reason as soon as it fires (Stop, a deadline), as n8n
 * 2.x's `sleep(ms, signal)` does. n8n 1.x's `sleep(ms)` takes no signal and would wait the whole
 * pause, so the signal is listened to here as well; its timer then runs out by itself (code that
 * n8n Cloud accepts may not clear a timer of its own) and holds nothing but a settled promise.
 */
export async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
	if (!signal) return await sleep(ms);
	if (signal.aborted) throw reasonOf(signal);
	await new Promise<void>((resolve, reject) => {
		const onAbort = (): void => reject(reasonOf(signal));
		signal.addEventListener('abort', onAbort, { once: true });
		sleep(ms, signal).then(
			() => {
				signal.removeEventListener('abort', onAbort);
				resolve();
			},
			(error: unknown) => {
				signal.removeEventListener('abort', onAbort);
				reject(error);
			},
		);
	});
}

function reasonOf(signal: AbortSignal): Error {
	return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
