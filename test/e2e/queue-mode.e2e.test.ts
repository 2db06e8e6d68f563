/**
 * Clinic Scribe Trigger in n8n 2.41.1's queue mode: main (`n8n start`, runs webhookMethods), a
 * separate webhook process (`n8n webhook`, WEBHOOK_URL = its address) and a worker (`n8n worker`),
 * sharing one user folder with the package installed, a private PostgreSQL and a private Redis.
 *
 * activate → exactly one subscription, at the webhook process's production URL → a signed delivery
 * to the webhook process runs an execution on the worker that succeeds with the normalised event →
 * forged deliveries get 401 and start nothing → deactivate → no subscription.
 *
 * Then, on the same instance, examples/review-and-sign-before-filing.json (issue 36): its run waits
 * for the doctor holding no worker (the worker has one slot, and a second visit's run takes it
 * meanwhile), is still waiting after main restarts, and the doctor's answer (n8n's form posted to the
 * e-mail's resume URL on the webhook process) finishes it on the worker: the EHR holds the signed
 * notes, then the patient is e-mailed.
 */

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import {
	LOCAL_CREDENTIAL,
	LOCAL_SMTP_CREDENTIAL,
	SMTP_CREDENTIAL_TYPE,
	localCopy,
	smtpCredentialData,
} from '../../scripts/localExamples';
import { clinicEventSample } from '../fake-api/clinicEventSamples';
import { fakeWebhooks, type FakeSubscription } from '../fake-api/routes/webhooks';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { VISIT_ADDITIONAL_DATA } from '../support/clinicVisit';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { SESSION_TEMPLATES, startFinishedSession } from '../support/fakeTranscriptionSession';
import { startFhirServer, type RunningFhirServer } from '../support/fhirServer';
import { startInbox, type InboxEmail, type RunningInbox } from '../support/inbox';
import { REPO_ROOT, packedPackageForTests } from '../support/n8n/install';
import { nodeJson } from '../support/n8n/results';
import {
	CREDENTIAL_TYPE,
	TRIGGER_NODE_TYPE,
	newId,
	readWorkflowFile,
	type WorkflowJson,
} from '../support/n8n/workflows';
import {
	E2E_OWNER,
	eventually,
	fakeApiCredential,
	triggerWorkflow,
	waitForLog,
} from '../support/n8n/trigger';
import { QueueModeN8n } from '../support/queueMode';
import { queueServicesPresent } from '../support/queueServices';
import {
	expectDoctorsSignature,
	signedVisitComposition,
	visitComposition,
} from '../support/signedNotes';

// Jest ignores testTimeout inside a project's settings; three n8n processes start here.
jest.setTimeout(600_000);

const WEBHOOK_ID = '3f0d7b8e-5a61-4c2e-9b7d-e2e0000000c3';
const WORKFLOW_ID = newId();
/** A transcription event and a clinic event on the one subscription. */
const QUEUE_EVENTS = ['v2rx.completed', 'appointment.statuschange'];

const REVIEW_EXAMPLE = join(REPO_ROOT, 'examples', 'review-and-sign-before-filing.json');
const REVIEW_ID = newId();
const PATIENT_EMAIL = 'ravi.kumar@example.com';
const DOCTOR_EMAIL = 'doctor@clinic.example.com';
const CLINIC_EMAIL = 'frontdesk@clinic.example.com';

