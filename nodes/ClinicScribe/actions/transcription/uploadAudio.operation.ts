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
import { sessionResultsToRecords, storedAudioName } from '../../shared/sessionResults';
import { getClinicSettings } from '../../transport/runCredential';
import { PRODUCTION_POLICY } from '../../transport/retryPolicy';
import {
	concurrencyGate,
	storageRefusedError,
	uploadToStorage,
	type StorageTarget,
	type StorageUploadOutcome,
} from '../../transport/storageUpload';
import {
	createSession,
	endSession,
	fetchSessionApiResults,
	readSessionState,
	sessionIdUsedError,
	uploadSessionAudio,
	type SessionCreateBody,
	type SessionState,
} from '../../transport/sessionApi';
import {
	initTransaction,
	isDailyQuotaError,
	isTransactionStarted,
	requestUploadTarget,
	transactionIdUsedError,
	type InitResult,
} from '../../transport/transcriptionApi';
import { isToolRun } from '../common.execute';
import { asNodeError, errorRecord } from '../errorItems';
import {
	planTransactions,
	runIndexOf,
	TEMPLATE_CHOICES,
	UPLOAD_METHOD_PARAMETER,
	type PlannedFile,
	type TransactionPlan,
} from './uploadPlan';
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
			'Each named binary field of the item is one audio file of the transaction (wav, mp3, m4a, ogg, webm or mp4). In a workflow whose Binary Mode is Combined the same name works, as does a path such as _files.data.',
		displayOptions: { show },
	},
	{
		displayName: 'Upload Method',
		name: UPLOAD_METHOD_PARAMETER,
		type: 'options',
		options: [
			{
				name: 'Transaction',
				value: 'transaction',
				description: "The interface document's flow: files go to storage, then the transcription is started. No size limit per file.",
			},
			{
				name: 'Session',
				value: 'session',
				description:
					"The service's session API: each file (at most 10 MB) is sent to the API itself, then the session is ended. Results come already decoded.",
			},
		],
		default: 'transaction',
		description:
			'How the recordings are sent. Get Results needs the same choice under Results Of (the output says it as upload_method).',
		displayOptions: { show },
	},
	{
		displayName: 'Transaction ID',
		name: 'transactionId',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.visitId }}',
		description:
			'Groups files: items with the same transaction ID are uploaded and transcribed together, as one session. Leave empty to generate one per item. It is the session ID for Get Results and the trigger. With Upload Method "Session": 16 to 32 letters, digits, _ or -.',
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
								description: 'A template of your workspace, picked from its list or by ID',
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
						// Was a plain string field. Workflows saved then keep a string here: uploadPlan reads both
						// shapes (templateIdOf) and n8n 2.41's editor shows a string in a resource locator as
						// it is, so they run and display unchanged: no new node version. The empty default
						// behaves as the old '' did (refused for a Custom row, ignored otherwise).
						type: 'resourceLocator',
						default: { mode: 'list', value: '' },
						// Not `required`: n8n checks that inside a template row without its displayOptions
						// and would refuse to run every workflow whose rows are not custom.
						description: 'A template of your workspace: pick it from the list, or enter its ID',
						// Shown for the Custom Template choice of the same row only.
						displayOptions: { show: { template: [TEMPLATE_CHOICES.custom] } },
						modes: [
							{
								displayName: 'From List',
								name: 'list',
								type: 'list',
								typeOptions: { searchListMethod: 'searchTemplates', searchable: true },
							},
							{
								displayName: 'By ID',
								name: 'id',
								type: 'string',
								placeholder: 'e.g. my_referral_letter_template',
							},
						],
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
 * Transactions go up several at a time (the transport policy's uploadConcurrency: at most 6 transactions
 * in flight, and at most 6 storage uploads in flight across them, the files of one transaction
 * included).
 *
 * The batch rule: without Continue On Fail, once the first failure is known no transaction starts
 * and none in flight sends another request (those in flight finish the request they are in; one
 * whose init was already sent finishes); the error lists the transactions started (running and
 * counted), any whose init got no clear answer, any other that failed, and those not sent. With
 * Continue On Fail, a failed transaction becomes error items and the others go on, except after the
 * daily quota's answer: no further request is sent then. Output follows the order of the input items.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	if (isToolRun(this)) {
		throw new NodeOperationError(this.getNode(), 'Upload Audio cannot be used as an AI agent tool', {
			description: 'An agent cannot hand over binary files. Upload recordings in a regular workflow step; agents can use Get Results.',
		});
	}
	const settings = await getClinicSettings(this);
	const plans = await planTransactions(this, items, settings);
	const continueOnFail = this.continueOnFail();

	const firstProblem = plans.find((plan) => plan.problem)?.problem;
	if (firstProblem && !continueOnFail) throw firstProblem;

	const outcomes = await sendTransactions(this, plans.filter((plan) => !plan.problem), continueOnFail);
	const started: Array<{ plan: TransactionPlan; records: IDataObject[] }> = [];
	const failures = [...outcomes.entries()].filter((entry): entry is [TransactionPlan, FailedOutcome] => entry[1].kind === 'failed');
	if (!continueOnFail && failures.length > 0) {
		const [[failedPlan, first]] = failures.sort((a, b) => a[1].knownAs - b[1].knownAs);
		throw withBatchNote(first.error, stopNote(plans, outcomes, failedPlan));
	}

	const output: OrderedOutput = [];
	for (const plan of plans) {
		const outcome = plan.problem ? undefined : outcomes.get(plan);
		if (plan.problem) output.push(...errorItems(plan, plan.problem));
		else if (outcome === undefined || outcome.kind === 'halted') output.push(...errorItems(plan, notSentForQuotaError(this, plan, outcome?.uploadsSent ?? 0)));
		else if (outcome.kind === 'failed') output.push(...errorItems(plan, outcome.error));
		else started.push({ plan, records: outcome.records });
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
			const reader = plan.settings.uploadMethod === 'session' ? fetchSessionApiResults : undefined;
			const results = await waitForSessionResults(this, plan.txnId, wait, plan.itemIndexes[0], waitStartedAt, reader);
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

type TransactionOutcome =
	| { kind: 'started'; records: IDataObject[] }
	| FailedOutcome
	/** Stopped before its next request because a failure or the quota's answer was known. */
	| { kind: 'halted'; uploadsSent: number };

interface FailedOutcome {
	kind: 'failed';
	error: NodeApiError | NodeOperationError;
	initSent: boolean;
	/** 1 for the failure known first, 2 for the next… */
	knownAs: number;
}

interface TransactionProgress {
	/** The init was sent: the transaction may have been started even if no clear answer came. */
	initSent: boolean;
	/** Storage uploads begun (files may be in storage even if the transcription was never requested). */
	uploadsSent: number;
}

/** What one transaction shares with the others of the run. */
interface BatchRun {
	memory: InitMemory;
	/** The bound on storage uploads in flight at once. */
	uploadGate: <T>(task: () => Promise<T>) => Promise<T>;
	/** True once no further request may be sent (a failure without Continue On Fail, or the quota). */
	halted(): boolean;
	/** Called the moment a failure is known (before any other transaction's code runs again). */
	noteFailure(plan: TransactionPlan, error: unknown): void;
}

/** Thrown inside a transaction that stops before its next request (see BatchRun.halted). */
class TransactionHalted extends Error {}

/**
 * Sends the transactions, uploadConcurrency (transport policy) at a time, in input order.
 * Transactions never begun (after a halt) have no outcome.
 */
async function sendTransactions(
	ctx: IExecuteFunctions,
	plans: TransactionPlan[],
	continueOnFail: boolean,
): Promise<Map<TransactionPlan, TransactionOutcome>> {
	const outcomes = new Map<TransactionPlan, TransactionOutcome>();
	const limit = Math.max(1, Math.floor(PRODUCTION_POLICY.uploadConcurrency));
	let halted = false;
	const knownAs = new Map<TransactionPlan, number>();
	const run: BatchRun = {
		memory: initMemory(ctx),
		uploadGate: concurrencyGate(limit),
		halted: () => halted,
		noteFailure: (plan, error) => {
			if (error instanceof TransactionHalted) return;
			if (!continueOnFail || isDailyQuotaError(error)) halted = true;
			if (!knownAs.has(plan)) knownAs.set(plan, knownAs.size + 1);
		},
	};
	let next = 0;
	const worker = async (): Promise<void> => {
		while (!run.halted() && next < plans.length) {
			const plan = plans[next++];
			const progress: TransactionProgress = { initSent: false, uploadsSent: 0 };
			try {
				outcomes.set(plan, { kind: 'started', records: await runTransaction(ctx, plan, run, progress) });
			} catch (error) {
				if (error instanceof TransactionHalted) {
					outcomes.set(plan, { kind: 'halted', uploadsSent: progress.uploadsSent });
					continue;
				}
				run.noteFailure(plan, error);
				const nodeError = asNodeError(ctx, error, plan.itemIndexes[0]);
				outcomes.set(plan, { kind: 'failed', error: nodeError, initSent: progress.initSent, knownAs: knownAs.get(plan) ?? 0 });
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, plans.length) }, worker));
	return outcomes;
}

