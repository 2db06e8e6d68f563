import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import type { WaitSettings } from '../../../nodes/ClinicScribe/actions/transcription/resultsSettings';
import {
	assertSessionComplete,
	formatDuration,
	waitForSessionResults,
} from '../../../nodes/ClinicScribe/actions/transcription/waitForResults';
import { readTransactionResults } from '../../../nodes/ClinicScribe/shared/answers/sessionResults';

/** Answers the status calls from a list (the last one repeats). */
function statusContext(statuses: number[]) {
	const calls: IHttpRequestOptions[] = [];
	const ctx = {
		getNode: () => ({ name: 'Clinic Scribe' }),
		getCredentials: async () => ({ environment: 'custom', baseUrl: 'https://gw.example.com' }),
		getExecutionCancelSignal: () => undefined,
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
				calls.push(options);
				const statusCode = statuses.length > 1 ? statuses.shift()! : statuses[0];
				return { statusCode, headers: {}, body: { data: { output: [] } } };
			},
		},
	} as unknown as IExecuteFunctions;
	return { ctx, calls };
}

describe('waitForSessionResults', () => {
	test('right after an upload, "unknown" is read as "not yet" during the grace time', async () => {
		const { ctx, calls } = statusContext([404, 404, 202, 200]);
		const results = await waitForSessionResults(
			ctx,
			'transaction',
			's',
			{ timeoutMs: 10_000, pollIntervalMs: 1, notFoundGraceMs: 10_000 },
			0,
		);
		expect(results.status).toBe('completed');
		expect(calls).toHaveLength(4);
	});

	test('without grace (Get Results), "unknown" is the answer at once', async () => {
		const { ctx, calls } = statusContext([404, 200]);
		const results = await waitForSessionResults(
			ctx,
			'transaction',
			's',
			{ timeoutMs: 10_000, pollIntervalMs: 1, notFoundGraceMs: 0 },
			0,
		);
		expect(results.status).toBe('not_found');
		expect(calls).toHaveLength(1);
	});

	test('Fail on Incomplete Results: a failed session without template list names the API’s message; completed and processing pass', () => {
		const ctx = { getNode: () => ({ name: 'Clinic Scribe' }) } as unknown as IExecuteFunctions;
		const failed = readTransactionResults('s', 500, {
			error: { code: 'transcription_failed', message: 'All templates failed' },
		});
		expect(() => assertSessionComplete(ctx, failed, 3)).toThrow(
			'Session "s" failed (the API said: All templates failed)',
		);
		const partly = readTransactionResults('s', 206, {
			data: {
				output: [
					{
						template_id: 'clinical_notes_template',
						name: 'Clinical Notes',
						status: 'partial_success',
						value: '',
					},
				],
			},
		});
		expect(() => assertSessionComplete(ctx, partly, 0)).toThrow(
			'Session "s" is only partly done (only partly produced: Clinical Notes (clinical_notes_template))',
		);
		expect(() =>
			assertSessionComplete(ctx, readTransactionResults('s', 200, { data: { output: [] } }), 0),
		).not.toThrow();
		expect(() => assertSessionComplete(ctx, readTransactionResults('s', 202, {}), 0)).not.toThrow();
	});

	test('formatDuration', () => {
		expect(formatDuration(4_400)).toBe('4 s');
		expect(formatDuration(60_000)).toBe('1 min');
		expect(formatDuration(754_000)).toBe('12 min 34 s');
	});
});

/**
 * The schedule of the status calls on jest's fake clock: a simulated API that holds each call up to
 * `holdMs` and answers as soon as the session is done (as the real service does), every call taking
 * `latencyMs` at least. Times are fake-clock milliseconds since the wait started; nothing here
 * depends on how fast the machine is.
 */
