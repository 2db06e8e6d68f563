import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type IPairedItemData,
} from 'n8n-workflow';

import { INPUT_LANGUAGES } from '../../shared/audioFiles';
import { sessionResultsToRecords } from '../../shared/sessionResults';
import { getClinicSettings } from '../../transport/request';
import { storageRefusedError, uploadToStorage } from '../../transport/storageUpload';
import {
	initTransaction,
	isDailyQuotaError,
	isTransactionStarted,
	requestUploadTarget,
	transactionIdUsedError,
	type InitResult,
} from '../../transport/transcriptionApi';
import { asNodeError, errorRecord } from '../errorItems';
import { planTransactions, runIndexOf, TEMPLATE_CHOICES, type PlannedFile, type TransactionPlan } from './uploadPlan';
import { waitForCompletionFields, waitForSessionResults } from './waitForResults';

const show = { resource: ['transcription'], operation: ['uploadAudio'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		placeholder: 'e.g. data',
		hint: 'The name of the input binary field holding the recording. Several fields: separate them with commas.',
		description:
			'Each named binary field of the item is one audio file of the transaction (wav, mp3, m4a, ogg, webm or mp4)',
		displayOptions: { show },
	},
	{
		displayName: 'Transaction ID',
		name: 'transactionId',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.visitId }}',
		description:
			'Groups files: items with the same transaction ID are uploaded and transcribed together, as one session. Leave empty to generate one per item. It is the session ID for Get Results and the trigger.',
		displayOptions: { show },
	},
	{
		displayName: 'Input Languages',
		name: 'inputLanguages',
		type: 'multiOptions',
		options: INPUT_LANGUAGES.map((language) => ({ name: `${language.name} (${language.id})`, value: language.id })),
		default: ['en-IN'],
		required: true,
		description: 'The language(s) spoken in the recording. An expression may give IDs such as "en-IN,hi".',
		displayOptions: { show },
	},
	{
		displayName: 'Output Templates',
		name: 'outputTemplates',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Template',
		default: { templates: [{ template: TEMPLATE_CHOICES.clinicalNotes, codificationNeeded: false }] },
		description: 'The documents to produce from the recording',
		displayOptions: { show },
		options: [
			{
				displayName: 'Template',
				name: 'templates',
				values: [
					{
						displayName: 'Template',
						name: 'template',
						type: 'options',
						options: [
							{
								name: 'Clinical Notes',
								value: TEMPLATE_CHOICES.clinicalNotes,
								description: 'Comprehensive structured clinical notes (clinical_notes_template)',
							},
							{
								name: 'Custom Template',
								value: TEMPLATE_CHOICES.custom,
								description: "A template of your workspace, by its ID",
							},
							{
								name: 'EMR Format',
								value: TEMPLATE_CHOICES.emr,
								description:
									'Format for electronic medical record systems (svc_emr_template, or eka_emr_template with the public API variant)',
							},
							{
								name: 'Transcript',
								value: TEMPLATE_CHOICES.transcript,
								description: 'Basic transcription with minimal structuring (transcript_template)',
							},
						],
						default: 'clinical_notes_template',
					},
					{
						displayName: 'Custom Template ID',
						name: 'customTemplateId',
						type: 'string',
						default: '',
						// Not `required`: n8n checks that inside a template row without its displayOptions
						// and would refuse to run every workflow whose rows are not custom.
						placeholder: 'e.g. my_referral_letter_template',
						description: 'The ID of the template in your workspace',
						// Shown for the Custom Template choice of the same row only.
						displayOptions: { show: { template: [TEMPLATE_CHOICES.custom] } },
					},
					{
						displayName: 'Codification Needed',
						name: 'codificationNeeded',
						type: 'boolean',
						default: false,
						description: 'Whether the document should carry medical codes (codification_needed)',
					},
				],
			},
		],
	},
	...waitForCompletionFields(
		show,
		'Whether to wait until the transcription is done and output its results instead of the upload receipts',
		false,
	),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Action',
				name: 'action',
				type: 'string',
				default: '',
				placeholder: 'e.g. scribe-v2',
				description:
					"The upload's action value. Empty: the credential's API variant decides (scribe-v2, or ekascribe-v2 for the public API).",
			},
			{
				displayName: 'Additional Data',
				name: 'additionalData',
				type: 'json',
				default: '{}',
				description: 'A JSON object passed through to the transcription as additional_data, returned with the results',
			},
			{
				displayName: 'Mode',
				name: 'mode',
				type: 'options',
				options: [
					{ name: 'Consultation', value: 'consultation', description: 'A conversation between doctor and patient' },
					{ name: 'Dictation', value: 'dictation', description: 'The doctor dictating alone' },
				],
				default: 'dictation',
				description: 'How the recording was made',
			},
			{
				displayName: 'Model',
				name: 'modelType',
				type: 'options',
				options: [
					{ name: 'Lite', value: 'lite', description: 'Lower latency' },
					{ name: 'Pro', value: 'pro', description: 'Most accurate' },
				],
				default: 'pro',
				description: 'The transcription model (model_type)',
			},
			{
				displayName: 'Output Language',
				name: 'outputLanguage',
				type: 'string',
				default: '',
				placeholder: 'e.g. en-IN',
				description: 'Language of the documents (output_language). Empty: the service decides.',
			},
		],
	},
];

