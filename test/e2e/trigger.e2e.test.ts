/**
 * Clinic Scribe Trigger in a real n8n 2.41.1, with the fake clinic API as the service:
 * activate → exactly one subscription with n8n's production URL → signed deliveries run the workflow
 * and the next node gets the normalised event → forged deliveries get 401 and start nothing →
 * restarts of n8n in both activation modes (the older one calls checkExists/create at every start)
 * keep exactly one subscription whose key n8n holds → deactivate → none. "Listen for test event" in the
 * editor: exactly one subscription at n8n's test URL while it listens, a signed delivery there runs
 * the workflow once, and the subscription is gone after it (or after "Stop listening"). Issue 17: two
 * published workflows on one event each run once per delivery, and so do a published workflow and its
 * test listener; replays run nothing; a copy arriving during a failing fetch is answered only once the
 * run has started; an unknown record starts one run with the event and an error (never a 500); the
 * answer time to the service with a slow fetch is printed.
 */
import {
	fakeWebhooks,
	prepareDelivery,
	type DeliveryReport,
	type FakeSubscription,
} from '../fake-api/routes/webhooks';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { join } from 'node:path';

import { clinicEventSample, type ClinicSampleVariant } from '../fake-api/clinicEventSamples';
import { fakeAppointments } from '../fake-api/routes/appointment';
import { fakeMessages } from '../fake-api/routes/messageGateway';
import { fakePrescriptions } from '../fake-api/routes/prescription';
import {
	LOCAL_SMTP_CREDENTIAL,
	SMTP_CREDENTIAL_TYPE,
	localCopy,
	smtpCredentialData,
} from '../../scripts/localExamples';
import { recordAttack } from '../support/attackLedger';
import { startFinishedSession } from '../support/fakeTranscriptionSession';
import { startInbox, type RunningInbox } from '../support/inbox';
import { REPO_ROOT, packedPackageForTests } from '../support/n8n/install';
import { nodeJson, nodeOutput } from '../support/n8n/results';
import {
	CREDENTIAL_TYPE,
	newId,
	readWorkflowFile,
	withCredential,
	type WorkflowJson,
} from '../support/n8n/workflows';
import {
	RestartableN8n,
	eventually,
	TRIGGER_CREDENTIAL,
	fakeApiCredential,
	triggerWorkflow,
	type ActivationMode,
} from '../support/n8n/trigger';

// Jest ignores testTimeout inside a project's settings; n8n starts take tens of seconds here.
jest.setTimeout(600_000);

const SUBSCRIPTIONS = '/notification/v1/connect/webhook/subscriptions';
const WEBHOOK_ID = '3f0d7b8e-5a61-4c2e-9b7d-e2e0000000a1';
const WORKFLOW_ID = newId();
const RESULTS_WEBHOOK_ID = '3f0d7b8e-5a61-4c2e-9b7d-e2e0000000b2';
const RESULTS_WORKFLOW_ID = newId();
const TEST_EVENT_WEBHOOK_ID = '3f0d7b8e-5a61-4c2e-9b7d-e2e0000000c3';
const TEST_EVENT_WORKFLOW_ID = newId();
const CLINIC_WEBHOOK_ID = '3f0d7b8e-5a61-4c2e-9b7d-e2e0000000d4';
const CLINIC_WORKFLOW_ID = newId();
/** Every family at once, with the transcription event: one subscription carries them all. */
const CLINIC_EVENTS = [
	'appointment.created',
	'appointment.statuschange',
	'prescription.created',
	'receipt.created',
	'v2rx.completed',
];
const REMINDER_FILE = join(REPO_ROOT, 'examples', 'appointment-booked-reminder.json');
const REMINDER_WORKFLOW_ID = newId();
const PRESCRIPTION_EMAIL_FILE = join(
	REPO_ROOT,
	'examples',
	'appointment-completed-prescription-email.json',
);
const PRESCRIPTION_EMAIL_WORKFLOW_ID = newId();
/** Two published workflows on the same events (issue 17): each must run once per delivery. */
const TWIN_EVENTS = ['appointment.created', 'v2rx.completed'];
const TWIN_A_WEBHOOK_ID = '3f0d7b8e-5a61-4c2e-9b7d-e2e0000000e5';
const TWIN_A_WORKFLOW_ID = newId();
const TWIN_B_WEBHOOK_ID = '3f0d7b8e-5a61-4c2e-9b7d-e2e0000000f6';
const TWIN_B_WORKFLOW_ID = newId();
/** Include Appointment or Prescription, for the failing, unknown and slow fetches. */
const FETCH_WEBHOOK_ID = '3f0d7b8e-5a61-4c2e-9b7d-e2e000000107';
const FETCH_WORKFLOW_ID = newId();

/** An example as `npm start` imports it (scripts/localExamples.ts), with this file's credential and id. */
function localExampleForTest(file: string, id: string): WorkflowJson {
	// The appointment examples post to no EHR (test/e2e/clinic.e2e.test.ts runs the EHR examples).
	const copy = localCopy(readWorkflowFile(file), {
		fakeApiUrl: api.url,
		fhirBaseUrl: 'http://127.0.0.1:9/fhir',
		inboxUrl: inbox.webUrl,
		recordingPath: '/nonexistent/recording.wav',
	});
	return { ...withCredential(copy, CREDENTIAL_TYPE, TRIGGER_CREDENTIAL), id };
}

let api: FakeClinicApi;
/** The local inbox the e-mail nodes of the local copies send to (through the SMTP credential npm start imports). */
let inbox: RunningInbox;
let n8n: RestartableN8n;
const timings: Record<string, number> = {};

