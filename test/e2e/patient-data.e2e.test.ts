/**
 * What n8n itself keeps of a run of this package (docs/patient-data.md), in a real n8n 2.41.1: the
 * stored execution holds the outputs users work with (the documents, the session's id), and no
 * credential-equivalent secret the package handled on the way. Checked on the execution as n8n stores
 * and serves it (GET /rest/executions/:id), for an upload through presigned storage (the transaction
 * method, waited for) and a session upload followed by Get Session Audio (a signed download link).
 *
 * Why this and not `sensitiveOutputFields`: n8n 2.41 declares that field but does not apply it (its
 * redaction service leaves the node-defined strategy out of the pipeline), so the package keeps such
 * values out of its output instead; this test is the proof.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { CLINICAL_NOTES_DOCUMENT, STORAGE_PATH } from '../fake-api/routes/transcription';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { packedPackageForTests } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { nodeJson } from '../support/n8n/results';
import { E2E_OWNER, eventually } from '../support/n8n/trigger';
import { startFinishedSession } from '../support/fakeTranscriptionSession';
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	chain,
	type WorkflowJson,
	type WorkflowNode,
} from '../support/n8n/workflows';

jest.setTimeout(5 * 60_000);

const CREDENTIAL = { id: 'clinicScribeE2E18', name: 'Clinic Scribe (e2e patient data)' };

let api: FakeClinicApi;
let n8n: N8nInstance;
const audioDir = mkdtempSync(join(tmpdir(), 'clinic-scribe-e2e-patient-data-'));

interface Run {
	workflowId: string;
	/** What the fake API saw or handed out during the run (read right after it). */
	secrets: Array<[string, string]>;
	storageStatuses: number[];
	mediaStatuses: number[];
}
const runs: Record<'transaction' | 'session', Run> = {} as never;
const sessionId = `e2e-patient-data-${randomBytes(4).toString('hex')}`;
let reviewWorkflowId: string;
const REVIEW_PATH = 'e2e-patient-data-review';
const REVIEW_SESSION = `e2e-review-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
	writeFileSync(join(audioDir, 'visit.wav'), randomBytes(512 * 1024 + 5));
	api = await startFakeClinicApi();
	n8n = await N8nInstance.create({
		packageTarball: await packedPackageForTests(),
		env: {
			N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
			N8N_RESTRICT_FILE_ACCESS_TO: audioDir,
			// The most n8n logs: the notes must appear in none of it (below).
			N8N_LOG_LEVEL: 'debug',
		},
	});
	await n8n.importCredentials([
		{ ...CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
	]);
	// Run both workflows (n8n's CLI stores each execution), then start n8n to read them as it serves them.
	runs.transaction = await run(
		workflow('e2e: patient data, transaction', [
			upload('transaction', `visit-${randomBytes(4).toString('hex')}`, true),
		]),
	);
	runs.session = await run(
		workflow('e2e: patient data, session', [
			upload('session', sessionId, false),
			node(
				'Get Audio',
				ACTION_NODE_TYPE,
				{
					resource: 'transcription',
					operation: 'getSessionAudio',
					sessionId: '={{ $json.session_id }}',
					binaryPropertyName: 'audio',
				},
				660,
			),
		]),
	);
	reviewWorkflowId = await n8n.importWorkflow(reviewWorkflow());
	await n8n.start();
	await n8n.ensureOwner(E2E_OWNER);
});

afterAll(async () => {
	await n8n?.dispose();
	await api?.close();
	rmSync(audioDir, { recursive: true, force: true });
});

async function run(workflowJson: WorkflowJson): Promise<Run> {
	api.reset();
	const workflowId = await n8n.importWorkflow(workflowJson);
	const result = await n8n.execute(workflowId);
	expect(result.error).toBeUndefined();
	return {
		workflowId,
		secrets: secretsSeen(),
		storageStatuses: api.requestsTo(STORAGE_PATH, 'POST').map((request) => request.status ?? 0),
		mediaStatuses: api
			.requestsTo(/^\/media\/session-audio\//, 'GET')
			.map((request) => request.status ?? 0),
	};
}

/** The run's execution as n8n stored it, and serialised whole. */
async function storedExecution(workflowId: string) {
	const [summary] = await n8n.listExecutions({ workflowId });
	expect(summary).toBeDefined();
	const execution = await n8n.getExecution(summary.id);
	expect(execution.status).toBe('success');
	return { stored: JSON.stringify(execution.raw), execution };
}

function node(
	name: string,
	type: string,
	parameters: Record<string, unknown>,
	x: number,
): WorkflowNode {
	const withCredentials =
		type === ACTION_NODE_TYPE ? { credentials: { [CREDENTIAL_TYPE]: CREDENTIAL } } : {};
	return {
		name,
		type,
		typeVersion: type === ACTION_NODE_TYPE ? 1 : 1.1,
		position: [x, 0],
		parameters,
		...withCredentials,
	};
}

function workflow(name: string, nodes: WorkflowNode[]): WorkflowJson {
	const all = [
		{
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters: {},
		},
		node(
			'Read Recording',
			'n8n-nodes-base.readWriteFile',
			{ operation: 'read', fileSelector: join(audioDir, 'visit.wav'), options: {} },
			220,
		),
		...nodes,
	];
	return {
		name,
		nodes: all,
		connections: chain(...all.map((entry) => entry.name)),
		settings: { executionOrder: 'v1' },
	};
}

function upload(uploadMethod: 'transaction' | 'session', id: string, wait: boolean): WorkflowNode {
	return node(
		'Upload',
		ACTION_NODE_TYPE,
		{
			resource: 'transcription',
			operation: 'uploadAudio',
			uploadMethod,
			binaryPropertyName: 'data',
			transactionId: id,
			inputLanguages: ['en-IN'],
			outputTemplates: {
				templates: [{ template: 'clinical_notes_template', codificationNeeded: false }],
			},
			waitForCompletion: wait,
			timeoutMinutes: 2,
			pollIntervalSeconds: 1,
			resultsOutput: 'session',
			options: {},
		},
		440,
	);
}

/** Secrets the fake API saw or handed out in this test: tokens sent, signed link parameters, presigned fields. */
function secretsSeen(): Array<[string, string]> {
	const credential = fakeApiCredentialData(api);
	const seen: Array<[string, string]> = [
		['client secret', credential.clientSecret],
		['API key', credential.apiKey],
	];
	for (const request of api.requests) {
		const header = request.headers.authorization ?? request.headers.auth;
		const token = typeof header === 'string' ? header.replace(/^Bearer /, '') : undefined;
		if (token) seen.push([`token sent to ${request.pathname}`, token]);
		const signature = request.query.signature;
		if (typeof signature === 'string') seen.push([`signature of ${request.pathname}`, signature]);
	}
	return seen;
}

test('an upload through presigned storage: the documents are stored, no token, presigned field or storage address is', async () => {
	const { stored, execution } = await storedExecution(runs.transaction.workflowId);
	const [output] = nodeJson(execution, 'Upload');
	expect((output.documents as Record<string, unknown>).clinical_notes_template).toEqual(
		CLINICAL_NOTES_DOCUMENT,
	);
	expect(runs.transaction.storageStatuses).toEqual([204]);

	const { secrets } = runs.transaction;
	expect(secrets.filter(([what]) => what.startsWith('token')).length).toBeGreaterThan(0);
	expect(secrets.filter(([, value]) => stored.includes(value)).map(([what]) => what)).toEqual([]);
	// The presigned POST's fields and address (the fake's are shaped as S3's).
	for (const fragment of [
		'x-amz-signature',
		'x-amz-security-token',
		'x-amz-credential',
		'FwoGZXIvYXdzE',
		STORAGE_PATH,
	]) {
		expect([fragment, stored.includes(fragment)]).toEqual([fragment, false]);
	}
});

test('a session upload and Get Session Audio: the audio is stored as binary data, its signed download link is not', async () => {
	const { stored, execution } = await storedExecution(runs.session.workflowId);
	const [audio] = nodeJson(execution, 'Get Audio');
	expect(audio).toMatchObject({
		session_id: sessionId,
		content_type: 'audio/wav',
		expires_in: 86_400,
	});
	expect(runs.session.mediaStatuses).toEqual([200]);

	const { secrets } = runs.session;
	expect(secrets.filter(([what]) => what.startsWith('signature')).length).toBe(1);
	expect(secrets.filter(([, value]) => stored.includes(value)).map(([what]) => what)).toEqual([]);
	expect(stored).not.toContain('/media/session-audio/');
});

/**
 * Webhook → Get Results as the signed FHIR bundle (the review example's filing step): the notes and
 * the patient's profile pass through the package, n8n logging at debug level.
 */
function reviewWorkflow(): WorkflowJson {
	const nodes: WorkflowNode[] = [
		{
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: '7d1f0c2e-5b3a-4e8f-9c61-e2e0000000d1',
			parameters: {
				httpMethod: 'POST',
				path: REVIEW_PATH,
				responseMode: 'lastNode',
				responseData: 'noData',
				options: {},
			},
		},
		node(
			'Notes Signed as FHIR',
			ACTION_NODE_TYPE,
			{
				resource: 'transcription',
				operation: 'getResults',
				sessionId: REVIEW_SESSION,
				resultsOutput: 'fhirBundle',
				fhirPatient: 'directory',
				fhirDoctor: 'sessionDoctor',
				fhirNotesStatus: 'signed',
				fhirSignedAt: '={{ $now.toISO() }}',
				fhirSignedVia: 'email',
				fhirOptions: { addCodes: true },
			},
			220,
		),
	];
	return {
		name: 'e2e: patient data, the signed notes',
		nodes,
		connections: chain(...nodes.map((entry) => entry.name)),
		settings: { executionOrder: 'v1' },
	};
}

test("the notes, the review and the patient's profile appear in no line n8n logs, at debug level", async () => {
	await startFinishedSession(
		api.url,
		api.validCredentials,
		REVIEW_SESSION,
		[{ template_id: 'svc_emr_template', codification_needed: true }],
		{
			patient: { oid: '175074536120088' },
			doctor: { _id: 'do1001', profile: { personal: { name: { f: 'Asha', l: 'Rao' } } } },
		},
	);
	await n8n.activateWorkflow(reviewWorkflowId);
	const logBefore = n8n.serverLog().length;
	const answer = await fetch(n8n.webhookUrl(REVIEW_PATH), { method: 'POST', body: '{}' });
	expect(answer.status).toBe(200);
	const { stored, execution } = await storedExecution(reviewWorkflowId);
	const [item] = nodeJson(execution, 'Notes Signed as FHIR');
	const review = item.review as { subject: string; text: string };
	// What the run handled: the patient by name, the diagnosis, the allergy, the review's subject.
	const patientData = [
		'ravi kumar',
		'Acute upper respiratory tract infection',
		'Penicillin',
		'Paracetamol 650 mg',
		review.subject,
	];
	for (const text of patientData) expect([text, stored.includes(text)]).toEqual([text, true]);

	// n8n logged this run in its own debug lines, so the check below could find something.
	await eventually(
		() => n8n.serverLog().slice(logBefore).includes(reviewWorkflowId),
		() => `n8n logged no line naming workflow ${reviewWorkflowId}`,
	);
	const logged = n8n.serverLog().slice(logBefore);
	expect(logged).toMatch(/"level":"debug"/);
	for (const text of patientData) expect([text, logged.includes(text)]).toEqual([text, false]);
});
