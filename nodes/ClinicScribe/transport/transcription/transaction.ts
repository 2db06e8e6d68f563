/**
 * The transcription calls of the clinic API ([IFD §4.7, §4.8], on the wire as [EKA-V2] documents them):
 * presign, the used-ID check, init and status; and the one choice of how a session's results are
 * read (`fetchResults`: this status call, or the session API's read). All go through
 * `clinicApiRequest` (Bearer, retries, error advice); the upload of the files themselves is in
 * storage.ts, which never carries a token.
 */
import { NodeApiError, type IDataObject, type JsonObject } from 'n8n-workflow';

import type { ResultsSource } from '../../shared/fields/resultsOutput.description';
import { readTransactionResults, type SessionResults } from '../../shared/answers/sessionResults';
import { asRecord } from '../../shared/values';
import type { ClinicApiContext } from '../apiCall';
import { apiVariantSwitchFor } from '../authentication';
import {
	clinicApiError,
	DailyQuotaError,
	isDailyQuotaAnswer,
	readErrorFields,
	unexpectedBodyError,
} from '../errors';
import { clinicApiRequest, pathSegment } from '../request';
import { PRODUCTION_POLICY } from '../retryPolicy';
import { fetchSessionApiResults, type SessionReadOptions } from './session';

const PRESIGN_PATH = '/v1/file-upload';
const INIT_PATH_PREFIX = '/voice/api/v2/transaction/init/';
const STATUS_PATH_PREFIX = '/voice/api/v3/status/';

/** Where and how to store the files of one transaction (presign answer). */
interface UploadTarget {
	url: string;
	fields: Record<string, string>;
	folderPath: string;
	txnId: string;
}

interface PresignRequest {
	txnId: string;
	action: string;
	/** The upload's extra_data (mode, model_type), sent as the body as [EKA-PYSDK] does. */
	extraData?: IDataObject;
}

export async function requestUploadTarget(
	ctx: ClinicApiContext,
	request: PresignRequest,
	itemIndex?: number,
): Promise<UploadTarget> {
	const purpose = 'the upload address for the recordings';
	const response = await clinicApiRequest(ctx, {
		method: 'POST',
		path: PRESIGN_PATH,
		qs: { txn_id: request.txnId, action: request.action },
		body: request.extraData ?? {},
		// Asking again for the same transaction only gives a fresh policy.
		idempotent: true,
		acceptStatuses: [400],
		timeoutMs: PRODUCTION_POLICY.timeouts.presignMs,
		purpose,
		itemIndex,
	});
	if (response.statusCode === 400) {
		if (isDailyQuotaAnswer(response.body))
			throw new DailyQuotaError(
				ctx.getNode(),
				{ transaction: request.txnId },
				'beforeUpload',
				itemIndex,
			);
		if (isActionRefusal(response.body))
			throw actionRefusedError(ctx, request.action, response.body, itemIndex);
		throw clinicApiError(ctx, { purpose, itemIndex }, 400, response.body);
	}
	const target = readUploadTarget(response.body, request.txnId);
	if (!target) throw unexpectedBodyError(ctx, { purpose, itemIndex }, response.statusCode);
	return target;
}

/** A presign refused for its `action`: the one thing of it the API variant decides. */
function isActionRefusal(body: unknown): boolean {
	const fields = readErrorFields(body);
	return /\baction\b/i.test(`${fields.code ?? ''} ${fields.message ?? ''}`.replace(/_/g, ' '));
}

/**
 * The upload action is refused: with the OAuth2 credential (whose test cannot tell the variants
 * apart) this is where a wrong API Variant shows, so the error names the option to pick.
 */
function actionRefusedError(
	ctx: ClinicApiContext,
	action: string,
	body: unknown,
	itemIndex: number | undefined,
): NodeApiError {
	const fields = readErrorFields(body);
	const said = [fields.code, fields.message].filter(Boolean).join(': ');
	const variant = apiVariantSwitchFor(action);
	const description = variant
		? `This API does not take the upload action of API Variant ${variant.from}, so the credential most likely needs the other one: set API Variant to ${variant.to} in the credential (and leave Options → Action empty), then run again. Nothing was uploaded.`
		: "Options → Action holds a value the API does not take: leave it empty (the credential's API Variant then decides), then run again. Nothing was uploaded.";
	return new NodeApiError(
		ctx.getNode(),
		{ status_code: 400, code: fields.code ?? null } as JsonObject,
		{
			message: `The clinic API refused the upload action "${action}" (HTTP 400${said ? ` ${said}` : ''})`,
			description,
			httpCode: '400',
			itemIndex,
		},
	);
}