/**
 * A check that the ID was never used, presign, upload every file (several at once), init. A file
 * that cannot be stored stops the transaction before init. Before each request the transaction
 * stops (TransactionHalted) if the run was halted meanwhile.
 */
async function runTransaction(
	ctx: IExecuteFunctions,
	plan: TransactionPlan,
	run: BatchRun,
	progress: TransactionProgress,
): Promise<IDataObject[]> {
	if (plan.settings.uploadMethod === 'session') return await runSession(ctx, plan, run, progress);
	const { settings } = plan;
	const itemIndex = plan.itemIndexes[0];
	const goOn = () => {
		if (run.halted()) throw new TransactionHalted();
	};
	goOn();
	if (await isTransactionStarted(ctx, plan.txnId, itemIndex)) {
		// Ours when this node's run sent its init in an earlier try (n8n's Retry On Fail), or when the
		// id was generated, which only this item of this run of this execution can have.
		if (plan.generatedId || run.memory.has(plan.txnId)) return plan.files.map((file) => alreadyStartedRecord(plan, file));
		throw transactionIdUsedError(ctx, plan.txnId, 'check', itemIndex);
	}
	const presign = async () => {
		goOn();
		return await requestUploadTarget(
			ctx,
			{ txnId: plan.txnId, action: settings.action, extraData: { mode: settings.mode, model_type: settings.modelType } },
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

	goOn();
	// Remembered before sending: if no clear answer comes, a retry of this node knows the init is its own.
	run.memory.add(plan.txnId);
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

/**
 * The session method, in the transaction's place in the batch (same gate, halts, memory and
 * outcomes): create the session under its id → upload every file as raw bytes (several at once
 * through the run's gate) → end (the paid step). The id goes into the run's memory before the create
 * is sent, so n8n's Retry On Fail reads a conflict as its own session. A session the service already
 * holds is read (its body's `status`, never the HTTP status beside it): one still open gets the files
 * (a repeat replaces a file) and is ended; one an earlier try ended is reported so, not sent again;
 * anything else fails the item, saying why nothing was sent.
 */
async function runSession(ctx: IExecuteFunctions, plan: TransactionPlan, run: BatchRun, progress: TransactionProgress): Promise<IDataObject[]> {
	const { settings } = plan;
	const itemIndex = plan.itemIndexes[0];
	const goOn = () => {
		if (run.halted()) throw new TransactionHalted();
	};
	goOn();
	const body: SessionCreateBody = {
		session_id: plan.txnId,
		upload_type: 'single',
		templates: settings.templates.map((template) => template.template_id),
		language_hint: settings.inputLanguages,
		model: settings.modelType,
		// Not in ES-OAS's create schema, accepted by ES-hist's (default consultation): sent so a dictation stays one.
		session_mode: settings.mode,
		...(settings.additionalData ? { additional_data: settings.additionalData } : {}),
	};
	// An earlier try of this node run may have made it (n8n's Retry On Fail): a generated id, or one in the run's memory.
	const earlierTry = plan.generatedId || run.memory.has(plan.txnId);
	// Remembered before sending: if no clear answer comes, a retry of this node knows the session is its own.
	run.memory.add(plan.txnId);
	const created = await createSession(ctx, body, itemIndex);
	let sessionOutcome: SessionOutcome = 'uploaded_and_ended';
	if (created.alreadyCreated) {
		// Held before this try: not ours unless continued below (a retry must not take it for ours).
		if (!earlierTry) run.memory.forget(plan.txnId);
		const existing = await readSessionState(ctx, plan.txnId, itemIndex);
		if (continuationOf(ctx, plan, { earlierTry, thisCreate: created.afterLostAnswer }, existing) === 'ended') {
			return plan.files.map((file) => endedByEarlierTryRecord(plan, file, existing));
		}
		run.memory.add(plan.txnId);
		// Our own create whose answer was lost made it: uploaded and ended as if the answer had come.
		sessionOutcome = created.afterLostAnswer && !earlierTry ? 'uploaded_and_ended' : 'continued_and_ended';
	}
	const uploadStatus = new Map<PlannedFile, number>();
	let failed = false;
	const results = await Promise.all(
		plan.files.map(
			async (file) =>
				await run.uploadGate(async (): Promise<{ kind: 'stored' } | { kind: 'failed'; error: unknown } | { kind: 'halted' }> => {
					if (failed || run.halted()) return { kind: 'halted' };
					progress.uploadsSent++;
					try {
						const answer = await uploadSessionAudio(ctx, plan.txnId, { ...file, sessionFileName: file.fileName }, file.itemIndex);
						uploadStatus.set(file, answer.statusCode);
						return { kind: 'stored' };
					} catch (error) {
						failed = true;
						run.noteFailure(plan, error);
						return { kind: 'failed', error };
					}
				}),
		),
	);
	const firstFailure = results.find((result) => result.kind === 'failed');
	if (firstFailure) throw firstFailure.error;
	if (results.some((result) => result.kind === 'halted')) throw new TransactionHalted();
	goOn();
	progress.initSent = true;
	const ended = await endSession(ctx, plan.txnId, plan.files.length, itemIndex);
	return plan.files.map((file) => ({
		...fileFields(plan, file),
		outcome: sessionOutcome,
		upload_status: 'uploaded',
		upload_status_code: uploadStatus.get(file) ?? 0,
		files_in_session: plan.files.length,
		end: {
			status: ended.alreadyEnded ? 'already_ended' : 'ended',
			http_status: ended.statusCode,
			message: typeof ended.body.message === 'string' ? ended.body.message : null,
			session_status: typeof ended.body.status === 'string' ? ended.body.status : null,
			audio_files_received: typeof ended.body.audio_files_received === 'number' ? ended.body.audio_files_received : null,
		},
	}));
}

/**
 * What a session receipt says happened: this try created the session, uploaded and ended it; an
 * earlier try created it and this one uploaded and ended it; or an earlier try had already ended it
 * (nothing sent again).
 */
type SessionOutcome = 'uploaded_and_ended' | 'continued_and_ended' | 'ended_by_earlier_try';

/**
 * Whether a session the service already holds is continued (`open`: this try uploads and ends it) or
 * was ended by an earlier try of this node run (`ended`: nothing sent again); anything else throws,
 * saying why nothing was sent. Read from the body's `status` (see readSessionState).
 */
function continuationOf(
	ctx: IExecuteFunctions,
	plan: TransactionPlan,
	madeBy: { earlierTry: boolean; thisCreate: boolean },
	existing: SessionState,
): 'open' | 'ended' {
	const itemIndex = plan.itemIndexes[0];
	const items = describeItems(plan.itemIndexes);
	switch (existing.lifecycle) {
		case 'open': {
			// Unless an earlier try of this run made it, it is continued only while it holds no audio
			// but files this upload replaces: no other recording's audio is processed with this one.
			const ourNames = new Set(plan.files.map((file) => storedAudioName(file.fileName)));
			if (!madeBy.earlierTry && (existing.audioFiles ?? []).some((name) => !ourNames.has(name))) throw sessionIdUsedError(ctx, plan.txnId, itemIndex);
			return 'open';
		}
		case 'ended':
			// Only an earlier try can have ended it: a session this very create made cannot be ended yet.
			if (!madeBy.earlierTry) throw sessionIdUsedError(ctx, plan.txnId, itemIndex);
			return 'ended';
		case 'expired':
			throw new NodeOperationError(ctx.getNode(), `Session "${plan.txnId}" of ${items} expired before it was ended`, {
				description: 'Nothing of this item was uploaded: an expired session takes no more audio and is not processed. Run again with another Transaction ID, or leave the field empty to have one generated.',
				itemIndex,
			});
		case 'cancelled':
			throw new NodeOperationError(ctx.getNode(), `Session "${plan.txnId}" of ${items} was cancelled`, {
				description: 'Nothing of this item was uploaded: a cancelled session takes no audio and is not processed. Run again with another Transaction ID, or leave the field empty to have one generated.',
				itemIndex,
			});
		case 'not_found':
			throw sessionIdUsedError(ctx, plan.txnId, itemIndex);
		case 'unknown':
			throw new NodeOperationError(ctx.getNode(), `Session "${plan.txnId}" of ${items} exists, but its state "${existing.bodyStatus ?? '(none given)'}" does not say whether it is still open`, {
				description: 'Nothing of this item was uploaded and the session was not ended. Check it with Get Results (Results Of "Session") before sending the recording again.',
				itemIndex,
			});
	}
}

/** The receipt of a file of a session an earlier try of this node uploaded and ended: nothing sent again. */
function endedByEarlierTryRecord(plan: TransactionPlan, file: PlannedFile, existing: SessionState): IDataObject {
	return {
		...fileFields(plan, file),
		outcome: 'ended_by_earlier_try',
		upload_status: 'uploaded_by_earlier_try',
		upload_status_code: null,
		files_in_session: plan.files.length,
		end: { status: 'ended_by_earlier_try', http_status: null, message: null, session_status: existing.bodyStatus, audio_files_received: null },
	};
}

/**
 * Uploads the transaction's files, several at once through the run's gate. A file that fails
 * stops the files of this transaction not yet begun; the first failure (in file order) is thrown
 * once every begun upload has ended, so no upload outlives the node. A 403 (the presigned policy
 * expired: a long upload, a slow link) gets one fresh presign: the refused files go again, or every
 * file when the fresh presign names another folder (files stored elsewhere would be missing).
 */
async function storeFiles(
	ctx: IExecuteFunctions,
	plan: TransactionPlan,
	run: BatchRun,
	progress: TransactionProgress,
	firstTarget: StorageTarget,
	presignAgain: () => Promise<{ target: StorageTarget; sameFolder: boolean }>,
): Promise<Map<PlannedFile, number>> {
	const storageStatus = new Map<PlannedFile, number>();
	let target = firstTarget;
	let files = plan.files;
	for (let presignedAgain = false; ; presignedAgain = true) {
		let failed = false;
		const results = await Promise.all(
			files.map(async (file) =>
				await run.uploadGate(async (): Promise<StorageUploadOutcome | { kind: 'failed'; error: unknown } | { kind: 'halted' }> => {
					if (failed || run.halted()) return { kind: 'halted' };
					progress.uploadsSent++;
					return await uploadToStorage(ctx, target, file, file.itemIndex).catch((error: unknown) => {
						failed = true;
						run.noteFailure(plan, error);
						return { kind: 'failed' as const, error };
					});
				}),
			),
		);
		const firstFailure = results.find((result) => result.kind === 'failed');
		if (firstFailure) throw firstFailure.error;
		if (results.some((result) => result.kind === 'halted')) throw new TransactionHalted();
		const settled = results.filter((result): result is StorageUploadOutcome => result.kind === 'stored' || result.kind === 'refused');
		const refused: PlannedFile[] = [];
		let refusal: { file: PlannedFile; detail: string } | undefined;
		settled.forEach((outcome, index) => {
			if (outcome.kind === 'stored') storageStatus.set(files[index], outcome.statusCode);
			else {
				refused.push(files[index]);
				refusal ??= { file: files[index], detail: outcome.detail };
			}
		});
		if (!refusal) return storageStatus;
		if (presignedAgain) throw storageRefusedError(ctx, refusal.file.label, refusal.detail, refusal.file.itemIndex);
		const fresh = await presignAgain();
		target = fresh.target;
		files = fresh.sameFolder ? refused : plan.files;
	}
}

/** Transactions this node sent an init for, per run, kept in n8n's execution data across Retry On Fail. */
interface InitMemory {
	has(txnId: string): boolean;
	add(txnId: string): void;
	forget(txnId: string): void;
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
		forget: (txnId) => {
			byRun[run] = (byRun[run] ?? []).filter((id) => id !== txnId);
		},
	};
}

/** A 4xx refusal of the API: the call was not taken, so nothing was started by it. */
function isDefinitiveRefusal(error: NodeApiError | NodeOperationError): boolean {
	return error instanceof NodeOperationError || /^4\d\d$/.test(String(error.httpCode ?? ''));
}

/** What every receipt says of its file and transaction. */
function fileFields(plan: TransactionPlan, file: PlannedFile): IDataObject {
	return {
		...idFields(plan),
		file_name: file.fileName,
		original_file_name: file.originalFileName ?? null,
		binary_property: file.binaryProperty,
		file_size: file.size,
		content_type: file.contentType,
	};
}

/** The id under the name Get Results and the trigger know it by, and which flow it belongs to. */
function idFields(plan: TransactionPlan): IDataObject {
	return plan.settings.uploadMethod === 'session'
		? { session_id: plan.txnId, upload_method: 'session' }
		: { transaction_id: plan.txnId, upload_method: 'transaction' };
}

function fileRecord(plan: TransactionPlan, file: PlannedFile, storageStatus: number, init: InitResult): IDataObject {
	return {
		...fileFields(plan, file),
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
		...fileFields(plan, file),
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
		data: { json: { ...errorRecord(error), ...idFields(plan) }, pairedItem: { item } },
	}));
}

