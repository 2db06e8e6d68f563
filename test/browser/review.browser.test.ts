/**
 * The doctor reviews and signs before anything is filed (examples/review-and-sign-before-filing.json),
 * in a real n8n 2.41.1 with the fake clinic API, the local EHR and the local inbox (maildev), and a
 * doctor in headless Chromium who reads the e-mail in maildev's page, presses its button and answers
 * n8n's form:
 *
 * - the form shows the notes ready to correct (prefilled with the review's notes);
 * - Sign and file: the EHR then holds the visit's Composition `final` with the doctor as legal
 *   attester and a Provenance, and only after that the patient's e-mail arrives; the time from the
 *   doctor's answer to the Composition stored is printed;
 * - Sign and file after correcting a line: the service received the corrected Markdown (Save Edited
 *   Notes), the EHR's DocumentReference and the Composition's "Notes as signed" hold the corrected
 *   line, the audit says edited, and the patient's e-mail carries it;
 * - Request changes: nothing is filed, nothing goes to the patient, the clinic gets the reason;
 * - no answer within the limit (a copy of the example that waits seconds, not 24 hours): nothing is
 *   filed, the clinic is told.
 *
 * The run waits between the e-mail and the answer as n8n stores it ("waiting"), holding no worker.
 * Screenshots go to .test-results/browser/review-*.png.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import type {
	Composition,
	DocumentReference,
	MedicationRequest,
	Provenance,
} from '@medplum/fhirtypes';
import { chromium, type Browser, type Page } from 'playwright-core';

import { normalisedNotes } from '../../nodes/ClinicScribe/shared/fhir/signedNotes';
import {
	LOCAL_CREDENTIAL,
	LOCAL_SMTP_CREDENTIAL,
	SMTP_CREDENTIAL_TYPE,
	localCopy,
	smtpCredentialData,
} from '../../scripts/localExamples';
import { BUSINESS } from '../fake-api/fixtures';
import { fakeSessionDocuments } from '../fake-api/routes/transcription/sessionDocuments';
import { registerSession } from '../fake-api/routes/transcription/sessionStore';
import { fakeWebhooks } from '../fake-api/routes/webhooks';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { CHROMIUM, CHROMIUM_FLAGS, describeWithChromium } from '../support/chromium';
import { VISIT_ADDITIONAL_DATA } from '../support/clinicVisit';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { SESSION_TEMPLATES, startFinishedSession } from '../support/fakeTranscriptionSession';
import { startFhirServer, type RunningFhirServer } from '../support/fhirServer';
import { startInbox, type RunningInbox, type InboxEmail } from '../support/inbox';
import { REPO_ROOT, packedPackageForTests } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { nodeJson } from '../support/n8n/results';
import { E2E_OWNER, eventually, waitForLog } from '../support/n8n/trigger';
import {
	expectDoctorsSignature,
	signedVisitComposition,
	visitComposition,
} from '../support/signedNotes';
import {
	CREDENTIAL_TYPE,
	newId,
	readWorkflowFile,
	type WorkflowJson,
} from '../support/n8n/workflows';

jest.setTimeout(10 * 60_000);

const SCREENSHOTS = join(REPO_ROOT, '.test-results', 'browser');
const EXAMPLE = join(REPO_ROOT, 'examples', 'review-and-sign-before-filing.json');
const PATIENT_EMAIL = 'ravi.kumar@example.com';
const DOCTOR_EMAIL = 'doctor@clinic.example.com';
const CLINIC_EMAIL = 'frontdesk@clinic.example.com';

let api: FakeClinicApi;
let ehr: RunningFhirServer;
let inbox: RunningInbox;
let n8n: N8nInstance;
let browser: Browser;
const timings: Record<string, number> = {};

/** The example as npm start imports it, and a copy that gives the doctor seconds instead of 24 hours. */
const ROLES = {
	daily: { id: newId(), hook: '' },
	brief: { id: newId(), hook: 'b7e2c9d4-6a1f-4e3b-8c5d-0f9a8b7c6d5e' },
};

