/**
 * Upload Audio's batch runner: sends the run's uploads several at a time (a worker pool), each with
 * the flow of its Upload Method (transactionFlow.ts, sessionFlow.ts, handed in by the entry), halts
 * the run on the first failure (or on the daily quota's answer), keeps which failure was known
 * first, and writes the note that says what a stopped run leaves behind. Here too: what an upload
 * shares with its run (BatchRun), the one way both flows send a file (fileUploads, through the
 * run's gate), and what output items say of an upload (receipts, error items).
 */
import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type IPairedItemData,
} from 'n8n-workflow';

import { concurrencyGate, type ConcurrencyGate } from '../../../shared/concurrencyGate';
import { PRODUCTION_POLICY } from '../../../transport/retryPolicy';
import { DailyQuotaError } from '../../../transport/errors';
import { asNodeError, errorRecord } from '../../errorItems';
import type { PlannedFile } from './files';
import { runIndexOf } from './ids';
import { describeItems, describePlans, type UploadPlan } from './plan';
import type { UploadMethod } from './settings';

/**
 * What one upload (a transaction or a session) shares with the others of Upload Audio's run: the
 * gate on uploads in flight, the halt, the IDs this node run sent a start for, and what it has sent
 * so far. startUploads makes one; the two flows use it.
 */
export interface BatchRun {
	/** The IDs this node run sent a start for, across n8n's Retry On Fail. */
	ownIds: OwnUploadIds;
	/** The bound on file uploads in flight at once, across the run's uploads. */
	uploadGate: ConcurrencyGate;
	/** True once no further request may be sent (a failure without Continue On Fail, or the quota). */
	halted(): boolean;
	/** Before each request: throws UploadHalted once the run is halted. */
	throwIfHalted(): void;
	/** Called the moment a failure is known (before any other upload's code runs again). */
	noteFailure(plan: UploadPlan, error: unknown): void;
}

/** Thrown inside an upload that stops before its next request because the run was halted. */
export class UploadHalted extends Error {}

/** What one upload has sent so far: what the stop note and the quota message say of it. */
export interface UploadProgress {
	/**
	 * The request that starts the paid transcription (a transaction's init, a session's End) was
	 * sent: the upload may have been started even if no clear answer came.
	 */
	startRequestSent: boolean;
	/** File uploads begun (files may be stored even if the transcription was never requested). */
	uploadsSent: number;
}

/**
 * The IDs this node sent a start for (a transaction's init, a session's create), per run of the
 * node, kept in n8n's execution data: on n8n's Retry On Fail a conflict on one of them is its own.
 */
export interface OwnUploadIds {
	has(id: string): boolean;
	add(id: string): void;
	forget(id: string): void;
}

/**
 * The execution-data key. It holds session ids too, under a name that says init: an execution
 * retried after the package is updated still finds the IDs kept under it.
 */
const OWN_IDS_KEY = 'clinicScribeInitSent';

export function ownUploadIds(ctx: IExecuteFunctions): OwnUploadIds {
	let byRun: Record<string, string[]> = {};
	try {
		const context = ctx.getContext('node');
		const kept = context[OWN_IDS_KEY];
		if (typeof kept === 'object' && kept !== null && !Array.isArray(kept))
			byRun = kept as Record<string, string[]>;
		else context[OWN_IDS_KEY] = byRun;
	} catch {
		// No execution data to keep it in: remembered for this run only.
	}
	const run = String(runIndexOf(ctx));
	return {
		has: (id) => (byRun[run] ?? []).includes(id),
		add: (id) => {
			const ids = (byRun[run] ??= []);
			if (!ids.includes(id)) ids.push(id);
		},
		forget: (id) => {
			byRun[run] = (byRun[run] ?? []).filter((kept) => kept !== id);
		},
	};
}

/** Sends one upload and gives its receipts, one per file: transactionFlow.ts's runTransaction, sessionFlow.ts's runSession. */
export type UploadFlow = (
	ctx: IExecuteFunctions,
	plan: UploadPlan,
	run: BatchRun,
	progress: UploadProgress,
) => Promise<IDataObject[]>;

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

/** The run's uploads under way: what startUploads gives its caller. */
export interface UploadBatch {
	/** The workers, already sending; each ends (none throws) once no upload is left for it. */
	workers: Array<Promise<void>>;
	/** Each upload's outcome and the failure known first: read once every worker has ended. */
	result(): BatchResult;
}