/**
 * All items at once, because items sharing a transaction ID form one transaction: a check that the
 * ID was never used, one presign, every file uploaded (streamed), then one init. Everything is
 * checked before anything is sent.
 *
 * The batch rule: transactions go one after another. Without Continue On Fail, the first failure
 * stops the run before any further transaction is sent, and its error lists the transactions already
 * started (running and counted) and those not sent. With Continue On Fail, a failed transaction
 * becomes error items and the others go on, except after the daily quota's answer: nothing more is
 * sent then. Output follows the order of the input items.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	if (this.isToolExecution?.()) {
		throw new NodeOperationError(this.getNode(), 'Upload Audio cannot be used as an AI agent tool', {
			description: 'An agent cannot hand over binary files. Upload recordings in a regular workflow step; agents can use Get Results.',
		});
	}
	const settings = await getClinicSettings(this);
	const plans = await planTransactions(this, items, settings);
	const continueOnFail = this.continueOnFail();

	const firstProblem = plans.find((plan) => plan.problem)?.problem;
	if (firstProblem && !continueOnFail) throw firstProblem;

	const memory = initMemory(this);
	const output: OrderedOutput = [];
	const started: Array<{ plan: TransactionPlan; records: IDataObject[] }> = [];
	let quotaUsedUp = false;
	for (const [index, plan] of plans.entries()) {
		if (plan.problem) {
			output.push(...errorItems(plan, plan.problem));
			continue;
		}
		if (quotaUsedUp) {
			output.push(...errorItems(plan, notSentForQuotaError(this, plan)));
			continue;
		}
		const progress: TransactionProgress = { initSent: false };
		try {
			started.push({ plan, records: await runTransaction(this, plan, memory, progress) });
		} catch (error) {
			const nodeError = asNodeError(this, error, plan.itemIndexes[0]);
			if (!continueOnFail) {
				const maybeStarted = progress.initSent && !isDefinitiveRefusal(nodeError) ? [plan] : [];
				const notSent = plans.slice(index + 1).filter((other) => !other.problem);
				throw withBatchNote(nodeError, stopNote(started.map((entry) => entry.plan), maybeStarted, notSent));
			}
			quotaUsedUp = isDailyQuotaError(error);
			output.push(...errorItems(plan, nodeError));
		}
	}

	const waitStartedAt = Date.now();
	for (const { plan, records } of started) {
		const wait = plan.settings.wait;
		if (!wait) {
			records.forEach((json, index) => {
				const item = plan.files[index].itemIndex;
				output.push({ order: item, data: { json, pairedItem: { item } } });
			});
			continue;
		}
		try {
			const results = await waitForSessionResults(this, plan.txnId, wait, plan.itemIndexes[0], waitStartedAt);
			for (const json of sessionResultsToRecords(results, plan.settings.resultsOutput)) {
				output.push({ order: plan.itemIndexes[0], data: { json, pairedItem: pairedItems(plan) } });
			}
		} catch (error) {
			const nodeError = asNodeError(this, error, plan.itemIndexes[0]);
			if (!continueOnFail) {
				throw withBatchNote(nodeError, `Every transaction of this run was started: ${describePlans(started.map((entry) => entry.plan))}. Get their results with Get Results instead of uploading the recordings again.`);
			}
			output.push(...errorItems(plan, nodeError));
		}
	}
	// Stable sort: by the first input item each output belongs to.
	return output.sort((a, b) => a.order - b.order).map((entry) => entry.data);
}

type OrderedOutput = Array<{ order: number; data: INodeExecutionData }>;

interface TransactionProgress {
	/** The init was sent: the transaction may have been started even if no clear answer came. */
	initSent: boolean;
}