beforeAll(async () => {
	const started = Date.now();
	[api, inbox] = await Promise.all([startFakeClinicApi(), startInbox()]);
	n8n = new RestartableN8n({ packageTarball: await packedPackageForTests() });
	const instance = await n8n.prepare('publication-service');
	await instance.importCredentials([
		fakeApiCredential(api.url, api.validCredentials),
		{ ...LOCAL_SMTP_CREDENTIAL, type: SMTP_CREDENTIAL_TYPE, data: smtpCredentialData(inbox) },
	]);
	await instance.importWorkflows([
		triggerWorkflow({
			id: WORKFLOW_ID,
			name: 'e2e: transcription completed',
			webhookId: WEBHOOK_ID,
		}),
		triggerWorkflow({
			id: RESULTS_WORKFLOW_ID,
			name: 'e2e: transcription completed, with results',
			webhookId: RESULTS_WEBHOOK_ID,
			parameters: { includeResults: true, resultsOutput: 'session' },
		}),
		triggerWorkflow({
			id: TEST_EVENT_WORKFLOW_ID,
			name: 'e2e: listen for test event',
			webhookId: TEST_EVENT_WEBHOOK_ID,
		}),
		triggerWorkflow({
			id: CLINIC_WORKFLOW_ID,
			name: 'e2e: clinic events of every family',
			webhookId: CLINIC_WEBHOOK_ID,
			parameters: { events: CLINIC_EVENTS, includeRecord: true },
		}),
		localExampleForTest(REMINDER_FILE, REMINDER_WORKFLOW_ID),
		localExampleForTest(PRESCRIPTION_EMAIL_FILE, PRESCRIPTION_EMAIL_WORKFLOW_ID),
		triggerWorkflow({
			id: TWIN_A_WORKFLOW_ID,
			name: 'e2e: twin A',
			webhookId: TWIN_A_WEBHOOK_ID,
			parameters: { events: TWIN_EVENTS },
		}),
		triggerWorkflow({
			id: TWIN_B_WORKFLOW_ID,
			name: 'e2e: twin B',
			webhookId: TWIN_B_WEBHOOK_ID,
			parameters: { events: TWIN_EVENTS },
		}),
		triggerWorkflow({
			id: FETCH_WORKFLOW_ID,
			name: 'e2e: include appointment or prescription',
			webhookId: FETCH_WEBHOOK_ID,
			parameters: { events: ['appointment.created', 'prescription.created'], includeRecord: true },
		}),
	]);
	timings.setup = Date.now() - started;
});

afterAll(async () => {
	await n8n?.dispose();
	await api?.close();
	await inbox?.stop();
	process.stderr.write(`[trigger e2e] timings (ms): ${JSON.stringify(timings)}\n`);
});

const productionUrl = () => n8n.instance.webhookUrl(`${WEBHOOK_ID}/webhook`);
const subscriptions = (): FakeSubscription[] => fakeWebhooks(api).subscriptions();
const registrations = () => api.requestsTo(SUBSCRIPTIONS, 'POST').length;
const listings = () => api.requestsTo(SUBSCRIPTIONS, 'GET').length;

/** The fake API holds exactly one subscription, at `endpoint` (default n8n's production URL), with a strong key. */
function expectExactlyOne(endpoint = productionUrl()): FakeSubscription {
	const all = subscriptions();
	expect(all).toEqual([
		expect.objectContaining({
			endpoint,
			event_names: ['v2rx.completed'],
			protocol: 'http',
			signing_key: expect.stringMatching(/^[0-9a-f]{64}$/),
		}),
	]);
	return all[0];
}

async function finishedExecutions(workflowId = WORKFLOW_ID): Promise<number> {
	const list = await n8n.instance.listExecutions({ workflowId });
	return list.filter((e) => !['running', 'new', 'waiting'].includes(e.status)).length;
}

/** Delivers one event and returns what the next node received in the execution it started. */
async function deliverAndRun(
	request: Parameters<ReturnType<typeof fakeWebhooks>['deliver']>[0],
	target: { workflowId: string; url: () => string; node?: string } = {
		workflowId: WORKFLOW_ID,
		url: productionUrl,
	},
): Promise<{ report: DeliveryReport; next: Array<Record<string, unknown>> }> {
	const before = await finishedExecutions(target.workflowId);
	const report = await fakeWebhooks(api).deliver(request);
	expect(report.attempts.map((a) => [a.endpoint, a.status])).toEqual([[target.url(), 200]]);
	const executions = await n8n.instance.waitForExecutions(target.workflowId, before + 1);
	const execution = await n8n.instance.getExecution(executions[0].id);
	expect(execution.status).toBe('success');
	expect(execution.error?.message).toBeUndefined();
	return { report, next: nodeJson(execution, target.node ?? 'Next Node') };
}

async function restart(mode: ActivationMode): Promise<void> {
	const started = Date.now();
	await n8n.stop();
	await n8n.start(mode);
	timings[`restart ${mode}`] = Date.now() - started;
}

