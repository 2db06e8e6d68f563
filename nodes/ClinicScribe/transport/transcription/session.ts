/**
 * The service's session API ([EKA-OAS] `/voice/v1/sessions`): create a session under an id of ours
 * (Upload Audio's session method and Convert Transcript both) → upload each file as raw bytes → end
 * → read the results, already decoded by the service; cancel (a PATCH, as [EKA-MSA] does it). A
 * session's audio is sessionAudio.ts, Convert Transcript's conversion convertTranscript.ts, a
 * session's documents sessionDocuments.ts.
 *
 * Every call goes through `clinicApiRequest` (token, secrets scrubbed, no redirect followed). The
 * audio upload streams the file from n8n's binary store with its exact Content-Length (the same
 * body as the storage upload, without the multipart frame).
 */
import { randomBytes } from 'crypto';
import {
	NodeApiError,
	type IDataObject,
	type IExecuteFunctions,
	type JsonObject,
} from 'n8n-workflow';

import {
	readSessionApiResults,
	sessionAudioFiles,
	sessionLifecycle,
	type SessionLifecycle,
	type SessionResults,
} from '../../shared/answers/sessionResults';
import { asRecord, textOf } from '../../shared/values';
import type { ClinicApiContext, ClinicApiResponse } from '../apiCall';
import {
	clinicApiError,
	DailyQuotaError,
	fileSizeChangedError,
	isDailyQuotaAnswer,
	readErrorFields,
	unexpectedBodyError,
} from '../errors';
import { clinicApiRequest, pathSegment } from '../request';
import { PRODUCTION_POLICY } from '../retryPolicy';
import { storageTimeoutMs } from '../storage';
import { rawFileBody, type StorageFile } from '../uploadBody';

const SESSIONS_PATH = '/voice/v1/sessions';

/** `/voice/v1/sessions/{id}`: the path of one session, its ID checked (pathSegment). */
export function sessionPath(ctx: ClinicApiContext, sessionId: string, itemIndex?: number): string {
	return `${SESSIONS_PATH}/${pathSegment(ctx, sessionId, 'Session ID', itemIndex)}`;
}

/** A `single` upload may hold at most 10 MB ([EKA-OAS] create-session.mdx, upload-audio.mdx). */
export const SESSION_SINGLE_UPLOAD_MAX_BYTES = 10 * 1000 * 1000;

/** A client-supplied session_id must have 16 to 32 characters ([EKA-OAS], [EKA-SCRIBE]). */
export const SESSION_ID_MIN_LENGTH = 16;
export const SESSION_ID_MAX_LENGTH = 32;

/** The file name of an upload: `<base>_<n>.<ext>` ([EKA-SCRIBE] audio_adaptor.py, [EKA-OAS]). */
export const SESSION_FILE_NAME = /^[a-zA-Z0-9_-]+_\d+\.[a-zA-Z0-9]+$/;

/** Extensions the service reads (others are taken for webm), by the content type this node knows. */
export const SESSION_AUDIO_EXTENSIONS: Readonly<Record<string, string>> = {
	'audio/wav': 'wav',
	'audio/mpeg': 'mp3',
	'audio/ogg': 'ogg',
	'audio/webm': 'webm',
	'audio/mp4': 'm4a',
};

/**
 * The Content-Type of a session upload: the value the service lists for the format ([EKA-OAS]
 * upload-audio: audio/webm;codecs=opus, audio/mp3, audio/wav, audio/ogg, audio/m4a, audio/mp4), where
 * storage takes the registered name (mp3 is audio/mpeg there).
 */
const SESSION_CONTENT_TYPES: Readonly<Record<string, string>> = {
	'audio/mpeg': 'audio/mp3',
	'audio/webm': 'audio/webm;codecs=opus',
};

function sessionContentType(contentType: string): string {
	return SESSION_CONTENT_TYPES[contentType] ?? contentType;
}

interface SessionCreateBody extends IDataObject {
	/** Ours, never the service's: a create whose answer was lost can then be sent again safely. */
	session_id: string;
	upload_type: 'single';
	templates: string[];
	language_hint?: string[];
	model?: string;
}

/** A session id for a session nobody named: `n8n` and 29 random hex characters (the service takes 16 to 32). */
export function newSessionId(): string {
	return `n8n${randomBytes(15)
		.toString('hex')
		.slice(0, SESSION_ID_MAX_LENGTH - 3)}`;
}