/**
 * A check that the ID was never used, presign, upload every file, init. A file that cannot be
 * stored stops the transaction before init.
 */
async function runTransaction(
	ctx: IExecuteFunctions,
	plan: TransactionPlan,
	memory: InitMemory,
	progress: TransactionProgress,
): Promise<IDataObject[]> {
	const { settings } = plan;
	const itemIndex = plan.itemIndexes[0];
	if (await isTransactionStarted(ctx, plan.txnId, itemIndex)) {
		// Ours when this node's run sent its init in an earlier try (n8n's Retry On Fail), or when the
		// id was generated, which only this item of this run of this execution can have.
		if (plan.generatedId || memory.has(plan.txnId)) return plan.files.map((file) => alreadyStartedRecord(plan, file));
		throw transactionIdUsedError(ctx, plan.txnId, 'check', itemIndex);
	}
	const presign = async () =>
		await requestUploadTarget(
			ctx,
			{ txnId: plan.txnId, action: settings.action, extraData: { mode: settings.mode, model_type: settings.modelType } },
			itemIndex,
		);
	let target = await presign();
	let presignedAgain = false;
	const storageStatus = new Map<PlannedFile, number>();

	for (let index = 0; index < plan.files.length; index++) {
		const file = plan.files[index];
		const outcome = await uploadToStorage(ctx, target, file, file.itemIndex);
		if (outcome.kind === 'stored') {
			storageStatus.set(file, outcome.statusCode);
			continue;
		}
		// 403: the presigned policy expired (a long upload, a slow link). One fresh presign.
		if (presignedAgain) throw storageRefusedError(ctx, file.label, outcome.detail, file.itemIndex);
		presignedAgain = true;
		const fresh = await presign();
		const sameFolder = fresh.url === target.url && fresh.folderPath === target.folderPath;
		target = fresh;
		// Files already stored elsewhere would be missing from the new folder: store them all again.
		index = sameFolder ? index - 1 : -1;
	}

	// Remembered before sending: if no clear answer comes, a retry of this node knows the init is its own.
	memory.add(plan.txnId);
	progress.initSent = true;
	const init = await initTransaction(
		ctx,
		plan.txnId,
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
	return plan.files.map((file) => fileRecord(plan, file, storageStatus.get(file) ?? 0, init));
}

/** Transactions this node sent an init for, per run, kept in n8n's execution data across Retry On Fail. */
interface InitMemory {
	has(txnId: string): boolean;
	add(txnId: string): void;
}

const INIT_MEMORY_KEY = 'clinicScribeInitSent';

function initMemory(ctx: IExecuteFunctions): InitMemory {
	let byRun: Record<string, string[]> = {};
	try {
		const context = ctx.getContext('node');
		const kept = context[INIT_MEMORY_KEY];
		if (typeof kept === 'object' && kept !== null && !Array.isArray(kept)) byRun = kept as Record<string, string[]>;
		else context[INIT_MEMORY_KEY] = byRun;
	} catch {
		// No execution data to keep it in: remembered for this run only.
	}
	const run = String(runIndexOf(ctx));
	return {
		has: (txnId) => (byRun[run] ?? []).includes(txnId),
		add: (txnId) => {
			const ids = (byRun[run] ??= []);
			if (!ids.includes(txnId)) ids.push(txnId);
		},
	};
}

/** A 4xx refusal of the API: the call was not taken, so nothing was started by it. */
function isDefinitiveRefusal(error: NodeApiError | NodeOperationError): boolean {
	return error instanceof NodeOperationError || /^4\d\d$/.test(String(error.httpCode ?? ''));
}

function fileRecord(plan: TransactionPlan, file: PlannedFile, storageStatus: number, init: InitResult): IDataObject {
	return {
		transaction_id: plan.txnId,
		file_name: file.fileName,
		original_file_name: file.originalFileName ?? null,
		binary_property: file.binaryProperty,
		file_size: file.size,
		content_type: file.contentType,
		upload_status: 'uploaded',
		storage_status_code: storageStatus,
		files_in_transaction: plan.files.length,
		init: {
			status: init.alreadyInitialised ? 'already_started' : 'started',
			http_status: init.statusCode,
			message: typeof init.body.message === 'string' ? init.body.message : null,
			txn_id: typeof init.body.txn_id === 'string' ? init.body.txn_id : plan.txnId,
			b_id: typeof init.body.b_id === 'string' ? init.body.b_id : null,
		},
	};
}

/** The receipt of a file of a transaction an earlier try of this node already started. */
function alreadyStartedRecord(plan: TransactionPlan, file: PlannedFile): IDataObject {
	return {
		transaction_id: plan.txnId,
		file_name: file.fileName,
		original_file_name: file.originalFileName ?? null,
		binary_property: file.binaryProperty,
		file_size: file.size,
		content_type: file.contentType,
		upload_status: 'already_uploaded',
		storage_status_code: null,
		files_in_transaction: plan.files.length,
		init: { status: 'already_started', http_status: null, message: null, txn_id: plan.txnId, b_id: null },
	};
}

function pairedItems(plan: TransactionPlan): IPairedItemData[] {
	return plan.itemIndexes.map((item) => ({ item }));
}

/** Under Continue On Fail: one error item per input item of the failed transaction. */
function errorItems(plan: TransactionPlan, error: unknown): OrderedOutput {
	return plan.itemIndexes.map((item) => ({
		order: item,
		data: { json: { ...errorRecord(error), transaction_id: plan.txnId }, pairedItem: { item } },
	}));
}

function notSentForQuotaError(ctx: IExecuteFunctions, plan: TransactionPlan): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`Transaction "${plan.txnId}" of ${describeItems(plan.itemIndexes)} was not sent: the workspace's daily transcription quota was used up earlier in this run (txn_limit_exceeded)`,
		{
			description: 'Nothing of it was uploaded. Send it again tomorrow (the quota resets daily), or ask the API provider to raise the limit.',
			itemIndex: plan.itemIndexes[0],
		},
	);
}

