/**
 * Upload Audio's batch runner: sends the run's uploads several at a time (a worker pool), halts the
 * run on the first failure (or on the daily quota's answer), keeps which failure was known first,
 * and writes the note that says what a stopped run leaves behind.
 */
import { NodeApiError, NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { PRODUCTION_POLICY } from '../../../transport/retryPolicy';
import { concurrencyGate } from '../../../shared/concurrencyGate';
import { isDailyQuotaError } from '../../../transport/transcriptionApi';
import { asNodeError } from '../../errorItems';
import { ownUploadIds, UploadHalted, type BatchRun, type UploadProgress } from './batchRun';
import { describeItems, describePlans, type UploadPlan } from './plan';
import { runSession } from './sessionFlow';
import { runTransaction } from './transactionFlow';

export type UploadOutcome =
	| { kind: 'started'; receipts: IDataObject[] }
	| { kind: 'failed'; error: NodeApiError | NodeOperationError; startRequestSent: boolean }
	/** Stopped before its next request because a failure or the quota's answer was known. */
	| { kind: 'halted'; uploadsSent: number };

export interface BatchResult {
	/** Uploads never begun (the run was halted first) have no outcome. */
	outcomes: Map<UploadPlan, UploadOutcome>;
	/** The failure known first, if any upload failed: the one a stopped run reports. */
	firstFailure?: { plan: UploadPlan; error: NodeApiError | NodeOperationError };
}

/**
 * Sends the uploads, uploadConcurrency (transport policy) at a time, in input order: at most that
 * many uploads in flight, and at most that many file uploads in flight across them. Without
 * Continue On Fail the first failure halts the run; with it, only the daily quota's answer does.
 * A halted run starts no upload, and those in flight send no further request (the one they are in
 * finishes; an upload whose start request was already sent finishes).
 */
export async function sendUploads(ctx: IExecuteFunctions, plans: UploadPlan[], continueOnFail: boolean): Promise<BatchResult> {
	const outcomes = new Map<UploadPlan, UploadOutcome>();
	let failedFirst: UploadPlan | undefined;
		let halted = false;
	const run: BatchRun = {
		ownIds: ownUploadIds(ctx),
		uploadGate: concurrencyGate(PRODUCTION_POLICY.uploadConcurrency),
		halted: () => halted,
		throwIfHalted: () => {
			if (halted) throw new UploadHalted();
		},
		noteFailure: (plan, error) => {
			if (error instanceof UploadHalted) return;
			if (!continueOnFail || isDailyQuotaError(error)) halted = true;
			failedFirst ??= plan;
		},
	};
	let next = 0;
	const worker = async (): Promise<void> => {
		while (!halted && next < plans.length) {
			const plan = plans[next++];
			const progress: UploadProgress = { startRequestSent: false, uploadsSent: 0 };
			const flow = plan.settings.uploadMethod === 'session' ? runSession : runTransaction;
			try {
				outcomes.set(plan, { kind: 'started', receipts: await flow(ctx, plan, run, progress) });
			} catch (error) {
				if (error instanceof UploadHalted) {
					outcomes.set(plan, { kind: 'halted', uploadsSent: progress.uploadsSent });
					continue;
				}
				run.noteFailure(plan, error);
				const nodeError = asNodeError(ctx, error, plan.itemIndexes[0]);
				outcomes.set(plan, { kind: 'failed', error: nodeError, startRequestSent: progress.startRequestSent });
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(PRODUCTION_POLICY.uploadConcurrency, plans.length) }, worker));
	const first = failedFirst && outcomes.get(failedFirst);
	return { outcomes, firstFailure: failedFirst && first?.kind === 'failed' ? { plan: failedFirst, error: first.error } : undefined };
}

/**
 * What a stopped run leaves behind, so nothing is lost and nothing is paid for twice: every upload
 * of the run but the one that failed first (its own error says what happened to it).
 */
export function stopNote(plans: UploadPlan[], outcomes: Map<UploadPlan, UploadOutcome>, failedFirst: UploadPlan): string {
	const started: UploadPlan[] = [];
	const maybeStarted: UploadPlan[] = [];
	const alsoFailed: string[] = [];
	const notSent: UploadPlan[] = [];
	for (const plan of plans) {
		const outcome = outcomes.get(plan);
		if (outcome?.kind === 'started') started.push(plan);
		else if (outcome?.kind === 'failed' && outcome.startRequestSent && !isDefinitiveRefusal(outcome.error)) maybeStarted.push(plan);
		else if (plan === failedFirst) continue;
		else if (outcome?.kind === 'failed') alsoFailed.push(`${describePlans([plan])}: ${outcome.error.message}`);
		else notSent.push(plan);
	}
	const parts = ['Nothing more was sent after this failure.'];
	if (started.length > 0) {
		parts.push(
			`Already started in this run (running, and counted): ${describePlans(started)}. Get their results with Get Results; do not upload those recordings again, or they are transcribed twice (n8n's Retry On Fail does not start them again).`,
		);
	}
	if (maybeStarted.length > 0) {
		parts.push(`Possibly started (the start request got no clear answer): ${describePlans(maybeStarted)}. Check with Get Results before sending it again.`);
	}
	if (alsoFailed.length > 0) parts.push(`Also failed, not started: ${alsoFailed.join('; ')}.`);
	if (notSent.length > 0) parts.push(`Not sent: ${describePlans(notSent)}.`);
	return parts.join(' ');
}

/** The error of an upload the run did not send (or finish) because the daily quota's answer came first. */
export function notSentForQuotaError(ctx: IExecuteFunctions, plan: UploadPlan, uploadsSent: number): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`Transaction "${plan.id}" of ${describeItems(plan.itemIndexes)} was not sent: the workspace's daily transcription quota was used up earlier in this run (txn_limit_exceeded)`,
		{
			description: `${uploadsSent > 0 ? 'Its transcription was not requested (files already in storage start nothing).' : 'Nothing of it was uploaded.'} Send it again tomorrow (the quota resets daily), or ask the API provider to raise the limit.`,
			itemIndex: plan.itemIndexes[0],
		},
	);
}

/** The error with a note about the rest of the batch after its own description. */
export function withBatchNote(error: NodeApiError | NodeOperationError, note: string): NodeApiError | NodeOperationError {
	error.description = error.description ? `${error.description} ${note}` : note;
	return error;
}

/** A 4xx refusal of the API: the call was not taken, so nothing was started by it. */
function isDefinitiveRefusal(error: NodeApiError | NodeOperationError): boolean {
	return error instanceof NodeOperationError || /^4\d\d$/.test(String(error.httpCode ?? ''));
}
