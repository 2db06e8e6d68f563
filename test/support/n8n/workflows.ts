/** Workflow and credential JSON as n8n's import commands read them, and this package's names in it. */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { PACKAGE_NAME } from './install';

export const ACTION_NODE_TYPE = `${PACKAGE_NAME}.clinicScribe`;
export const TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.clinicScribeTrigger`;
export const CREDENTIAL_TYPE = 'clinicScribeApi';

export interface CredentialImport {
	/** n8n ids: up to 21 characters; newId() makes one. */
	id: string;
	name: string;
	type: string;
	/** In clear; n8n encrypts it on import. */
	data: Record<string, unknown>;
}

export interface WorkflowNode {
	id?: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	[key: string]: unknown;
}

export interface WorkflowJson {
	id?: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	active?: boolean;
	[key: string]: unknown;
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A random 16-character id of the kind n8n gives workflows and credentials. */
export function newId(): string {
	const bytes = randomBytes(16);
	let id = '';
	for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
	return id;
}

/** Connects nodes in a line: connections for [a, b, c] are a→b→c on main output 0. */
export function chain(...nodeNames: string[]): Record<string, unknown> {
	const connections: Record<string, unknown> = {};
	for (let i = 0; i + 1 < nodeNames.length; i++) {
		connections[nodeNames[i]] = { main: [[{ node: nodeNames[i + 1], type: 'main', index: 0 }]] };
	}
	return connections;
}

/** A workflow JSON file (test/e2e/workflows/*.json, examples/*.json). */
export function readWorkflowFile(path: string): WorkflowJson {
	return JSON.parse(readFileSync(path, 'utf8')) as WorkflowJson;
}

/**
 * A copy of the workflow whose nodes use the given credential for `type` (fixtures name a
 * placeholder; a test may point a workflow at a credential of its own).
 */
export function withCredential(
	workflow: WorkflowJson,
	type: string,
	credential: { id: string; name: string },
): WorkflowJson {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) =>
			node.credentials?.[type]
				? { ...node, credentials: { ...node.credentials, [type]: { ...credential } } }
				: node,
		),
	};
}