describe('Clinic Scribe Trigger in a real n8n', () => {
	let first: FakeSubscription;

	test("activation registers exactly one subscription, for n8n's production webhook URL", async () => {
		let started = Date.now();
		await n8n.start('publication-service');
		timings.start = Date.now() - started;
		started = Date.now();
		await n8n.instance.activateWorkflow(WORKFLOW_ID);
		timings.activate = Date.now() - started;
		first = expectExactlyOne();
		expect(productionUrl()).toMatch(
			new RegExp(`^http://127\\.0\\.0\\.1:\\d+/webhook/${WEBHOOK_ID}/webhook$`),
		);
		expect(registrations()).toBe(1);
	});

	test('a signed delivery runs the workflow and the next node gets the normalised event, in both shapes', async () => {
		const started = Date.now();
		const flat = await deliverAndRun({ shape: 'flat', transactionId: 'txn-e2e-flat' });
		timings['delivery to finished execution'] = Date.now() - started;
		expect(flat.next).toEqual([
			{
				event: 'v2rx.completed',
				transactionId: 'txn-e2e-flat',
				sessionId: 'txn-e2e-flat',
				status: 'completed',
				timestamp: (flat.report.body as { timestamp: string }).timestamp,
				shape: 'flat',
				body: flat.report.body,
			},
		]);
		const envelope = await deliverAndRun({ shape: 'envelope', transactionId: 'txn-e2e-envelope' });
		expect(envelope.next).toEqual([
			expect.objectContaining({
				event: 'v2rx.completed',
				transactionId: 'txn-e2e-envelope',
				sessionId: 'txn-e2e-envelope',
				status: 'completed',
				shape: 'envelope',
			}),
		]);
	});

	test('Include Results: the next node gets the decoded documents of the session, with the event', async () => {
		const resultsUrl = () => n8n.instance.webhookUrl(`${RESULTS_WEBHOOK_ID}/webhook`);
		await n8n.instance.activateWorkflow(RESULTS_WORKFLOW_ID);
		expect(
			subscriptions()
				.map((s) => s.endpoint)
				.sort(),
		).toEqual([productionUrl(), resultsUrl()].sort());
		await startFinishedSession(api.url, api.validCredentials, 'visit-e2e-results');
		const run = await deliverAndRun(
			{ endpoint: resultsUrl(), transactionId: 'visit-e2e-results' },
			{ workflowId: RESULTS_WORKFLOW_ID, url: resultsUrl },
		);
		expect(run.next).toHaveLength(1);
		expect(run.next[0]).toMatchObject({
			session_id: 'visit-e2e-results',
			status: 'completed',
			http_status: 200,
			event: {
				event: 'v2rx.completed',
				transactionId: 'visit-e2e-results',
				sessionId: 'visit-e2e-results',
				status: 'completed',
			},
		});
		const documents = run.next[0].documents as Record<string, unknown>;
		expect(Object.keys(documents).sort()).toEqual([
			'clinical_notes_template',
			'svc_emr_template',
			'transcript_template',
		]);
		expect(documents.clinical_notes_template).toEqual(expect.any(Object));
		expect(documents.transcript_template).toEqual(expect.stringMatching(/\S/));
		await n8n.instance.deactivateWorkflow(RESULTS_WORKFLOW_ID);
		await eventually(
			() => subscriptions().length === 1,
			() => JSON.stringify(subscriptions()),
		);
		expect(subscriptions().map((s) => s.endpoint)).toEqual([productionUrl()]);
	});

	test('forged deliveries get 401 and start nothing; events not chosen are acknowledged and dropped', async () => {
		const before = await finishedExecutions();
		for (const forgery of [
			'wrong-key',
			'stale',
			'no-header',
			'malformed-header',
			'changed-body',
		] as const) {
			const report = await fakeWebhooks(api).deliver({ forgery });
			expect([forgery, report.attempts.map((a) => a.status)]).toEqual([forgery, [401]]);
		}
		const dropped = await fakeWebhooks(api).deliver({
			event: 'v2rx.something_else',
			ignoreEventNames: true,
		});
		expect(dropped.attempts.map((a) => a.status)).toEqual([200]);
		// Give n8n time to (wrongly) start something.
		await new Promise((resolve) => setTimeout(resolve, 2000));
		const all = await n8n.instance.listExecutions({ workflowId: WORKFLOW_ID });
		expect(all.length).toBe(before);
		const log = n8n.instance.recentServerLog().join('\n');
		expect(log).toMatch(/rejected a delivery \(signature mismatch\)/);
		expect(log).not.toMatch(/txn-/);
	});

	test('restarting n8n in its default mode keeps exactly the same subscription and calls nothing', async () => {
		const [posts, lists] = [registrations(), listings()];
		await restart('publication-service');
		expect(expectExactlyOne()).toEqual(first);
		expect([registrations(), listings()]).toEqual([posts, lists]);
	});

	test('restarting in the older mode (checkExists at every start) keeps exactly the same subscription', async () => {
		const posts = registrations();
		for (let i = 0; i < 2; i++) {
			const lists = listings();
			await restart('legacy');
			// checkExists ran (it lists) and said "exists": nothing registered.
			await eventually(
				() => listings() > lists,
				() => `no list call after restart ${i + 1}`,
			);
			expect(expectExactlyOne()).toEqual(first);
		}
		expect(registrations()).toBe(posts);
		const run = await deliverAndRun({ transactionId: 'txn-after-restarts' });
		expect(run.next[0]).toMatchObject({ transactionId: 'txn-after-restarts' });
	});

	test("older mode, subscription deleted behind n8n's back: the next start makes exactly one new one whose key n8n holds", async () => {
		expect(fakeWebhooks(api).remove(first.id)).toBe(true);
		const posts = registrations();
		await restart('legacy');
		await eventually(
			() => registrations() > posts,
			() => 'no registration after the restart',
		);
		const replacement = expectExactlyOne();
		expect(replacement.id).not.toBe(first.id);
		// The new key reached static data in n8n's database: deliveries signed with it verify.
		const run = await deliverAndRun({ transactionId: 'txn-after-replacement' });
		expect(run.next[0]).toMatchObject({ transactionId: 'txn-after-replacement' });
		first = replacement;
	});

	test('older mode, endpoint registered by someone else under an unknown key: replaced on the next start', async () => {
		fakeWebhooks(api).remove(first.id);
		const stranger = fakeWebhooks(api).register({
			event_names: ['v2rx.completed'],
			endpoint: productionUrl(),
			signing_key: 'not-known-to-n8n',
		});
		await restart('legacy');
		await eventually(
			() => !subscriptions().some((s) => s.id === stranger.id) && subscriptions().length === 1,
			() => JSON.stringify(subscriptions()),
		);
		first = expectExactlyOne();
		expect(first.signing_key).not.toBe('not-known-to-n8n');
		await deliverAndRun({ transactionId: 'txn-after-stranger' });
	});

	test('back in the default mode: still exactly one; deactivation removes it', async () => {
		await restart('publication-service');
		expect(expectExactlyOne()).toEqual(first);
		await n8n.instance.deactivateWorkflow(WORKFLOW_ID);
		await eventually(
			() => subscriptions().length === 0,
			() => JSON.stringify(subscriptions()),
		);
		const report = await fakeWebhooks(api).deliver({ ignoreEventNames: true });
		expect(report.attempts).toEqual([]);
	});

	test('in the older mode too: activate → exactly one → deactivate → none', async () => {
		await restart('legacy');
		await n8n.instance.activateWorkflow(WORKFLOW_ID);
		expectExactlyOne();
		await deliverAndRun({ transactionId: 'txn-legacy-activation' });
		await n8n.instance.deactivateWorkflow(WORKFLOW_ID);
		expect(subscriptions()).toEqual([]);
	});
});