interface CreatedSession {
	sessionId: string;
	/** The service already holds a session under this id (409): where it stands decides what follows. */
	alreadyCreated: boolean;
	/**
	 * With alreadyCreated: the "exists" answer came to a repeat of this very create after a lost
	 * answer (a 5xx, no answer), so the session is most likely the one the first attempt made.
	 */
	afterLostAnswer: boolean;
	body: IDataObject;
}

/** How a create's messages name it, and what its error says to do when no clear answer came. */
export interface CreateWording {
	purpose: string;
	afterLostCreate: string;
}

/** Upload Audio's wording (the session method). */
function uploadWording(sessionId: string): CreateWording {
	return {
		purpose: `creating session "${sessionId}"`,
		afterLostCreate:
			'Nothing of this item was uploaded. Run the node again with the same Session ID (the Transaction ID field; a generated one is kept by n8n\'s Retry On Fail): while the session is open, the upload continues in it and the session is ended once; if it was never created, it is created then. Get Results with Results Of "Session" and this ID shows where it stands.',
	};
}

/**
 * Creates the session under our own id. Safe to repeat, though not idempotent in general (a create
 * without an id is a new session each time): the id is ours, the service keys the session by it, so
 * a repeat after a lost answer (a 5xx, a dropped connection, a timeout) cannot make a second session.
 * It is created (201) if the first never arrived, or answered "exists" (409) if it did. An "exists"
 * answer is returned, not thrown: whether the session can be used depends on where it stands (the
 * caller reads it). When no clear answer ever comes, the error says the session may exist and what
 * to do (`wording`: Upload Audio's unless given), rather than blaming the address.
 */
export async function createSession(
	ctx: ClinicApiContext,
	body: SessionCreateBody,
	itemIndex?: number,
	wording: CreateWording = uploadWording(body.session_id),
): Promise<CreatedSession> {
	const { purpose } = wording;
	const response = await clinicApiRequest(ctx, {
		method: 'POST',
		path: SESSIONS_PATH,
		body,
		idempotent: true,
		acceptStatuses: [400, 409],
		timeoutMs: PRODUCTION_POLICY.timeouts.initMs,
		purpose,
		itemIndex,
		// Sent, and an attempt had no clear answer (a 5xx, none): the session may exist.
		failedAfterLostAnswer: (error) =>
			sessionMayExistError(ctx, body.session_id, error, wording.afterLostCreate, itemIndex),
	});
	if (
		response.statusCode === 409 ||
		(response.statusCode === 400 && isSessionExistsAnswer(response.body))
	) {
		return {
			sessionId: body.session_id,
			alreadyCreated: true,
			afterLostAnswer: response.afterLostAnswer === true,
			body: {},
		};
	}
	// The daily quota, should the session API answer it as the transaction flow does.
	if (response.statusCode === 400 && isDailyQuotaAnswer(response.body))
		throw new DailyQuotaError(
			ctx.getNode(),
			{ session: body.session_id },
			'beforeUpload',
			itemIndex,
		);
	if (response.statusCode === 400)
		throw clinicApiError(ctx, { purpose, itemIndex }, 400, response.body);
	const answer = (asRecord(response.body) ?? {}) as IDataObject;
	const sessionId = textOf(answer.session_id);
	if (!sessionId) throw unexpectedBodyError(ctx, { purpose, itemIndex }, response.statusCode);
	return { sessionId, alreadyCreated: false, afterLostAnswer: false, body: answer };
}

function isSessionExistsAnswer(body: unknown): boolean {
	const { code, message } = readErrorFields(body);
	return /exist|duplicate/i.test(`${code ?? ''} ${message ?? ''}`);
}

/** The create was sent but no clear answer came: the session may exist. */
function sessionMayExistError(
	ctx: ClinicApiContext,
	sessionId: string,
	cause: NodeApiError,
	whatToDo: string,
	itemIndex: number | undefined,
): NodeApiError {
	const httpCode = String(cause.httpCode ?? '');
	const what = /^\d{3}$/.test(httpCode)
		? `the clinic API answered HTTP ${httpCode}`
		: 'no answer came from the clinic API';
	return new NodeApiError(ctx.getNode(), { message: what } as JsonObject, {
		message: `Session "${sessionId}"${itemIndex === undefined ? '' : ` of item ${itemIndex}`} may have been created, but ${what} (tried several times)`,
		description: `The service may have created the session before its answer was lost. ${whatToDo}`,
		...(/^\d{3}$/.test(httpCode) ? { httpCode } : {}),
		itemIndex,
	});
}

