/**
 * What a user sees in the n8n editor, in a real browser: headless Chromium (Debian's `chromium`,
 * driven by playwright-core) against the n8n that `npm start` starts.
 *
 * Logs in, opens each example, asserts the node subtitles, runs the transcribe example and checks it
 * succeeded; opens the doctor's e-mail in the local inbox's page and the patient's page of the local
 * EHR (screenshots 13 and 14, to look at); runs the other four examples (the session one in the
 * editor, the trigger ones through npm run demo:complete and demo:clinic: 5 of 5, none disabled);
 * searches "Clinic" in "What happens next?" and "What triggers this workflow?" and
 * asserts the entry's text, opens Upload Audio's panel (Custom Template ID only for the custom
 * choice, its list of the workspace's templates, documentation link) and the credential (the Workspace API Key's required marker per API
 * variant). Screenshots of each step go to .test-results/browser/.
 *
 * Needs /usr/bin/chromium (`sudo bash scripts/install-chromium.sh`; `npm test` installs it as root).
 * Without it the test is skipped with the reason; CI sets CLINIC_SCRIBE_REQUIRE_BROWSER=1 so it
 * cannot skip.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import type { INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';

import { CHROMIUM, CHROMIUM_FLAGS, describeWithChromium } from '../support/chromium';
import { ClinicScribeApi } from '../../credentials/ClinicScribeApi.credentials';
import { ClinicScribe } from '../../nodes/ClinicScribe/ClinicScribe.node';
import {
	ClinicScribeTrigger,
	ENTRY_DESCRIPTION,
} from '../../nodes/ClinicScribe/ClinicScribeTrigger.node';
import { API_VARIANT_OPTIONS } from '../../nodes/ClinicScribe/transport/authentication';
import { REPO_ROOT } from '../support/n8n/install';
import { ACTION_NODE_TYPE, TRIGGER_NODE_TYPE, type WorkflowJson } from '../support/n8n/workflows';
import { NpmStart } from './npmStart';

// Jest ignores testTimeout inside a project; the first `npm start` builds and packs the package.
jest.setTimeout(600_000);

// Debian's chromium by default; CI images that ship another Chromium build (GitHub's runners: Google Chrome) name it here.
const SCREENSHOTS = join(REPO_ROOT, '.test-results', 'browser');
const OWNER = { email: 'owner@clinic-scribe.local', password: 'ClinicScribe-Local-1' };
const README_URL = 'https://github.com/clinic-scribe/n8n-nodes-clinic-scribe/blob/main/README.md';

const describeBrowser = describeWithChromium('editor.browser.test.ts');

/** Display names of the action node's operations and templates, from its description. */
const actionProperties = new ClinicScribe().description.properties;
/** n8n's panel heading over the node's actions: one per operation of every resource (an AI agent's variant of a list is not another). */
const ACTIONS = `Actions (${
	new Set(
		actionProperties
			.filter((p) => p.name === 'operation')
			.flatMap((p) =>
				(p.options ?? []).map(
					(o) =>
						`${String(p.displayOptions?.show?.resource)}/${String((o as INodePropertyOptions).value)}`,
				),
			),
	).size
})`;
/** n8n's heading over the trigger's events: one per event the trigger offers. */
const TRIGGERS = `Triggers (${new ClinicScribeTrigger().description.properties.find((p) => p.name === 'events')?.options?.length})`;
const operationName = (value: string) =>
	actionProperties
		.filter((p) => p.name === 'operation')
		.flatMap((p) => p.options as INodePropertyOptions[])
		.find((o) => o.value === value)?.name;
const templateOptions = (
	(
		actionProperties.find((p) => p.name === 'outputTemplates')?.options as INodePropertyCollection[]
	)[0].values.find((p) => p.name === 'template')?.options as INodePropertyOptions[]
).map((o) => ({ name: o.name, value: String(o.value) }));

