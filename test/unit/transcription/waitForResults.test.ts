import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { formatDuration, waitForSessionResults } from '../../../nodes/ClinicScribe/actions/transcription/waitForResults';

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
		const results = await waitForSessionResults(ctx, 's', { timeoutMs: 10_000, pollIntervalMs: 1, notFoundGraceMs: 10_000 }, 0);
		expect(results.status).toBe('completed');
		expect(calls).toHaveLength(4);
	});

	test('without grace (Get Results), "unknown" is the answer at once', async () => {
		const { ctx, calls } = statusContext([404, 200]);
		const results = await waitForSessionResults(ctx, 's', { timeoutMs: 10_000, pollIntervalMs: 1, notFoundGraceMs: 0 }, 0);
		expect(results.status).toBe('not_found');
		expect(calls).toHaveLength(1);
	});

	test('never waits past the timeout: the last pause is cut to what is left', async () => {
		const { ctx, calls } = statusContext([202]);
		const started = Date.now();
		await expect(waitForSessionResults(ctx, 's', { timeoutMs: 300, pollIntervalMs: 60_000, notFoundGraceMs: 0 }, 4)).rejects.toMatchObject({
			message: expect.stringMatching(/^Session "s" was still being processed after waiting 0 s \(2 status checks\)$/),
			context: { itemIndex: 4 },
		});
		expect(Date.now() - started).toBeLessThan(5_000);
		expect(calls).toHaveLength(2);
	});

	test('formatDuration', () => {
		expect(formatDuration(4_400)).toBe('4 s');
		expect(formatDuration(60_000)).toBe('1 min');
		expect(formatDuration(754_000)).toBe('12 min 34 s');
	});
});