describe("Listen for test event (the editor's test URL)", () => {
	const TRIGGER = 'Transcription Completed';
	const testUrl = () => n8n.instance.testWebhookUrl(`${TEST_EVENT_WEBHOOK_ID}/webhook`);

	beforeAll(async () => {
		// Run alone (jest -t), no earlier test has started n8n.
		if (!n8n.instance.running) await n8n.start('publication-service');
	});

	/** n8n's answer at the test URL now (404 once it no longer listens). */
	async function testUrlStatus(): Promise<number> {
		const response = await fetch(testUrl(), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{}',
		});
		await response.arrayBuffer();
		return response.status;
	}

	test('listening registers exactly one subscription at the test URL; a signed delivery runs the workflow once with the normalised event; then the subscription is removed', async () => {
		expect(subscriptions()).toEqual([]);
		expect(await n8n.instance.listenForTestEvent(TEST_EVENT_WORKFLOW_ID, TRIGGER)).toEqual({
			waitingForWebhook: true,
		});
		expectExactlyOne(testUrl());
		expect(testUrl()).toMatch(
			new RegExp(`^http://127\\.0\\.0\\.1:\\d+/webhook-test/${TEST_EVENT_WEBHOOK_ID}/webhook$`),
		);

		const report = await fakeWebhooks(api).deliver({
			endpoint: testUrl(),
			transactionId: 'txn-test-event',
		});
		expect(report.attempts.map((a) => [a.endpoint, a.status])).toEqual([[testUrl(), 200]]);
		const [latest] = await n8n.instance.waitForExecutions(TEST_EVENT_WORKFLOW_ID, 1);
		const execution = await n8n.instance.getExecution(latest.id);
		expect([execution.mode, execution.status]).toEqual(['manual', 'success']);
		expect(nodeJson(execution, TRIGGER)).toEqual([
			{
				event: 'v2rx.completed',
				transactionId: 'txn-test-event',
				sessionId: 'txn-test-event',
				status: 'completed',
				timestamp: (report.body as { timestamp: string }).timestamp,
				shape: 'flat',
				body: report.body,
			},
		]);

		// One event ends the listening: n8n deletes the subscription and stops serving the test URL.
		await eventually(
			() => subscriptions().length === 0,
			() => JSON.stringify(subscriptions()),
		);
		expect(await testUrlStatus()).toBe(404);
		expect((await n8n.instance.listExecutions({ workflowId: TEST_EVENT_WORKFLOW_ID })).length).toBe(
			1,
		);
	});

	test('"Stop listening" removes the test subscription', async () => {
		const unsubscribes = () =>
			api.requests
				.filter((r) => r.method === 'DELETE' && r.pathname.startsWith(`${SUBSCRIPTIONS}/`))
				.map((r) => r.pathname);
		const before = unsubscribes().length;
		expect(await n8n.instance.listenForTestEvent(TEST_EVENT_WORKFLOW_ID, TRIGGER)).toEqual({
			waitingForWebhook: true,
		});
		const subscription = expectExactlyOne(testUrl());
		await n8n.instance.stopListening(TEST_EVENT_WORKFLOW_ID);
		await eventually(
			() => subscriptions().length === 0,
			() => JSON.stringify(subscriptions()),
		);
		expect(unsubscribes().slice(before)).toEqual([`${SUBSCRIPTIONS}/${subscription.id}`]);
		expect(await testUrlStatus()).toBe(404);
		expect((await n8n.instance.listExecutions({ workflowId: TEST_EVENT_WORKFLOW_ID })).length).toBe(
			1,
		);
	});
});

