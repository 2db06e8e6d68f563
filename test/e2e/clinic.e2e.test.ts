/**
 * The clinic's job done end to end, in a real n8n 2.41.1 with real servers: the fake clinic API, the
 * local EHR (a FHIR R4 server that validates every write, test/fhir-server) and the local inbox
 * (maildev). The EHR examples run as `npm start` imports them (scripts/localExamples.ts):
 *
 * - a recording → Upload Audio with Wait → FHIR output → HTTP Request POST to the EHR: the EHR holds
 *   a Composition, an Encounter and the clinical resources, every one tied to the Patient and the
 *   Practitioner the upload named; `Condition?subject=Patient/<id>` finds the diagnoses; the doctor's
 *   e-mail arrives with the notes; the same visit sent again changes no count;
 * - the same through the trigger (`v2rx.completed` with Include Results), timed from the delivery to
 *   the visit stored in the EHR (printed);
 * - the EHR refuses a bundle: the item of "EHR's Reasons" carries the OperationOutcome's reasons and
 *   the run fails with them; the EHR is down: three tries, the run fails at the POST with the bundle
 *   kept, and n8n's Retry of that execution stores it once the EHR is back; a visit with no notes
 *   yet: nothing is posted, the reason is on the item;
 * - the session example's e-mail arrives with the notes.
 *
 * One n8n server, one of each service, for every case. The examples started by a Manual Trigger are
 * started here by a Webhook node in its place (the same name, nothing else changed), so they run in
 * that one server instead of an `n8n execute` process each.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Bundle, Composition, Condition, Resource } from '@medplum/fhirtypes';

import { fakeTranscription } from '../fake-api/routes/transcription';
import { fakeWebhooks } from '../fake-api/routes/webhooks';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import {
	LOCAL_CREDENTIAL,
	LOCAL_SMTP_CREDENTIAL,
	SMTP_CREDENTIAL_TYPE,
	localCopy,
	smtpCredentialData,
	type LocalSetup,
} from '../../scripts/localExamples';
import {
	ENCOUNTER_SYSTEM,
	VISIT_ADDITIONAL_DATA,
	VISIT_DOCTOR_IDENTIFIER,
	VISIT_PATIENT_IDENTIFIER,
} from '../support/clinicVisit';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { SESSION_TEMPLATES, startFinishedSession } from '../support/fakeTranscriptionSession';
import { startFhirServer, type RunningFhirServer } from '../support/fhirServer';
import { startInbox, type RunningInbox } from '../support/inbox';
import { REPO_ROOT, packedPackageForTests } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { nodeJson, nodeOutput, type ExecutionResult } from '../support/n8n/results';
import { E2E_OWNER, eventually, waitForLog } from '../support/n8n/trigger';
import {
	CREDENTIAL_TYPE,
	newId,
	readWorkflowFile,
	type WorkflowJson,
	type WorkflowNode,
} from '../support/n8n/workflows';

// jest ignores testTimeout inside a project's settings; n8n's start takes tens of seconds here.
jest.setTimeout(10 * 60_000);

const EXAMPLES = join(REPO_ROOT, 'examples');
const audioDir = mkdtempSync(join(tmpdir(), 'clinic-scribe-e2e-clinic-'));
const RECORDING = join(audioDir, 'consultation.wav');

let api: FakeClinicApi;
let ehr: RunningFhirServer;
let inbox: RunningInbox;
let flaky: FlakyEhr;
let n8n: N8nInstance;
let setup: LocalSetup;
const timings: Record<string, number> = {};

/** The workflows of this file, by role: id and the webhook path that starts it (manual ones). */
const W = {
	transcribe: { id: newId(), path: randomUUID() },
	session: { id: newId(), path: randomUUID() },
	again: { id: newId(), path: randomUUID() },
	refused: { id: newId(), path: randomUUID() },
	down: { id: newId(), path: randomUUID() },
	completed: { id: newId(), path: '' },
};

/**
 * Stands in front of the local EHR: "down" drops every connection (as a stopped server or a
 * network fault would) and counts the tries; "up" passes requests through to the EHR.
 */