interface SessionUploadFile extends Pick<StorageFile, 'label' | 'size' | 'open' | 'contentType'> {
	/** `<base>_<n>.<ext>`, checked against SESSION_FILE_NAME. */
	sessionFileName: string;
}

/**
 * One file of the session, as raw bytes. Safe to repeat: the service stores it under its number
 * (`<n>.<ext>`), so a second copy replaces the first rather than adding a file. The bytes stream
 * from the binary store (a fresh read for each attempt) and never more than the announced size go.
 */
export async function uploadSessionAudio(
	ctx: IExecuteFunctions,
	sessionId: string,
	file: SessionUploadFile,
	itemIndex: number,
): Promise<{ statusCode: number; body: IDataObject }> {
	const purpose = `uploading ${file.label} to session "${sessionId}"`;
	const rawBody = rawFileBody(file, sessionContentType(file.contentType));
	const path = `${sessionPath(ctx, sessionId, itemIndex)}/audio/${pathSegment(ctx, file.sessionFileName, 'file name', itemIndex)}`;
	let response;
	try {
		response = await clinicApiRequest(ctx, {
			method: 'POST',
			path,
			rawBody,
			idempotent: true,
			acceptStatuses: [400, 404, 409, 410, 413],
			timeoutMs: storageTimeoutMs(file.size),
			purpose,
			itemIndex,
		});
	} catch (error) {
		if (rawBody.changedSize(error)) throw fileSizeChangedError(ctx, file.label, itemIndex);
		throw new NodeApiError(ctx.getNode(), error as JsonObject);
	}
	if (response.statusCode === 413) {
		throw new NodeApiError(ctx.getNode(), { status_code: 413 } as JsonObject, {
			message: `The clinic API refused ${file.label}: it is larger than a session upload may be (HTTP 413)`,
			description:
				'A session takes files of at most 10 MB each. Choose Upload Method "Transaction" for long recordings, or split the recording into parts.',
			httpCode: '413',
			itemIndex,
		});
	}
	if (response.statusCode >= 400)
		throw clinicApiError(ctx, { purpose, itemIndex }, response.statusCode, response.body);
	return { statusCode: response.statusCode, body: (asRecord(response.body) ?? {}) as IDataObject };
}

/**
 * Ends the session: the service starts processing (the paid step). Repeated after a 5xx or a lost
 * answer, because a session is processed once: [EKA-SCRIBE] answers a "re-commit" 202 again and
 * [EKA-OAS] 400 "Session already ended", so after such a repeat that 400 means our first End got
 * through. Without a repeat it means the session was ended before.
 */
export async function endSession(
	ctx: ClinicApiContext,
	sessionId: string,
	filesSent: number,
	itemIndex?: number,
): Promise<{ statusCode: number; body: IDataObject; alreadyEnded: boolean }> {
	const purpose = `ending session "${sessionId}"`;
	const response = await clinicApiRequest(ctx, {
		method: 'POST',
		path: `${sessionPath(ctx, sessionId, itemIndex)}/end`,
		body: { audio_files_sent: filesSent },
		idempotent: false,
		repeatAfterServerError: true,
		acceptStatuses: [400, 404, 410],
		timeoutMs: PRODUCTION_POLICY.timeouts.initMs,
		purpose,
		itemIndex,
	});
	if (
		response.statusCode === 400 &&
		response.afterLostAnswer &&
		/ended|committed/i.test(JSON.stringify(readErrorFields(response.body)))
	) {
		return { statusCode: 400, body: {}, alreadyEnded: true };
	}
	if (response.statusCode === 400 && isDailyQuotaAnswer(response.body))
		throw new DailyQuotaError(ctx.getNode(), { session: sessionId }, 'afterUpload', itemIndex);
	if (response.statusCode >= 400)
		throw clinicApiError(ctx, { purpose, itemIndex }, response.statusCode, response.body);
	return {
		statusCode: response.statusCode,
		body: (asRecord(response.body) ?? {}) as IDataObject,
		alreadyEnded: false,
	};
}

/** Bounds of one read of a session's results. */
export interface SessionReadOptions {
	/** Per request; a wait caps it at the time left before its deadline. */
	timeoutMs?: number;
	/** Ends the call and its retries (a wait's deadline or Stop); default: the execution's cancel signal. */
	abortSignal?: AbortSignal;
}