/**
 * Starts sending the uploads, uploadConcurrency (transport policy) at a time, in input order: at
 * most that many uploads in flight, and at most that many file uploads in flight across them.
 * Without Continue On Fail the first failure halts the run; with it, only the daily quota's answer
 * does. A halted run starts no upload, and those in flight send no further request (the one they
 * are in finishes; an upload whose start request was already sent finishes). The caller awaits
 * the workers itself, then reads the result: the uploads' calls are one frame nearer the operation.
 */
export function startUploads(
	ctx: IExecuteFunctions,
	plans: UploadPlan[],
	continueOnFail: boolean,
	flows: Record<UploadMethod, UploadFlow>,
): UploadBatch {
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
			if (!continueOnFail || error instanceof DailyQuotaError) halted = true;
			failedFirst ??= plan;
		},
	};
	let next = 0;
	const worker = async (): Promise<void> => {
		while (!halted && next < plans.length) {
			const plan = plans[next++];
			const progress: UploadProgress = { startRequestSent: false, uploadsSent: 0 };
			const flow = flows[plan.settings.uploadMethod];
			try {
				outcomes.set(plan, { kind: 'started', receipts: await flow(ctx, plan, run, progress) });
			} catch (error) {
				if (error instanceof UploadHalted) {
					outcomes.set(plan, { kind: 'halted', uploadsSent: progress.uploadsSent });
					continue;
				}
				run.noteFailure(plan, error);
				const nodeError = asNodeError(ctx, error, plan.itemIndexes[0]);
				outcomes.set(plan, {
					kind: 'failed',
					error: nodeError,
					startRequestSent: progress.startRequestSent,
				});
			}
		}
	};
	const workers = Array.from(
		{ length: Math.min(PRODUCTION_POLICY.uploadConcurrency, plans.length) },
		worker,
	);
	const result = (): BatchResult => {
		const first = failedFirst && outcomes.get(failedFirst);
		return {
			outcomes,
			firstFailure:
				failedFirst && first?.kind === 'failed'
					? { plan: failedFirst, error: first.error }
					: undefined,
		};
	};
	return { workers, result };
}

/**
 * What a stopped run leaves behind, so nothing is lost and nothing is paid for twice: every upload
 * of the run but the one that failed first (its own error says what happened to it).
 */
export function stopNote(
	plans: UploadPlan[],
	outcomes: Map<UploadPlan, UploadOutcome>,
	failedFirst: UploadPlan,
): string {
	const started: UploadPlan[] = [];
	const maybeStarted: UploadPlan[] = [];
	const alsoFailed: string[] = [];
	const notSent: UploadPlan[] = [];
	for (const plan of plans) {
		const outcome = outcomes.get(plan);
		if (outcome?.kind === 'started') started.push(plan);
		else if (
			outcome?.kind === 'failed' &&
			outcome.startRequestSent &&
			!isDefinitiveRefusal(outcome.error)
		)
			maybeStarted.push(plan);
		else if (plan === failedFirst) continue;
		else if (outcome?.kind === 'failed')
			alsoFailed.push(`${describePlans([plan])}: ${outcome.error.message}`);
		else notSent.push(plan);
	}
	const parts = ['Nothing more was sent after this failure.'];
	if (started.length > 0) {
		parts.push(
			`Already started in this run (running, and counted): ${describePlans(started)}. Get their results with Get Results; do not upload those recordings again, or they are transcribed twice (n8n's Retry On Fail does not start them again).`,
		);
	}
	if (maybeStarted.length > 0) {
		parts.push(
			`Possibly started (the start request got no clear answer): ${describePlans(maybeStarted)}. Check with Get Results before sending it again.`,
		);
	}
	if (alsoFailed.length > 0) parts.push(`Also failed, not started: ${alsoFailed.join('; ')}.`);
	if (notSent.length > 0) parts.push(`Not sent: ${describePlans(notSent)}.`);
	return parts.join(' ');
}

