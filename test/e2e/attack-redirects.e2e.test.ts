/**
 * The redirect attack in a real n8n 2.41.1, where redirect following lives (n8n re-adds
 * Authorization on a cross-origin redirect, keeps auth/client-id/X-API-KEY, and a 307/308 re-sends
 * the body). One `n8n start` instance serves every case: per status code (301, 302, 307, 308) one
 * webhook-started workflow runs the token exchange (a credential without a token), a /dr call and a
 * transcription call side by side (Continue On Fail, so all three run), and one trigger workflow's
 * activation makes the webhook subscription calls. A recording "foreign host" is the redirect
 * target: it must receive nothing. Also: an API error that echoes the secrets leaves none of them in
 * the execution n8n stores.
 */
import { randomUUID } from 'node:crypto';

import { API_VARIANTS } from '../fake-api/fixtures';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { recordAttack } from '../support/attackLedger';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { startForeignHost, type ForeignHost } from '../support/foreignHost';
import { packedPackageForTests } from '../support/n8n/install';
import { RestartableN8n, triggerWorkflow } from '../support/n8n/trigger';
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	newId,
	type WorkflowJson,
	type WorkflowNode,
} from '../support/n8n/workflows';

// jest 29 ignores testTimeout inside a project; an n8n start takes tens of seconds here.
jest.setTimeout(600_000);

const STATUSES = [301, 302, 307, 308] as const;
const TOKEN_PATH = API_VARIANTS.document.tokenPath;
const DR_PATH = '/dr/v1/doctor/service/';
const STATUS_PATH = '/voice/api/v3/status/';
const SUBSCRIPTIONS = '/notification/v1/connect/webhook/subscriptions';

const MAIN = { id: 'clinicScribeRdr01', name: 'Clinic Scribe (redirect e2e)' };
const TRIGGER_CREDENTIAL = {
	id: 'clinicScribeTrg01',
	name: 'Clinic Scribe (trigger e2e fake API)',
};
const tokenCredential = (status: number) => ({
	id: `clinicScribeTok${status}`,
	name: `Clinic Scribe (token ${status})`,
});

let api: FakeClinicApi;
let foreign: ForeignHost;
let n8n: RestartableN8n;
const callsWorkflowIds: Record<number, string> = {};
const triggerWorkflowIds: Record<number, string> = {};
const warmWorkflowId = newId();
const echoWorkflowId = newId();

function actionNode(
	name: string,
	credential: { id: string; name: string },
	parameters: Record<string, unknown>,
	position: [number, number],
	continueOnFail: boolean,
): WorkflowNode {
	return {
		id: randomUUID(),
		name,
		type: ACTION_NODE_TYPE,
		typeVersion: 1,
		position,
		parameters,
		credentials: { [CREDENTIAL_TYPE]: credential },
		...(continueOnFail ? { onError: 'continueRegularOutput' } : {}),
	};
}

const doctorServices = {
	resource: 'doctor',
	operation: 'getServices',
	doctorId: { __rl: true, mode: 'id', value: 'do1001' },
	returnAll: true,
	options: {},
};
const sessionStatus = {
	resource: 'transcription',
	operation: 'getResults',
	sessionId: 'visit-redirect',
	waitForCompletion: false,
	resultsOutput: 'session',
};

/** Webhook (answers at once) → the given action nodes side by side. */
function webhookWorkflow(
	id: string,
	name: string,
	path: string,
	nodes: WorkflowNode[],
): WorkflowJson {
	return {
		id,
		name,
		nodes: [
			{
				id: randomUUID(),
				name: 'Start',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
			},
			...nodes,
		],
		connections: {
			Start: { main: [nodes.map((node) => ({ node: node.name, type: 'main', index: 0 }))] },
		},
		settings: {
			executionOrder: 'v1',
			saveDataErrorExecution: 'all',
			saveDataSuccessExecution: 'all',
		},
	};
}

/** Calls a webhook workflow and returns the execution n8n stored for it. */
async function runByWebhook(workflowId: string, path: string) {
	const before = (await n8n.instance.listExecutions({ workflowId })).length;
	const response = await fetch(n8n.instance.webhookUrl(path), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: '{}',
	});
	expect(response.status).toBe(200);
	const [latest] = await n8n.instance.waitForExecutions(workflowId, before + 1, {
		timeoutMs: 60_000,
	});
	return await n8n.instance.getExecution(latest.id);
}

/** The secrets this run could have carried: what the fake accepts and the tokens it saw. */
function knownSecrets(): string[] {
	const seen = new Set<string>([
		api.validCredentials.clientSecret,
		api.validCredentials.apiKey,
		api.validCredentials.clientId,
	]);
	for (const request of api.requests) {
		const { authorization, auth } = request.headers;
		if (typeof authorization === 'string') seen.add(authorization.replace(/^Bearer /, ''));
		if (typeof auth === 'string') seen.add(auth);
		const body = request.body as Record<string, unknown> | undefined;
		for (const key of ['refresh_token', 'access_token', 'client_secret', 'signing_key']) {
			if (body && typeof body[key] === 'string') seen.add(body[key] as string);
		}
	}
	return [...seen].filter((value) => value.length >= 4);
}

