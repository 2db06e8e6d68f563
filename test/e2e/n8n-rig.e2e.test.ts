/**
 * The real-n8n rig itself (test/support/n8n.ts), proven with n8n's own nodes before anything of
 * this package is trusted to it: `n8n execute` returns real output and surfaces a failed run; a
 * started n8n loads the packed package, answers its REST API, publishes a webhook workflow, runs it,
 * unpublishes it and stops by its process group; the package is listed under Settings → Community nodes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	PACKAGE_NAME,
	REPO_ROOT,
	packedPackageForTests,
	type CommunityPackageRecord,
} from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { nodeJson } from '../support/n8n/results';
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	TRIGGER_NODE_TYPE,
	chain,
	type WorkflowJson,
} from '../support/n8n/workflows';

// jest 29 ignores testTimeout inside a project's config; every n8n run takes seconds.
jest.setTimeout(5 * 60_000);

const manualTrigger = {
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0] as [number, number],
	parameters: {},
};

const setThenNoOp: WorkflowJson = {
	name: 'rig: set then no-op',
	nodes: [
		manualTrigger,
		{
			name: 'Set',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [200, 0],
			parameters: {
				assignments: {
					assignments: [
						{ id: 'a', name: 'greeting', value: 'hello from n8n', type: 'string' },
						{ id: 'b', name: 'sum', value: '={{ 20 + 22 }}', type: 'number' },
					],
				},
				options: {},
			},
		},
		{
			name: 'NoOp',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [400, 0],
			parameters: {},
		},
	],
	connections: chain('Start', 'Set', 'NoOp'),
};

const stopAndError: WorkflowJson = {
	name: 'rig: stop and error',
	nodes: [
		manualTrigger,
		{
			name: 'Fail',
			type: 'n8n-nodes-base.stopAndError',
			typeVersion: 1,
			position: [200, 0],
			parameters: { errorMessage: 'the rig must see this' },
		},
	],
	connections: chain('Start', 'Fail'),
};

const WEBHOOK_PATH = 'rig-check';
const webhookWorkflow: WorkflowJson = {
	name: 'rig: webhook',
	nodes: [
		{
			name: 'Hook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: '4b0f5a52-8f55-4d0b-9a55-6d3f2c1e0a11',
			parameters: {
				httpMethod: 'POST',
				path: WEBHOOK_PATH,
				responseMode: 'onReceived',
				options: {},
			},
		},
		{
			name: 'NoOp',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [200, 0],
			parameters: {},
		},
	],
	connections: chain('Hook', 'NoOp'),
};

let n8n: N8nInstance;
const ids: Record<'set' | 'fail' | 'webhook', string> = { set: '', fail: '', webhook: '' };

beforeAll(async () => {
	n8n = await N8nInstance.create({ packageTarball: await packedPackageForTests() });
	[ids.set, ids.fail, ids.webhook] = await n8n.importWorkflows([
		setThenNoOp,
		stopAndError,
		webhookWorkflow,
	]);
});

afterAll(async () => {
	await n8n?.dispose();
});

describe('n8n execute', () => {
	it('returns the output of every node', async () => {
		const result = await n8n.execute(ids.set);
		expect(result.error).toBeUndefined();
		expect(result.status).toBe('success');
		expect(nodeJson(result, 'NoOp')).toEqual([{ greeting: 'hello from n8n', sum: 42 }]);
		expect(Object.keys(result.runData).sort()).toEqual(['NoOp', 'Set', 'Start']);
	});

	it('surfaces the error of a failed run', async () => {
		const result = await n8n.execute(ids.fail);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('the rig must see this');
		expect(result.error?.node?.name).toBe('Fail');
		expect(() => nodeJson(result, 'Fail')).toThrow('node "Fail" failed: the rig must see this');
	});
});

describe('n8n start', () => {
	const owner = {
		email: 'owner@clinic-scribe.test',
		password: 'Rig-Password-1',
		firstName: 'Rig',
		lastName: 'Owner',
	};

	beforeAll(async () => {
		await n8n.start();
		await n8n.setupOwner(owner);
	});

	afterAll(async () => {
		await n8n.stop();
	});

	it('loads the packed package as a community package', async () => {
		expect(await n8n.loadedNodeTypes()).toEqual(
			expect.arrayContaining([ACTION_NODE_TYPE, TRIGGER_NODE_TYPE]),
		);
		expect(await n8n.loadedCredentialTypes()).toContain(CREDENTIAL_TYPE);
	});

	it('lists it under Settings → Community nodes with its version and both nodes, as after an install there', async () => {
		const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
			version: string;
		};
		const listed = await n8n.rest<Array<CommunityPackageRecord & { failedLoading: boolean }>>(
			'GET',
			'/community-packages',
		);
		expect(
			listed.map(({ packageName, installedVersion, failedLoading }) => ({
				packageName,
				installedVersion,
				failedLoading,
			})),
		).toEqual([{ packageName: PACKAGE_NAME, installedVersion: version, failedLoading: false }]);
		expect(
			listed[0].installedNodes.map(({ name, type, latestVersion }) => ({
				name,
				type,
				latestVersion,
			})),
		).toEqual(
			expect.arrayContaining([
				// The action node's newest version (2: Patient's default operation; README "Versions").
				{ name: 'Clinic Scribe', type: ACTION_NODE_TYPE, latestVersion: 2 },
				// The trigger's newest version (1.1 keeps the signing key in the credential).
				{ name: 'Clinic Scribe Trigger', type: TRIGGER_NODE_TYPE, latestVersion: 1.1 },
			]),
		);
		expect(listed[0].installedNodes).toHaveLength(2);
	});

	it('logs in with the owner set up at first start', async () => {
		await n8n.login(owner.email, owner.password);
		expect(await n8n.rest<{ email: string }>('GET', '/login')).toMatchObject({
			email: owner.email,
		});
	});

	it('publishes a webhook workflow, runs it on a delivery and unpublishes it', async () => {
		const published = await n8n.activateWorkflow(ids.webhook);
		expect(published?.status).toBe('published');

		const delivery = await fetch(n8n.webhookUrl(WEBHOOK_PATH), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ event: 'rig.check', n: 7 }),
		});
		expect(delivery.status).toBe(200);

		const [execution] = await n8n.waitForExecutions(ids.webhook, 1);
		expect(execution.status).toBe('success');
		const details = await n8n.getExecution(execution.id);
		expect(details.error).toBeUndefined();
		expect(nodeJson(details, 'NoOp')[0].body).toEqual({ event: 'rig.check', n: 7 });

		const unpublished = await n8n.deactivateWorkflow(ids.webhook);
		expect(unpublished?.status).toBe('not_published');
		const late = await fetch(n8n.webhookUrl(WEBHOOK_PATH), {
			method: 'POST',
			body: '{}',
			headers: { 'content-type': 'application/json' },
		});
		await late.arrayBuffer();
		expect(late.status).toBe(404);
	});

	it('stops the whole process group', async () => {
		const pid = n8n.serverPid;
		expect(pid).toEqual(expect.any(Number));
		await n8n.stop();
		expect(n8n.running).toBe(false);
		expect(() => process.kill(-(pid as number), 0)).toThrow(); // ESRCH: nothing left in the group
		const ready = await fetch(`${n8n.baseUrl}/healthz`).then(
			() => true,
			() => false,
		);
		expect(ready).toBe(false);
	});
});
