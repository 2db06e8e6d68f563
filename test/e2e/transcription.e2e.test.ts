/**
 * Transcription inside a real n8n 2.41.1 (filesystem binary data mode): a workflow reads recordings
 * from disk into binary data (Read/Write Files from Disk), Clinic Scribe → Upload Audio sends them as
 * one transaction and waits for completion, and the next node receives the decoded clinical notes.
 * The fake clinic API (in this process) checks every storage POST as a stream: fields, `file` last,
 * Content-Length, bytes and SHA-256 against the files on disk, no token.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	CLINICAL_NOTES_DOCUMENT,
	fakeTranscription,
	STORAGE_PATH,
	TRANSCRIPT_TEXT,
	type FakeTranscription,
} from '../fake-api/routes/transcription';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { REPO_ROOT, packedPackageForTests } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { nodeJson, nodeOutput } from '../support/n8n/results';
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	chain,
	readWorkflowFile,
	withCredential,
	type WorkflowJson,
	type WorkflowNode,
} from '../support/n8n/workflows';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { referenceProblems } from '../support/fhirR4';

jest.setTimeout(5 * 60_000);

const CREDENTIAL = { id: 'clinicScribeE2E11', name: 'Clinic Scribe (e2e transcription)' };

let api: FakeClinicApi;
let fake: FakeTranscription;
let n8n: N8nInstance;
const audioDir = mkdtempSync(join(tmpdir(), 'clinic-scribe-e2e-audio-'));
const recordings = [
	{ name: 'consult-part-1.wav', bytes: randomBytes(3 * 1024 * 1024 + 17) },
	{ name: 'consult-part-2.wav', bytes: randomBytes(256 * 1024 + 5) },
];
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
	for (const recording of recordings)
		writeFileSync(join(audioDir, recording.name), recording.bytes);
	writeFileSync(join(audioDir, 'notes.txt'), 'not a recording');
	api = await startFakeClinicApi();
	fake = fakeTranscription(api);
	n8n = await N8nInstance.create({
		packageTarball: await packedPackageForTests(),
		env: { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem', N8N_RESTRICT_FILE_ACCESS_TO: audioDir },
	});
	await n8n.importCredentials([
		{
			...CREDENTIAL,
			type: CREDENTIAL_TYPE,
			data: fakeApiCredentialData(api),
		},
	]);
});

afterAll(async () => {
	await n8n?.dispose();
	await api?.close();
	rmSync(audioDir, { recursive: true, force: true });
});

beforeEach(() => {
	api.reset();
	fake.reset();
});

function workflow(
	name: string,
	fileSelector: string,
	transactionId: string,
	nodes: WorkflowNode[] = [],
): WorkflowJson {
	const base: WorkflowNode[] = [
		{
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			name: 'Read Recordings',
			type: 'n8n-nodes-base.readWriteFile',
			typeVersion: 1.1,
			position: [220, 0],
			parameters: { operation: 'read', fileSelector, options: {} },
		},
		{
			name: 'Transcribe',
			type: ACTION_NODE_TYPE,
			typeVersion: 1,
			position: [440, 0],
			parameters: {
				resource: 'transcription',
				operation: 'uploadAudio',
				binaryPropertyName: 'data',
				transactionId,
				inputLanguages: ['en-IN', 'hi'],
				outputTemplates: {
					templates: [
						{ template: 'clinical_notes_template', codificationNeeded: false },
						{ template: 'transcript_template', codificationNeeded: false },
					],
				},
				waitForCompletion: true,
				timeoutMinutes: 2,
				pollIntervalSeconds: 1,
				resultsOutput: 'session',
				options: { mode: 'consultation' },
			},
			credentials: { [CREDENTIAL_TYPE]: CREDENTIAL },
		},
	];
	const all = [...base, ...nodes];
	return {
		name,
		nodes: all,
		connections: chain(...all.map((node) => node.name)),
		settings: { executionOrder: 'v1' },
	};
}

const notesNode: WorkflowNode = {
	name: 'Notes for Doctor',
	type: 'n8n-nodes-base.set',
	typeVersion: 3.4,
	position: [660, 0],
	parameters: {
		mode: 'manual',
		assignments: {
			assignments: [
				{ id: 'a1', name: 'session', type: 'string', value: '={{ $json.session_id }}' },
				{
					id: 'a2',
					name: 'complaints',
					type: 'string',
					value: "={{ $json.documents.clinical_notes_template.chief_complaints.join(', ') }}",
				},
				{
					id: 'a3',
					name: 'first_medicine',
					type: 'string',
					value: '={{ $json.documents.clinical_notes_template.medications[0].name }}',
				},
				{
					id: 'a4',
					name: 'transcript',
					type: 'string',
					value: '={{ $json.documents.transcript_template }}',
				},
			],
		},
		options: {},
	},
};

test('recordings read from disk are uploaded as one transaction, waited for, and the next node gets the decoded notes', async () => {
	const txnId = `e2e-visit-${randomBytes(4).toString('hex')}`;
	fake.setOptions({ processingPolls: 2 });
	const id = await n8n.importWorkflow(
		workflow('e2e: transcribe and wait', join(audioDir, '*.wav'), txnId, [notesNode]),
	);
	const result = await n8n.execute(id);

	expect(result.status).toBe('success');
	expect(nodeJson(result, 'Notes for Doctor')).toEqual([
		{
			session: txnId,
			complaints: 'Fever for 3 days, Dry cough',
			first_medicine: CLINICAL_NOTES_DOCUMENT.medications[0].name,
			transcript: TRANSCRIPT_TEXT,
		},
	]);
	// The binaries live in n8n's filesystem store (an id, no Base64 in the item): the streamed path.
	for (const read of nodeOutput(result, 'Read Recordings')) {
		expect((read.binary as { data: { id?: string } }).data.id).toMatch(/^filesystem/);
	}
	const [transcribed] = nodeOutput(result, 'Transcribe');
	expect(transcribed.pairedItem).toEqual([{ item: 0 }, { item: 1 }]);
	expect(transcribed.json).toMatchObject({
		session_id: txnId,
		status: 'completed',
		http_status: 200,
	});

	// n8n streamed both files out of its filesystem binary store, intact, without the token.
	expect(fake.rejectedUploads()).toEqual([]);
	const txn = fake.transaction(txnId)!;
	expect(txn.presigns).toBe(1);
	expect(txn.statusCalls).toBe(3);
	expect([...(txn.initBody!.client_generated_files as string[])].sort()).toEqual(
		recordings.map((r) => r.name),
	);
	expect(txn.initBody).toMatchObject({
		mode: 'consultation',
		input_language: ['en-IN', 'hi'],
		batch_s3_url: `${api.url}${STORAGE_PATH}${txn.folderPath}`,
	});
	for (const recording of recordings) {
		const upload = txn.uploads.find((u) => u.fileName === recording.name)!;
		expect(upload).toMatchObject({
			size: recording.bytes.length,
			sha256: sha256(recording.bytes),
			contentType: 'audio/wav',
		});
		expect(upload.partOrder[upload.partOrder.length - 1]).toBe('file');
		expect(upload.contentLength).toBe(upload.bodyBytes);
		expect(upload.headerNames).not.toContain('authorization');
		expect(upload.headerNames).not.toContain('transfer-encoding');
	}
	expect(api.requestsTo('/voice/api/v2/transaction/init/')[0].headers.authorization).toMatch(
		/^Bearer /,
	);
});

test('a file that is not audio stops the run with an error naming the item, before anything is sent', async () => {
	const id = await n8n.importWorkflow(
		workflow('e2e: not audio', join(audioDir, '*.txt'), 'e2e-bad-input'),
	);
	const result = await n8n.execute(id);
	expect(result.status).toBe('error');
	expect(result.error?.message).toMatch(
		/The file in binary field "data" of item 0 is not an audio file the service accepts/,
	);
	expect(api.requests).toEqual([]);
});

test('Output "FHIR Transaction Bundle for the EHR": the next node, an HTTP Request, POSTs the bundle as FHIR JSON', async () => {
	const received: Array<{ contentType: string | undefined; body: Record<string, unknown> }> = [];
	const fhirServer = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			received.push({
				contentType: req.headers['content-type'],
				body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
			});
			res
				.writeHead(200, { 'content-type': 'application/fhir+json' })
				.end('{"resourceType":"Bundle","type":"transaction-response"}');
		});
	});
	await new Promise<void>((resolve) => fhirServer.listen(0, '127.0.0.1', resolve));
	try {
		const txnId = `e2e-fhir-${randomBytes(4).toString('hex')}`;
		const base = workflow(
			'e2e: FHIR bundle to the EHR',
			join(audioDir, recordings[1].name),
			txnId,
			[
				{
					name: 'Send to EHR',
					type: 'n8n-nodes-base.httpRequest',
					typeVersion: 4.2,
					position: [660, 0],
					parameters: {
						method: 'POST',
						url: `http://127.0.0.1:${(fhirServer.address() as AddressInfo).port}/fhir`,
						sendHeaders: true,
						headerParameters: {
							parameters: [{ name: 'Content-Type', value: 'application/fhir+json' }],
						},
						sendBody: true,
						specifyBody: 'json',
						jsonBody: '={{ $json.bundle }}',
						options: {},
					},
				},
			],
		);
		const nodes = base.nodes.map((node) =>
			node.name === 'Transcribe'
				? {
						...node,
						parameters: {
							...node.parameters,
							outputTemplates: { templates: [{ template: 'emr', codificationNeeded: true }] },
							resultsOutput: 'fhirBundle',
							fhirPatient: 'identifier',
							fhirPatientIdentifierSystem: 'https://hospital.example.org/mrn',
							fhirPatientIdentifierValue: 'MRN-0042',
							fhirDoctor: 'ehrPractitioner',
							fhirPractitionerId: 'Practitioner/dr-7',
						},
					}
				: node,
		);
		const id = await n8n.importWorkflow({ ...base, nodes });
		const result = await n8n.execute(id);
		expect(result.error).toBeUndefined();
		const [item] = nodeJson(result, 'Transcribe');
		expect(item).toMatchObject({
			session_id: txnId,
			status: 'completed',
			source: 'emr',
			practitioner: 'Practitioner/dr-7',
			bundle: { resourceType: 'Bundle', type: 'transaction' },
		});
		expect(received).toHaveLength(1);
		expect(received[0].contentType).toMatch(/^application\/fhir\+json/);
		expect(received[0].body).toEqual(item.bundle);
		expect(referenceProblems(received[0].body, ['Practitioner/dr-7'])).toEqual([]);
	} finally {
		await new Promise((resolve) => fhirServer.close(resolve));
	}
});

describe('saved workflows keep their node version (test/e2e/workflows/saved-node-v*.json, as n8n exports them)', () => {
	/** The fixture pointed at this run's credential and recording. */
	function savedWorkflow(file: string): WorkflowJson {
		const saved = withCredential(
			readWorkflowFile(join(REPO_ROOT, 'test', 'e2e', 'workflows', file)),
			CREDENTIAL_TYPE,
			CREDENTIAL,
		);
		return {
			...saved,
			nodes: saved.nodes.map((node) =>
				node.type === 'n8n-nodes-base.readWriteFile'
					? {
							...node,
							parameters: { ...node.parameters, fileSelector: join(audioDir, recordings[1].name) },
						}
					: node,
			),
		};
	}

	const documentSearch = () =>
		api.requests.filter((r) => r.path === '/dr/v1/business/patients/search');
	const directorySearch = () =>
		api.requests.filter((r) => r.path === '/profiles/v1/patient/by-mobile/');

	test("version 1 (Patient's operation left at its default, Custom Template ID a plain ID as 0.1.0 saved it): the document's search, the workspace template", async () => {
		const [v1] = await n8n.importWorkflows([savedWorkflow('saved-node-v1.json')]);
		const result = await n8n.execute(v1);
		expect(result.error).toBeUndefined();
		expect(documentSearch()).toHaveLength(1);
		expect(directorySearch()).toHaveLength(0);
		// The document's shape: patient_id and patient_profile.
		expect(nodeJson(result, 'Find Patient')[0]).toMatchObject({
			patient_profile: { first_name: 'Ravi', mobile: '+919876543210' },
		});
		const txn = fake.transaction('visit-saved-v1')!;
		expect(txn.initBody?.output_format_template).toEqual([
			{ template_id: 'tpl-soap-note', codification_needed: false },
		]);
		expect(txn.uploads.map((u) => u.sha256)).toEqual([sha256(recordings[1].bytes)]);
	});

	test("version 2 (the same parameters saved by the new version): the directory's Search by Mobile, the template picked from the list", async () => {
		const [v2] = await n8n.importWorkflows([savedWorkflow('saved-node-v2.json')]);
		const result = await n8n.execute(v2);
		expect(result.error).toBeUndefined();
		expect(directorySearch()).toHaveLength(1);
		expect(documentSearch()).toHaveLength(0);
		// The directory's shape: oid, fln.
		expect(nodeJson(result, 'Find Patient').map((p) => [p.oid, p.fln])).toEqual([
			['175074536120088', 'ravi kumar'],
			['175074536120089', 'priya kumar'],
		]);
		const txn = fake.transaction('visit-saved-v2')!;
		expect(txn.initBody?.output_format_template).toEqual([
			{ template_id: 'tpl-soap-note', codification_needed: false },
		]);
		expect(txn.uploads.map((u) => u.sha256)).toEqual([sha256(recordings[1].bytes)]);
	});
});
