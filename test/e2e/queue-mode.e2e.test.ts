/**
 * Clinic Scribe Trigger in n8n 2.41.1's queue mode: main (`n8n start`, runs webhookMethods), a
 * separate webhook process (`n8n webhook`, WEBHOOK_URL = its address) and a worker (`n8n worker`),
 * sharing one user folder with the package installed, a private PostgreSQL and a private Redis.
 *
 * activate → exactly one subscription, at the webhook process's production URL → a signed delivery
 * to the webhook process runs an execution on the worker that succeeds with the normalised event →
 * forged deliveries get 401 and start nothing → deactivate → no subscription.
 */

import { clinicEventSample } from '../fake-api/clinicEventSamples';
import { fakeWebhooks, type FakeSubscription } from '../fake-api/routes/webhooks';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { packedPackageForTests } from '../support/n8n/install';
import { nodeJson } from '../support/n8n/results';
import { newId } from '../support/n8n/workflows';
import { E2E_OWNER, eventually, fakeApiCredential, triggerWorkflow } from '../support/n8n/trigger';
import { QueueModeN8n, queueServicesPresent } from '../support/queueMode';

// Jest ignores testTimeout inside a project's settings; three n8n processes start here.
jest.setTimeout(600_000);

const WEBHOOK_ID = '3f0d7b8e-5a61-4c2e-9b7d-e2e0000000c3';
const WORKFLOW_ID = newId();
/** A transcription event and a clinic event on the one subscription. */
const QUEUE_EVENTS = ['v2rx.completed', 'appointment.statuschange'];

let api: FakeClinicApi;
let queue: QueueModeN8n;
const timings: Record<string, number> = {};

/**
 * Needs Debian's redis-server and PostgreSQL (npm test installs them when run as root). A developer
 * without them gets a skip with the reason; CI sets CLINIC_SCRIBE_REQUIRE_QUEUE_MODE=1 so it cannot skip.
 */
const runQueueMode = queueServicesPresent() || process.env.CLINIC_SCRIBE_REQUIRE_QUEUE_MODE === '1';
if (!runQueueMode) {
	process.stderr.write(
		'[queue-mode e2e] skipped: redis-server or PostgreSQL is not installed; run `sudo bash scripts/install-queue-services.sh` to include it\n',
	);
}
const describeQueueMode = runQueueMode ? describe : describe.skip;

beforeAll(async () => {
	if (!runQueueMode) return;
	const started = Date.now();
	api = await startFakeClinicApi();
	queue = await QueueModeN8n.create({ packageTarball: await packedPackageForTests() });
	await queue.main.importCredentials([fakeApiCredential(api.url, api.validCredentials)]);
	await queue.main.importWorkflows([queueWorkflow()]);
	await queue.start();
	await queue.main.ensureOwner(E2E_OWNER);
	timings['setup total'] = Date.now() - started;
});

afterAll(async () => {
	if (!runQueueMode) return;
	// CLINIC_SCRIBE_KEEP_QUEUE_FILES=1 keeps the logs (n8n-main.log, n8n-webhook.log, n8n-worker.log) and data.
	const keepFiles = process.env.CLINIC_SCRIBE_KEEP_QUEUE_FILES === '1';
	await queue?.dispose({ keepFiles });
	if (keepFiles && queue)
		process.stderr.write(`[queue-mode e2e] kept ${queue.dir} and ${queue.postgres.dir}\n`);
	await api?.close();
	process.stderr.write(
		`[queue-mode e2e] timings (ms): ${JSON.stringify({ ...queue?.timings, ...timings })}\n`,
	);
});

function queueWorkflow() {
	return triggerWorkflow({
		id: WORKFLOW_ID,
		name: 'e2e: queue mode, transcription completed and appointment status changed',
		webhookId: WEBHOOK_ID,
		parameters: { events: QUEUE_EVENTS },
	});
}

const productionUrl = () => queue.webhookUrl(`${WEBHOOK_ID}/webhook`);
const subscriptions = (): FakeSubscription[] => fakeWebhooks(api).subscriptions();

async function allExecutions(): Promise<Array<{ id: string; status: string }>> {
	return await queue.main.listExecutions({ workflowId: WORKFLOW_ID });
}