function workflows(): WorkflowJson[] {
	const setup = {
		fakeApiUrl: api.url,
		fhirBaseUrl: ehr.fhirBaseUrl,
		inboxUrl: inbox.webUrl,
		recordingPath: '',
	};
	const daily = { ...localCopy(readWorkflowFile(EXAMPLE), setup), id: ROLES.daily.id };
	ROLES.daily.hook = String(daily.nodes[0].webhookId);
	const brief: WorkflowJson = {
		...daily,
		id: ROLES.brief.id,
		name: `${daily.name} (answer within seconds)`,
		nodes: daily.nodes.map((node) => {
			if (node.name === 'Transcription Completed') return { ...node, webhookId: ROLES.brief.hook };
			if (node.name !== 'Ask the Doctor to Sign') return node;
			return {
				...node,
				webhookId: 'c1d2e3f4-a5b6-4c7d-8e9f-a0b1c2d3e4f5',
				parameters: {
					...node.parameters,
					options: {
						...(node.parameters.options as Record<string, unknown>),
						limitWaitTime: {
							values: {
								limitType: 'atSpecifiedTime',
								maxDateAndTime: '={{ $now.plus({ seconds: 3 }).toISO() }}',
							},
						},
					},
				},
			};
		}),
	};
	return [daily, brief];
}

/** A finished visit of its own, delivered as v2rx.completed to one copy of the example. */
async function newVisitDelivered(role: { hook: string }): Promise<string> {
	const sessionId = `visit-review-${randomBytes(3).toString('hex')}`;
	await startFinishedSession(api.url, api.validCredentials, sessionId, SESSION_TEMPLATES, {
		...VISIT_ADDITIONAL_DATA,
	});
	const report = await fakeWebhooks(api).deliver({
		endpoint: n8n.webhookUrl(`${role.hook}/webhook`),
		transactionId: sessionId,
	});
	expect(report.attempts.map((a) => a.status)).toEqual([200]);
	return sessionId;
}

/** The Composition the EHR holds for a visit, if any. */
async function compositionOf(sessionId: string): Promise<Composition | undefined> {
	return await visitComposition(ehr, sessionId);
}

