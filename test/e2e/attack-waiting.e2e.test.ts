/**
 * Attack-and-fault suite, "Waiting and results", in a real n8n 2.41.1 (`n8n start`): Stop during a
 * wait. A webhook starts a workflow whose Clinic Scribe node runs Get Results with Wait for
 * Completion; the fake API holds the status call 30 s (like the real long poll, longer); the test
 * stops the execution through n8n's REST API (POST /rest/executions/:id/stop, what the editor's Stop
 * button calls) and checks that the execution ended as canceled and that the fake saw the held
 * connection closed, with no further status request. The elapsed time is printed, not asserted.
 */
import { randomBytes } from 'node:crypto';

import { ClinicScribe } from '../../nodes/ClinicScribe/ClinicScribe.node';
import {
	fakeTranscription,
	STATUS_PATH,
	type FakeTranscription,
} from '../fake-api/routes/transcription';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { uploadParameters } from '../support/transcriptionRig';
import { recordAttack } from '../support/attackLedger';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { packedPackageForTests } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { delay } from '../support/n8n/processes';
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	chain,
	type WorkflowJson,
} from '../support/n8n/workflows';
import { createExecuteContext, fakeApiCredentials } from '../support/nodeContext';

jest.setTimeout(5 * 60_000);

const CREDENTIAL = { id: 'clinicScribeWait01', name: 'Clinic Scribe (e2e waiting)' };
const WEBHOOK_PATH = 'clinic-scribe-wait-stop';
const owner = {
	email: 'owner@clinic-scribe.test',
	password: 'Wait-Password-1',
	firstName: 'Wait',
	lastName: 'Owner',
};

let api: FakeClinicApi;
let fake: FakeTranscription;
let n8n: N8nInstance;
let workflowId: string;

function waitingWorkflow(sessionIdExpression: string): WorkflowJson {
	return {
		name: 'e2e: wait for results, then stop',
		nodes: [
			{
				name: 'Hook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: '0c6f3f7e-3a52-4d1e-9a0b-7b5f3d2c1e55',
				parameters: {
					httpMethod: 'POST',
					path: WEBHOOK_PATH,
					responseMode: 'onReceived',
					options: {},
				},
			},
			{
				name: 'Wait for Notes',
				type: ACTION_NODE_TYPE,
				typeVersion: 1,
				position: [220, 0],
				parameters: {
					resource: 'transcription',
					operation: 'getResults',
					sessionId: sessionIdExpression,
					waitForCompletion: true,
					timeoutMinutes: 10,
					pollIntervalSeconds: 10,
					resultsOutput: 'session',
				},
				credentials: { [CREDENTIAL_TYPE]: CREDENTIAL },
			},
		],
		connections: chain('Hook', 'Wait for Notes'),
		settings: { executionOrder: 'v1' },
	};
}

/** Starts a session at the fake (presign, storage, init) with this package's own Upload Audio, in-process. */
async function startSession(txnId: string): Promise<void> {
	const bytes = randomBytes(1200);
	const { context } = createExecuteContext({
		credentials: fakeApiCredentials(api.url, api.validCredentials),
		parameters: uploadParameters({ transactionId: txnId }),
		items: [
			{
				json: {},
				binary: {
					data: { data: bytes.toString('base64'), mimeType: 'audio/wav', fileName: 'visit.wav' },
				},
			},
		],
	});
	await new ClinicScribe().execute.call(context);
}

async function until<T>(
	probe: () => Promise<T | undefined> | T | undefined,
	what: string,
	timeoutMs = 60_000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
		await delay(50);
	}
}

beforeAll(async () => {
	api = await startFakeClinicApi();
	fake = fakeTranscription(api);
	n8n = await N8nInstance.create({ packageTarball: await packedPackageForTests() });
	await n8n.importCredentials([
		{ ...CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
	]);
	workflowId = await n8n.importWorkflow(waitingWorkflow('={{ $json.body.session_id }}'));
	await n8n.start();
	await n8n.setupOwner(owner);
	await n8n.activateWorkflow(workflowId);
});

afterAll(async () => {
	await n8n?.dispose();
	await api?.close();
});

test('waiting-stop-n8n: Stop during a held status call ends the execution as canceled and closes the call', async () => {
	const txnId = `e2e-stop-${randomBytes(4).toString('hex')}`;
	await startSession(txnId);
	// Upload Audio asks for the status once before uploading (is the ID used?): later calls are the wait's.
	const uploadedUpTo = Math.max(0, ...api.requests.map((r) => r.id));
	fake.script(txnId, { processingPolls: 1_000_000 });
	fake.setOptions({ holdMs: 30_000 });

	const delivery = await fetch(n8n.webhookUrl(WEBHOOK_PATH), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ session_id: txnId }),
	});
	await delivery.arrayBuffer();
	expect(delivery.status).toBe(200);

	await until(
		() => (fake.transaction(txnId)!.statusCalls === 1 ? true : undefined),
		'the first status call is held by the fake',
	);
	const running = await until(
		async () => (await n8n.listExecutions({ workflowId })).find((e) => e.status === 'running'),
		'the execution is running',
	);

	const stoppedAt = Date.now();
	await n8n.rest('POST', `/executions/${running.id}/stop`);
	await until(
		() => (fake.transaction(txnId)!.statusCallsAbandoned === 1 ? true : undefined),
		'the fake saw the held status call closed',
	);
	const closedAfterMs = Date.now() - stoppedAt;
	const [finished] = await n8n.waitForExecutions(workflowId, 1);
	const endedAfterMs = Date.now() - stoppedAt;

	expect(finished.id).toBe(running.id);
	expect(finished.status).toBe('canceled');
	// No status request after the stop: the one held call, closed, and nothing retried it.
	await delay(1_500);
	const statusRequests = api
		.requestsTo(`${STATUS_PATH.replace(':txnId', '')}${txnId}`, 'GET')
		.filter((r) => r.id > uploadedUpTo);
	expect(statusRequests).toHaveLength(1);
	expect(statusRequests[0].status).toBeUndefined();
	expect(fake.transaction(txnId)!.statusCalls).toBe(1);

	console.log(
		`Stop in n8n: held status call closed ${closedAfterMs} ms after POST /rest/executions/${running.id}/stop; execution listed as ${finished.status} after ${endedAfterMs} ms`,
	);
	recordAttack(
		'waiting-stop-n8n',
		`execution canceled; held call closed (${closedAfterMs} ms after stop); 0 further requests`,
		{},
	);
});