class FlakyEhr {
	mode: 'down' | 'up' = 'down';
	tries = 0;
	private readonly server: Server;

	constructor(private readonly target: string) {
		this.server = createServer((req, res) => {
			this.tries++;
			if (this.mode === 'down') {
				req.socket.destroy();
				return;
			}
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const headers = Object.fromEntries(
					Object.entries(req.headers).filter(([name]) => ['content-type', 'accept'].includes(name)),
				) as Record<string, string>;
				fetch(`${this.target}${req.url ?? '/'}`, {
					method: req.method,
					headers,
					body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
				})
					.then(async (answer) =>
						res
							.writeHead(answer.status, {
								'content-type': answer.headers.get('content-type') ?? 'application/json',
							})
							.end(Buffer.from(await answer.arrayBuffer())),
					)
					.catch((error: Error) => res.writeHead(502).end(error.message));
			});
		});
	}

	async listen(): Promise<string> {
		await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/fhir`;
	}

	async close(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise((resolve) => this.server.close(resolve));
	}
}

/** An example as npm start imports it, with this file's id; a Manual Trigger named Start becomes a Webhook node. */
function example(file: string, role: { id: string; path: string }): WorkflowJson {
	const copy = localCopy(readWorkflowFile(join(EXAMPLES, file)), setup);
	return {
		...copy,
		id: role.id,
		nodes: copy.nodes.map((node) =>
			node.type === 'n8n-nodes-base.manualTrigger' ? webhookStart(node, role.path) : node,
		),
	};
}

function webhookStart(node: WorkflowNode, path: string): WorkflowNode {
	return {
		...node,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: path,
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
	};
}

/**
 * The transcribe example's EHR leg (Post Bundle to EHR and what follows, unchanged) fed by Get
 * Results with Output FHIR for the session the request names, in place of Read Recording and
 * Transcribe and Wait: what a user runs to send a visit again. The node keeps the name
 * "Transcribe and Wait", which the leg's expressions read.
 */
function ehrLegOf(
	role: { id: string; path: string },
	name: string,
	fhirChoices: Record<string, unknown>,
	ehrUrl = setup.fhirBaseUrl,
): WorkflowJson {
	const transcribe = example('transcribe-and-email.json', role);
	const keep = new Set([
		'Start',
		'Post Bundle to EHR',
		'Stored in the EHR?',
		'Stored',
		"EHR's Reasons",
		'Stop: EHR Refused',
	]);
	const nodes = transcribe.nodes
		.filter((node) => keep.has(node.name))
		.map((node) =>
			node.name === 'Post Bundle to EHR'
				? { ...node, parameters: { ...node.parameters, url: ehrUrl } }
				: node,
		);
	const source = transcribe.nodes.find(
		(node) => node.name === 'Transcribe and Wait',
	) as WorkflowNode;
	nodes.push({
		...source,
		parameters: {
			resource: 'transcription',
			operation: 'getResults',
			sessionId: '={{ $json.body.session_id }}',
			waitForCompletion: false,
			resultsOutput: 'fhirBundle',
			...fhirChoices,
		},
	});
	const leg = Object.fromEntries(
		Object.entries(transcribe.connections).filter(([from]) => keep.has(from) && from !== 'Start'),
	);
	return {
		...transcribe,
		name: `e2e: ${name}`,
		nodes,
		connections: {
			...leg,
			Start: { main: [[{ node: 'Transcribe and Wait', type: 'main', index: 0 }]] },
			'Transcribe and Wait': { main: [[{ node: 'Post Bundle to EHR', type: 'main', index: 0 }]] },
		},
	};
}

/** Starts a webhook-started workflow and returns its finished execution. */
async function run(
	role: { id: string; path: string },
	body: Record<string, unknown> = {},
): Promise<ExecutionResult & { id: string }> {
	const before = (await n8n.listExecutions({ workflowId: role.id })).map((e) => e.id);
	const answer = await fetch(n8n.webhookUrl(role.path), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	expect(answer.status).toBe(200);
	let started = '';
	await eventually(
		async () => {
			const finished = (await n8n.listExecutions({ workflowId: role.id })).filter(
				(e) =>
					!before.includes(e.id) && !['running', 'new', 'waiting', 'unknown'].includes(e.status),
			);
			started = finished[0]?.id ?? '';
			return started !== '';
		},
		() => `no finished execution of workflow ${role.id}`,
		120_000,
	);
	return await n8n.getExecution(started);
}

/** Every `reference` in a resource, wherever it is. */
function referencesIn(value: unknown, found: string[] = []): string[] {
	if (Array.isArray(value)) for (const entry of value) referencesIn(entry, found);
	else if (value && typeof value === 'object') {
		for (const [key, entry] of Object.entries(value)) {
			if (key === 'reference' && typeof entry === 'string') found.push(entry);
			else referencesIn(entry, found);
		}
	}
	return found;
}

/** Everything the EHR holds, by type. */
async function everything(): Promise<Map<string, Resource[]>> {
	const held = new Map<string, Resource[]>();
	for (const type of Object.keys(await ehr.counts()))
		held.set(type, await ehr.search(type, { _count: '1000' }));
	return held;
}

/** The visit of a session in the EHR: its Encounter (identified by the session ID) and Composition. */
async function visitOf(
	sessionId: string,
): Promise<{ encounterId: string; composition: Composition } | undefined> {
	const [encounter] = await ehr.search('Encounter', {
		identifier: `${ENCOUNTER_SYSTEM}|${sessionId}`,
	});
	if (!encounter) return undefined;
	const [composition] = await ehr.search<Composition>('Composition', {
		encounter: `Encounter/${encounter.id}`,
	});
	return composition ? { encounterId: String(encounter.id), composition } : undefined;
}

beforeAll(async () => {
	const started = Date.now();
	writeFileSync(RECORDING, randomBytes(96 * 1024));
	const tarball = await packedPackageForTests();
	[api, ehr, inbox, n8n] = await Promise.all([
		startFakeClinicApi(),
		startFhirServer(),
		startInbox(),
		N8nInstance.create({
			packageTarball: tarball,
			env: { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem', N8N_RESTRICT_FILE_ACCESS_TO: audioDir },
		}),
	]);
	flaky = new FlakyEhr(ehr.url);
	const flakyUrl = await flaky.listen();
	setup = {
		fakeApiUrl: api.url,
		fhirBaseUrl: ehr.fhirBaseUrl,
		inboxUrl: inbox.webUrl,
		recordingPath: RECORDING,
	};
	await n8n.importCredentials([
		{ ...LOCAL_CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
		{ ...LOCAL_SMTP_CREDENTIAL, type: SMTP_CREDENTIAL_TYPE, data: smtpCredentialData(inbox) },
	]);
	const down = ehrLegOf(W.down, 'the EHR is down', {}, flakyUrl);
	await n8n.importWorkflows([
		example('transcribe-and-email.json', W.transcribe),
		example('session-transcribe-and-email.json', W.session),
		example('completed-transcription-to-ehr.json', W.completed),
		ehrLegOf(W.again, 'the same visit again', {}),
		// A patient the EHR does not hold: every resource of the bundle refers to it.
		ehrLegOf(W.refused, 'a bundle the EHR refuses', {
			fhirPatient: 'ehrPatient',
			fhirPatientId: 'not-in-this-ehr',
		}),
		// Tries 1 s apart instead of the example's 5 s, to keep the test short.
		{
			...down,
			nodes: down.nodes.map((node) =>
				node.name === 'Post Bundle to EHR' ? { ...node, waitBetweenTries: 1000 } : node,
			),
		},
	]);
	await n8n.start();
	await waitForLog(n8n, /Editor is now accessible/, 120_000);
	await n8n.ensureOwner(E2E_OWNER);
	for (const role of Object.values(W)) await n8n.activateWorkflow(role.id);
	timings.setup = Date.now() - started;
});

afterAll(async () => {
	await n8n?.dispose();
	await Promise.all([api?.close(), ehr?.stop(), inbox?.stop(), flaky?.close()]);
	rmSync(audioDir, { recursive: true, force: true });
	process.stderr.write(`[clinic e2e] timings (ms): ${JSON.stringify(timings)}\n`);
});

describe("a recording → Upload Audio with Wait → FHIR → the EHR, and the doctor's inbox (examples/transcribe-and-email.json)", () => {
	let execution: ExecutionResult;
	let sessionId: string;
	let patientId: string;
	let practitionerId: string;

	beforeAll(async () => {
		const started = Date.now();
		execution = await run(W.transcribe);
		timings.transcribeExample = Date.now() - started;
		expect(execution.error?.message).toBeUndefined();
		expect(execution.status).toBe('success');
		sessionId = String(nodeJson(execution, 'Transcribe and Wait')[0].session_id);
		patientId = String(nodeJson(execution, 'Stored')[0].patient).slice('Patient/'.length);
	});

	test('the run posted the bundle once and the EHR answered with every entry stored', async () => {
		const [item] = nodeJson(execution, 'Transcribe and Wait');
		expect(item).toMatchObject({
			session_id: expect.stringMatching(/^visit-\d{8}-\d{6}$/),
			status: 'completed',
			source: 'emr',
		});
		// The search that finds the patient in the EHR: by the patient directory's ID.
		expect(decodeURIComponent(String(item.patient))).toBe(
			`Patient?identifier=${VISIT_PATIENT_IDENTIFIER}`,
		);
		const [answer] = nodeJson(execution, 'Post Bundle to EHR');
		expect(answer.statusCode).toBe(200);
		const response = answer.body as Bundle;
		expect(response.type).toBe('transaction-response');
		expect(response.entry?.map((e) => e.response?.status)).toEqual(
			(item.bundle as Bundle).entry?.map(() => expect.stringMatching(/^201/)),
		);
		process.stderr.write(
			`[clinic e2e] the visit's bundle: ${String(item.entry_count)} entries, ${JSON.stringify(item.bundle).length} bytes of JSON\n`,
		);
		const [stored] = nodeJson(execution, 'Stored');
		expect(stored).toMatchObject({
			session_id: sessionId,
			encounter: item.encounter,
			composition: item.composition,
			patient: expect.stringMatching(/^Patient\/[\w.-]+$/),
		});
		expect(execution.runData["EHR's Reasons"]).toBeUndefined();
	});

	test('the EHR holds a Composition, an Encounter and the clinical resources, every one tied to the Patient and the Practitioner the upload named', async () => {
		const [patient] = await ehr.search('Patient', { identifier: VISIT_PATIENT_IDENTIFIER });
		const [practitioner] = await ehr.search('Practitioner', {
			identifier: VISIT_DOCTOR_IDENTIFIER,
		});
		expect(patient?.id).toBe(patientId);
		practitionerId = String(practitioner?.id);
		const visit = await visitOf(sessionId);
		expect(visit).toBeDefined();
		const held = await everything();
		expect([...held.keys()].sort()).toEqual(
			expect.arrayContaining([
				'Composition',
				'Condition',
				'Encounter',
				'MedicationRequest',
				'Observation',
				'Patient',
				'Practitioner',
			]),
		);
		expect([
			held.get('Patient')?.length,
			held.get('Practitioner')?.length,
			held.get('Encounter')?.length,
			held.get('Composition')?.length,
		]).toEqual([1, 1, 1, 1]);
		const clinical = [...held.entries()]
			.filter(([type]) => !['Patient', 'Practitioner'].includes(type))
			.flatMap(([, resources]) => resources);
		for (const resource of clinical) {
			const references = referencesIn(resource);
			// Tied to this patient; any patient or practitioner it names is the chosen one.
			expect([resource.resourceType, references.includes(`Patient/${patientId}`)]).toEqual([
				resource.resourceType,
				true,
			]);
			expect(
				references.filter((r) => r.startsWith('Patient/') && r !== `Patient/${patientId}`),
			).toEqual([]);
			expect(
				references.filter(
					(r) => r.startsWith('Practitioner/') && r !== `Practitioner/${practitionerId}`,
				),
			).toEqual([]);
		}
		const composition = visit!.composition;
		expect(composition.author).toEqual([
			expect.objectContaining({ reference: `Practitioner/${practitionerId}` }),
		]);
		expect(composition.encounter?.reference).toBe(`Encounter/${visit!.encounterId}`);
		// The note lists every clinical resource of the visit, and nothing else.
		const listed = (composition.section ?? [])
			.flatMap((section) => (section.entry ?? []).map((entry) => entry.reference))
			.sort();
		const visitResources = clinical
			.filter((r) => !['Composition', 'Encounter'].includes(r.resourceType))
			.map((r) => `${r.resourceType}/${r.id}`)
			.sort();
		expect(listed).toEqual(visitResources);
		expect(composition.section?.map((section) => section.title)).toEqual(
			expect.arrayContaining(['Diagnoses', 'Medications']),
		);
	});

	test('Condition?subject=Patient/<id> finds the diagnoses', async () => {
		const conditions = await ehr.search<Condition>('Condition', {
			subject: `Patient/${patientId}`,
		});
		const diagnoses = conditions.filter((c) =>
			c.category?.some((category) =>
				category.coding?.some((coding) => coding.code === 'encounter-diagnosis'),
			),
		);
		expect(diagnoses.length).toBeGreaterThan(0);
		expect(diagnoses.flatMap((c) => c.code?.coding?.map((coding) => coding.code) ?? [])).toContain(
			'J06.9',
		);
	});

	test('Add Codes (on in the example): Condition?code=http://snomed.info/sct|54150009 finds the diagnosis MedLink coded', async () => {
		const coded = await ehr.search<Condition>('Condition', {
			code: 'http://snomed.info/sct|54150009',
			subject: `Patient/${patientId}`,
		});
		expect(coded.map((c) => c.code?.text)).toEqual(['Acute upper respiratory tract infection']);
		expect(coded[0].code?.coding).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ system: 'http://hl7.org/fhir/sid/icd-10-cm', code: 'J06.9' }),
			]),
		);
	});

	test("the doctor's e-mail arrives with the notes in the body: HTML sections and tables, and a text part", async () => {
		const email = await inbox.waitForEmail(
			(e) => e.text?.includes(`reference ${sessionId}`) === true,
		);
		expect(email.to.map((t) => t.address)).toEqual(['doctor@clinic.example.com']);
		// The review of the bundle the EHR got: the patient named, allergies first.
		expect(email.subject).toMatch(/^Please review and sign: notes of \S/);
		expect(email.text).toMatch(/^Visit:\n {2}Patient: /);
		expect(email.text).toContain('Allergies:\n  - Penicillin');
		expect(email.text!.indexOf('Allergies:')).toBeLessThan(email.text!.indexOf('Diagnoses:'));
		expect(email.text).not.toMatch(/[{}]"/);
		const html = await inbox.emailHtml(email.id);
		expect(html).toMatch(/<h3[^>]*>Allergies<\/h3>/);
		expect(html).toMatch(/<th[^>]*>Patient<\/th>/);
		// The patient's own words, in Devanagari, as the EMR document holds them.
		expect(html).toContain('खांसी');
		expect(html).not.toContain('sent automatically with');
	});

	test('the same visit sent again (Get Results with the same choices, then the same POST) changes no count: it updates', async () => {
		const before = await ehr.counts();
		const composition = (await visitOf(sessionId))!.composition;
		const again = await run(W.again, { session_id: sessionId });
		expect(again.error?.message).toBeUndefined();
		const [answer] = nodeJson(again, 'Post Bundle to EHR');
		expect(answer.statusCode).toBe(200);
		// Every entry answered 200 (updated), none 201 (created); the patient and doctor found, not created.
		expect((answer.body as Bundle).entry?.map((e) => e.response?.status)).toEqual(
			(answer.body as Bundle).entry?.map(() => expect.stringMatching(/^200/)),
		);
		expect(nodeJson(again, 'Stored')[0]).toMatchObject({
			session_id: sessionId,
			patient: `Patient/${patientId}`,
		});
		expect(await ehr.counts()).toEqual(before);
		const updated = (await visitOf(sessionId))!.composition;
		expect(updated.id).toBe(composition.id);
		expect(updated.meta?.versionId).not.toBe(composition.meta?.versionId);
	});
});