describeQueueMode(
	'Clinic Scribe Trigger in n8n queue mode (main + webhook process + worker)',
	() => {
		test("activation on main registers exactly one subscription, at the webhook process's production URL", async () => {
			const started = Date.now();
			await queue.main.activateWorkflow(WORKFLOW_ID, { timeoutMs: 30_000 });
			timings.activate = Date.now() - started;
			expect(productionUrl()).toMatch(
				new RegExp(`^http://127\\.0\\.0\\.1:${queue.webhookPort}/webhook/${WEBHOOK_ID}/webhook$`),
			);
			expect(queue.webhookPort).not.toBe(queue.main.port);
			expect(subscriptions()).toEqual([
				expect.objectContaining({
					endpoint: productionUrl(),
					event_names: QUEUE_EVENTS,
					protocol: 'http',
					signing_key: expect.stringMatching(/^[0-9a-f]{64}$/),
				}),
			]);
		});

		test('a signed delivery to the webhook process runs an execution on the worker that succeeds with the normalised event', async () => {
			const before = (await allExecutions()).length;
			const started = Date.now();
			const report = await fakeWebhooks(api).deliver({ transactionId: 'txn-queue-mode' });
			expect(report.attempts.map((a) => [a.endpoint, a.status])).toEqual([[productionUrl(), 200]]);
			const [latest] = await queue.main.waitForExecutions(WORKFLOW_ID, before + 1, {
				timeoutMs: 60_000,
			});
			timings['delivery to finished execution'] = Date.now() - started;
			expect(await allExecutions()).toHaveLength(before + 1);

			const execution = await queue.main.getExecution(latest.id);
			expect(execution.error?.message).toBeUndefined();
			expect(execution.status).toBe('success');
			expect(execution.mode).toBe('webhook');
			expect(nodeJson(execution, 'Next Node')).toEqual([
				{
					event: 'v2rx.completed',
					transactionId: 'txn-queue-mode',
					sessionId: 'txn-queue-mode',
					status: 'completed',
					timestamp: (report.body as { timestamp: string }).timestamp,
					shape: 'flat',
					body: report.body,
				},
			]);

			// The webhook process received it and put it on the queue; the worker ran it; main did neither.
			expect(
				queue
					.webhook!.lines()
					.some((l) => new RegExp(`Enqueued execution ${latest.id}\\b`).test(l)),
			).toBe(true);
			const worker = queue.worker!;
			await worker.waitForLine(new RegExp(`Worker finished execution ${latest.id}\\b`), 30_000);
			expect(
				worker.lines().some((l) => new RegExp(`Worker started execution ${latest.id}\\b`).test(l)),
			).toBe(true);
			expect(
				queue.main
					.recentServerLog()
					.some((l) => /Worker (started|finished) execution|Enqueued execution/.test(l)),
			).toBe(false);
		});

		test('a signed clinic event (appointment completed) runs on the worker with the normalised clinic event', async () => {
			const before = (await allExecutions()).length;
			const report = await fakeWebhooks(api).deliver({
				body: clinicEventSample('appointment-statuschange-pw', {
					appointmentId: 'appt-queue-mode',
					status: 'CM',
				}),
			});
			expect(report.attempts.map((a) => [a.endpoint, a.status])).toEqual([[productionUrl(), 200]]);
			const [latest] = await queue.main.waitForExecutions(WORKFLOW_ID, before + 1, {
				timeoutMs: 60_000,
			});
			const execution = await queue.main.getExecution(latest.id);
			expect(execution.error?.message).toBeUndefined();
			expect([execution.status, execution.mode]).toEqual(['success', 'webhook']);
			expect(nodeJson(execution, 'Next Node')).toEqual([
				expect.objectContaining({
					event: 'appointment.statuschange',
					kind: 'appointment',
					appointmentId: 'appt-queue-mode',
					status: 'CM',
					statusLabel: 'Completed',
					body: report.body,
				}),
			]);
			await queue.worker!.waitForLine(
				new RegExp(`Worker finished execution ${latest.id}\\b`),
				30_000,
			);
			expect(
				queue
					.webhook!.lines()
					.some((l) => new RegExp(`Enqueued execution ${latest.id}\\b`).test(l)),
			).toBe(true);
		});

		test('forged deliveries get 401 from the webhook process and start nothing', async () => {
			const before = await allExecutions();
			for (const forgery of ['wrong-key', 'stale', 'no-header', 'changed-body'] as const) {
				const report = await fakeWebhooks(api).deliver({ forgery });
				expect([forgery, report.attempts.map((a) => [a.endpoint, a.status])]).toEqual([
					forgery,
					[[productionUrl(), 401]],
				]);
			}
			await queue.webhook!.waitForLine(/rejected a delivery \(signature mismatch\)/, 10_000);
			// Give n8n time to (wrongly) start something.
			await new Promise((resolve) => setTimeout(resolve, 3000));
			expect(await allExecutions()).toEqual(before);
			expect(queue.webhook!.lines().join('\n')).not.toMatch(/txn-/);
			expect(queue.main.recentServerLog().join('\n')).not.toMatch(/rejected a delivery/);
		});

		test('deactivation on main removes the subscription', async () => {
			await queue.main.deactivateWorkflow(WORKFLOW_ID, { timeoutMs: 30_000 });
			await eventually(
				() => subscriptions().length === 0,
				() => JSON.stringify(subscriptions()),
				30_000,
			);
			const report = await fakeWebhooks(api).deliver({ ignoreEventNames: true });
			expect(report.attempts).toEqual([]);
		});
	},
);