describe('Clinic events of every family, and the appointment examples', () => {
	const clinicUrl = () => n8n.instance.webhookUrl(`${CLINIC_WEBHOOK_ID}/webhook`);
	const target = { workflowId: CLINIC_WORKFLOW_ID, url: clinicUrl };

	/** 2026-11-24 11:30 in the clinic's zone (+05:30). */
	const START = 1795500000;

	beforeAll(async () => {
		if (!n8n.instance.running) await n8n.start('publication-service');
		// The appointments the events name (Include Appointment or Prescription fetches them).
		const sampleId = String(
			(clinicEventSample('appointment-pw').data as Record<string, unknown>).appointment_id,
		);
		for (const id of ['appt-e2e-1', 'appt-e2e-2', 'appt-e2e-reminder', sampleId])
			fakeAppointments(api).seed({ appointment_id: id, start_time: START });
	});

	test('activation registers exactly one subscription carrying every chosen event', async () => {
		const posts = registrations();
		await n8n.instance.activateWorkflow(CLINIC_WORKFLOW_ID);
		expect(subscriptions()).toEqual([
			expect.objectContaining({
				endpoint: clinicUrl(),
				event_names: CLINIC_EVENTS,
				signing_key: expect.stringMatching(/^[0-9a-f]{64}$/),
			}),
		]);
		expect(registrations()).toBe(posts + 1);
	});

	test('signed deliveries of each family run the workflow with the normalised event (and the appointment or prescription fetched)', async () => {
		const now = new Date();
		const appointment = await deliverAndRun(
			{ body: clinicEventSample('appointment-pw', { appointmentId: 'appt-e2e-1', now }) },
			target,
		);
		expect(appointment.next).toEqual([
			expect.objectContaining({
				event: 'appointment.created',
				kind: 'appointment',
				appointmentId: 'appt-e2e-1',
				status: 'BK',
				statusLabel: 'Booked',
				occurredAt: new Date(Math.floor(now.getTime() / 1000) * 1000).toISOString(),
				body: appointment.report.body,
			}),
		]);
		expect(appointment.next[0].appointment).toMatchObject({
			appointment_id: 'appt-e2e-1',
			start_time: START,
			start_time_iso: '2026-11-24T11:30:00+05:30',
			status_label: 'Booked',
		});
		const ws = await deliverAndRun(
			{
				body: clinicEventSample('appointment-ws', {
					event: 'appointment.statuschange',
					appointmentId: 'appt-e2e-2',
					status: 'CM',
				}),
			},
			target,
		);
		expect(ws.next).toEqual([
			expect.objectContaining({
				event: 'appointment.statuschange',
				kind: 'appointment',
				appointmentId: 'appt-e2e-2',
				statusLabel: 'Completed',
				nameField: 'event_type',
			}),
		]);
		const seeded = fakePrescriptions(api).seed({
			prescription: { prescription_id: 'P-DW-E2E-0001' },
		});
		const prescription = await deliverAndRun(
			{ body: clinicEventSample('prescription-pw', { prescriptionId: seeded.prescription_id }) },
			target,
		);
		expect(prescription.next).toEqual([
			expect.objectContaining({
				event: 'prescription.created',
				kind: 'prescription',
				prescriptionId: 'P-DW-E2E-0001',
				prescription: expect.objectContaining({ prescription_id: 'P-DW-E2E-0001' }),
			}),
		]);
		const receipt = await deliverAndRun(
			{
				body: clinicEventSample('receipt-ws', {
					receiptId: 'rcpt-e2e-1',
					appointmentId: 'appt-e2e-1',
				}),
			},
			target,
		);
		expect(receipt.next).toEqual([
			expect.objectContaining({
				event: 'receipt.created',
				kind: 'receipt',
				receiptId: 'rcpt-e2e-1',
				appointmentId: 'appt-e2e-1',
			}),
		]);
		const transcription = await deliverAndRun(
			{ endpoint: clinicUrl(), transactionId: 'txn-e2e-mixed' },
			target,
		);
		expect(transcription.next).toEqual([
			expect.objectContaining({
				event: 'v2rx.completed',
				transactionId: 'txn-e2e-mixed',
				shape: 'flat',
			}),
		]);
	});

	test('forged deliveries of each family get 401 and start nothing; a replayed one runs once', async () => {
		// Every execution so far, finished or not: only those started from here on are counted.
		const earlier = new Set(
			(await n8n.instance.listExecutions({ workflowId: CLINIC_WORKFLOW_ID })).map((e) => e.id),
		);
		const started = async () =>
			(await n8n.instance.listExecutions({ workflowId: CLINIC_WORKFLOW_ID })).filter(
				(e) => !earlier.has(e.id),
			);
		const forged: Array<
			[ClinicSampleVariant, 'wrong-key' | 'changed-body' | 'stale' | 'no-header']
		> = [
			['appointment-pw', 'wrong-key'],
			['appointment-ws', 'changed-body'],
			['prescription-pw', 'stale'],
			['receipt-ws', 'no-header'],
		];
		for (const [variant, forgery] of forged) {
			const report = await fakeWebhooks(api).deliver({
				body: clinicEventSample(variant),
				forgery,
				endpoint: clinicUrl(),
			});
			expect([variant, report.attempts.map((a) => a.status)]).toEqual([variant, [401]]);
		}
		for (const variant of ['appointment-pw', 'receipt-ws'] as const) {
			const report = await fakeWebhooks(api).deliver({
				body: clinicEventSample(variant),
				times: 2,
				endpoint: clinicUrl(),
			});
			expect([variant, report.attempts.map((a) => a.status)]).toEqual([variant, [200, 200]]);
		}
		await eventually(
			async () =>
				(await started()).filter((e) => !['running', 'new', 'waiting'].includes(e.status)).length >=
				2,
			() => 'the replayed deliveries did not run',
		);
		// Give n8n time to (wrongly) start more.
		await new Promise((resolve) => setTimeout(resolve, 2000));
		const runs = await Promise.all(
			(await started()).map(
				async (e) => nodeJson(await n8n.instance.getExecution(e.id), 'Next Node')[0],
			),
		);
		expect(runs.map((json) => [json.event, json.appointmentId]).sort()).toEqual([
			['appointment.created', 'api-abb67007-1e53-4f0f-b428-a4bc025468a4'],
			['receipt.created', 'api-abb67007-1e53-4f0f-b428-a4bc025468a4'],
		]);
	});

	test('deactivation removes the subscription', async () => {
		await n8n.instance.deactivateWorkflow(CLINIC_WORKFLOW_ID);
		await eventually(
			() => subscriptions().length === 0,
			() => JSON.stringify(subscriptions()),
		);
	});

	test('example "appointment booked → reminder message": the message reaches the messaging gateway', async () => {
		const reminderUrl = () =>
			n8n.instance.webhookUrl(
				`${String(readWorkflowFile(REMINDER_FILE).nodes[0].webhookId)}/webhook`,
			);
		await n8n.instance.activateWorkflow(REMINDER_WORKFLOW_ID);
		expect(subscriptions()).toEqual([
			expect.objectContaining({ endpoint: reminderUrl(), event_names: ['appointment.created'] }),
		]);
		fakeMessages(api).clear();
		const run = await deliverAndRun(
			{ body: clinicEventSample('appointment-pw', { appointmentId: 'appt-e2e-reminder' }) },
			{ workflowId: REMINDER_WORKFLOW_ID, url: reminderUrl, node: 'Send Reminder Message' },
		);
		expect(run.next).toEqual([
			expect.objectContaining({ appointment_id: 'appt-e2e-reminder', duplicate: false }),
		]);
		expect(
			fakeMessages(api)
				.messages()
				.map((m) => m.body),
		).toEqual([
			expect.objectContaining({
				channel: 'whatsapp',
				appointment_id: 'appt-e2e-reminder',
				text: 'Your appointment is booked for 24 Nov 2026, 11:30 (reference appt-e2e-reminder). Reply to this message to change or cancel it.',
			}),
		]);
		await n8n.instance.deactivateWorkflow(REMINDER_WORKFLOW_ID);
		await eventually(
			() => subscriptions().length === 0,
			() => JSON.stringify(subscriptions()),
		);
	});

	test('example "appointment completed → prescription PDF → e-mail": the PDF is fetched (no credential to the store) and e-mailed to the inbox', async () => {
		const exampleUrl = () =>
			n8n.instance.webhookUrl(
				`${String(readWorkflowFile(PRESCRIPTION_EMAIL_FILE).nodes[0].webhookId)}/webhook`,
			);
		await n8n.instance.activateWorkflow(PRESCRIPTION_EMAIL_WORKFLOW_ID);
		expect(subscriptions()).toEqual([
			expect.objectContaining({
				endpoint: exampleUrl(),
				event_names: ['appointment.statuschange'],
			}),
		]);
		const seeded = fakePrescriptions(api).seed({
			prescription: { prescription_id: 'P-DW-E2E-MAIL' },
		});
		fakeAppointments(api).seed({
			appointment_id: 'appt-e2e-done',
			status: 'CM',
			prescription_id: seeded.prescription_id,
			prescription_url: seeded.prescription_url,
		});
		fakeAppointments(api).seed({ appointment_id: 'appt-e2e-noshow', status: 'NS' });
		const before = await finishedExecutions(PRESCRIPTION_EMAIL_WORKFLOW_ID);
		// A no-show first: it goes the other way, nothing is fetched for it.
		const noShow = await fakeWebhooks(api).deliver({
			body: clinicEventSample('appointment-statuschange-pw', {
				appointmentId: 'appt-e2e-noshow',
				status: 'NS',
			}),
		});
		expect(noShow.attempts.map((a) => a.status)).toEqual([200]);
		const [skipped] = await n8n.instance.waitForExecutions(
			PRESCRIPTION_EMAIL_WORKFLOW_ID,
			before + 1,
		);
		const skippedRun = await n8n.instance.getExecution(skipped.id);
		expect(skippedRun.status).toBe('success');
		expect(nodeJson(skippedRun, 'No Prescription to Send')).toEqual([
			expect.objectContaining({ appointmentId: 'appt-e2e-noshow', status: 'NS' }),
		]);
		expect(skippedRun.runData['Get Prescription PDF']).toBeUndefined();

		const report = await fakeWebhooks(api).deliver({
			body: clinicEventSample('appointment-statuschange-pw', {
				appointmentId: 'appt-e2e-done',
				status: 'CM',
			}),
		});
		expect(report.attempts.map((a) => [a.endpoint, a.status])).toEqual([[exampleUrl(), 200]]);
		const [latest] = await n8n.instance.waitForExecutions(
			PRESCRIPTION_EMAIL_WORKFLOW_ID,
			before + 2,
		);
		const execution = await n8n.instance.getExecution(latest.id);
		expect(execution.error?.message).toBeUndefined();
		expect(execution.status).toBe('success');
		const [item] = nodeOutput(execution, 'Get Prescription PDF');
		expect(item.json).toMatchObject({ prescription_id: 'P-DW-E2E-MAIL' });
		expect(item.binary?.data).toMatchObject({
			mimeType: 'application/pdf',
			fileName: expect.stringMatching(/\.pdf$/),
		});
		// Sent through the local inbox's SMTP credential, the PDF attached.
		expect(nodeJson(execution, 'E-mail Prescription to Patient')).toEqual([
			expect.objectContaining({ accepted: ['patient@example.com'], rejected: [] }),
		]);
		const email = await inbox.waitForEmail((e) => e.subject.startsWith('Your prescription from'));
		expect(email.to.map((t) => t.address)).toEqual(['patient@example.com']);
		expect(email.text).toContain("your prescription from today's consultation is attached");
		expect(email.attachments).toEqual([
			expect.objectContaining({ filename: 'P-DW-E2E-MAIL.pdf', contentType: 'application/pdf' }),
		]);
		const pdfRequests = api.requests.filter((r) => r.pathname === seeded.pdf_path);
		expect(pdfRequests).toHaveLength(1);
		expect([
			pdfRequests[0].headers.authorization,
			pdfRequests[0].headers.auth,
			pdfRequests[0].headers['client-id'],
		]).toEqual([undefined, undefined, undefined]);
		await n8n.instance.deactivateWorkflow(PRESCRIPTION_EMAIL_WORKFLOW_ID);
		await eventually(
			() => subscriptions().length === 0,
			() => JSON.stringify(subscriptions()),
		);
	});
});