describe('faults: the EHR refuses, the EHR is down, no notes yet', () => {
	let sessionId: string;

	beforeAll(async () => {
		sessionId = `visit-e2e-faults-${randomBytes(3).toString('hex')}`;
		await startFinishedSession(api.url, api.validCredentials, sessionId, SESSION_TEMPLATES, {
			...VISIT_ADDITIONAL_DATA,
		});
	});

	test('a bundle the EHR refuses: the item of "EHR\'s Reasons" says why (the OperationOutcome\'s issues), the run fails with the reasons, nothing is stored', async () => {
		const before = await ehr.counts();
		const refused = await run(W.refused, { session_id: sessionId });
		expect(refused.status).toBe('error');
		const [answer] = nodeJson(refused, 'Post Bundle to EHR');
		expect(answer.statusCode).toBe(400);
		expect((answer.body as { resourceType: string }).resourceType).toBe('OperationOutcome');
		const [reasons] = nodeJson(refused, "EHR's Reasons");
		expect(reasons).toMatchObject({ session_id: sessionId, http_status: 400 });
		expect(reasons.error).toMatch(
			new RegExp(
				`^The EHR did not store the notes of ${sessionId} \\(HTTP 400\\): .*Patient/not-in-this-ehr`,
			),
		);
		expect(reasons.error).toContain('nothing of this visit was stored');
		expect(reasons.issues).toEqual(
			expect.arrayContaining([
				expect.objectContaining({
					severity: 'error',
					where: expect.stringMatching(/^Bundle\.entry\[\d+\]/),
					text: expect.stringContaining('Patient/not-in-this-ehr'),
				}),
			]),
		);
		expect(refused.error?.message).toBe(reasons.error);
		process.stderr.write(
			`[clinic e2e] the refusal as the run shows it: ${String(reasons.error).slice(0, 400)}…\n`,
		);
		expect(refused.lastNodeExecuted).toBe('Stop: EHR Refused');
		expect(await ehr.counts()).toEqual(before);
	});

	test("the EHR is down: three tries, then the run fails at the POST with the bundle kept; n8n's Retry of that execution stores it once the EHR is back", async () => {
		const before = await ehr.counts();
		flaky.mode = 'down';
		flaky.tries = 0;
		const started = Date.now();
		const failed = await run(W.down, { session_id: sessionId });
		timings.ehrDownRun = Date.now() - started;
		expect(failed.status).toBe('error');
		expect(failed.lastNodeExecuted).toBe('Post Bundle to EHR');
		expect(failed.error?.message).toMatch(/socket hang up|ECONNRESET|connection/i);
		expect(flaky.tries).toBe(3);
		// The bundle is kept in the execution: nothing has to be transcribed again.
		const [kept] = nodeJson(failed, 'Transcribe and Wait');
		expect((kept.bundle as Bundle).type).toBe('transaction');
		expect(await ehr.counts()).toEqual(before);

		flaky.mode = 'up';
		const transcriptionCalls = api.requests.length;
		await n8n.rest('POST', `/executions/${failed.id}/retry`, { loadWorkflow: false });
		const [retried] = (await n8n.listExecutions({ workflowId: W.down.id })).filter(
			(e) => e.id !== failed.id,
		);
		const retry = await n8n.getExecution(retried.id);
		expect(retry.error?.message).toBeUndefined();
		expect(nodeJson(retry, 'Post Bundle to EHR')[0].statusCode).toBe(200);
		expect(nodeJson(retry, 'Stored')[0]).toMatchObject({ session_id: sessionId });
		expect(await visitOf(sessionId)).toBeDefined();
		// Only the POST ran again: no call to the clinic API.
		expect(api.requests.length).toBe(transcriptionCalls);
	});

	test('a visit with no notes yet: the run stops at Get Results saying so; nothing is posted', async () => {
		const processing = `visit-e2e-processing-${randomBytes(3).toString('hex')}`;
		await startFinishedSession(api.url, api.validCredentials, processing, SESSION_TEMPLATES, {
			...VISIT_ADDITIONAL_DATA,
		});
		fakeTranscription(api).script(processing, { processingPolls: 1000, outcome: 'success' });
		const before = await ehr.counts();
		const stopped = await run(W.again, { session_id: processing });
		expect(stopped.status).toBe('error');
		expect(stopped.lastNodeExecuted).toBe('Transcribe and Wait');
		expect(stopped.error?.message).toBe(
			`Session "${processing}" is still being processed, so it has no notes for the EHR yet`,
		);
		expect(stopped.runData['Post Bundle to EHR']).toBeUndefined();
		expect(await ehr.counts()).toEqual(before);
	});
});