describe('waitForSessionResults: scheduling on a fake clock', () => {
	const T0 = 1_700_000_000_000;

	beforeEach(() => {
		jest.useFakeTimers();
		jest.setSystemTime(T0);
	});
	afterEach(() => jest.useRealTimers());

	interface Simulation {
		completesAt: number;
		holdMs?: number;
		latencyMs?: number;
		cancel?: AbortSignal;
	}

	function simulatedApi(simulation: Simulation) {
		const starts: number[] = [];
		const timeouts: Array<number | undefined> = [];
		const signals: Array<AbortSignal | undefined> = [];
		const at = () => Date.now() - T0;
		const ctx = {
			getNode: () => ({ name: 'Clinic Scribe' }),
			getCredentials: async () => ({ environment: 'custom', baseUrl: 'https://gw.example.com' }),
			getExecutionCancelSignal: () => simulation.cancel,
			helpers: {
				httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
					starts.push(at());
					timeouts.push(options.timeout);
					const signal = options.abortSignal as AbortSignal | undefined;
					signals.push(signal);
					const done = () => at() >= simulation.completesAt;
					const holdUntil = done()
						? at()
						: Math.min(at() + (simulation.holdMs ?? 0), simulation.completesAt);
					const answerAt = Math.max(holdUntil, at() + (simulation.latencyMs ?? 0));
					if (answerAt > at())
						await new Promise<void>((resolve, reject) => {
							const timer = setTimeout(resolve, answerAt - at());
							signal?.addEventListener('abort', () => {
								clearTimeout(timer);
								reject(Object.assign(new Error('canceled'), { code: 'ERR_CANCELED' }));
							});
						});
					return { statusCode: done() ? 200 : 202, headers: {}, body: { data: { output: [] } } };
				},
			},
		} as unknown as IExecuteFunctions;
		return { ctx, starts, timeouts, signals, at };
	}

	/** Runs the wait to its end on the fake clock; returns how it ended and when. */
	async function runWait(
		ctx: IExecuteFunctions,
		settings: WaitSettings,
		at: () => number,
		duringRun?: () => Promise<void>,
	) {
		let endedAt = -1;
		const run = waitForSessionResults(ctx, 'transaction', 's', settings, 0).then(
			(results) => ({ results, error: undefined }),
			(error: Error) => ({ results: undefined, error }),
		);
		void run.then(() => (endedAt = at()));
		if (duringRun) await duringRun();
		await jest.advanceTimersByTimeAsync(10 * 60_000);
		const outcome = await run;
		return { ...outcome, endedAt };
	}

	const settings = (pollSeconds: number, timeoutMs = 10 * 60_000): WaitSettings => ({
		timeoutMs,
		pollIntervalMs: pollSeconds * 1000,
		notFoundGraceMs: 0,
	});

	test('with the server’s 14 s hold the next call goes out when the held one answers: results at completion', async () => {
		const api = simulatedApi({ completesAt: 20_000, holdMs: 14_000 });
		const { results, endedAt } = await runWait(api.ctx, settings(10), api.at);
		expect(results?.status).toBe('completed');
		expect(api.starts).toEqual([0, 14_000]);
		expect(endedAt).toBe(20_000);
	});

	test('without a hold the interval counts from each call’s start', async () => {
		const api = simulatedApi({ completesAt: 20_000 });
		const { results, endedAt } = await runWait(api.ctx, settings(10), api.at);
		expect(results?.status).toBe('completed');
		expect(api.starts).toEqual([0, 10_000, 20_000]);
		expect(endedAt).toBe(20_000);
	});

	test('a slow answer does not push the next call back by its own duration', async () => {
		const api = simulatedApi({ completesAt: 25_000, latencyMs: 3_000 });
		const { results, endedAt } = await runWait(api.ctx, settings(10), api.at);
		expect(results?.status).toBe('completed');
		expect(api.starts).toEqual([0, 10_000, 20_000, 30_000]);
		expect(endedAt).toBe(33_000);
	});

	test('each call’s timeout is cut to the time left, and a held call is ended at the deadline', async () => {
		const api = simulatedApi({ completesAt: Infinity, holdMs: 14_000 });
		const { error, endedAt } = await runWait(api.ctx, settings(10, 25_000), api.at);
		expect(error?.message).toBe(
			'Session "s" was still being processed after waiting 25 s (2 status checks)',
		);
		expect(api.starts).toEqual([0, 14_000]);
		expect(api.timeouts).toEqual([25_000, 11_000]);
		expect(api.signals[1]?.aborted).toBe(true);
		expect(endedAt).toBe(25_000);
	});

	test('a timeout longer than a status call keeps each call at the status call’s own timeout', async () => {
		const api = simulatedApi({ completesAt: 14_000, holdMs: 14_000 });
		const { results } = await runWait(api.ctx, settings(10), api.at);
		expect(results?.status).toBe('completed');
		expect(api.timeouts).toEqual([30_000]);
	});

	test('Stop during a held call ends the wait at that moment, and the call is aborted', async () => {
		const stop = new AbortController();
		const api = simulatedApi({ completesAt: Infinity, holdMs: 14_000, cancel: stop.signal });
		const { error, endedAt } = await runWait(api.ctx, settings(10), api.at, async () => {
			await jest.advanceTimersByTimeAsync(5_000);
			stop.abort();
		});
		expect(error?.message).toBe(
			'Stopped waiting for session "s" because the execution was cancelled',
		);
		expect(endedAt).toBe(5_000);
		expect(api.starts).toEqual([0]);
		expect(api.signals[0]?.aborted).toBe(true);
	});

	test('Stop during the pause between calls ends the wait at that moment', async () => {
		const stop = new AbortController();
		const api = simulatedApi({ completesAt: Infinity, cancel: stop.signal });
		const { error, endedAt } = await runWait(api.ctx, settings(10), api.at, async () => {
			await jest.advanceTimersByTimeAsync(4_000);
			stop.abort();
		});
		expect(error?.message).toBe(
			'Stopped waiting for session "s" because the execution was cancelled',
		);
		expect(endedAt).toBe(4_000);
		expect(api.starts).toEqual([0]);
	});

	test('an item reached after the shared deadline still gets one quick check', async () => {
		const api = simulatedApi({ completesAt: 0 });
		let outcome: unknown;
		void waitForSessionResults(
			api.ctx,
			'transaction',
			's',
			settings(10, 1_000),
			1,
			Date.now() - 60_000,
		).then((results) => (outcome = results.status));
		await jest.advanceTimersByTimeAsync(0);
		expect(outcome).toBe('completed');
		expect(api.starts).toEqual([0]);
	});
});