let api: FakeClinicApi;
let queue: QueueModeN8n;
let ehr: RunningFhirServer;
let inbox: RunningInbox;
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
	[api, ehr, inbox] = await Promise.all([startFakeClinicApi(), startFhirServer(), startInbox()]);
	// One worker slot: a run waiting for the doctor must leave it free for the next run.
	queue = await QueueModeN8n.create({
		packageTarball: await packedPackageForTests(),
		workerConcurrency: 1,
	});
	await queue.main.importCredentials([
		fakeApiCredential(api.url, api.validCredentials),
		{ ...LOCAL_CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
		{ ...LOCAL_SMTP_CREDENTIAL, type: SMTP_CREDENTIAL_TYPE, data: smtpCredentialData(inbox) },
	]);
	await queue.main.importWorkflows([queueWorkflow(), reviewWorkflow()]);
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
	await Promise.all([api?.close(), ehr?.stop(), inbox?.stop()]);
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

/** The review example as npm start imports it: the fake API, the local EHR and the local inbox. */
function reviewWorkflow(): WorkflowJson {
	const setup = {
		fakeApiUrl: api.url,
		fhirBaseUrl: ehr.fhirBaseUrl,
		inboxUrl: inbox.webUrl,
		recordingPath: '',
	};
	return { ...localCopy(readWorkflowFile(REVIEW_EXAMPLE), setup), id: REVIEW_ID };
}

const REVIEW_HOOK = String(
	readWorkflowFile(REVIEW_EXAMPLE).nodes.find((n) => n.type === TRIGGER_NODE_TYPE)?.webhookId,
);
const reviewUrl = () => queue.webhookUrl(`${REVIEW_HOOK}/webhook`);

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

/** One visit through the review example: its session, its run, the resume URL in the doctor's e-mail. */
interface ReviewRun {
	sessionId: string;
	executionId: string;
	resumeUrl: string;
}

/** A finished visit of its own, delivered as v2rx.completed to the review example's webhook. */
async function reviewVisitDelivered(): Promise<string> {
	const sessionId = `visit-queue-${randomBytes(3).toString('hex')}`;
	await startFinishedSession(api.url, api.validCredentials, sessionId, SESSION_TEMPLATES, {
		...VISIT_ADDITIONAL_DATA,
	});
	const report = await fakeWebhooks(api).deliver({
		endpoint: reviewUrl(),
		transactionId: sessionId,
	});
	expect(report.attempts.map((a) => [a.endpoint, a.status])).toEqual([[reviewUrl(), 200]]);
	return sessionId;
}

/** The review example's one execution not in `earlier`, once main lists it as `status`. */
async function reviewExecution(status: string, earlier: string[]): Promise<string> {
	let id = '';
	await eventually(
		async () => {
			const found = await queue.main.listExecutions({ workflowId: REVIEW_ID });
			id = found.find((e) => !earlier.includes(e.id) && e.status === status)?.id ?? '';
			return id !== '';
		},
		() => `no ${status} execution of the review example besides ${JSON.stringify(earlier)}`,
		60_000,
	);
	return id;
}

/** A visit delivered, its run waiting for the doctor, and the doctor's e-mail with the run's resume URL. */
async function reviewRunWaiting(earlier: string[]): Promise<ReviewRun> {
	const sessionId = await reviewVisitDelivered();
	const executionId = await reviewExecution('waiting', earlier);
	// The e-mail's button: <WEBHOOK_URL>webhook-waiting/<execution>/<node>?approved=true&signature=…
	const button = new RegExp(`href="([^"]*/webhook-waiting/${executionId}[/?][^"]*)"`);
	const email = await inbox.waitForEmail(
		(e) => e.to.some((t) => t.address === DOCTOR_EMAIL) && button.test(e.html ?? ''),
		60_000,
	);
	const resumeUrl = button.exec(String(email.html))![1].replace(/&amp;/g, '&');
	return { sessionId, executionId, resumeUrl };
}

/** What n8n's form page sends on "Send my answer": its fields as field-0, field-1… in a multipart POST to its own URL. */
async function answerForm(resumeUrl: string, values: string[]): Promise<Response> {
	const form = new FormData();
	values.forEach((value, index) => form.append(`field-${index}`, value));
	return await fetch(resumeUrl, { method: 'POST', body: form });
}

/** The notes n8n's form page opens with (the Notes field's default: the review's notes). */
async function prefilledNotes(resumeUrl: string): Promise<string> {
	const page = await (await fetch(resumeUrl)).text();
	const textarea = /<textarea[^>]*>([\s\S]*?)<\/textarea>/.exec(page);
	if (!textarea) throw new Error('the form page has no text area for the notes');
	return textarea[1]
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&quot;/g, '"')
		.replace(/&#39;|&#x27;/g, "'")
		.replace(/&amp;/g, '&');
}

async function reviewRunStatus(run: ReviewRun): Promise<string> {
	return (await queue.main.getExecution(run.executionId)).status;
}

async function emailsTo(address: string): Promise<InboxEmail[]> {
	return (await inbox.emails()).filter((e) => e.to.some((t) => t.address === address));
}

const reviewSubscriptions = () => subscriptions().filter((s) => s.endpoint === reviewUrl());
const linesAbout = (lines: string[], what: string, executionId: string) =>
	lines.filter((l) => new RegExp(`${what} ${executionId}\\b`).test(l));

describeQueueMode(
	'examples/review-and-sign-before-filing.json in queue mode: waits holding no worker, survives a restart of main',
	() => {
		let first: ReviewRun;
		let second: ReviewRun;

		test("a run waits for the doctor without holding the worker's one slot: a second visit's run reaches the doctor meanwhile", async () => {
			await queue.main.activateWorkflow(REVIEW_ID, { timeoutMs: 30_000 });
			expect(reviewSubscriptions()).toHaveLength(1);
			await queue.worker!.waitForLine(/Concurrency: 1\b/, 10_000);
			await inbox.deleteAll();

			const started = Date.now();
			first = await reviewRunWaiting([]);
			timings['delivery to waiting for the doctor'] = Date.now() - started;
			expect(first.resumeUrl.startsWith(`${queue.webhookBaseUrl}/webhook-waiting/`)).toBe(true);
			// The worker's job ended when the run began to wait.
			await queue.worker!.waitForLine(
				new RegExp(`Worker finished execution ${first.executionId}\\b`),
				30_000,
			);

			second = await reviewRunWaiting([first.executionId]);
			expect(
				linesAbout(queue.worker!.lines(), 'Worker started execution', second.executionId),
			).toHaveLength(1);
			expect(await reviewRunStatus(first)).toBe('waiting');
			expect(await visitComposition(ehr, first.sessionId)).toBeUndefined();
			expect(await emailsTo(PATIENT_EMAIL)).toEqual([]);
		});

		test('both runs are still waiting after main restarts (same user folder, PostgreSQL and Redis); nothing filed, one subscription', async () => {
			const before = queue.main.serverPid;
			await queue.restartMain();
			await waitForLog(queue.main, /Editor is now accessible/, 120_000);
			await queue.main.ensureOwner(E2E_OWNER);
			expect(queue.main.serverPid).not.toBe(before);

			expect([await reviewRunStatus(first), await reviewRunStatus(second)]).toEqual([
				'waiting',
				'waiting',
			]);
			expect(reviewSubscriptions()).toHaveLength(1);
			expect(await visitComposition(ehr, first.sessionId)).toBeUndefined();
			expect(await emailsTo(PATIENT_EMAIL)).toEqual([]);
		});

		test("the doctor signs through the e-mail's form on the webhook process: the run ends on the worker, the EHR holds the signed notes, then the patient is e-mailed", async () => {
			// The doctor opens the button's page (n8n's form), then sends it.
			const page = await fetch(first.resumeUrl);
			expect([page.status, await page.text()]).toEqual([
				200,
				expect.stringContaining('Sign the consultation notes'),
			]);
			const notes = await prefilledNotes(first.resumeUrl);
			expect(notes).toContain('Penicillin (Rash)');
			const answered = Date.now();
			// Decision, the notes as the form opened with them (not corrected), no reason.
			const answer = await answerForm(first.resumeUrl, ['Sign and file', notes, '']);
			expect([answer.status, await answer.text()]).toEqual([
				200,
				expect.stringContaining('Action recorded'),
			]);

			const composition = await signedVisitComposition(ehr, first.sessionId);
			timings['answer to signed Composition stored'] = Date.now() - answered;
			process.stderr.write(
				`[queue-mode e2e] the doctor's answer → the signed Composition stored: ${timings['answer to signed Composition stored']} ms (polled every 100 ms or so)\n`,
			);
			await expectDoctorsSignature(ehr, composition);

			await eventually(
				async () => (await reviewRunStatus(first)) === 'success',
				() => `execution ${first.executionId} did not succeed`,
				60_000,
			);
			const finished = await queue.main.getExecution(first.executionId);
			expect(finished.error).toBeUndefined();
			// Signed as the form opened: filed as not edited, and nothing saved to the service.
			const [signedItem] = nodeJson(finished, 'Notes Signed as FHIR');
			expect(signedItem.signature).toMatchObject({ edited: false, channel: 'email' });
			// Two jobs of one execution: up to the e-mail, and from the answer on; both enqueued by
			// the webhook process, both run by the worker.
			await queue.worker!.waitUntil(
				`finishing execution ${first.executionId} twice`,
				() =>
					linesAbout(queue.worker!.lines(), 'Worker finished execution', first.executionId)
						.length === 2,
				30_000,
			);
			expect(
				linesAbout(queue.worker!.lines(), 'Worker started execution', first.executionId),
			).toHaveLength(2);
			expect(
				linesAbout(queue.webhook!.lines(), 'Enqueued execution', first.executionId),
			).toHaveLength(2);

			const patientEmail = await inbox.waitForEmail((e) =>
				e.to.some((t) => t.address === PATIENT_EMAIL),
			);
			expect(patientEmail.subject).toBe('Your visit summary, signed by your doctor');
			// After the filing, never before it.
			expect(Date.parse(patientEmail.time)).toBeGreaterThanOrEqual(
				Date.parse(String(composition.meta?.lastUpdated)) - 1000,
			);
		});

		test('the other doctor declines after the restart: nothing filed, the clinic told; deactivation removes the subscription', async () => {
			const notes = await prefilledNotes(second.resumeUrl);
			const answer = await answerForm(second.resumeUrl, ['Decline', notes, 'Not my patient']);
			expect(answer.status).toBe(200);
			const toClinic = await inbox.waitForEmail(
				(e) => e.to.some((t) => t.address === CLINIC_EMAIL) && /Not my patient/.test(e.text ?? ''),
			);
			expect(toClinic.subject).toMatch(/^Notes not signed: notes of /);
			await eventually(
				async () => (await reviewRunStatus(second)) === 'success',
				() => `execution ${second.executionId} did not succeed`,
				60_000,
			);
			expect(await visitComposition(ehr, second.sessionId)).toBeUndefined();
			expect(await emailsTo(PATIENT_EMAIL)).toHaveLength(1);

			await queue.main.deactivateWorkflow(REVIEW_ID, { timeoutMs: 30_000 });
			await eventually(
				() => reviewSubscriptions().length === 0,
				() => JSON.stringify(subscriptions()),
				30_000,
			);
		});
	},
);