/** What a stopped run leaves behind, so nothing is lost and nothing is paid for twice. */
function stopNote(started: TransactionPlan[], maybeStarted: TransactionPlan[], notSent: TransactionPlan[]): string {
	const parts = ['Nothing more was sent after this failure.'];
	if (started.length > 0) {
		parts.push(
			`Already started in this run (running, and counted): ${describePlans(started)}. Get their results with Get Results; do not upload those recordings again, or they are transcribed twice (n8n's Retry On Fail does not start them again).`,
		);
	}
	if (maybeStarted.length > 0) {
		parts.push(`Possibly started (the start request got no clear answer): ${describePlans(maybeStarted)}. Check with Get Results before sending it again.`);
	}
	if (notSent.length > 0) parts.push(`Not sent: ${describePlans(notSent)}.`);
	return parts.join(' ');
}

function describePlans(plans: TransactionPlan[]): string {
	return plans.map((plan) => `"${plan.txnId}" (${describeItems(plan.itemIndexes)})`).join(', ');
}

function describeItems(itemIndexes: number[]): string {
	return itemIndexes.length === 1 ? `item ${itemIndexes[0]}` : `items ${itemIndexes.join(', ')}`;
}

function withBatchNote(error: NodeApiError | NodeOperationError, note: string): NodeApiError | NodeOperationError {
	error.description = error.description ? `${error.description} ${note}` : note;
	return error;
}
