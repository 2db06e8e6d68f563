/**
 * The service's session API ([EKA-OAS] `/voice/v1/sessions`): create a session under an id of ours
 * (Upload Audio's session method and Convert Transcript both) → upload each file as raw bytes → end
 * → read the results, already decoded by the service; cancel (a PATCH, as [EKA-MSA] does it), the
 * whole session's audio, and Convert Transcript's conversion of a transcript into a template's
 * document ([EKA-OAS] upload-transcript.mdx).
 *
 * Every call goes through `clinicApiRequest` (token, secrets scrubbed, no redirect followed). The
 * audio upload streams the file from n8n's binary store with its exact Content-Length (the same
 * body as the storage upload, without the multipart frame). The full-audio download goes to the
 * `audio_url` the service gives (another host) as a link (storage.ts): no token, no auth header.
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
} from '../shared/sessionResults';
import { asRecord, textOf } from '../shared/values';
import {
	clinicApiError,
	DailyQuotaError,
	fileSizeChangedError,
	isDailyQuotaAnswer,
	readErrorFields,
	unexpectedBodyError,
} from './errors';
import {
	clinicApiRequest,
	pathSegment,
	type ClinicApiContext,
	type ClinicApiResponse,
} from './request';
import { mayRetry, PRODUCTION_POLICY } from './retryPolicy';
import { getFromLink, putToLink, rawFileBody, storageTimeoutMs, type StorageFile } from './storage';

const SESSIONS_PATH = '/voice/v1/sessions';

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
function newSessionId(): string {
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
interface CreateWording {
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
	const path = `${SESSIONS_PATH}/${pathSegment(ctx, sessionId, 'Session ID', itemIndex)}/audio/${pathSegment(ctx, file.sessionFileName, 'file name', itemIndex)}`;
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
		path: `${SESSIONS_PATH}/${pathSegment(ctx, sessionId, 'Session ID', itemIndex)}/end`,
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
		path: `${SESSIONS_PATH}/${pathSegment(ctx, sessionId, 'Session ID', itemIndex)}`,
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
		path: `${SESSIONS_PATH}/${pathSegment(ctx, sessionId, 'Session ID', itemIndex)}`,
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

interface SessionAudioLink {
	audioUrl: string;
	expiresIn?: number;
	expiresAt?: unknown;
}

/** `GET …/{id}/audio`: a link to the whole session's audio; 403 audio_not_enabled, 404 audio_not_available. */
async function getSessionAudioLink(
	ctx: ClinicApiContext,
	sessionId: string,
	itemIndex?: number,
): Promise<SessionAudioLink> {
	const purpose = `the audio of session "${sessionId}"`;
	const response = await clinicApiRequest(ctx, {
		method: 'GET',
		path: `${SESSIONS_PATH}/${pathSegment(ctx, sessionId, 'Session ID', itemIndex)}/audio`,
		idempotent: true,
		acceptStatuses: [403, 404],
		purpose,
		itemIndex,
	});
	if (response.statusCode === 403 || response.statusCode === 404) {
		const { code } = readErrorFields(response.body);
		const notEnabled = response.statusCode === 403;
		throw new NodeApiError(
			ctx.getNode(),
			{ status_code: response.statusCode, code: code ?? null } as JsonObject,
			{
				message: notEnabled
					? `The workspace does not keep session audio, so session "${sessionId}" has none to download (HTTP 403${code ? ` ${code}` : ''})`
					: `Session "${sessionId}" has no audio to download (HTTP 404${code ? ` ${code}` : ''})`,
				description: notEnabled
					? 'Session audio is a feature the API provider turns on per workspace. Ask them to enable it; until then keep the recording where it came from.'
					: 'The audio is kept for 24 hours after the session, and only for sessions that received audio. Check the Session ID, or keep the recording where it came from.',
				httpCode: String(response.statusCode),
				itemIndex,
			},
		);
	}
	const body = asRecord(response.body);
	const audioUrl = textOf(body?.audio_url);
	if (!audioUrl || !/^https?:\/\//i.test(audioUrl))
		throw unexpectedBodyError(ctx, { purpose, itemIndex }, response.statusCode);
	const link: SessionAudioLink = { audioUrl };
	if (typeof body?.expires_in === 'number') link.expiresIn = body.expires_in;
	if (body?.expires_at !== undefined) link.expiresAt = body.expires_at;
	return link;
}

interface DownloadedAudio {
	/** The service's link the audio came from (signed: never output). */
	link: SessionAudioLink;
	stream: unknown;
	contentType: string;
	contentLength?: number;
}

/**
 * A session's whole audio: the service's link to it, then the audio itself from that link, which
 * points at another host (a presigned storage URL, no token goes there: storage.ts).
 */
export async function downloadSessionAudio(
	ctx: IExecuteFunctions,
	sessionId: string,
	itemIndex: number,
): Promise<DownloadedAudio> {
	const link = await getSessionAudioLink(ctx, sessionId, itemIndex);
	let host = 'the audio host';
	try {
		host = new URL(link.audioUrl).host;
	} catch {
		// Checked to be http(s) before.
	}
	const answer = await getFromLink(
		ctx,
		{
			url: link.audioUrl,
			host,
			purpose: `the audio of session "${sessionId}"`,
			itemIndex,
			encoding: 'stream',
		},
		(statusCode, attempts) => {
			const retried = attempts > 1 ? ` (tried ${attempts} times)` : '';
			return new NodeApiError(ctx.getNode(), { status_code: statusCode } as JsonObject, {
				message: `Could not download the audio of session "${sessionId}" from ${host} (HTTP ${statusCode})`,
				description:
					statusCode >= 300 && statusCode < 400
						? `The audio link redirected elsewhere, which is not followed. Run again; if it persists, contact the API provider${retried}.`
						: mayRetry({ status: statusCode })
							? `The storage host did not serve the audio. Run again later${retried}.`
							: `The link may have expired (it is valid for 24 hours). Run again to get a fresh link${retried}.`,
				httpCode: String(statusCode),
				itemIndex,
			});
		},
	);
	const contentType =
		String(answer.headers['content-type'] ?? 'audio/wav')
			.split(';')[0]
			.trim() || 'audio/wav';
	const length = Number(answer.headers['content-length']);
	return {
		link,
		stream: answer.body,
		contentType,
		...(Number.isFinite(length) ? { contentLength: length } : {}),
	};
}

// ─── Convert Transcript ──────────────────────────────────────────────────────────────────────────

const CONVERT_PATH_PREFIX = '/voice/api/v1/transaction/';

const CREATE_WORDING: CreateWording = {
	purpose: 'creating a session for the transcript',
	afterLostCreate:
		'The transcript was not sent, so no document was made (a session left empty is never processed and expires unused). Run the node again.',
};

/**
 * Creates an empty session that will hold the converted document; returns its id. The id is ours,
 * so a create whose answer was lost is sent again like the session upload's: "exists" then is the
 * session the first attempt made, and no second one is left behind.
 */
export async function createTranscriptSession(
	ctx: ClinicApiContext,
	templateId: string,
	itemIndex?: number,
): Promise<string> {
	const created = await createSession(
		ctx,
		{ session_id: newSessionId(), upload_type: 'single', templates: [templateId] },
		itemIndex,
		CREATE_WORDING,
	);
	// "Exists" without a lost answer: the new id was taken (it never is in practice); nothing was sent.
	if (created.alreadyCreated && !created.afterLostAnswer) {
		const refused = clinicApiError(ctx, { purpose: CREATE_WORDING.purpose, itemIndex }, 409, {});
		refused.description = `The service already has a session under the ID just generated for this transcript (${created.sessionId}), so the transcript was not sent. Run the node again: each run generates a new ID.`;
		throw refused;
	}
	return created.sessionId;
}

interface ConvertStarted {
	documentId: string;
	templateId: string;
	body: IDataObject;
}

/**
 * Starts the conversion (the service answers 202 and works in the background). No `flavour` header:
 * with one the service only stores the transcript ([EKA-SCRIBE]).
 */
export async function convertTranscript(
	ctx: ClinicApiContext,
	sessionId: string,
	transcript: string,
	templateId: string,
	itemIndex?: number,
): Promise<ConvertStarted> {
	const purpose = `converting the transcript of session "${sessionId}" to template "${templateId}"`;
	const response = await clinicApiRequest(ctx, {
		method: 'POST',
		path: `${CONVERT_PATH_PREFIX}${pathSegment(ctx, sessionId, 'Session ID', itemIndex)}/convert-to-template`,
		body: { transcript, template_id: templateId },
		// Not idempotent: each call creates a new document (and is paid), so it is never repeated.
		idempotent: false,
		acceptStatuses: [400, 404],
		timeoutMs: PRODUCTION_POLICY.timeouts.initMs,
		purpose,
		itemIndex,
		// The transcript is patient data: an error that echoes it must not show it.
		redact: [transcript],
	});
	if (response.statusCode === 400 || response.statusCode === 404)
		throw clinicApiError(
			ctx,
			{ purpose, itemIndex, redact: [transcript] },
			response.statusCode,
			response.body,
		);
	const body = (asRecord(response.body) ?? {}) as IDataObject;
	// Read document_id, not status: [EKA-OAS] answers "in-progress", [EKA-JS] types "success" | "failed".
	if (typeof body.document_id !== 'string' || body.document_id === '')
		throw unexpectedBodyError(ctx, { purpose, itemIndex }, response.statusCode);
	return {
		documentId: body.document_id,
		templateId: typeof body.template_id === 'string' ? body.template_id : templateId,
		body,
	};
}

// ─── A session's documents ([EKA-OAS] create-update-document.mdx) ───────────────────────────────

const DOCUMENTS_PATH = '/voice/api/v1/documents';
const SESSION_DOCUMENTS_PATH = '/voice/api/v1/sessions/';

/** One document of a session's listing, as far as Save Edited Notes reads it ([EKA-OAS] SessionDocument). */
export interface SessionDocumentSummary {
	documentId: string;
	documentName: string | null;
	type: string | null;
	templateId: string | null;
}

/** `GET /voice/api/v1/sessions/{id}`: the session's documents; 404 is an unknown session. */
export async function listSessionDocuments(
	ctx: ClinicApiContext,
	sessionId: string,
	itemIndex?: number,
): Promise<SessionDocumentSummary[]> {
	const purpose = `the documents of session "${sessionId}"`;
	const response = await clinicApiRequest(ctx, {
		method: 'GET',
		path: `${SESSION_DOCUMENTS_PATH}${pathSegment(ctx, sessionId, 'Session ID', itemIndex)}`,
		idempotent: true,
		acceptStatuses: [404],
		timeoutMs: PRODUCTION_POLICY.timeouts.apiCallMs,
		purpose,
		itemIndex,
	});
	if (response.statusCode === 404) throw unknownSessionError(ctx, sessionId, itemIndex);
	const documents = asRecord(asRecord(response.body)?.data)?.documents;
	if (!Array.isArray(documents))
		throw unexpectedBodyError(ctx, { purpose, itemIndex }, response.statusCode);
	return documents.flatMap((entry) => {
		const document = asRecord(entry);
		const documentId = textOf(document?.document_id);
		if (!document || !documentId) return [];
		return [
			{
				documentId,
				documentName: textOf(document.document_name) ?? null,
				type: textOf(document.type) ?? null,
				templateId: textOf(document.template_id) ?? null,
			},
		];
	});
}

function unknownSessionError(ctx: ClinicApiContext, sessionId: string, itemIndex?: number) {
	return new NodeApiError(ctx.getNode(), { status_code: 404 } as JsonObject, {
		message: `Session "${sessionId}" was not found (HTTP 404)`,
		description:
			'Check the Session ID: use the session_id of the session whose notes were edited. Nothing was saved.',
		httpCode: '404',
		itemIndex,
	});
}

export interface DocumentSave {
	sessionId: string;
	/** The document to update; absent: a new document is created. */
	documentId?: string;
	documentName?: string;
	templateId?: string;
	markdown: string;
}

export interface SavedDocument {
	documentId: string;
	created: boolean;
	bytes: number;
	documentName: string | null;
}

/**
 * Creates (no document_id, 201) or updates (200) a session's document, then stores its markdown at
 * the presigned PUT URL the answer carries (no token). An update is safe to repeat (same document,
 * same body); a create is not (a repeat after a lost answer could make a second document), so it is
 * sent again only when the answer says it was not taken (408/429). A failure after the POST says
 * which document now exists and that its content was not stored.
 */
export async function saveSessionDocument(
	ctx: ClinicApiContext,
	save: DocumentSave,
	itemIndex?: number,
): Promise<SavedDocument> {
	const updating = save.documentId !== undefined;
	const purpose = updating
		? `updating document "${save.documentId}" of session "${save.sessionId}"`
		: `creating a document on session "${save.sessionId}"`;
	const body: IDataObject = {
		session_id: save.sessionId,
		type: 'custom',
		status: 'success',
		...(updating ? { document_id: save.documentId } : {}),
		...(save.documentName ? { document_name: save.documentName } : {}),
		...(save.templateId ? { template_id: save.templateId } : {}),
	};
	const response = await clinicApiRequest(ctx, {
		method: 'POST',
		path: DOCUMENTS_PATH,
		body,
		idempotent: updating,
		acceptStatuses: [404, 422],
		timeoutMs: PRODUCTION_POLICY.timeouts.apiCallMs,
		purpose,
		itemIndex,
		// An update is the same write again; a create that got no clear answer may have made the
		// document, so it is not repeated, and the error says how to finish without a second one.
		...(updating
			? {}
			: {
					failedAfterLostAnswer: (error: NodeApiError) =>
						new NodeApiError(ctx.getNode(), { message: error.message } as JsonObject, {
							message: error.message,
							description:
								'No clear answer came, and a create is not sent again: the service may have made the document. Its markdown was not stored. Run the node again with the same input: it finds the document by its name on the session and updates it, so no second document is made.',
							httpCode: error.httpCode ?? undefined,
							itemIndex,
						}),
				}),
	});
	if (response.statusCode === 404) {
		if (!updating) throw unknownSessionError(ctx, save.sessionId, itemIndex);
		const said = readErrorFields(response.body).message;
		throw new NodeApiError(ctx.getNode(), { status_code: 404 } as JsonObject, {
			message: `Document "${save.documentId}" of session "${save.sessionId}" was not found (HTTP 404)${said ? `: ${said}` : ''}`,
			description:
				"Check the Document ID (the document_id of the session's generated notes) and the Session ID it belongs to. Nothing was saved.",
			httpCode: '404',
			itemIndex,
		});
	}
	if (response.statusCode === 422)
		throw clinicApiError(ctx, { purpose, itemIndex }, 422, response.body);
	const data = asRecord(asRecord(response.body)?.data);
	const documentId = textOf(data?.document_id);
	const uploadUrl = textOf(data?.presigned_url);
	if (!documentId || !uploadUrl)
		throw unexpectedBodyError(ctx, { purpose, itemIndex }, response.statusCode);
	const done = `Document "${documentId}" was ${updating ? 'updated' : 'created'} on session "${save.sessionId}"`;
	const content = Buffer.from(save.markdown, 'utf8');
	let host: string;
	try {
		host = new URL(uploadUrl).host;
	} catch {
		throw halfDoneError(
			ctx,
			done,
			documentId,
			'the upload address it gave is not a URL',
			itemIndex,
		);
	}
	await putToLink(
		ctx,
		{
			url: uploadUrl,
			host,
			body: content,
			contentType: 'text/markdown',
			purpose: `storing the markdown of document "${documentId}"`,
			itemIndex,
		},
		(statusCode, detail) =>
			halfDoneError(
				ctx,
				done,
				documentId,
				`the storage host refused it (HTTP ${statusCode}${detail ? `: ${detail}` : ''})`,
				itemIndex,
			),
	).catch((error: unknown) => {
		if (error instanceof NodeApiError && error.message.startsWith(done)) throw error;
		const cause = error instanceof Error ? error.message : String(error);
		throw halfDoneError(ctx, done, documentId, cause, itemIndex);
	});
	return {
		documentId,
		created: !updating,
		bytes: content.length,
		documentName: textOf(data?.document_name) ?? save.documentName ?? null,
	};
}

/** The POST was done, the content was not stored: what exists, and how to finish without a second document. */
function halfDoneError(
	ctx: ClinicApiContext,
	done: string,
	documentId: string,
	cause: string,
	itemIndex?: number,
): NodeApiError {
	return new NodeApiError(ctx.getNode(), { message: cause } as JsonObject, {
		message: `${done}, but its markdown was not stored: ${cause}`,
		description: `Run the node again with Document ID "${documentId}" to store the notes in that document; no new document is made.`,
		itemIndex,
	});
}