beforeAll(async () => {
	api = await startFakeClinicApi();
	foreign = await startForeignHost();
	n8n = new RestartableN8n({ packageTarball: await packedPackageForTests() });
	const instance = await n8n.prepare('legacy');
	const data = fakeApiCredentialData(api);
	await instance.importCredentials([
		{ ...MAIN, type: CREDENTIAL_TYPE, data },
		{ ...TRIGGER_CREDENTIAL, type: CREDENTIAL_TYPE, data },
		...STATUSES.map((status) => ({ ...tokenCredential(status), type: CREDENTIAL_TYPE, data })),
	]);
	const workflows: WorkflowJson[] = [
		webhookWorkflow(warmWorkflowId, 'e2e redirect: warm-up', 'redirect-warm', [
			actionNode('Directory', MAIN, doctorServices, [300, 0], false),
		]),
		webhookWorkflow(echoWorkflowId, 'e2e secrets: echo', 'secrets-echo', [
			actionNode('Directory', MAIN, doctorServices, [300, 0], false),
		]),
	];
	for (const status of STATUSES) {
		callsWorkflowIds[status] = newId();
		workflows.push(
			webhookWorkflow(
				callsWorkflowIds[status],
				`e2e redirect ${status}: calls`,
				`redirect-${status}`,
				[
					actionNode('Token Exchange', tokenCredential(status), doctorServices, [300, -200], true),
					actionNode('Directory', MAIN, doctorServices, [300, 0], true),
					actionNode('Transcription', MAIN, sessionStatus, [300, 200], true),
				],
			),
		);
		triggerWorkflowIds[status] = newId();
		workflows.push(
			triggerWorkflow({
				id: triggerWorkflowIds[status],
				name: `e2e redirect ${status}: trigger`,
				webhookId: randomUUID(),
			}),
		);
	}
	await instance.importWorkflows(workflows);
	// The older activation mode activates synchronously: a refused activation answers at once.
	await n8n.start('legacy');
	for (const id of [warmWorkflowId, echoWorkflowId, ...STATUSES.map((s) => callsWorkflowIds[s])])
		await n8n.instance.activateWorkflow(id);
	// The main credential gets its token now, so the redirect cases find one to leak.
	const warm = await runByWebhook(warmWorkflowId, 'redirect-warm');
	expect(warm.status).toBe('success');
});

afterAll(async () => {
	await n8n?.dispose();
	await api?.close();
	await foreign?.close();
});

beforeEach(() => {
	api.reset();
	foreign.requests.length = 0;
});

describe.each(STATUSES)('a %i redirect to another host, in n8n', (status) => {
	it('on the token exchange, a /dr call and a transcription call: each refused, naming the host; the foreign host gets nothing', async () => {
		for (const path of [TOKEN_PATH, DR_PATH, STATUS_PATH]) {
			api.injectFault({
				path,
				times: Infinity,
				fault: { kind: 'redirect', status, location: `${foreign.url}/collect${path}` },
			});
		}
		const execution = await runByWebhook(callsWorkflowIds[status], `redirect-${status}`);
		const secrets = knownSecrets();
		for (const node of ['Token Exchange', 'Directory', 'Transcription']) {
			const items = execution.runData[node]?.[0]?.data?.main?.[0] ?? [];
			expect([node, items.map((item) => String(item.json.error))]).toEqual([
				node,
				[expect.stringContaining(`redirect (HTTP ${status}) to ${foreign.host}`)],
			]);
		}
		expect(api.requestsTo(TOKEN_PATH).map((r) => r.fault)).toEqual(['redirect']);
		expect(api.requestsTo(DR_PATH).map((r) => r.fault)).toEqual(['redirect']);
		expect(api.requestsTo(STATUS_PATH).map((r) => r.fault)).toEqual(['redirect']);
		expect(foreign.requests).toEqual([]);
		const seen = foreign.secretsSeen(secrets);
		expect(seen).toEqual([]);
		for (const family of ['token', 'dr', 'transcription']) {
			recordAttack(
				`redirect-${status}-${family}-n8n`,
				`refused in n8n, names ${foreign.host}; foreign host got 0 requests`,
				{ secretsSeen: seen.length },
			);
		}
	});

	it('on the webhook subscription calls of a trigger activation: activation fails naming the host; the foreign host gets nothing', async () => {
		api.injectFault({
			path: SUBSCRIPTIONS,
			times: Infinity,
			fault: { kind: 'redirect', status, location: `${foreign.url}/collect${SUBSCRIPTIONS}` },
		});
		const activation = await n8n.instance.activateWorkflow(triggerWorkflowIds[status]).then(
			(value) => ({ failed: false, text: JSON.stringify(value) }),
			(error: unknown) => ({ failed: true, text: String(error) }),
		);
		expect(activation.text).toContain(`redirect (HTTP ${status}) to ${foreign.host}`);
		expect(api.requestsTo(SUBSCRIPTIONS).length).toBeGreaterThanOrEqual(1);
		expect(api.requestsTo(SUBSCRIPTIONS).every((r) => r.fault === 'redirect')).toBe(true);
		expect(foreign.requests).toEqual([]);
		const seen = foreign.secretsSeen(knownSecrets());
		expect(seen).toEqual([]);
		recordAttack(
			`redirect-${status}-webhook-n8n`,
			`activation refused in n8n, names ${foreign.host}; foreign host got 0 requests`,
			{ secretsSeen: seen.length },
		);
	});
});

it('an API error that echoes every secret leaves none of them in the execution n8n stores', async () => {
	api.injectFault({ path: DR_PATH, fault: { kind: 'echo', status: 400 } });
	const execution = await runByWebhook(echoWorkflowId, 'secrets-echo');
	expect(execution.status).toBe('error');
	const stored = JSON.stringify(execution.raw);
	expect(stored).toContain('[redacted]');
	const secrets = knownSecrets().filter((s) => s !== api.validCredentials.clientId);
	// The fake did send them: the token it saw is among the secrets looked for.
	expect(secrets.length).toBeGreaterThanOrEqual(3);
	const seen = secrets.filter((secret) => stored.includes(secret));
	expect(seen).toEqual([]);
	recordAttack('echoed-secrets-dr-n8n', "the execution's stored error shows [redacted]", {
		secretsSeen: seen.length,
	});
});