/** The DocumentReferences the Composition's "Notes as signed" section names. */
async function documentsOf(composition: Composition): Promise<DocumentReference[]> {
	const section = composition.section?.find((s) => s.title === 'Notes as signed');
	const ids = (section?.entry ?? []).map((e) =>
		String(e.reference).replace(/^DocumentReference\//, ''),
	);
	return await Promise.all(
		ids.map(async (id) => {
			const [document] = await ehr.search<DocumentReference>('DocumentReference', { _id: id });
			return document;
		}),
	);
}

/** The text of a DocumentReference's attachment. */
function attachedText(document: DocumentReference): string {
	return Buffer.from(String(document.content[0].attachment.data), 'base64').toString('utf8');
}

/** The doctor's e-mail of a visit: the message ends with the visit's review. */
async function doctorsEmail(): Promise<InboxEmail> {
	return await inbox.waitForEmail(
		(e) =>
			e.to.some((t) => t.address === DOCTOR_EMAIL) &&
			e.subject.startsWith('Please review and sign: notes of '),
		60_000,
	);
}

/** The doctor opens the e-mail in maildev's page, presses its button and answers n8n's form. */
async function answerInBrowser(
	email: InboxEmail,
	decision: string,
	reason: string,
	shots: string,
	correct?: (notes: string) => string,
): Promise<{ answered: number; prefilled: string }> {
	const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
	try {
		await page.goto(`${inbox.webUrl}/#/email/${email.id}`);
		const message = page.frameLocator('iframe').first();
		const button = message.getByRole('link', { name: 'Review and sign' });
		await button.waitFor({ timeout: 60_000 });
		await shot(page, `${shots}-1-email`);
		const href = await button.getAttribute('href');
		expect(href).toContain('/webhook-waiting/');
		// The button opens n8n's form (in a new tab for a mail program; here, the same page).
		await page.goto(String(href));
		const form = page;
		await form.getByText('Sign the consultation notes').first().waitFor({ timeout: 60_000 });
		await form.locator('select').first().selectOption(decision);
		// The notes, prefilled with the review's notes: the doctor corrects them here, or not.
		const notes = form.getByLabel('Notes', { exact: true });
		const prefilled = await notes.inputValue();
		if (correct) await notes.fill(correct(prefilled));
		if (reason) await form.getByLabel('Reason or changes').fill(reason);
		await shot(form, `${shots}-2-form`);
		const answered = Date.now();
		await form.getByRole('button', { name: 'Send my answer' }).click();
		await form.getByText('Got it, thanks').first().waitFor({ timeout: 60_000 });
		return { answered, prefilled };
	} finally {
		await page.close();
	}
}

async function shot(page: Page, name: string): Promise<void> {
	mkdirSync(SCREENSHOTS, { recursive: true });
	await page.screenshot({ path: join(SCREENSHOTS, `review-${name}.png`), fullPage: true });
}

/** The ids of a workflow's executions so far: the next test's run is none of them. */
async function executionIds(workflowId: string): Promise<Set<string>> {
	return new Set((await n8n.listExecutions({ workflowId })).map((e) => e.id));
}

/** The example's new execution (not in `earlier`), once n8n says it is `status` (waiting, success, …). */
async function executionOf(
	workflowId: string,
	status: string,
	earlier: Set<string>,
	timeoutMs = 60_000,
) {
	let id = '';
	await eventually(
		async () => {
			const found = await n8n.listExecutions({ workflowId });
			id = found.find((e) => !earlier.has(e.id) && e.status === status)?.id ?? '';
			return id !== '';
		},
		() => `no ${status} execution of the review example`,
		timeoutMs,
	);
	return await n8n.getExecution(id);
}

describeWithChromium('review.browser.test.ts')(
	'the doctor reviews and signs before anything is filed (examples/review-and-sign-before-filing.json)',
	() => {
		beforeAll(async () => {
			const tarball = await packedPackageForTests();
			[api, ehr, inbox, n8n] = await Promise.all([
				startFakeClinicApi(),
				startFhirServer(),
				startInbox(),
				N8nInstance.create({ packageTarball: tarball }),
			]);
			await n8n.importCredentials([
				{ ...LOCAL_CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
				{ ...LOCAL_SMTP_CREDENTIAL, type: SMTP_CREDENTIAL_TYPE, data: smtpCredentialData(inbox) },
			]);
			await n8n.importWorkflows(workflows());
			await n8n.start();
			await waitForLog(n8n, /Editor is now accessible/, 120_000);
			await n8n.ensureOwner(E2E_OWNER);
			for (const role of Object.values(ROLES)) await n8n.activateWorkflow(role.id);
			browser = await chromium.launch({
				executablePath: CHROMIUM,
				headless: true,
				args: CHROMIUM_FLAGS,
			});
		});
		afterAll(async () => {
			await browser?.close();
			await n8n?.dispose();
			await Promise.all([api?.close(), ehr?.stop(), inbox?.stop()]);
			process.stderr.write(`[review test] timings (ms): ${JSON.stringify(timings)}\n`);
		});
		beforeEach(async () => await inbox.deleteAll());

		test('Sign and file: the EHR holds the notes final, attested, with a Provenance; then the patient is e-mailed', async () => {
			const earlier = await executionIds(ROLES.daily.id);
			const sessionId = await newVisitDelivered(ROLES.daily);
			const email = await doctorsEmail();
			expect(email.subject).toMatch(
				/^Please review and sign: notes of ravi kumar, visit of \d{1,2} \w{3} \d{4}$/,
			);
			// maildev's text part is the HTML's text: the lines run together.
			expect(email.text).toMatch(/Allergies:\s+- Penicillin \(Rash\)\s+Symptoms:/);
			// Waiting for the doctor: stored by n8n, nothing filed, nobody else told yet.
			await executionOf(ROLES.daily.id, 'waiting', earlier);
			expect(await compositionOf(sessionId)).toBeUndefined();
			expect(
				(await inbox.emails()).filter((e) => e.to.some((t) => t.address === PATIENT_EMAIL)),
			).toEqual([]);

			const { answered, prefilled } = await answerInBrowser(email, 'Sign and file', '', 'signed');
			// The notes alone (no visit header), allergies first, as the e-mail showed them.
			expect(prefilled).toMatch(/^Allergies:\n {2}- Penicillin \(Rash\)\n/);
			expect(prefilled).not.toContain('Patient:');
			const composition = await signedVisitComposition(ehr, sessionId);
			timings.answerToStoredMs = Date.now() - answered;
			process.stderr.write(
				`[review test] the doctor's answer → the signed Composition stored: ${timings.answerToStoredMs} ms (polled every 100 ms or so)\n`,
			);
			await expectDoctorsSignature(ehr, composition);

			const execution = await executionOf(ROLES.daily.id, 'success', earlier);
			expect(execution.error).toBeUndefined();
			// The prefilled notes came back unchanged (the browser sends \r\n): not a correction.
			expect(Object.keys(execution.runData)).not.toContain("Save the Doctor's Corrections");
			const [signedItem] = nodeJson(execution, 'Notes Signed as FHIR');
			expect(signedItem.signature).toMatchObject({
				edited: false,
				notes: normalisedNotes(prefilled),
			});
			const patientEmail = await inbox.waitForEmail((e) =>
				e.to.some((t) => t.address === PATIENT_EMAIL),
			);
			expect(patientEmail.subject).toBe('Your visit summary, signed by your doctor');
			expect(patientEmail.text).toContain('Penicillin (Rash)');
			// Not corrected: nothing saved to the service, the audit says so.
			expect(
				fakeSessionDocuments(api)
					.documents()
					.filter((d) => d.sessionId === sessionId),
			).toEqual([]);
			expect(
				await documentsOf(composition).then((documents) => documents.map((d) => d.docStatus)),
			).toEqual(['final']);
			// After the filing, never before it.
			expect(Date.parse(patientEmail.time)).toBeGreaterThanOrEqual(
				Date.parse(String(composition.meta?.lastUpdated)) - 1000,
			);
		});

		test('the doctor corrects a line, then signs: the service gets the corrected Markdown, the EHR files it', async () => {
			const earlier = await executionIds(ROLES.daily.id);
			const sessionId = await newVisitDelivered(ROLES.daily);
			// The service keeps a visit's documents on its session: the fake's documents API must know
			// this visit as a session too (a transaction alone it answers 404, see docs/fhir.md).
			registerSession(
				api.state,
				sessionId,
				BUSINESS.business_id,
				{ upload_type: 'single', templates: ['svc_emr_template'] },
				Date.now(),
			);
			const email = await doctorsEmail();
			const { prefilled } = await answerInBrowser(
				email,
				'Sign and file',
				'',
				'corrected',
				(notes) => notes.replace('Cetirizine 10 mg', 'Cetirizine 5 mg'),
			);
			expect(prefilled).toContain('Cetirizine 10 mg');
			const composition = await signedVisitComposition(ehr, sessionId);
			const execution = await executionOf(ROLES.daily.id, 'success', earlier);
			expect(execution.error).toBeUndefined();
			const [savedItem] = nodeJson(execution, "Save the Doctor's Corrections");
			expect(savedItem.error).toBeUndefined();
			const [signedItem] = nodeJson(execution, 'Notes Signed as FHIR');
			expect(signedItem.signature).toMatchObject({ edited: true, channel: 'email' });

			// The service received the corrected Markdown, once, as a document of the session.
			const saved = fakeSessionDocuments(api)
				.documents()
				.filter((d) => d.sessionId === sessionId);
			expect(saved.map((d) => d.documentName)).toEqual(['Notes as signed by the doctor']);
			const markdown = fakeSessionDocuments(api).markdown(saved[0].documentId) ?? '';
			expect(markdown).toContain('Cetirizine 5 mg');
			expect(markdown).not.toContain('Cetirizine 10 mg');

			// The EHR: the Composition's "Notes as signed" shows it, its DocumentReference holds it.
			const section = composition.section?.find((s) => s.title === 'Notes as signed');
			expect(section?.text?.div).toContain('Cetirizine 5 mg');
			const [document, ...more] = await documentsOf(composition);
			expect(more).toEqual([]);
			expect(document.docStatus).toBe('final');
			expect(attachedText(document)).toContain('Cetirizine 5 mg');
			expect(attachedText(document)).not.toContain('Cetirizine 10 mg');
			const [provenance] = await ehr.search<Provenance>('Provenance', {
				target: `Composition/${String(composition.id)}`,
			});
			expect(provenance.target.map((t) => t.reference)).toContain(
				`DocumentReference/${String(document.id)}`,
			);
			// The coded resources stay the service's: the prescription itself is not changed by the text.
			const medicines = await ehr.search<MedicationRequest>('MedicationRequest', {
				encounter: String(composition.encounter?.reference),
			});
			expect(medicines.length).toBeGreaterThan(0);
			expect(JSON.stringify(medicines)).toContain('Cetirizine 10 mg');
			const patientEmail = await inbox.waitForEmail((e) =>
				e.to.some((t) => t.address === PATIENT_EMAIL),
			);
			expect(patientEmail.text).toContain('Cetirizine 5 mg');
			expect(patientEmail.text).not.toContain('Cetirizine 10 mg');

			// What the EHR shows a person for the patient: the Composition final with its legal
			// attester, the Provenance, and the notes as signed (screenshot review-corrected-3-ehr).
			const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
			try {
				const patientId = String(composition.subject?.reference).replace(/^Patient\//, '');
				await page.goto(ehr.patientPageUrl(patientId));
				await page.getByText('legal attester', { exact: false }).first().waitFor();
				await page.getByText('Notes as signed by the doctor').first().waitFor();
				await page.getByRole('heading', { name: /^Provenance/ }).waitFor();
				await shot(page, 'corrected-3-ehr');
			} finally {
				await page.close();
			}
		});

		test('Request changes: nothing filed, nothing to the patient, the clinic gets the reason', async () => {
			const earlier = await executionIds(ROLES.daily.id);
			const sessionId = await newVisitDelivered(ROLES.daily);
			const email = await doctorsEmail();
			await answerInBrowser(email, 'Request changes', 'Cetirizine: 5 mg, not 10 mg', 'changes');
			const toClinic = await inbox.waitForEmail((e) =>
				e.to.some((t) => t.address === CLINIC_EMAIL),
			);
			expect(toClinic.subject).toMatch(/^Notes not signed: notes of /);
			expect(toClinic.text).toContain('The doctor answered "Request changes"');
			expect(toClinic.text).toContain('Cetirizine: 5 mg, not 10 mg');
			expect(toClinic.text).toContain('Nothing was filed in the EHR');
			await executionOf(ROLES.daily.id, 'success', earlier);
			expect(await compositionOf(sessionId)).toBeUndefined();
			expect(
				(await inbox.emails()).filter((e) => e.to.some((t) => t.address === PATIENT_EMAIL)),
			).toEqual([]);
		});

		test('no answer within the limit: nothing filed, nothing to the patient, the clinic told', async () => {
			const earlier = await executionIds(ROLES.brief.id);
			const sessionId = await newVisitDelivered(ROLES.brief);
			await doctorsEmail();
			// n8n resumes a run whose wait ran out from its own check of waiting runs (every minute or so).
			const toClinic = await inbox.waitForEmail(
				(e) => e.to.some((t) => t.address === CLINIC_EMAIL),
				150_000,
			);
			expect(toClinic.subject).toMatch(/^No answer from the doctor: notes of /);
			await executionOf(ROLES.brief.id, 'success', earlier);
			expect(await compositionOf(sessionId)).toBeUndefined();
			expect(
				(await inbox.emails()).filter((e) => e.to.some((t) => t.address === PATIENT_EMAIL)),
			).toEqual([]);
		});
	},
);