/** The error of an upload the run did not send (or finish) because the daily quota's answer came first. */
export function notSentForQuotaError(
	ctx: IExecuteFunctions,
	plan: UploadPlan,
	uploadsSent: number,
): NodeOperationError {
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
export function withBatchNote(
	error: NodeApiError | NodeOperationError,
	note: string,
): NodeApiError | NodeOperationError {
	error.description = error.description ? `${error.description} ${note}` : note;
	return error;
}

/** A 4xx refusal of the API: the call was not taken, so nothing was started by it. */
function isDefinitiveRefusal(error: NodeApiError | NodeOperationError): boolean {
	return error instanceof NodeOperationError || /^4\d\d$/.test(String(error.httpCode ?? ''));
}

/** What came of one file of an upload: its answer, its failure, or not sent. */
export type FileResult<T> =
	| { kind: 'sent'; answer: T }
	| { kind: 'failed'; error: unknown }
	| { kind: 'not_sent' };

/** One upload's files, sent through the run's gate: see fileUploads. */
export interface FileUploads {
	/**
	 * Sends one file with `upload` once the run's gate lets it through, unless a file of this
	 * upload failed or the run was halted meanwhile (then not sent). A failure is returned, not
	 * thrown, so every begun file ends before the flow goes on; the run hears of it at once.
	 */
	send<T>(upload: () => Promise<T>): Promise<FileResult<T>>;
	/**
	 * The answers in file order, once every file's send has ended; throws the first failure in
	 * file order, or UploadHalted when files were not sent because the run was halted.
	 */
	answers<T>(results: Array<FileResult<T>>): T[];
}

/**
 * The one way both flows send an upload's files: every file's `send` at once, awaited together by
 * the flow, at most as many in flight across the run's uploads as its gate lets through. A file
 * that fails stops the files of this upload not yet begun, and the run hears of it at once
 * (noteFailure); no upload outlives the node, since the flow reads `answers` once all have ended.
 */
export function fileUploads(
	run: BatchRun,
	plan: UploadPlan,
	progress: UploadProgress,
): FileUploads {
	let failed = false;
	return {
		async send<T>(upload: () => Promise<T>): Promise<FileResult<T>> {
			const release = await run.uploadGate.acquire();
			try {
				if (failed || run.halted()) return { kind: 'not_sent' };
				progress.uploadsSent++;
				return { kind: 'sent', answer: await upload() };
			} catch (error) {
				failed = true;
				run.noteFailure(plan, error);
				return { kind: 'failed', error };
			} finally {
				release();
			}
		},
		answers<T>(results: Array<FileResult<T>>): T[] {
			const failure = results.find((result) => result.kind === 'failed');
			if (failure) throw failure.error;
			const answers = results.flatMap((result) => (result.kind === 'sent' ? [result.answer] : []));
			if (answers.length < results.length) throw new UploadHalted();
			return answers;
		},
	};
}

/**
 * Output items with the first input item each belongs to: the output follows the input's order.
 * What they say of an upload is the same whichever flow sent it (the ID under the name Get Results
 * and the trigger know it by, the file, the paired items); each flow adds what its own requests
 * answered.
 */
export type OrderedOutput = Array<{ order: number; data: INodeExecutionData }>;

/** The id under the name Get Results and the trigger know it by, and which flow it belongs to. */
function idFields(plan: UploadPlan): IDataObject {
	return plan.settings.uploadMethod === 'session'
		? { session_id: plan.id, upload_method: 'session' }
		: { transaction_id: plan.id, upload_method: 'transaction' };
}

/** What every receipt says of its file and upload. */
export function fileFields(plan: UploadPlan, file: PlannedFile): IDataObject {
	return {
		...idFields(plan),
		file_name: file.fileName,
		original_file_name: file.originalFileName ?? null,
		binary_property: file.binaryProperty,
		file_size: file.size,
		content_type: file.contentType,
	};
}

/** One output item per file receipt, paired to the item the file came from. */
export function receiptItems(plan: UploadPlan, receipts: IDataObject[]): OrderedOutput {
	return receipts.map((json, index) => {
		const item = plan.files[index].itemIndex;
		return { order: item, data: { json, pairedItem: { item } } };
	});
}

export function pairedItems(plan: UploadPlan): IPairedItemData[] {
	return plan.itemIndexes.map((item) => ({ item }));
}

/** Under Continue On Fail: one error item per input item of the failed upload. */
export function errorItems(plan: UploadPlan, error: unknown): OrderedOutput {
	return plan.itemIndexes.map((item) => ({
		order: item,
		data: { json: { ...errorRecord(error), ...idFields(plan) }, pairedItem: { item } },
	}));
}