describe('One event, every trigger that chose it: each runs once; nothing lost on a failed fetch (issue 17)', () => {
	const TRIGGER = 'Transcription Completed';
	const twinAUrl = () => n8n.instance.webhookUrl(`${TWIN_A_WEBHOOK_ID}/webhook`);
	const twinBUrl = () => n8n.instance.webhookUrl(`${TWIN_B_WEBHOOK_ID}/webhook`);
	const twinATestUrl = () => n8n.instance.testWebhookUrl(`${TWIN_A_WEBHOOK_ID}/webhook`);
	const fetchUrl = () => n8n.instance.webhookUrl(`${FETCH_WEBHOOK_ID}/webhook`);
	/**
	 * n8n's answer when webhook() started the workflow, and when it acknowledged and dropped the
	 * delivery. (n8n 2.41 answers a started "onReceived" webhook with the default of its responseData
	 * expression, the text "firstEntryJson"; one with no items gets its "Webhook call received".)
	 */
	const STARTED = 'firstEntryJson';
	const DROPPED = '{"message":"Webhook call received"}';

	beforeAll(async () => {
		if (!n8n.instance.running) await n8n.start('publication-service');
	});

	/** Each attempt of a delivery as [endpoint, status, n8n's answer], in endpoint order. */
	const answers = (report: DeliveryReport) =>
		report.attempts
			.map((a) => [a.endpoint, a.status, a.response] as const)
			.sort((x, y) => x[0].localeCompare(y[0]));

	async function executionsOf(workflowId: string, count: number) {
		const finished = await n8n.instance.waitForExecutions(workflowId, count);
		return await Promise.all(finished.map(async (e) => await n8n.instance.getExecution(e.id)));
	}

	test('two published workflows on appointment.created and v2rx.completed: each runs once per delivery; the same delivery again runs neither', async () => {
		await n8n.instance.activateWorkflow(TWIN_A_WORKFLOW_ID);
		await n8n.instance.activateWorkflow(TWIN_B_WORKFLOW_ID);
		const twins = subscriptions();
		expect(twins.map((sub) => sub.endpoint).sort()).toEqual([twinAUrl(), twinBUrl()].sort());
		// Each subscription holds its own key: the service signs each copy with it.
		expect(new Set(twins.map((sub) => sub.signing_key)).size).toBe(2);
		const both = (answer: string) =>
			[
				[twinAUrl(), 200, answer],
				[twinBUrl(), 200, answer],
			].sort((x, y) => String(x[0]).localeCompare(String(y[0])));

		const appointment = await fakeWebhooks(api).deliver({
			body: clinicEventSample('appointment-pw', { appointmentId: 'appt-e2e-twins' }),
		});
		expect(answers(appointment)).toEqual(both(STARTED));
		const completed = await fakeWebhooks(api).deliver({ transactionId: 'txn-e2e-twins' });
		expect(answers(completed)).toEqual(both(STARTED));
		// The very same deliveries again (signed afresh, as a service retry would be): acknowledged, no run.
		expect(answers(await fakeWebhooks(api).deliver({ body: appointment.body }))).toEqual(
			both(DROPPED),
		);
		expect(answers(await fakeWebhooks(api).deliver({ body: completed.body }))).toEqual(
			both(DROPPED),
		);

		for (const workflowId of [TWIN_A_WORKFLOW_ID, TWIN_B_WORKFLOW_ID]) {
			const runs = await executionsOf(workflowId, 2);
			expect([workflowId, runs.length]).toEqual([workflowId, 2]);
			expect(
				runs.map((run) => [run.status, run.mode, nodeJson(run, 'Next Node')[0].event]).sort(),
			).toEqual([
				['success', 'webhook', 'appointment.created'],
				['success', 'webhook', 'v2rx.completed'],
			]);
		}
		recordAttack(
			'delivery-two-workflows-n8n',
			'real n8n: appointment.created and v2rx.completed to two published workflows: one run each; the same deliveries again: none',
			{ itemsLost: 0 },
		);
	});

	test('a published workflow plus "Listen for test event" on it: one production run and one test run; the other workflow runs once too; replays run nothing', async () => {
		expect(await n8n.instance.listenForTestEvent(TWIN_A_WORKFLOW_ID, TRIGGER)).toEqual({
			waitingForWebhook: true,
		});
		expect(
			subscriptions()
				.map((sub) => sub.endpoint)
				.sort(),
		).toEqual([twinAUrl(), twinATestUrl(), twinBUrl()].sort());
		const body = clinicEventSample('appointment-pw', { appointmentId: 'appt-e2e-listener' });
		const report = await fakeWebhooks(api).deliver({ body });
		expect(answers(report)).toEqual(
			[
				[twinAUrl(), 200, STARTED],
				[twinATestUrl(), 200, STARTED],
				[twinBUrl(), 200, STARTED],
			].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
		);
		const runsOfA = (await executionsOf(TWIN_A_WORKFLOW_ID, 4)).filter(
			(run) => nodeJson(run, TRIGGER)[0]?.appointmentId === 'appt-e2e-listener',
		);
		expect(runsOfA.map((run) => [run.mode, run.status]).sort()).toEqual([
			['manual', 'success'],
			['webhook', 'success'],
		]);
		// One event ends the listening: n8n removes the test subscription; the production ones stay.
		await eventually(
			() => subscriptions().length === 2,
			() => JSON.stringify(subscriptions()),
		);
		expect(answers(await fakeWebhooks(api).deliver({ body }))).toEqual(
			[
				[twinAUrl(), 200, DROPPED],
				[twinBUrl(), 200, DROPPED],
			].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
		);
		expect((await executionsOf(TWIN_B_WORKFLOW_ID, 3)).length).toBe(3);
		expect((await executionsOf(TWIN_A_WORKFLOW_ID, 4)).length).toBe(4);
		recordAttack(
			'delivery-test-listener-n8n',
			'real n8n: published + Listen for test event: one production run, one test (manual) run, the other workflow one run; replays none',
			{ itemsLost: 0 },
		);
		await n8n.instance.deactivateWorkflow(TWIN_A_WORKFLOW_ID);
		await n8n.instance.deactivateWorkflow(TWIN_B_WORKFLOW_ID);
		await eventually(
			() => subscriptions().length === 0,
			() => JSON.stringify(subscriptions()),
		);
	});

	test("a copy arriving while the first delivery's fetch is failing is not acknowledged before the run started; that run has the event and the error", async () => {
		await n8n.instance.activateWorkflow(FETCH_WORKFLOW_ID);
		const [subscription] = subscriptions();
		expect(subscription.endpoint).toBe(fetchUrl());
		// An appointment the service does not know, its answer (404) held 3 s: the first copy is mid-fetch.
		const path = '/dr/v1/appointment/appt-e2e-failing';
		api.injectFault({ method: 'GET', path, fault: { kind: 'delay', ms: 3_000 } });
		const { raw, headers } = prepareDelivery(
			subscription,
			clinicEventSample('appointment-pw', { appointmentId: 'appt-e2e-failing' }),
			undefined,
		);
		const send = async () => {
			const response = await fetch(fetchUrl(), { method: 'POST', headers, body: raw });
			return { status: response.status, answer: await response.text(), at: Date.now() };
		};
		const first = send();
		await eventually(
			() => api.requestsTo(path, 'GET').length === 1,
			() => 'the first copy did not fetch the appointment',
		);
		const copy = await send();
		const [fetchRequest] = api.requestsTo(path, 'GET');
		// The copy's answer came only once the failing fetch had its answer (the fake holds it 3 s; the
		// margin covers millisecond rounding of the two clocks' readings, not speed: before the fix the
		// copy was answered about 0.2 s after the fetch began).
		expect(copy.at).toBeGreaterThanOrEqual(fetchRequest.time + 2_900);
		expect([copy.status, copy.answer]).toEqual([200, DROPPED]);
		expect(await first).toMatchObject({ status: 200, answer: STARTED });
		const [run] = await executionsOf(FETCH_WORKFLOW_ID, 1);
		expect(nodeJson(run, 'Next Node')).toEqual([
			expect.objectContaining({
				event: 'appointment.created',
				appointmentId: 'appt-e2e-failing',
				appointment: null,
				error: expect.objectContaining({
					message: expect.stringMatching(/^Could not fetch the appointment: .*HTTP 404/),
					httpCode: '404',
				}),
			}),
		]);
		expect(api.requestsTo(path, 'GET')).toHaveLength(1);
		recordAttack(
			'delivery-copy-during-failing-fetch-n8n',
			'real n8n: copy during a failing (404, held 3 s) fetch answered after it, as dropped; one run with the event and the error',
			{ itemsLost: 0 },
		);
		process.stderr.write(
			`[trigger e2e] copy during a failing fetch: answered ${copy.at - fetchRequest.time} ms after the fetch began (the fetch's answer was held 3000 ms)\n`,
		);
	});

	test('an unknown prescription: one run with the event and a clear error, 200 to the service (never 500), and the same delivery again runs nothing', async () => {
		const before = (await n8n.instance.listExecutions({ workflowId: FETCH_WORKFLOW_ID })).length;
		const report = await fakeWebhooks(api).deliver({
			body: clinicEventSample('prescription-pw', { prescriptionId: 'P-DW-E2E-UNKNOWN' }),
			times: 3,
		});
		expect(report.attempts.map((a) => [a.status, a.response])).toEqual([
			[200, STARTED],
			[200, DROPPED],
			[200, DROPPED],
		]);
		const runs = await executionsOf(FETCH_WORKFLOW_ID, before + 1);
		expect(runs).toHaveLength(before + 1);
		expect(nodeJson(runs[0], 'Next Node')).toEqual([
			expect.objectContaining({
				event: 'prescription.created',
				prescriptionId: 'P-DW-E2E-UNKNOWN',
				prescription: null,
				error: {
					message: expect.stringMatching(
						/^Could not fetch the prescription: The clinic API refused the prescription \(HTTP 404/,
					),
					description: expect.stringMatching(
						/^The workflow started with the event alone, so the event is not lost\./,
					),
					httpCode: '404',
				},
			}),
		]);
		expect(api.requestsTo('/dr/v1/prescription/P-DW-E2E-UNKNOWN', 'GET')).toHaveLength(1);
		recordAttack(
			'delivery-unknown-record-n8n',
			'real n8n: unknown prescription delivered 3 times: 200 each, one run with the event and a 404 error, no 500',
			{ itemsLost: 0 },
		);
	});

	test('a slow fetch (8 s): the service is answered within the 6 s fetch budget; the run has the event and says the appointment did not come in time (the answer time is printed)', async () => {
		const before = (await n8n.instance.listExecutions({ workflowId: FETCH_WORKFLOW_ID })).length;
		fakeAppointments(api).seed({ appointment_id: 'appt-e2e-quick', start_time: 1795500000 });
		let started = Date.now();
		const quick = await fakeWebhooks(api).deliver({
			body: clinicEventSample('appointment-pw', { appointmentId: 'appt-e2e-quick' }),
		});
		const quickMs = Date.now() - started;
		expect(quick.attempts.map((a) => [a.status, a.response])).toEqual([[200, STARTED]]);

		fakeAppointments(api).seed({ appointment_id: 'appt-e2e-slow', start_time: 1795500000 });
		api.injectFault({
			method: 'GET',
			path: '/dr/v1/appointment/appt-e2e-slow',
			fault: { kind: 'delay', ms: 8_000 },
		});
		started = Date.now();
		const slow = await fakeWebhooks(api).deliver({
			body: clinicEventSample('appointment-pw', { appointmentId: 'appt-e2e-slow' }),
		});
		const slowMs = Date.now() - started;
		expect(slow.attempts.map((a) => [a.status, a.response])).toEqual([[200, STARTED]]);
		timings['answer to the service, fetch answered at once'] = quickMs;
		timings['answer to the service, fetch held 8 s (budget 6 s)'] = slowMs;
		process.stderr.write(
			`[trigger e2e] answer time to the service: ${quickMs} ms with the appointment answered at once; ${slowMs} ms with it held 8 s (fetch budget 6 s)\n`,
		);

		const runs = await executionsOf(FETCH_WORKFLOW_ID, before + 2);
		const byId = new Map(
			runs.map((run) => [
				nodeJson(run, 'Next Node')[0].appointmentId,
				nodeJson(run, 'Next Node')[0],
			]),
		);
		expect(byId.get('appt-e2e-quick')).toMatchObject({
			appointment: { appointment_id: 'appt-e2e-quick', start_time: 1795500000 },
		});
		expect(byId.get('appt-e2e-quick')).not.toHaveProperty('error');
		expect(byId.get('appt-e2e-slow')).toMatchObject({
			appointment: null,
			error: { message: 'The clinic API did not give the appointment within 6 s', httpCode: null },
		});
		await n8n.instance.deactivateWorkflow(FETCH_WORKFLOW_ID);
		await eventually(
			() => subscriptions().length === 0,
			() => JSON.stringify(subscriptions()),
		);
	});
});
