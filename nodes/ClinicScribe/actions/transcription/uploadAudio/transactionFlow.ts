/**
 * Upload Method "Transaction", the flow of [IFD §4.7]: a check that the ID was never used →
 * presign → every file to storage (several at once, through the run's gate) → init (the paid step).
 */
import {
	NodeApiError,
	type IDataObject,
	type IExecuteFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { uploadToStorage } from '../../../transport/storage';
import type { StorageTarget } from '../../../transport/uploadBody';
import {
	initTransaction,
	isTransactionStarted,
	requestUploadTarget,
	transactionIdUsedError,
	type InitResult,
} from '../../../transport/transcription/transaction';
import { fileFields, fileUploads, type BatchRun, type UploadProgress } from './batchRunner';
import type { PlannedFile } from './files';
import type { UploadPlan } from './plan';

/**
 * Sends one transaction; its receipts, one per file. A file that cannot be stored stops it before
 * init. Before each request it stops (UploadHalted) if the run was halted meanwhile.
 */
export async function runTransaction(
	ctx: IExecuteFunctions,
	plan: UploadPlan,
	run: BatchRun,
	progress: UploadProgress,
): Promise<IDataObject[]> {
	const { settings } = plan;
	const itemIndex = plan.itemIndexes[0];
	run.throwIfHalted();
	if (await isTransactionStarted(ctx, plan.id, itemIndex)) {
		// Ours when this node's run sent its init in an earlier try (n8n's Retry On Fail), or when the
		// id was generated, which only this item of this run of this execution can have.
		if (plan.generatedId || run.ownIds.has(plan.id))
			return plan.files.map((file) => alreadyStartedReceipt(plan, file));
		throw transactionIdUsedError(ctx, plan.id, 'check', itemIndex);
	}
	// Not async itself: the call's stack goes straight from the flow to the API area's function.
	const presign = () => {
		run.throwIfHalted();
		return requestUploadTarget(
			ctx,
			{
				txnId: plan.id,
				action: settings.action,
				extraData: { mode: settings.mode, model_type: settings.modelType },
			},
			itemIndex,
		);
	};
	let target = await presign();
	const storageStatus = await storeFiles(ctx, plan, run, progress, target, async () => {
		const fresh = await presign();
		const sameFolder = fresh.url === target.url && fresh.folderPath === target.folderPath;
		target = fresh;
		return { target: fresh, sameFolder };
	});

	run.throwIfHalted();
	// Remembered before sending: if no clear answer comes, a retry of this node knows the init is its own.
	run.ownIds.add(plan.id);
	progress.startRequestSent = true;
	const init = await initTransaction(
		ctx,
		plan.id,
		{
			mode: settings.mode,
			transfer: 'non-vaded',
			batch_s3_url: `${target.url}${target.folderPath}`,
			client_generated_files: plan.files.map((file) => file.fileName),
			model_type: settings.modelType,
			input_language: settings.inputLanguages,
			output_format_template: settings.templates,
			...(settings.additionalData ? { additional_data: settings.additionalData } : {}),
			...(settings.outputLanguage ? { output_language: settings.outputLanguage } : {}),
		},
		itemIndex,
	);
	return plan.files.map((file) => startedReceipt(plan, file, storageStatus.get(file) ?? 0, init));
}

/**
 * Uploads the transaction's files to storage (fileUploads). A 403 (the presigned policy
 * expired: a long upload, a slow link) gets one fresh presign: the refused files go again, or every
 * file when the fresh presign names another folder (files stored elsewhere would be missing).
 * Returns each file's storage status.
 */
async function storeFiles(
	ctx: IExecuteFunctions,
	plan: UploadPlan,
	run: BatchRun,
	progress: UploadProgress,
	firstTarget: StorageTarget,
	presignAgain: () => Promise<{ target: StorageTarget; sameFolder: boolean }>,
): Promise<Map<PlannedFile, number>> {
	const storageStatus = new Map<PlannedFile, number>();
	let target = firstTarget;
	let files = plan.files;
	for (let presignedAgain = false; ; presignedAgain = true) {
		const uploads = fileUploads(run, plan, progress);
		const outcomes = uploads.answers(
			await Promise.all(
				files.map((file) => uploads.send(() => uploadToStorage(ctx, target, file, file.itemIndex))),
			),
		);
		const refused: PlannedFile[] = [];
		let refusal: { file: PlannedFile; detail: string } | undefined;
		outcomes.forEach((outcome, index) => {
			if (outcome.kind === 'stored') storageStatus.set(files[index], outcome.statusCode);
			else {
				refused.push(files[index]);
				refusal ??= { file: files[index], detail: outcome.detail };
			}
		});
		if (!refusal) return storageStatus;
		if (presignedAgain)
			throw storageRefusedError(ctx, refusal.file.label, refusal.detail, refusal.file.itemIndex);
		const fresh = await presignAgain();
		target = fresh.target;
		files = fresh.sameFolder ? refused : plan.files;
	}
}

function startedReceipt(
	plan: UploadPlan,
	file: PlannedFile,
	storageStatus: number,
	init: InitResult,
): IDataObject {
	return {
		...fileFields(plan, file),
		upload_status: 'uploaded',
		storage_status_code: storageStatus,
		files_in_transaction: plan.files.length,
		init: {
			status: init.alreadyInitialised ? 'already_started' : 'started',
			http_status: init.statusCode,
			message: typeof init.body.message === 'string' ? init.body.message : null,
			txn_id: typeof init.body.txn_id === 'string' ? init.body.txn_id : plan.id,
			b_id: typeof init.body.b_id === 'string' ? init.body.b_id : null,
		},
	};
}

/** The receipt of a file of a transaction an earlier try of this node already started. */
function alreadyStartedReceipt(plan: UploadPlan, file: PlannedFile): IDataObject {
	return {
		...fileFields(plan, file),
		upload_status: 'already_uploaded',
		storage_status_code: null,
		files_in_transaction: plan.files.length,
		init: {
			status: 'already_started',
			http_status: null,
			message: null,
			txn_id: plan.id,
			b_id: null,
		},
	};
}

/** A refused upload after a fresh presign: the policy itself does not allow this file. */
function storageRefusedError(
	ctx: IExecuteFunctions,
	label: string,
	detail: string,
	itemIndex: number,
): NodeApiError {
	return new NodeApiError(ctx.getNode(), { status_code: 403 } as JsonObject, {
		message: `The storage service refused ${label} (HTTP 403)${detail ? `: ${detail}` : ''}`,
		description:
			'The upload policy was refused even after asking the clinic API for a fresh one. Check that the n8n server clock is right and that the credential belongs to this environment, then run again.',
		httpCode: '403',
		itemIndex,
	});
}
