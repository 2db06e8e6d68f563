/**
 * The router's contract: one run context per run of the node, handed to every item operation, and
 * Continue On Fail with paired items applied by the router alone. Get Results (an item operation)
 * waits for all its items from the run's one start, so N items wait "Timeout" in all, not N times it.
 * Times are on jest's fake clock: nothing here depends on how fast the machine is.
 */
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { route } from '../../../nodes/ClinicScribe/actions/router';

const T0 = 1_700_000_000_000;

/** Get Results for `sessionIds`, one item each, waiting with the given timeout; the API never finishes. */
function getResultsRun(
	sessionIds: string[],
	options: { timeoutMinutes: number; continueOnFail: boolean },
) {
	const statusCalls: Array<{ at: number; url: string }> = [];
	const parameters: Record<string, unknown> = {
		resource: 'transcription',
		operation: 'getResults',
		waitForCompletion: true,
		timeoutMinutes: options.timeoutMinutes,
		pollIntervalSeconds: 1,
	};
	const ctx = {
		getInputData: () => sessionIds.map(() => ({ json: {} })),
		getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) =>
			name === 'sessionId'
				? sessionIds[itemIndex]
				: name in parameters
					? parameters[name]
					: fallback,
		getNode: () => ({
			name: 'Clinic Scribe',
			type: 'n8n-nodes-clinic-scribe.clinicScribe',
			typeVersion: 1,
		}),
		continueOnFail: () => options.continueOnFail,
		getCredentials: async () => ({ environment: 'custom', baseUrl: 'https://gw.example.com' }),
		getExecutionCancelSignal: () => undefined,
		helpers: {
			httpRequestWithAuthentication: async (_type: string, request: IHttpRequestOptions) => {
				statusCalls.push({ at: Date.now() - T0, url: String(request.url) });
				return { statusCode: 202, headers: {}, body: { data: { output: [] } } };
			},
		},
	} as unknown as IExecuteFunctions;
	return { ctx, statusCalls };
}

describe('router: one run context for the items of Get Results', () => {
	beforeEach(() => {
		jest.useFakeTimers();
		jest.setSystemTime(T0);
	});
	afterEach(() => jest.useRealTimers());

	test("every item waits from the run's one start: the second item only gets its one quick check", async () => {
		const { ctx, statusCalls } = getResultsRun(['visit-a', 'visit-b'], {
			timeoutMinutes: 3 / 60,
			continueOnFail: true,
		});
		const running = route.call(ctx);
		await jest.advanceTimersByTimeAsync(10_000);
		const [output] = await running;

		expect(output.map((entry) => [entry.pairedItem, entry.json.error])).toEqual([
			[
				{ item: 0 },
				'Session "visit-a" was still being processed after waiting 3 s (3 status checks)',
			],
			[
				{ item: 1 },
				'Session "visit-b" was still being processed after waiting 4 s (1 status check)',
			],
		]);
		expect(statusCalls).toEqual([
			{ at: 0, url: 'https://gw.example.com/voice/api/v3/status/visit-a' },
			{ at: 1_000, url: 'https://gw.example.com/voice/api/v3/status/visit-a' },
			{ at: 2_000, url: 'https://gw.example.com/voice/api/v3/status/visit-a' },
			{ at: 3_000, url: 'https://gw.example.com/voice/api/v3/status/visit-b' },
		]);
	});

	test('without Continue On Fail the first failed item stops the run with its item index, and no later item is asked for', async () => {
		const { ctx, statusCalls } = getResultsRun(['visit-a', 'visit-b'], {
			timeoutMinutes: 0,
			continueOnFail: false,
		});
		const running = route.call(ctx).then(
			() => undefined,
			(error: unknown) => error as { message: string; context?: { itemIndex?: number } },
		);
		await jest.advanceTimersByTimeAsync(10_000);
		const error = await running;

		expect(error?.message).toBe(
			'Session "visit-a" was still being processed after waiting 1 s (1 status check)',
		);
		expect(error?.context?.itemIndex).toBe(0);
		expect(statusCalls.map((call) => call.url)).toEqual([
			'https://gw.example.com/voice/api/v3/status/visit-a',
		]);
	});
});