describe('the same through the trigger: v2rx.completed with Include Results (examples/completed-transcription-to-ehr.json)', () => {
	const exampleUrl = () =>
		n8n.webhookUrl(
			`${String(readWorkflowFile(join(EXAMPLES, 'completed-transcription-to-ehr.json')).nodes[0].webhookId)}/webhook`,
		);

	/**
	 * Delivers v2rx.completed for a session; returns the finished execution and the milliseconds
	 * from the delivery until the visit's Composition was stored (or stored anew: another version).
	 */
	async function deliver(
		sessionId: string,
	): Promise<{ execution: ExecutionResult; storedMs: number | undefined }> {
		const before = (await n8n.listExecutions({ workflowId: W.completed.id })).map((e) => e.id);
		const earlierVersion = (await visitOf(sessionId))?.composition.meta?.versionId;
		const sent = performance.now();
		// Polled apart from the executions, every 25 ms, so the time is not rounded up to their polling.
		let abandoned = false;
		const stored = (async () => {
			while (!abandoned && performance.now() - sent < 60_000) {
				const version = (await visitOf(sessionId))?.composition.meta?.versionId;
				if (version !== undefined && version !== earlierVersion) return performance.now() - sent;
				await new Promise((resolve) => setTimeout(resolve, 25));
			}
			return undefined;
		})();
		const report = await fakeWebhooks(api).deliver({
			endpoint: exampleUrl(),
			transactionId: sessionId,
		});
		expect(report.attempts.map((a) => a.status)).toEqual([200]);
		let latest = '';
		await eventually(
			async () => {
				const finished = (await n8n.listExecutions({ workflowId: W.completed.id })).filter(
					(e) =>
						!before.includes(e.id) && !['running', 'new', 'waiting', 'unknown'].includes(e.status),
				);
				latest = finished[0]?.id ?? '';
				return latest !== '';
			},
			() => `no execution of the trigger example after the delivery for ${sessionId}`,
			60_000,
		);
		const execution = await n8n.getExecution(latest);
		// A run that posted nothing (not ready) stores nothing: the poll need not wait its minute out.
		if (!execution.runData['Post Bundle to EHR']) abandoned = true;
		const storedMs = await stored;
		return { execution, storedMs };
	}

	test('a finished visit: stored in the EHR, tied to the patient and doctor the upload named, the e-mail sent; the time from the delivery is printed', async () => {
		const sessionId = `visit-e2e-trigger-${randomBytes(3).toString('hex')}`;
		await startFinishedSession(api.url, api.validCredentials, sessionId, SESSION_TEMPLATES, {
			...VISIT_ADDITIONAL_DATA,
		});
		const patientsBefore = (await ehr.counts()).Patient ?? 0;
		const { execution, storedMs } = await deliver(sessionId);
		expect(execution.error?.message).toBeUndefined();
		expect(execution.status).toBe('success');
		const [item] = nodeJson(execution, 'Transcription Completed');
		expect(item).toMatchObject({
			session_id: sessionId,
			status: 'completed',
			event: expect.objectContaining({ event: 'v2rx.completed' }),
		});
		expect(nodeJson(execution, 'Post Bundle to EHR')[0].statusCode).toBe(200);

		const visit = await visitOf(sessionId);
		expect(visit).toBeDefined();
		const [patient] = await ehr.search('Patient', { identifier: VISIT_PATIENT_IDENTIFIER });
		const [practitioner] = await ehr.search('Practitioner', {
			identifier: VISIT_DOCTOR_IDENTIFIER,
		});
		// The same patient as the upload's visit: found by its directory ID, not created again.
		expect((await ehr.counts()).Patient).toBe(Math.max(patientsBefore, 1));
		expect(visit!.composition.subject?.reference).toBe(`Patient/${patient.id}`);
		expect(visit!.composition.author).toEqual([
			expect.objectContaining({ reference: `Practitioner/${practitioner.id}` }),
		]);
		const listed = (visit!.composition.section ?? []).flatMap((section) =>
			(section.entry ?? []).map((entry) => String(entry.reference)),
		);
		for (const reference of listed) {
			const [type, id] = reference.split('/');
			const resource = await ehr.read(type, id);
			expect([reference, referencesIn(resource)]).toEqual([
				reference,
				expect.arrayContaining([`Patient/${patient.id}`]),
			]);
		}
		const diagnoses = await ehr.search<Condition>('Condition', {
			subject: `Patient/${patient.id}`,
			encounter: `Encounter/${visit!.encounterId}`,
		});
		expect(diagnoses.length).toBeGreaterThan(0);

		const email = await inbox.waitForEmail(
			(e) => e.text?.includes(`reference ${sessionId}`) === true,
		);
		expect(email.text).toContain('Allergies:');

		expect(storedMs).toBeDefined();
		timings.deliveryToStoredMs = Math.round(storedMs!);
		process.stderr.write(
			`[clinic e2e] v2rx.completed → the visit stored in the EHR: ${Math.round(storedMs!)} ms (the trigger fetches the results and the patient, builds the bundle; the POST)\n`,
		);

		// The same delivery again (the service retries): the same resources, updated, none added.
		const counts = await ehr.counts();
		const second = await deliver(sessionId);
		expect(second.execution.status).toBe('success');
		expect(await ehr.counts()).toEqual(counts);
		timings.deliveryToUpdatedMs = Math.round(second.storedMs ?? -1);
		process.stderr.write(
			`[clinic e2e] the same visit delivered again → updated in the EHR: ${Math.round(second.storedMs ?? -1)} ms; counts unchanged\n`,
		);
	});

	test('a visit with no notes yet: the item says why, goes to "Not Ready: Nothing Sent", nothing is posted', async () => {
		const sessionId = `visit-e2e-trigger-wait-${randomBytes(3).toString('hex')}`;
		await startFinishedSession(api.url, api.validCredentials, sessionId, SESSION_TEMPLATES, {
			...VISIT_ADDITIONAL_DATA,
		});
		fakeTranscription(api).script(sessionId, { processingPolls: 1000, outcome: 'success' });
		const before = await ehr.counts();
		const { execution } = await deliver(sessionId);
		expect(execution.status).toBe('success');
		const [notReady] = nodeJson(execution, 'Not Ready: Nothing Sent');
		expect(notReady).toMatchObject({
			session_id: sessionId,
			status: 'processing',
			error: {
				message: `Session "${sessionId}" is still being processed, so it has no notes for the EHR yet`,
			},
		});
		expect(notReady.bundle).toBeUndefined();
		expect(execution.runData['Post Bundle to EHR']).toBeUndefined();
		expect(await ehr.counts()).toEqual(before);
	});
});

test('examples/session-transcribe-and-email.json: the notes arrive in the inbox (the session API)', async () => {
	const execution = await run(W.session);
	expect(execution.error?.message).toBeUndefined();
	const [notes] = nodeJson(execution, 'Session Upload and Wait');
	expect(notes).toMatchObject({
		status: 'completed',
		clinical_notes: expect.stringContaining('Chief complaints:'),
		clinical_notes_html: expect.stringContaining('<h3'),
	});
	const email = await inbox.waitForEmail(
		(e) => e.subject === `Clinical notes: ${String(notes.session_id)}`,
	);
	expect(email.text).toContain(String(notes.clinical_notes).split('\n')[0]);
	expect(await inbox.emailHtml(email.id)).toContain('Chief complaints</h3>');
	expect(nodeOutput(execution, 'E-mail Notes to Doctor')[0].json).toMatchObject({
		accepted: ['doctor@clinic.example.com'],
	});
});
