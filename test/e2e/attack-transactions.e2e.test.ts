/**
 * Attack-and-fault suite, "Transactions and batches", in a real n8n 2.41.1 (default, in-memory binary
 * data mode): the behaviour that lives in n8n itself.
 *
 * - n8n's Retry On Fail runs the node again in the same execution and run: a generated Transaction
 *   ID must come out the same, so the retry finds the transcription its first try started and does
 *   not start (and pay for) a second one. The first try fails after its init was carried out (every
 *   init attempt failed, the last one after the server had started the transcription).
 * - A recording held in memory (Base64 in the item) goes through n8n's own HTTP client piece by
 *   piece and arrives intact (the fake checks size and SHA-256).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { fakeTranscription, type FakeTranscription } from '../fake-api/routes/transcription';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { recordAttack } from '../support/attackLedger';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { packedPackageForTests } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { nodeOutput } from '../support/n8n/results';
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	chain,
	type WorkflowJson,
	type WorkflowNode,
} from '../support/n8n/workflows';

jest.setTimeout(5 * 60_000);

const CREDENTIAL = { id: 'clinicScribeE2E21', name: 'Clinic Scribe (e2e transactions)' };
const INIT = '/voice/api/v2/transaction/init/';
/** The node's own attempts per call (transport/retryPolicy.ts PRODUCTION_POLICY.retry.attempts). */
const ATTEMPTS_PER_CALL = 4;

let api: FakeClinicApi;
let fake: FakeTranscription;
let n8n: N8nInstance;
const audioDir = mkdtempSync(join(tmpdir(), 'clinic-scribe-e2e-txn-'));
const recording = { name: 'visit.wav', bytes: randomBytes(2 * 1024 * 1024 + 3) };

beforeAll(async () => {
	writeFileSync(join(audioDir, recording.name), recording.bytes);
	api = await startFakeClinicApi();
	fake = fakeTranscription(api);
	n8n = await N8nInstance.create({
		packageTarball: await packedPackageForTests(),
		env: { N8N_DEFAULT_BINARY_DATA_MODE: 'default', N8N_RESTRICT_FILE_ACCESS_TO: audioDir },
	});
	await n8n.importCredentials([
		{ ...CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
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

function workflow(name: string, transcribe: Partial<WorkflowNode>): WorkflowJson {
	const nodes: WorkflowNode[] = [
		{
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			name: 'Read Recording',
			type: 'n8n-nodes-base.readWriteFile',
			typeVersion: 1.1,
			position: [220, 0],
			parameters: { operation: 'read', fileSelector: join(audioDir, recording.name), options: {} },
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
				transactionId: '',
				inputLanguages: ['en-IN'],
				outputTemplates: {
					templates: [{ template: 'clinical_notes_template', codificationNeeded: false }],
				},
				waitForCompletion: false,
				options: {},
			},
			credentials: { [CREDENTIAL_TYPE]: CREDENTIAL },
			...transcribe,
		},
	];
	return {
		name,
		nodes,
		connections: chain(...nodes.map((node) => node.name)),
		settings: { executionOrder: 'v1' },
	};
}

test("e2e-retry-on-fail-generated: n8n's Retry On Fail reuses the generated Transaction ID and starts exactly one transcription", async () => {
	// First try: three init attempts refused with 503, the fourth carried out but its answer lost.
	api.injectFault({
		method: 'POST',
		path: INIT,
		times: ATTEMPTS_PER_CALL - 1,
		fault: { kind: 'status', status: 503 },
	});
	fake.loseInitAnswer({ kind: 'status500' });
	const id = await n8n.importWorkflow(
		workflow('e2e: retry on fail', { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 }),
	);
	const result = await n8n.execute(id);

	expect(result.status).toBe('success');
	const [output] = nodeOutput(result, 'Transcribe');
	expect(output.json).toMatchObject({
		upload_status: 'already_uploaded',
		init: { status: 'already_started' },
	});
	const transactions = fake.transactions();
	expect(transactions).toHaveLength(1);
	expect(output.json.transaction_id).toBe(transactions[0].txnId);
	expect(transactions[0]).toMatchObject({ initsStarted: 1, presigns: 1 });
	expect(api.requestsTo('/storage/voice-uploads/', 'POST')).toHaveLength(1);

	// A new execution is a new upload: new id.
	const again = await n8n.execute(id);
	expect(again.status).toBe('success');
	expect(nodeOutput(again, 'Transcribe')[0].json.transaction_id).not.toBe(transactions[0].txnId);

	const duplicateInits =
		transactions.reduce((sum, txn) => sum + Math.max(0, txn.initsStarted - 1), 0) +
		(transactions.length - 1);
	const figures = { itemsLost: 0, duplicateInits };
	expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
	recordAttack(
		'e2e-retry-on-fail-generated',
		'real n8n: Retry On Fail gets the same generated id; 1 transaction, 1 init started, 1 upload',
		figures,
	);
});

test("e2e-in-memory-binary: a recording in n8n's default (in-memory) binary mode arrives intact through n8n's HTTP client", async () => {
	const id = await n8n.importWorkflow(workflow('e2e: in-memory binary', {}));
	const result = await n8n.execute(id);
	expect(result.status).toBe('success');
	const [read] = nodeOutput(result, 'Read Recording');
	expect((read.binary as { data: { id?: string } }).data.id).toBeUndefined();
	const [upload] = fake.uploads();
	expect(upload).toMatchObject({
		fileName: recording.name,
		size: recording.bytes.length,
		sha256: createHash('sha256').update(recording.bytes).digest('hex'),
	});
	expect(upload.contentLength).toBe(upload.bodyBytes);
	expect(fake.rejectedUploads()).toEqual([]);
});