let npmStart: NpmStart;
let context: BrowserContext;
let page: Page;
let transcribe: WorkflowJson & { id: string };
let triggered: WorkflowJson & { id: string };
let sessionExample: WorkflowJson & { id: string };
let allExamples: Array<WorkflowJson & { id: string }>;
/** The nodes of the EHR examples that run only when the EHR refuses the visit. */
const REFUSAL_BRANCH = new Set(["EHR's Reasons", 'Stop: EHR Refused']);

describeBrowser('the n8n editor in a real browser (npm start + headless Chromium)', () => {
	beforeAll(async () => {
		// This test's own screenshots only (NN-name.png): the folder is shared with the other browser tests.
		mkdirSync(SCREENSHOTS, { recursive: true });
		for (const file of readdirSync(SCREENSHOTS))
			if (/^\d\d-.*\.png$/.test(file)) rmSync(join(SCREENSHOTS, file));
		npmStart = await NpmStart.start();
		context = await chromium.launchPersistentContext(npmStart.browserProfile, {
			executablePath: CHROMIUM,
			headless: true,
			args: CHROMIUM_FLAGS,
			viewport: { width: 1440, height: 900 },
		});
		page = context.pages()[0] ?? (await context.newPage());
	});

	afterAll(async () => {
		await context?.close();
		await npmStart?.stop();
	});

	it('logs in as the owner npm start created', async () => {
		await page.goto(`${npmStart.baseUrl}/signin`);
		await page.fill('input[name=emailOrLdapLoginId]', OWNER.email);
		await page.fill('input[name=password]', OWNER.password);
		await shot('01-sign-in');
		await page.click('button:has-text("Sign in")');
		await page.waitForURL((url) => !url.pathname.includes('signin'));

		const workflows = await Promise.all(
			(await restGet<Array<{ id: string }>>('/rest/workflows')).map((w) =>
				restGet<WorkflowJson & { id: string }>(`/rest/workflows/${w.id}`),
			),
		);
		const withTrigger = workflows.filter((w) => w.nodes.some((n) => n.type === TRIGGER_NODE_TYPE));
		const withoutTrigger = workflows.filter(
			(w) =>
				!w.nodes.some((n) => n.type === TRIGGER_NODE_TYPE) &&
				w.nodes.some((n) => n.type === ACTION_NODE_TYPE),
		);
		// npm start imports the examples: two run by hand (transaction and session upload), four started
		// by the trigger (a completed transcription to the EHR, the same reviewed and signed first, an
		// appointment booked, an appointment completed).
		expect([withoutTrigger.length, withTrigger.length]).toEqual([2, 4]);
		const transcribeExample = withoutTrigger.find((w) =>
			w.nodes.some(
				(n) => n.type === ACTION_NODE_TYPE && n.parameters.resultsOutput === 'fhirBundle',
			),
		);
		const completedExample = withTrigger.find(
			(w) =>
				w.nodes.some(
					(n) =>
						n.type === TRIGGER_NODE_TYPE &&
						JSON.stringify(n.parameters.events) === '["v2rx.completed"]',
				) && !w.nodes.some((n) => n.parameters.operation === 'sendAndWait'),
		);
		expect(transcribeExample?.name).toEqual(expect.any(String));
		expect(completedExample?.name).toEqual(expect.any(String));
		[transcribe, triggered] = [transcribeExample!, completedExample!];
		sessionExample = withoutTrigger.find((w) => w !== transcribeExample)!;
		allExamples = workflows;
		// Every node of every example is on: nothing is left disabled for want of a server.
		expect(
			workflows.flatMap((w) =>
				w.nodes.filter((n) => n.disabled).map((n) => `${w.name}: ${n.name}`),
			),
		).toEqual([]);
	});

	it('the transcribe example: each Clinic Scribe node is subtitled with its operation as the editor names it', async () => {
		await openWorkflow(transcribe.id);
		const actionNodes = transcribe.nodes.filter((n) => n.type === ACTION_NODE_TYPE);
		expect(actionNodes.map((n) => n.parameters.operation).sort()).toEqual(['uploadAudio']);
		for (const node of actionNodes) {
			expect(await canvasNodeLines(node.name)).toEqual([
				node.name,
				operationName(String(node.parameters.operation)),
			]);
		}
		expect(actionNodes.map((n) => operationName(String(n.parameters.operation)))).toEqual([
			'Upload Audio',
		]);
		await shot('02-transcribe-example');
	});

	it('the trigger example: the trigger is subtitled with its event by name', async () => {
		await openWorkflow(triggered.id);
		const node = triggered.nodes.find((n) => n.type === TRIGGER_NODE_TYPE);
		expect(await canvasNodeLines(String(node?.name))).toEqual([
			node?.name,
			'Transcription Completed',
		]);
		await shot('03-trigger-example');
	});

	it('runs the transcribe example to success (every node on its path green, the visit stored in the local EHR)', async () => {
		await runInEditor(transcribe, '04-transcribe-run-succeeded');
		const counts = (await (await fetch(`${npmStart.ehrUrl}/__admin/counts`)).json()) as Record<
			string,
			number
		>;
		expect(counts).toMatchObject({ Patient: 1, Practitioner: 1, Encounter: 1, Composition: 1 });
	});

	it("the doctor's e-mail in the local inbox's page: the notes as formatted text (screenshot 13)", async () => {
		await page.goto(`${npmStart.inboxUrl}/`);
		// The review of the very bundle the EHR stored: the patient named, allergies first.
		const listed = page.getByText(/^Please review and sign: notes of /).first();
		// The list renders after the page: wait for the message, never for a time.
		await listed.waitFor({ timeout: 30_000 });
		await listed.click();
		const body = page.frameLocator('iframe').first();
		await body.getByText('Allergies', { exact: true }).waitFor();
		await body.getByText('Paracetamol 650 mg').first().waitFor();
		const text = normalise(await body.locator('body').innerText());
		for (const expected of [
			'Patient',
			'Penicillin',
			'Vital signs',
			'Diagnoses',
			'Medications',
			'Lab tests',
			'तीन दिन से सूखी खांसी है',
		])
			expect(text).toContain(expected);
		expect(text.indexOf('Penicillin')).toBeLessThan(text.indexOf('Diagnoses'));
		expect(text).not.toMatch(/[{}]"|"\w+":/);
		// Tall enough to show the whole message.
		await page.setViewportSize({ width: 1440, height: 1700 });
		await shot('13-inbox-doctor-email');
		await page.setViewportSize({ width: 1440, height: 900 });
	});

	it("what the local EHR holds for the patient: the visit's note, findings, diagnoses and medications (screenshot 14)", async () => {
		await page.goto(`${npmStart.ehrUrl}/`);
		const patientLink = page.locator('a[href^="/view/Patient/"]').first();
		await patientLink.waitFor();
		await patientLink.click();
		await page.getByRole('heading', { name: /^Composition \(1\)/ }).waitFor();
		const text = normalise(await page.locator('body').innerText());
		for (const expected of [
			'Consultation note',
			'Encounter (1)',
			'Condition',
			'MedicationRequest',
			'Observation',
			'Named in these records',
		])
			expect(text).toContain(expected);
		expect(text).toMatch(/Acute upper respiratory/i);
		await page.screenshot({ path: join(SCREENSHOTS, '14-ehr-patient.png'), fullPage: true });
	});

	it('the other four examples run too: the session one in the editor, the trigger ones through npm run demo:complete and demo:clinic', async () => {
		const emailsBefore = await inboxCount();
		await runInEditor(sessionExample, '15-session-run-succeeded');
		await expectEventually(
			async () => (await inboxCount()) > emailsBefore,
			"the session example's e-mail in the inbox",
		);

		expect(await npmStart.demo('demo:complete')).toMatch(
			/stored [\d.]+ s after the delivery: Encounter\/\S+, Composition\/\S+/,
		);
		const clinic = await npmStart.demo('demo:clinic');
		expect(clinic).toMatch(/received msg_\w+ \(whatsapp\)/);
		expect(clinic).toMatch(
			/e-mailed to patient@example\.com: "Your prescription from .*", with P-DW-FAKE-\d+\.pdf/,
		);

		const triggerExamples = allExamples.filter((w) =>
			w.nodes.some((n) => n.type === TRIGGER_NODE_TYPE),
		);
		for (const workflow of [...triggerExamples, sessionExample, transcribe]) {
			const executions = await restGet<{ results: Array<{ status: string }> }>(
				`/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: workflow.id }))}`,
			);
			// Every run of every example succeeded; the review example's run waits for the doctor.
			const done = workflow.nodes.some((n) => n.parameters.operation === 'sendAndWait')
				? ['success', 'waiting']
				: ['success'];
			expect([
				workflow.name,
				executions.results.length > 0 && executions.results.every((e) => done.includes(e.status)),
			]).toEqual([workflow.name, true]);
		}
	});

	it('"What happens next?": searching "Clinic" shows the one Clinic Scribe entry and its text, then the actions', async () => {
		await openWorkflow(transcribe.id);
		await page.click('[data-test-id="node-creator-plus-button"]');
		await expectPanelEntry('What happens next?', '05-what-happens-next');
		const actions = [
			'Get many entities',
			'Get many services of a doctor',
			'Search patients by mobile number',
			'Get many templates',
			'Create a template',
			'Get the results of a transcription',
			'Upload audio for transcription',
		];
		const details = await openPanelEntry('06-what-happens-next-details', actions);
		// Actions come first here, then the trigger.
		expect(details.indexOf(ACTIONS)).toBeGreaterThan(-1);
		expect(details.indexOf(ACTIONS)).toBeLessThan(details.indexOf(TRIGGERS));
		for (const action of actions) {
			expect(details).toContain(action);
		}
	});

	it('"What triggers this workflow?": the same entry and text, then the trigger first', async () => {
		await page.goto(`${npmStart.baseUrl}/workflow/new`);
		await page.locator('[data-test-id="canvas-add-button"]').click();
		await expectPanelEntry('What triggers this workflow?', '07-what-triggers');
		const details = await openPanelEntry('08-what-triggers-details', [
			'On appointment created',
			'On transcription completed',
		]);
		expect(details.indexOf(TRIGGERS)).toBeGreaterThan(-1);
		expect(details.indexOf(TRIGGERS)).toBeLessThan(details.indexOf(ACTIONS));
		expect(details).toContain('On appointment created');
		expect(details).toContain('On transcription completed');
	});

	it("Upload Audio's panel: Custom Template ID only in a row whose template is Custom; the Docs link works with n8n's query", async () => {
		await openWorkflow(transcribe.id);
		const upload = transcribe.nodes.find((n) => n.parameters.operation === 'uploadAudio');
		await canvasNode(String(upload?.name)).dblclick();
		const ndv = page.locator('[data-test-id="ndv"]');
		await ndv.waitFor();

		const rows = ndv.locator('[data-test-id="parameter-input-template"]');
		await rows.first().waitFor();
		const rowCount = await rows.count();
		const templates = (
			upload?.parameters.outputTemplates as { templates: Array<{ template: string }> }
		).templates;
		expect(rowCount).toBe(templates.length);
		expect(templates.some((t) => t.template === 'custom')).toBe(false);
		expect(await ndv.locator('[data-test-id="parameter-input-customTemplateId"]').count()).toBe(0);
		await shot('09-upload-audio-built-in-templates');

		const docs = await ndv.locator('a', { hasText: 'Docs' }).first().getAttribute('href');
		expect(docs?.startsWith(`${README_URL}?`)).toBe(true);
		expect(docs).not.toContain('#');

		await chooseOption(rows.first(), 'Custom Template');
		const customId = ndv.locator('[data-test-id="parameter-input-customTemplateId"]');
		await customId.first().waitFor();
		expect(await customId.count()).toBe(1);
		await customId.scrollIntoViewIfNeeded();
		// From List: the workspace's templates, as the fake API's template store holds them.
		await ndv
			.locator('[data-test-id="resource-locator-customTemplateId"] [data-test-id="rlc-input"]')
			.first()
			.click();
		const listed = page.locator('[data-test-id="rlc-item"]');
		await listed.filter({ hasText: 'SOAP Note' }).first().waitFor();
		expect((await listed.allInnerTexts()).map(normalise)).toEqual([
			'Clinical Notes (default)',
			'SOAP Note',
			'Transcript (default)',
		]);
		await shot('10-upload-audio-custom-template');
		await listed.filter({ hasText: 'SOAP Note' }).first().click();
		await listed.first().waitFor({ state: 'hidden' });
		const inputs = ndv.locator('[data-test-id="resource-locator-customTemplateId"] input');
		expect(
			await inputs.evaluateAll((elements) =>
				elements.map((element) => (element as HTMLInputElement).value),
			),
		).toContain('SOAP Note');

		// Put the row back (the editor saves changes by itself).
		const original = templateOptions.find((o) => o.value === templates[0].template);
		await chooseOption(rows.first(), String(original?.name));
		await customId.first().waitFor({ state: 'detached' });
		expect(await customId.count()).toBe(0);
	});

	it('the credential: Workspace API Key is marked required for the Interface Document variant, not for the public one', async () => {
		const ndv = page.locator('[data-test-id="ndv"]');
		await ndv.locator('[data-test-id="credential-edit-button"]').click();
		const dialog = page.locator('[data-test-id="credential-edit-dialog"]');
		await dialog.waitFor();
		// The label's title: its text, then n8n's required marker (a "*" of its own) when required.
		const apiKeyLabel = dialog.locator('[data-test-id="apiKey"] label span.n8n-text').first();
		const requiredMarker = apiKeyLabel.locator('span', { hasText: '*' });

		await requiredMarker.waitFor();
		expect(await selectedOption(dialog, 'apiVariant')).toBe(API_VARIANT_OPTIONS.document.name);
		expect(normalise(await apiKeyLabel.innerText())).toBe('Workspace API Key *');
		await apiKeyLabel.scrollIntoViewIfNeeded();
		await shot('11-credential-interface-document');

		// n8n opens a credential's own documentation link as it is (an anchor included).
		const docs = await dialog.locator('a', { hasText: 'Read our docs' }).getAttribute('href');
		expect(docs).toBe(new ClinicScribeApi().documentationUrl);

		await chooseOption(
			dialog.locator('[data-test-id="parameter-input-apiVariant"]'),
			API_VARIANT_OPTIONS.public.name,
		);
		await requiredMarker.waitFor({ state: 'detached' });
		expect(await selectedOption(dialog, 'apiVariant')).toBe(API_VARIANT_OPTIONS.public.name);
		expect(normalise(await apiKeyLabel.innerText())).toBe('Workspace API Key');
		await apiKeyLabel.scrollIntoViewIfNeeded();
		await shot('12-credential-public-api');
	});
});

// ---------------------------------------------------------------------------------------------
// Page helpers
// ---------------------------------------------------------------------------------------------

/** Clicks Execute workflow and waits until every node on the success path shows its green mark. */
async function runInEditor(
	workflow: WorkflowJson & { id: string },
	screenshot: string,
): Promise<void> {
	await openWorkflow(workflow.id);
	await page.click('[data-test-id="execute-workflow-button"]');
	const onPath = workflow.nodes.filter(
		(n) => !n.disabled && n.type !== 'n8n-nodes-base.stickyNote' && !REFUSAL_BRANCH.has(n.name),
	);
	for (const node of onPath) {
		await canvasNode(node.name)
			.locator('[data-test-id="canvas-node-status-success"]')
			.waitFor({ timeout: 120_000 });
	}
	expect(await page.locator('[data-test-id="canvas-node-status-mark-error"]').count()).toBe(0);
	// What n8n tells the user when the run is over.
	await page.getByText('Workflow executed successfully').waitFor();
	await shot(screenshot);
	const executions = await restGet<{ results: Array<{ status: string }> }>(
		`/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: workflow.id }))}`,
	);
	expect(executions.results.map((e) => e.status)).toEqual(['success']);
}

async function inboxCount(): Promise<number> {
	return ((await (await fetch(`${npmStart.inboxUrl}/api/email`)).json()) as unknown[]).length;
}

async function expectEventually(
	check: () => Promise<boolean>,
	what: string,
	timeoutMs = 30_000,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

async function shot(name: string): Promise<void> {
	await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

const normalise = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A REST call as the logged-in editor makes it (n8n wants the browser-id header with the cookie). */
async function restGet<T>(path: string): Promise<T> {
	const body = await page.evaluate(async (url) => {
		const response = await fetch(url, {
			headers: { 'browser-id': localStorage.getItem('n8n-browserId') ?? '' },
		});
		return { status: response.status, json: (await response.json()) as { data: unknown } };
	}, path);
	if (body.status !== 200)
		throw new Error(`GET ${path} answered ${body.status}: ${JSON.stringify(body.json)}`);
	return body.json.data as T;
}

async function openWorkflow(id: string): Promise<void> {
	await page.goto(`${npmStart.baseUrl}/workflow/${id}`);
	await page.locator('[data-test-id="canvas-node"]').first().waitFor();
}

const canvasNode = (name: string): Locator =>
	page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`);

/** The node's name and subtitle as shown under it on the canvas. */
async function canvasNodeLines(name: string): Promise<string[]> {
	const lines = (await canvasNode(name).innerText())
		.split('\n')
		.map((line) => line.trim())
		.filter(Boolean);
	return lines.slice(0, 2); // a trigger also holds its "Execute workflow" button
}

/** Types "Clinic" in the open node panel and asserts the single entry with its text. */
async function expectPanelEntry(heading: string, screenshot: string): Promise<void> {
	const panel = page.locator('[data-test-id="node-creator"]');
	await panel.waitFor();
	expect(await panel.innerText()).toContain(heading);
	await panel.locator('[data-test-id="node-creator-search-bar"]').fill('Clinic');
	const entries = panel.locator(
		'[data-test-id="node-creator-action-item"], [data-test-id="node-creator-node-item"]',
	);
	await entries.filter({ hasText: 'Clinic Scribe' }).first().waitFor();
	const texts = (await entries.allInnerTexts()).map(normalise);
	expect(texts).toEqual([`Clinic Scribe ${ENTRY_DESCRIPTION}`]);
	expect(
		await entries.first().locator('[data-test-id="node-creator-item-description"]').innerText(),
	).toBe(ENTRY_DESCRIPTION);
	await shot(screenshot);
}

/** Opens the entry: n8n shows the community node's details, its description above the action list. */
async function openPanelEntry(screenshot: string, mustShow: string[]): Promise<string> {
	const panel = page.locator('[data-test-id="node-creator"]');
	await panel.locator('[data-test-id="node-creator-action-item"]').first().click();
	await panel.getByText('Node details').waitFor();
	// The lists render after the details heading, and a busy browser shows them in steps (once the
	// Triggers heading stood under half the transcription actions): wait for each line the test reads.
	for (const text of [ACTIONS, TRIGGERS, ...mustShow]) {
		await panel.getByText(text, { exact: true }).first().waitFor({ timeout: 15_000 });
	}
	const details = await panel.innerText();
	expect(details).toContain(ENTRY_DESCRIPTION);
	expect(details.indexOf(ENTRY_DESCRIPTION)).toBeLessThan(details.indexOf(ACTIONS));
	await page.waitForTimeout(500); // the details slide in: let the screenshot show them in place
	await shot(screenshot);
	return details;
}

/** Picks `option` in an n8n select (the list opens in a popper attached to the page body). */
async function chooseOption(select: Locator, option: string): Promise<void> {
	await select.click();
	const item = page
		.locator('[data-test-id="parameter-input-item"]:visible', { hasText: option })
		.first();
	await item.click();
	await item.waitFor({ state: 'hidden' }); // the list closes
}

async function selectedOption(scope: Locator, parameter: string): Promise<string> {
	return await scope
		.locator(`[data-test-id="parameter-input-${parameter}"] input`)
		.first()
		.inputValue();
}
