/**
 * Workflows with the Clinic Scribe OAuth2 API credential in a started n8n (either line), and what
 * the fake sign-in provider saw of them: nodes set to the credential, a workflow started by its
 * webhook (production runs, as n8n runs them once published), the refresh grants and the
 * provider's counters. Shared by test/e2e/oauth2.e2e.test.ts (n8n 2.x) and
 * test/e2e/oldest-n8n.e2e.test.ts (n8n 1.x).
 */
import { randomBytes, randomUUID } from 'node:crypto';

import { fakeSignIn, SIGN_IN_ROUTES } from '../fake-api/routes/signIn';
import type { FakeClinicApi } from '../fake-api/server';
import type { N8nInstance } from './n8n/instance';
import type { ExecutionResult } from './n8n/results';
import { ACTION_NODE_TYPE, newId, type WorkflowJson, type WorkflowNode } from './n8n/workflows';
import { SIGN_IN_CREDENTIAL_TYPE } from './signInCredential';

/** A Clinic Scribe node with its Authentication set to the OAuth2 credential. */
export function oauthNode(
	name: string,
	parameters: Record<string, unknown>,
	credential: { id: string; name: string },
	options: { continueOnFail?: boolean } = {},
): WorkflowNode {
	return {
		id: randomUUID(),
		name,
		type: ACTION_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { authentication: SIGN_IN_CREDENTIAL_TYPE, ...parameters },
		credentials: { [SIGN_IN_CREDENTIAL_TYPE]: credential },
		...(options.continueOnFail ? { onError: 'continueRegularOutput' } : {}),
	};
}

/** Read/Write Files from Disk: one item per file the selector matches. */
export function readFiles(fileSelector: string): WorkflowNode {
	return {
		id: randomUUID(),
		name: 'Read Recordings',
		type: 'n8n-nodes-base.readWriteFile',
		typeVersion: 1.1,
		position: [0, 0],
		parameters: { operation: 'read', fileSelector, options: {} },
	};
}

/** Upload Audio's parameters: one transaction per item (its ID made by the node), optionally waiting. */
export const uploadAudio = (wait: boolean, extra: Record<string, unknown> = {}) => ({
	resource: 'transcription',
	operation: 'uploadAudio',
	binaryPropertyName: 'data',
	transactionId: '',
	inputLanguages: ['en-IN'],
	outputTemplates: {
		templates: [{ template: 'clinical_notes_template', codificationNeeded: false }],
	},
	waitForCompletion: wait,
	timeoutMinutes: 2,
	pollIntervalSeconds: 1,
	resultsOutput: 'session',
	options: {},
	...extra,
});

export interface Published {
	id: string;
	path: string;
}

/** Webhook (answers at once) → the nodes in a line; created and published as the editor does. */
export async function publishWebhookWorkflow(
	n8n: N8nInstance,
	name: string,
	nodes: WorkflowNode[],
): Promise<Published> {
	const path = `oauth2-${randomBytes(6).toString('hex')}`;
	const all: WorkflowNode[] = [
		{
			id: randomUUID(),
			name: 'Start',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: randomUUID(),
			parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		},
		...nodes.map((node, index) => ({
			...node,
			position: [(index + 1) * 250, 0] as [number, number],
		})),
	];
	const connections: Record<string, unknown> = {};
	for (let i = 0; i + 1 < all.length; i++)
		connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	const workflow: WorkflowJson = {
		id: newId(),
		name,
		// n8n 1.x stores what it is sent and requires the flag; it is published below.
		active: false,
		nodes: all,
		connections,
		settings: {
			executionOrder: 'v1',
			saveDataErrorExecution: 'all',
			saveDataSuccessExecution: 'all',
		},
	};
	// The ID n8n gave it (n8n 1.x may not keep the one sent).
	const saved = await n8n.rest<{ id: string }>('POST', '/workflows', workflow);
	await n8n.activateWorkflow(String(saved.id));
	return { id: String(saved.id), path };
}

/** Calls a published workflow's webhook and returns the execution n8n stored for it. */
export async function runPublished(
	n8n: N8nInstance,
	workflow: Published,
): Promise<ExecutionResult> {
	const before = (await n8n.listExecutions({ workflowId: workflow.id })).length;
	const response = await fetch(n8n.webhookUrl(workflow.path), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: '{}',
	});
	if (response.status !== 200)
		throw new Error(`the webhook of ${workflow.id} answered ${response.status}, not 200`);
	await response.arrayBuffer();
	const [latest] = await n8n.waitForExecutions(workflow.id, before + 1, { timeoutMs: 120_000 });
	return await n8n.getExecution(latest.id);
}

/** The token a request carried as Bearer ('' without one). */
export const bearerOf = (request: { headers: Record<string, unknown> }): string =>
	String(request.headers.authorization ?? '').replace(/^Bearer /, '');

/** The refresh_token grants the provider received (since the last api.reset()). */
export const refreshRequests = (api: FakeClinicApi) =>
	api
		.requestsTo(SIGN_IN_ROUTES.token, 'POST')
		.filter((r) => (r.body as Record<string, string>).grant_type === 'refresh_token');

/** The provider's counters from now on (they live as long as the fake). */
export function signInCountersFrom(api: FakeClinicApi): () => {
	refreshGrants: number;
	codeGrants: number;
	refusals: number;
} {
	const signIn = fakeSignIn(api);
	const before = {
		refreshGrants: signIn.counters.refreshGrants,
		codeGrants: signIn.counters.codeGrants,
		refusals: signIn.refusals.length,
	};
	return () => ({
		refreshGrants: signIn.counters.refreshGrants - before.refreshGrants,
		codeGrants: signIn.counters.codeGrants - before.codeGrants,
		refusals: signIn.refusals.length - before.refusals,
	});
}