/** `{uploadData: {url, fields}, folderPath, txn_id}`, checked; undefined when the shape is wrong. */
function readUploadTarget(body: unknown, txnId: string): UploadTarget | undefined {
	const root = asRecord(body);
	const uploadData = asRecord(root?.uploadData);
	const url = uploadData?.url;
	const rawFields = asRecord(uploadData?.fields);
	if (typeof url !== 'string' || !/^https?:\/\//i.test(url) || !rawFields) return undefined;
	const fields: Record<string, string> = {};
	for (const [name, value] of Object.entries(rawFields)) {
		if (typeof value === 'string') fields[name] = value;
		else if (typeof value === 'number' || typeof value === 'boolean') fields[name] = String(value);
		else return undefined;
	}
	const folderPath =
		typeof root?.folderPath === 'string' ? root.folderPath : folderFromKey(fields.key);
	if (folderPath === undefined) return undefined;
	return {
		url,
		fields,
		folderPath,
		txnId: typeof root?.txn_id === 'string' && root.txn_id ? root.txn_id : txnId,
	};
}

/** Without a folderPath, the folder is the key up to its `${filename}` placeholder. */
function folderFromKey(key: string | undefined): string | undefined {
	if (!key) return undefined;
	const at = key.indexOf('${filename}');
	return at === -1 ? undefined : key.slice(0, at);
}

/** The init body ([EKA-V2] init.mdx, upload step 3). */
interface InitTransactionBody extends IDataObject {
	mode: string;
	transfer: string;
	batch_s3_url: string;
	client_generated_files: string[];
	model_type: string;
	input_language: string[];
	output_format_template: Array<{ template_id: string; codification_needed: boolean }>;
}

export interface InitResult {
	/** 201 started now, or 409 answering a repeat of this node's own init whose outcome was unknown. */
	alreadyInitialised: boolean;
	statusCode: number;
	body: IDataObject;
}

/**
 * Starts the transcription (the paid step). A 409 means the transaction was started before. It is
 * success only when it answers a repeat of our own init whose first outcome was unknown (no answer,
 * a timeout, a 5xx): the server may have started it then. Any other 409 means the Transaction ID was
 * already used for another upload, and reading it as success would hand that upload's notes to this
 * recording, so it fails.
 */
export async function initTransaction(
	ctx: ClinicApiContext,
	txnId: string,
	body: InitTransactionBody,
	itemIndex?: number,
): Promise<InitResult> {
	const purpose = `starting the transcription of transaction "${txnId}"`;
	const response = await clinicApiRequest(ctx, {
		method: 'POST',
		path: `${INIT_PATH_PREFIX}${pathSegment(ctx, txnId, 'Transaction ID', itemIndex)}`,
		body,
		// Repeating init is harmless: the API never starts a transaction twice (a second init answers
		// 409), and the caller checked before uploading that this id had not been started, so a 409
		// after a repeat can only be our own first attempt having got through.
		idempotent: true,
		acceptStatuses: [400, 409],
		timeoutMs: PRODUCTION_POLICY.timeouts.initMs,
		purpose,
		itemIndex,
	});
	if (response.statusCode === 400) {
		if (isDailyQuotaAnswer(response.body))
			throw new DailyQuotaError(ctx.getNode(), { transaction: txnId }, 'afterUpload', itemIndex);
		throw clinicApiError(ctx, { purpose, itemIndex }, 400, response.body);
	}
	// Our own first init only if an attempt's answer was lost (none, a 5xx); a 408/429 was not taken.
	if (response.statusCode === 409 && !response.afterLostAnswer)
		throw transactionIdUsedError(ctx, txnId, 'init', itemIndex);
	const responseBody = (asRecord(response.body) ?? {}) as IDataObject;
	return {
		alreadyInitialised: response.statusCode === 409,
		statusCode: response.statusCode,
		body: responseBody,
	};
}

/**
 * Whether a transaction was started already, asked before anything is uploaded. The status call
 * answers 400/404 for a transaction it does not know ([EKA-V2] result.mdx) and 200/202/206 once
 * one was started; a failed one answers 500, which stays an error (nothing is uploaded either way).
 */
export async function isTransactionStarted(
	ctx: ClinicApiContext,
	txnId: string,
	itemIndex?: number,
): Promise<boolean> {
	const response = await clinicApiRequest(ctx, {
		method: 'GET',
		path: `${STATUS_PATH_PREFIX}${pathSegment(ctx, txnId, 'Transaction ID', itemIndex)}`,
		idempotent: true,
		acceptStatuses: [202, 206, 400, 404],
		timeoutMs: PRODUCTION_POLICY.timeouts.statusMs,
		purpose: `checking whether transaction "${txnId}" was used before`,
		itemIndex,
	});
	return response.statusCode !== 400 && response.statusCode !== 404;
}

/** The Transaction ID names a transaction started before, by another upload. */
export function transactionIdUsedError(
	ctx: ClinicApiContext,
	txnId: string,
	stage: 'check' | 'init',
	itemIndex: number | undefined,
): NodeApiError {
	const uploaded =
		stage === 'init'
			? 'The recordings of this item were uploaded but will NOT be transcribed.'
			: 'Nothing of this item was uploaded.';
	return new NodeApiError(
		ctx.getNode(),
		{ status_code: 409, code: 'txn_already_initialised' } as JsonObject,
		{
			message: `The Transaction ID "${txnId}"${itemIndex === undefined ? '' : ` of item ${itemIndex}`} was already used: a transcription with this ID was started before`,
			description: `${uploaded} One Transaction ID holds one transcription, so this recording cannot be added to it. To get the earlier transcription's results, use Get Results with session ID "${txnId}". To transcribe this recording, give it a Transaction ID that was never used (or leave the field empty to have one generated).`,
			httpCode: '409',
			itemIndex,
		},
	);
}

/**
 * One read of a session's results, decoded: the transaction status call for a transaction, the
 * session API's read for a session (Results Of). Used by Get Results, Convert Transcript, Upload
 * Audio's wait and the trigger.
 */
export async function fetchResults(
	ctx: ClinicApiContext,
	source: ResultsSource,
	sessionId: string,
	itemIndex?: number,
	options: SessionReadOptions = {},
): Promise<SessionResults> {
	if (source === 'session') return await fetchSessionApiResults(ctx, sessionId, itemIndex, options);
	return await fetchTransactionResults(ctx, sessionId, itemIndex, options);
}

/**
 * One status call, decoded. Answers that are states (202, 206, 400/404, the documented all-failed
 * 500) are read; a passing failure (a 500 without per-template failures, a body that is not the
 * documented JSON) is sent again like any 5xx of a read, and is never read as a failed session.
 */
async function fetchTransactionResults(
	ctx: ClinicApiContext,
	txnId: string,
	itemIndex?: number,
	options: SessionReadOptions = {},
): Promise<SessionResults> {
	const purpose = `the results of session "${txnId}"`;
	const response = await clinicApiRequest(ctx, {
		method: 'GET',
		path: `${STATUS_PATH_PREFIX}${pathSegment(ctx, txnId, 'Session ID', itemIndex)}`,
		idempotent: true,
		// States, not failures: processing, partial, unknown session, all templates failed.
		acceptStatuses: [202, 206, 400, 404, 500],
		retryAnswer: (answer, attempt) => {
			if (answer.statusCode === 500 && !isAllTemplatesFailedAnswer(answer.body))
				return clinicApiError(ctx, { purpose, itemIndex }, 500, answer.body, attempt);
			if (
				(answer.statusCode === 200 || answer.statusCode === 206) &&
				asRecord(answer.body) === undefined
			)
				return unexpectedBodyError(ctx, { purpose, itemIndex }, answer.statusCode);
			return undefined;
		},
		timeoutMs: options.timeoutMs ?? PRODUCTION_POLICY.timeouts.statusMs,
		abortSignal: options.abortSignal,
		purpose,
		itemIndex,
	});
	return readTransactionResults(txnId, response.statusCode, response.body);
}

/** The documented failed session: 500 whose data.output lists the templates, each with status "failure". */
function isAllTemplatesFailedAnswer(body: unknown): boolean {
	const output = asRecord(asRecord(body)?.data)?.output;
	return (
		Array.isArray(output) &&
		output.length > 0 &&
		output.every((entry) => asRecord(entry)?.status === 'failure')
	);
}
