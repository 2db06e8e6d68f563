/**
 * The transcription calls of the clinic API (document 4.7 and 4.8, wire flow of the service notes):
 * presign, init and status. All go through `clinicApiRequest` (Bearer, retries, error advice); the
 * upload of the files themselves is in storageUpload.ts, which never carries a token.
 */
import { NodeApiError, type IDataObject, type JsonObject } from 'n8n-workflow';

import { readSessionResults, type SessionResults } from '../shared/sessionResults';
import { readErrorFields } from './errorBodies';
import {
	clinicApiError,
	clinicApiRequest,
	pathSegment,
	unexpectedBodyError,
	type ClinicApiContext,
} from './request';

/** The server holds a status call up to about 14 s before it answers 202 (service notes). */
export const STATUS_REQUEST_TIMEOUT_MS = 30_000;

export const PRESIGN_PATH = '/v1/file-upload';
export const INIT_PATH_PREFIX = '/voice/api/v2/transaction/init/';
export const STATUS_PATH_PREFIX = '/voice/api/v3/status/';

/** Where and how to store the files of one transaction (presign answer). */
export interface UploadTarget {
	url: string;
	fields: Record<string, string>;
	folderPath: string;
	txnId: string;
}

export interface PresignRequest {
	txnId: string;
	action: string;
	/** The upload's extra_data (mode, model_type), sent as the body as the public SDKs do. */
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
		purpose,
		itemIndex,
	});
	if (response.statusCode === 400) {
		if (isDailyQuotaAnswer(response.body)) throw dailyQuotaError(ctx, request.txnId, 'presign', itemIndex);
		throw clinicApiError(ctx, { purpose, itemIndex }, 400, response.body);
	}
	const target = readUploadTarget(response.body, request.txnId);
	if (!target) throw unexpectedBodyError(ctx, { purpose, itemIndex }, response.statusCode);
	return target;
}

/** `{uploadData: {url, fields}, folderPath, txn_id}`, checked; undefined when the shape is wrong. */
export function readUploadTarget(body: unknown, txnId: string): UploadTarget | undefined {
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
	const folderPath = typeof root?.folderPath === 'string' ? root.folderPath : folderFromKey(fields.key);
	if (folderPath === undefined) return undefined;
	return { url, fields, folderPath, txnId: typeof root?.txn_id === 'string' && root.txn_id ? root.txn_id : txnId };
}

/** Without a folderPath, the folder is the key up to its `${filename}` placeholder. */
function folderFromKey(key: string | undefined): string | undefined {
	if (!key) return undefined;
	const at = key.indexOf('${filename}');
	return at === -1 ? undefined : key.slice(0, at);
}

/** The init body of the service notes (upload step 3). */
export interface InitTransactionBody extends IDataObject {
	mode: string;
	transfer: string;
	batch_s3_url: string;
	client_generated_files: string[];
	model_type: string;
	input_language: string[];
	output_format_template: Array<{ template_id: string; codification_needed: boolean }>;
}

export interface InitResult {
	/** 201 started now, or 409: it was started before (by an earlier attempt), which is success too. */
	alreadyInitialised: boolean;
	statusCode: number;
	body: IDataObject;
}

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
		// A repeated init answers 409, which is read as success: safe to send again.
		idempotent: true,
		acceptStatuses: [400, 409],
		purpose,
		itemIndex,
	});
	if (response.statusCode === 400) {
		if (isDailyQuotaAnswer(response.body)) throw dailyQuotaError(ctx, txnId, 'init', itemIndex);
		throw clinicApiError(ctx, { purpose, itemIndex }, 400, response.body);
	}
	const responseBody = (asRecord(response.body) ?? {}) as IDataObject;
	return { alreadyInitialised: response.statusCode === 409, statusCode: response.statusCode, body: responseBody };
}

/** 400 `txn_limit_exceeded`: the workspace's daily session quota (service notes, upload step 3). */
export function isDailyQuotaAnswer(body: unknown): boolean {
	const fields = readErrorFields(body);
	return fields.code === 'txn_limit_exceeded' || /txn_limit_exceeded/i.test(fields.message ?? '');
}

function dailyQuotaError(
	ctx: ClinicApiContext,
	txnId: string,
	stage: 'presign' | 'init',
	itemIndex: number | undefined,
): NodeApiError {
	const uploaded = stage === 'init' ? 'Its recordings were uploaded but will not be transcribed. ' : 'Nothing was uploaded. ';
	return new NodeApiError(ctx.getNode(), { status_code: 400, code: 'txn_limit_exceeded' } as JsonObject, {
		message: `The workspace has used up its daily transcription quota, so transaction "${txnId}" was not started (txn_limit_exceeded)`,
		description: `${uploaded}Run again tomorrow (the quota resets daily; free workspaces get about 20 transcriptions a day), or ask the API provider to raise the workspace's limit.`,
		httpCode: '400',
		itemIndex,
	});
}

/** The status call's answer; its HTTP status is the state (200/202/206/400/404/500). */
export interface SessionStatusResponse {
	statusCode: number;
	body: unknown;
}

export async function getSessionStatus(
	ctx: ClinicApiContext,
	sessionId: string,
	itemIndex?: number,
): Promise<SessionStatusResponse> {
	const response = await clinicApiRequest(ctx, {
		method: 'GET',
		path: `${STATUS_PATH_PREFIX}${pathSegment(ctx, sessionId, 'Session ID', itemIndex)}`,
		idempotent: true,
		// States, not failures: processing, partial, unknown session, all templates failed.
		acceptStatuses: [202, 206, 400, 404, 500],
		timeoutMs: STATUS_REQUEST_TIMEOUT_MS,
		purpose: `the results of session "${sessionId}"`,
		itemIndex,
	});
	return { statusCode: response.statusCode, body: response.body };
}

/** One status call, decoded. Used by Get Results, by Upload Audio's wait, and by the trigger. */
export async function fetchSessionResults(
	ctx: ClinicApiContext,
	sessionId: string,
	itemIndex?: number,
): Promise<SessionResults> {
	const response = await getSessionStatus(ctx, sessionId, itemIndex);
	if (response.statusCode === 200 && asRecord(response.body) === undefined) {
		throw unexpectedBodyError(ctx, { purpose: `the results of session "${sessionId}"`, itemIndex }, 200);
	}
	return readSessionResults(sessionId, response.statusCode, response.body);
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
	return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