function notSentForQuotaError(ctx: IExecuteFunctions, plan: TransactionPlan, uploadsSent: number): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`Transaction "${plan.txnId}" of ${describeItems(plan.itemIndexes)} was not sent: the workspace's daily transcription quota was used up earlier in this run (txn_limit_exceeded)`,
		{
			description: `${uploadsSent > 0 ? 'Its transcription was not requested (files already in storage start nothing).' : 'Nothing of it was uploaded.'} Send it again tomorrow (the quota resets daily), or ask the API provider to raise the limit.`,
			itemIndex: plan.itemIndexes[0],
		},
	);
}

/**
 * What a stopped run leaves behind, so nothing is lost and nothing is paid for twice: every
 * transaction of the run but the one that failed first (its own error says what happened to it).
 */
function stopNote(plans: TransactionPlan[], outcomes: Map<TransactionPlan, TransactionOutcome>, failedFirst: TransactionPlan): string {
	const started: TransactionPlan[] = [];
	const maybeStarted: TransactionPlan[] = [];
	const alsoFailed: string[] = [];
	const notSent: TransactionPlan[] = [];
	for (const plan of plans) {
		const outcome = outcomes.get(plan);
		if (outcome?.kind === 'started') started.push(plan);
		else if (outcome?.kind === 'failed' && outcome.initSent && !isDefinitiveRefusal(outcome.error)) maybeStarted.push(plan);
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