/** `GET …/{id}`: 202 processing, 200 done or not yet ended, 206 partial, 410 expired, 404 unknown. */
async function readSession(
	ctx: ClinicApiContext,
	sessionId: string,
	purpose: string,
	itemIndex?: number,
	options: SessionReadOptions = {},
): Promise<ClinicApiResponse> {
	return await clinicApiRequest(ctx, {
		method: 'GET',
		path: sessionPath(ctx, sessionId, itemIndex),
		idempotent: true,
		acceptStatuses: [202, 206, 404, 410],
		timeoutMs: options.timeoutMs ?? PRODUCTION_POLICY.timeouts.statusMs,
		abortSignal: options.abortSignal,
		purpose,
		itemIndex,
	});
}

/**
 * One read of the session, decoded: 202 processing, 200 done (a body with status "failed" is a
 * failed session even so), 206 partial, 410 expired, 404 unknown.
 */
export async function fetchSessionApiResults(
	ctx: ClinicApiContext,
	sessionId: string,
	itemIndex?: number,
	options: SessionReadOptions = {},
): Promise<SessionResults> {
	const purpose = `the results of session "${sessionId}"`;
	const response = await readSession(ctx, sessionId, purpose, itemIndex, options);
	if (
		(response.statusCode === 200 || response.statusCode === 206) &&
		asRecord(response.body) === undefined
	) {
		throw unexpectedBodyError(ctx, { purpose, itemIndex }, response.statusCode);
	}
	return readSessionApiResults(sessionId, response.statusCode, response.body);
}

/** Where a session stands for an upload (see sessionLifecycle), with the files it holds. */
export interface SessionState {
	lifecycle: SessionLifecycle;
	httpStatus: number;
	/** The body's `status` as sent, for the receipts. */
	bodyStatus: string | null;
	/** The files it holds, as the service names them (`<n>.<ext>`); undefined when it does not say. */
	audioFiles?: string[];
}

/** One read of the session for an upload: its state from the documented body fields. */
export async function readSessionState(
	ctx: ClinicApiContext,
	sessionId: string,
	itemIndex?: number,
): Promise<SessionState> {
	const purpose = `the state of session "${sessionId}"`;
	const response = await readSession(ctx, sessionId, purpose, itemIndex);
	const body = asRecord(response.body);
	if (response.statusCode !== 404 && response.statusCode !== 410 && body === undefined)
		throw unexpectedBodyError(ctx, { purpose, itemIndex }, response.statusCode);
	const state: SessionState = {
		lifecycle: sessionLifecycle(response.statusCode, body),
		httpStatus: response.statusCode,
		bodyStatus: textOf(body?.status) ?? null,
	};
	const audioFiles = sessionAudioFiles(body);
	if (audioFiles) state.audioFiles = audioFiles;
	return state;
}

/**
 * Cancels the session ([EKA-MSA] client.ts `cancelSession`; [EKA-SCRIBE]'s enums allow `cancelled` for both fields).
 * Safe to repeat: it sets the same two fields to the same value.
 */
export async function cancelSession(
	ctx: ClinicApiContext,
	sessionId: string,
	itemIndex?: number,
): Promise<{ statusCode: number; body: IDataObject }> {
	const purpose = `cancelling session "${sessionId}"`;
	const response = await clinicApiRequest(ctx, {
		method: 'PATCH',
		path: sessionPath(ctx, sessionId, itemIndex),
		body: { user_status: 'cancelled', processing_status: 'cancelled' },
		idempotent: true,
		acceptStatuses: [404, 409, 410],
		timeoutMs: PRODUCTION_POLICY.timeouts.apiCallMs,
		purpose,
		itemIndex,
	});
	if (response.statusCode === 404 || response.statusCode === 410) {
		const expired = response.statusCode === 410;
		throw new NodeApiError(ctx.getNode(), { status_code: response.statusCode } as JsonObject, {
			message: `Session "${sessionId}" cannot be cancelled: the service ${expired ? 'says it expired' : 'does not know it'} (HTTP ${response.statusCode})`,
			description: expired
				? 'An expired session is not processed and holds nothing to cancel.'
				: 'Check the Session ID: use the session_id that Upload Audio (Upload Method "Session") output.',
			httpCode: String(response.statusCode),
			itemIndex,
		});
	}
	if (response.statusCode === 409)
		throw clinicApiError(ctx, { purpose, itemIndex }, 409, response.body);
	return { statusCode: response.statusCode, body: (asRecord(response.body) ?? {}) as IDataObject };
}
