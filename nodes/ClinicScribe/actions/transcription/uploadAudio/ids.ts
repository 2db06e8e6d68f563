/**
 * Upload Audio's IDs: the one an item gives (checked before anything is sent) or the one generated
 * for it, which stays the same under n8n's Retry On Fail so a retry never starts a second paid
 * transcription.
 */
import { createHash, randomUUID } from 'crypto';
import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import { pathIdProblem } from '../../../transport/request';
import {
	SESSION_ID_MAX_LENGTH,
	SESSION_ID_MIN_LENGTH,
} from '../../../transport/transcription/session';
import type { UploadMethod } from './settings';

/**
 * What makes a generated transaction id unique: this n8n instance, workflow, execution, node and
 * run of the node. n8n's Retry On Fail runs the node again with the same execution and run index, so
 * a retried item gets the same id and its transcription is not started a second time; a new
 * execution gets new ids. Without an execution id (never in n8n) the ids are random.
 */
export function generatedIdSeed(ctx: IExecuteFunctions): string {
	const executionId = optionalCall(() => ctx.getExecutionId());
	if (!executionId) return randomUUID();
	const node = ctx.getNode();
	return [
		optionalCall(() => ctx.getInstanceId()) ?? '',
		optionalCall(() => ctx.getWorkflow().id) ?? '',
		executionId,
		node.id ?? node.name,
		String(runIndexOf(ctx)),
	].join('\n');
}

/** A transaction id for an item whose Transaction ID field is empty: `n8n-` and a UUID-shaped hash. */
export function generateTransactionId(seed: string, itemIndex: number): string {
	const hex = createHash('sha256').update(`${seed}\n${itemIndex}`).digest('hex');
	// UUID version 8 (custom) layout, so it reads like the random ids this node generated before.
	const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
	return `n8n-${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A session id for an item whose ID field is empty, with the Session method: `n8n` and 29 hex
 * characters of the same hash (32 characters: the service takes 16 to 32). As stable under n8n's
 * Retry On Fail as the transaction id.
 */
export function generateSessionId(seed: string, itemIndex: number): string {
	return `n8n${createHash('sha256')
		.update(`${seed}\n${itemIndex}`)
		.digest('hex')
		.slice(0, SESSION_ID_MAX_LENGTH - 3)}`;
}

/** Why an id cannot name a session of the session API (16–32 letters, digits, _ or -), or undefined. */
export function sessionIdProblem(sessionId: string): string | undefined {
	if (sessionId.length < SESSION_ID_MIN_LENGTH || sessionId.length > SESSION_ID_MAX_LENGTH) {
		return `has ${sessionId.length} characters, but a session ID must have ${SESSION_ID_MIN_LENGTH} to ${SESSION_ID_MAX_LENGTH}`;
	}
	if (!/^[A-Za-z0-9_-]+$/.test(sessionId))
		return 'may hold only letters, digits, _ and - with the Session upload method';
	return undefined;
}

/** Why a transaction id cannot be used as one path segment of the API, or undefined. */
export function transactionIdProblem(txnId: string): string | undefined {
	const pathProblem = pathIdProblem(txnId);
	if (pathProblem) return pathProblem;
	if (txnId.length > 128) return 'is longer than 128 characters';
	if (/\s/.test(txnId)) return 'contains spaces or line breaks';
	if (/[/\\?#%]/.test(txnId)) return 'contains one of / \\ ? # %';
	if (
		[...txnId].some((character) => character.charCodeAt(0) < 32 || character.charCodeAt(0) === 127)
	) {
		return 'contains control characters';
	}
	return undefined;
}

/** The node's run index in this execution ($runIndex), 0 when the context cannot tell. */
export function runIndexOf(ctx: IExecuteFunctions): number {
	const runIndex = optionalCall(() => ctx.getWorkflowDataProxy(0).$runIndex);
	return typeof runIndex === 'number' && Number.isInteger(runIndex) ? runIndex : 0;
}

/**
 * The ID of an item's transaction or session: the Transaction ID field, or a generated one when it
 * is empty. A bad ID gets a key of its own (`invalid:<item>`, so it never joins another item's
 * upload) and the problem that keeps it from being sent.
 */
export function readUploadId(
	ctx: IExecuteFunctions,
	itemIndex: number,
	method: UploadMethod,
	generate: (itemIndex: number, method: UploadMethod) => string,
): { id: string; generated: boolean; problem?: NodeOperationError } {
	const raw = ctx.getNodeParameter('transactionId', itemIndex, '') as unknown;
	const id = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
	if (id === '') return { id: generate(itemIndex, method), generated: true };
	const problem =
		transactionIdProblem(id) ?? (method === 'session' ? sessionIdProblem(id) : undefined);
	if (!problem) return { id, generated: false };
	const description =
		method === 'session'
			? `With Upload Method "Session" the ID names the session: ${SESSION_ID_MIN_LENGTH} to ${SESSION_ID_MAX_LENGTH} letters, digits, _ or - (for example visit-2024-0042-anita). Leave it empty to have one generated. Nothing was sent.`
			: 'A Transaction ID is one path segment of the API: at most 128 characters, with no spaces, line breaks, control characters or / \\ ? # %. Use for example a visit ID such as visit-2024-0042, or leave the field empty to have one generated.';
	return {
		id: `invalid:${itemIndex}`,
		generated: false,
		problem: new NodeOperationError(
			ctx.getNode(),
			`The Transaction ID of item ${itemIndex} ${problem}`,
			{ description, itemIndex },
		),
	};
}

function optionalCall<T>(read: () => T): T | undefined {
	try {
		return read();
	} catch {
		return undefined;
	}
}
