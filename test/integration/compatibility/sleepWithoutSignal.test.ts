/**
 * n8n 1.x's `sleep(ms)` from n8n-workflow takes no abort signal (n8n 2.x's `sleep(ms, signal)` ends
 * early when it fires). With n8n-workflow's sleep replaced by one that, like n8n 1.x's, ignores the
 * signal and never ends by itself here, Stop still ends the node's pauses at once: the wait between
 * status checks (Wait for Completion) and the pause before a retry.
 */
import { clinicApiRequest } from '../../../nodes/ClinicScribe/transport/request';
import { createExecuteContext } from '../../support/nodeContext';
import {
	item,
	resultsParameters,
	TranscriptionRig,
	uploadParameters,
} from '../../support/transcriptionRig';

/** The pauses asked for (ms), and how to end them. */
const pauses: Array<{ ms: number; end: () => void }> = [];

jest.mock('n8n-workflow', () => {
	const actual = jest.requireActual('n8n-workflow');
	return {
		...actual,
		// n8n-workflow 1.120's sleep: `async (ms) => await new Promise((resolve) => setTimeout(resolve, ms))`,
		// the signal ignored; here it ends only when the test ends it.
		sleep: async (ms: number) =>
			await new Promise<void>((resolve) => pauses.push({ ms, end: resolve })),
	};
});

const rig = new TranscriptionRig();

beforeAll(async () => await rig.start());
afterAll(async () => {
	for (const pause of pauses) pause.end();
	await rig.stop();
});
beforeEach(() => rig.reset());

/** Whether the promise has settled once the event loop has turned a few times (no clock involved). */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
	let settled = false;
	promise.then(
		() => (settled = true),
		() => (settled = true),
	);
	for (let turn = 0; turn < 20 && !settled; turn++)
		await new Promise((resolve) => setImmediate(resolve));
	return settled;
}

async function pauseOf(matches: (ms: number) => boolean): Promise<void> {
	for (let turn = 0; turn < 10_000; turn++) {
		if (pauses.some((pause) => matches(pause.ms))) return;
		await new Promise((resolve) => setImmediate(resolve));
	}
	throw new Error('the node never paused');
}

test('Stop during the wait between status checks ends Wait for Completion at once', async () => {
	rig.fake.script('visit-old-sleep', { processingPolls: 1_000_000 });
	await rig.run(uploadParameters({ transactionId: 'visit-old-sleep' }), {
		items: [item({ data: rig.storedBinary(rig.audioFile('visit.wav', 2000)) })],
	});
	const controller = new AbortController();
	const run = rig.run(
		resultsParameters('visit-old-sleep', {
			waitForCompletion: true,
			timeoutMinutes: 10,
			pollIntervalSeconds: 60,
		}),
		{
			cancelSignal: controller.signal,
		},
	);
	run.catch(() => undefined);
	// The status check answered "processing"; the node pauses until the next one (up to 60 s).
	await pauseOf((ms) => ms > 1_000 && ms <= 60_000);

	controller.abort();

	expect(await settledSoon(run)).toBe(true);
	await expect(run).rejects.toThrow(
		'Stopped waiting for session "visit-old-sleep" because the execution was cancelled',
	);
});

test('Stop during the pause before a retry ends the call at once', async () => {
	rig.api.injectFault({
		path: '/dr/v1/business/entities',
		fault: { kind: 'status', status: 503, headers: { 'retry-after': '8' } },
	});
	const controller = new AbortController();
	const { context } = createExecuteContext({
		credentials: rig.credentials(),
		parameters: {},
		cancelSignal: controller.signal,
	});
	const call = clinicApiRequest(context, {
		method: 'GET',
		path: '/dr/v1/business/entities',
		idempotent: true,
		purpose: 'the clinics',
	});
	call.catch(() => undefined);
	await pauseOf((ms) => ms === 8_000);

	controller.abort();

	expect(await settledSoon(call)).toBe(true);
	await expect(call).rejects.toThrow(
		'Stopped the request for the clinics because the execution was stopped',
	);
	expect(rig.api.requestsTo('/dr/v1/business/entities')).toHaveLength(1);
});
