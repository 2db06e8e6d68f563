/**
 * The session API's routes in the fake clinic API ([EKA-OAS] `/voice/v1/sessions`), strict:
 *
 *   POST  /voice/v1/sessions                          (Bearer; transcription/convert.ts, which calls
 *         registerSession here) {session_id? (16–32 chars), upload_type:"single", templates (1–2),
 *         language_hint?, model?, additional_data?, patient_details?, session_mode?} → 201
 *         {session_id, status:"created", created_at, expires_at, upload_url}; an id that exists →
 *         409 session_already_exists (no source says what the service answers: our choice).
 *   POST  /voice/v1/sessions/:id/audio/:fileName      raw bytes (no multipart, Content-Length
 *         required, no JSON); name `<base>_<n>.<ext>`; formats webm mp3 wav ogg m4a mp4, told by the
 *         extension; a Content-Type, when sent, is one the docs list or a generic one (else 400
 *         invalid_audio_format, "Audio format '…' is not supported"); at most
 *         `maxSingleUploadBytes` (10 MB) → 413 payload_too_large (what a gateway would answer:
 *         [EKA-OAS] states the limit, no route of [EKA-SCRIBE] checks it); after End → 400 session_ended. Records
 *         length and SHA-256 of every file; stored as `<n>.<ext>` (a repeat replaces it).
 *   POST  /voice/v1/sessions/:id/end                  {audio_files_sent?} → 202 processing; a second
 *         End → 400 "Session already ended" ([EKA-OAS]; [EKA-SCRIBE] would answer 202 again).
 *   GET   /voice/v1/sessions/:id                      202 while processing (partial transcript, no
 *         templates), then 200 completed / 206 partial / 200 with status "failed"; 410 expired;
 *         404 unknown; a session never ended stays `created` (200); a cancelled one is answered 200
 *         with status "cancelled" and the user_status / processing_status the cancel set.
 *   PATCH /voice/v1/sessions/:id                      the cancel pattern {user_status, processing_status}
 *         ("cancelled") or {patient_details, templates, language_hint}; unknown fields → 422.
 *   GET   /voice/v1/sessions/:id/audio                200 {audio_url (on host "localhost", not the API's
 *         127.0.0.1), expires_in, expires_at}; 403 audio_not_enabled; 404 audio_not_available.
 *   GET   /media/session-audio/:file                  the audio itself; refused (400) when any auth
 *         header comes with it; 403 for a wrong signature.
 *
 * The sessions, their options and their control are in sessionStore.ts.
 */
import { createHash, createHmac } from 'node:crypto';

import type { RouteContext, RouteDefinition } from '../../types';
import {
	sessionAudioBytes,
	storeOf,
	type FakeSession,
	type SessionStore,
	type SessionUpload,
} from './sessionStore';
import { templateDocument } from './documents';
import { bearerBusiness, isPlainObject, variantOf, voiceError } from './store';

const SESSION_PATH = '/voice/v1/sessions/:sessionId';
const SESSION_AUDIO_UPLOAD_PATH = '/voice/v1/sessions/:sessionId/audio/:fileName';
const SESSION_END_PATH = '/voice/v1/sessions/:sessionId/end';
const SESSION_FULL_AUDIO_PATH = '/voice/v1/sessions/:sessionId/audio';
const SESSION_MEDIA_PATH = '/media/session-audio/:file';

const SESSION_FILE_NAME = /^[a-zA-Z0-9_-]+_\d+\.[a-zA-Z0-9]+$/;
const SESSION_FORMATS = ['webm', 'mp3', 'wav', 'ogg', 'm4a', 'mp4'] as const;
/** The Content-Type values [EKA-OAS] upload-audio lists; generic ones are resolved from the extension. */
export const SESSION_CONTENT_TYPES = [
	'audio/webm;codecs=opus',
	'audio/mp3',
	'audio/wav',
	'audio/ogg',
	'audio/m4a',
	'audio/mp4',
] as const;
const GENERIC_CONTENT_TYPES = ['application/octet-stream', 'binary/octet-stream'];

function sessionOf(ctx: RouteContext): FakeSession | undefined {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return undefined;
	const session = storeOf(ctx.state).sessions.get(ctx.params.sessionId);
	if (!session || session.businessId !== businessId) {
		voiceError(ctx, 404, 'session_not_found', 'session not found');
		return undefined;
	}
	if (session.state === 'created' && Date.now() > session.expiresAt) session.state = 'expired';
	return session;
}

async function uploadAudio(ctx: RouteContext): Promise<void> {
	const store = storeOf(ctx.state);
	const body = ctx.rawBody();
	const reject = (status: number, code: string, reason: string, bytesRead = 0) => {
		store.rejected.push({ sessionId: ctx.params.sessionId, status, code, reason, bytesRead });
		voiceError(ctx, status, code, reason);
		body.resume();
	};
	const session = sessionOf(ctx);
	if (!session) return void body.resume();
	if (session.state === 'expired') return reject(410, 'session_expired', 'session expired');
	if (session.state === 'cancelled')
		return reject(400, 'session_cancelled', 'the session was cancelled: no more audio is accepted');
	if (session.state !== 'created')
		return reject(
			400,
			session.state === 'processing' ? 'session_ended' : 'session_completed',
			'the session was ended: no more audio is accepted',
		);
	const fileName = ctx.params.fileName;
	if (!SESSION_FILE_NAME.test(fileName))
		return reject(400, 'invalid_file_name', 'file name must be <base>_<n>.<ext>');
	const extension = fileName.slice(fileName.lastIndexOf('.') + 1).toLowerCase();
	if (!(SESSION_FORMATS as readonly string[]).includes(extension)) {
		store.rejected.push({
			sessionId: session.sessionId,
			status: 400,
			code: 'invalid_audio_format',
			reason: extension,
			bytesRead: 0,
		});
		ctx.sendJson(400, {
			error: {
				code: 'invalid_audio_format',
				message: `unsupported audio format .${extension}`,
				details: { provided_format: extension, supported_formats: SESSION_FORMATS },
			},
		});
		return void body.resume();
	}
	const contentType = ctx.req.headers['content-type'];
	if (contentType !== undefined && /^(multipart\/|application\/json)/i.test(contentType))
		return reject(400, 'invalid_body', 'the body must be the raw audio bytes, not a form or JSON');
	if (contentType !== undefined && !isAcceptedContentType(contentType))
		return reject(400, 'invalid_audio_format', `Audio format '${contentType}' is not supported`);
	const declared = ctx.req.headers['content-length'];
	if (declared === undefined || !/^\d+$/.test(declared))
		return reject(411, 'length_required', 'Content-Length is required');
	if (Number(declared) === 0) return reject(400, 'empty_audio', 'the audio is empty');
	// As a gateway in front of the service would: refused from the header, before the bytes are read.
	if (Number(declared) > store.options.maxSingleUploadBytes)
		return reject(
			413,
			'payload_too_large',
			`a single upload may be at most ${store.options.maxSingleUploadBytes} bytes`,
		);
	const hash = createHash('sha256');
	const kept: Buffer[] = [];
	let size = 0;
	const complete = await new Promise<boolean>((resolve) => {
		body.on('data', (chunk: Buffer) => {
			size += chunk.length;
			store.bytesReceived += chunk.length;
			hash.update(chunk);
			if (store.options.keepAudio) kept.push(chunk);
		});
		body.on('end', () => resolve(true));
		body.on('error', () => resolve(false));
		body.on('close', () => resolve(ctx.req.complete));
	});
	if (!complete) return;
	if (size !== Number(declared))
		return reject(
			400,
			'incomplete_body',
			`Content-Length was ${declared} but ${size} bytes arrived`,
			size,
		);
	const n = /_(\d+)\./.exec(fileName)?.[1] ?? '0';
	const storedAs = `${Number(n)}.${extension}`;
	const upload: SessionUpload = {
		sessionId: session.sessionId,
		fileName,
		storedAs,
		size,
		sha256: hash.digest('hex'),
		contentType,
		contentLength: Number(declared),
		headerNames: Object.keys(ctx.req.headers),
	};
	const at = session.uploads.findIndex((existing) => existing.storedAs === storedAs);
	if (at >= 0) {
		session.uploads[at] = upload;
		session.audioBytes[at] = Buffer.concat(kept);
	} else {
		session.uploads.push(upload);
		session.audioBytes.push(Buffer.concat(kept));
	}
	ctx.sendJson(200, { session_id: session.sessionId, success: true, original_filename: fileName });
}

function endSession(ctx: RouteContext): void {
	const session = sessionOf(ctx);
	if (!session) return;
	if (session.state === 'expired')
		return voiceError(ctx, 410, 'session_expired', 'session expired');
	session.endCalls++;
	const body = ctx.body;
	if (body && body.length > 0) {
		if (!body.isJsonMediaType || !isPlainObject(body.value))
			return voiceError(ctx, 400, 'invalid_body', 'body must be a JSON object');
		const sent = body.value.audio_files_sent;
		if (sent !== undefined && !(Number.isInteger(sent) && (sent as number) >= 0))
			return voiceError(ctx, 400, 'invalid_body', 'audio_files_sent must be a whole number');
		if (sent !== undefined && sent !== session.uploads.length)
			return voiceError(
				ctx,
				400,
				'audio_files_mismatch',
				`audio_files_sent is ${String(sent)} but ${session.uploads.length} files arrived`,
			);
	}
	if (session.state !== 'created')
		return voiceError(ctx, 400, 'session_already_ended', 'Session already ended');
	if (session.uploads.length === 0)
		return voiceError(ctx, 400, 'no_audio', 'no audio was uploaded to this session');
	session.endBody = body?.value;
	session.state = 'processing';
	ctx.sendJson(202, {
		session_id: session.sessionId,
		status: 'processing',
		message: 'Session ended. Processing started.',
		audio_files_received: session.uploads.length,
		audio_files: session.uploads.map((upload) => upload.storedAs),
	});
}

const TRANSCRIPT = 'Patient presents with cough and fever for three days.';

function getSession(ctx: RouteContext): void {
	const session = sessionOf(ctx);
	if (!session) return;
	if (session.state === 'expired')
		return voiceError(ctx, 410, 'session_expired', 'session expired');
	const store = storeOf(ctx.state);
	const envelope = {
		session_id: session.sessionId,
		status: session.state,
		created_at: new Date(session.createdAt).toISOString(),
		expires_at: new Date(session.expiresAt).toISOString(),
		upload_url: `http://${ctx.req.headers.host ?? '127.0.0.1'}/voice/v1/sessions/${session.sessionId}/audio`,
		model_used: session.input.model ?? 'pro',
		audio_files_received: session.uploads.length,
		audio_files: session.uploads.map((upload) => upload.storedAs),
		additional_data: session.input.additional_data ?? {},
		// As given at create, or by the latest PATCH that set it ([EKA-OAS] get-session.mdx).
		...patientDetailsOf(session),
	};
	if (session.state === 'created') return ctx.sendJson(200, envelope);
	if (session.state === 'cancelled')
		return ctx.sendJson(200, {
			...envelope,
			status: 'cancelled',
			user_status: session.userStatus,
			processing_status: session.processingStatus,
			templates: [],
		});
	if (session.state === 'processing') {
		session.readsAfterEnd++;
		const polls = session.script?.processingPolls ?? store.options.processingPolls;
		if (session.readsAfterEnd <= polls)
			return ctx.sendJson(202, { ...envelope, transcript: TRANSCRIPT.slice(0, 20) });
		const outcome = session.script?.outcome ?? store.options.outcome;
		session.state = outcome === 'expired' ? 'expired' : outcome;
		if (session.state === 'expired')
			return voiceError(ctx, 410, 'session_expired', 'session expired');
	}
	const emrId = variantOf(ctx).emrTemplateId;
	const templateIds = (session.input.templates as string[] | undefined) ?? [];
	const templates = templateIds.map((templateId, index) => {
		const failed = session.state === 'failed' || (session.state === 'partial' && index > 0);
		if (failed)
			return {
				[templateId]: {
					status: 'failure',
					document_id: null,
					data: null,
					errors: [
						{ code: 'template_generation_failed', message: 'Could not generate this template' },
					],
				},
			};
		const document = templateDocument(emrId, {
			template_id: templateId,
			codification_needed: false,
		});
		// The service decodes the documents itself: JSON as objects, text as text.
		const data = document.value;
		return {
			[templateId]: {
				status: 'success',
				document_id: `doc_${createHash('sha1')
					.update(session.sessionId + templateId)
					.digest('hex')
					.slice(0, 12)}`,
				document_type: templateId,
				data,
				publish: {},
			},
		};
	});
	const finished = {
		...envelope,
		status: session.state,
		completed_at: new Date().toISOString(),
		language_detected: 'en',
		transcript: TRANSCRIPT,
		templates,
	};
	if (session.state === 'completed') return ctx.sendJson(200, finished);
	if (session.state === 'failed')
		return ctx.sendJson(200, {
			...envelope,
			status: 'failed',
			transcript: '',
			templates,
			error: { code: 'processing_failed', message: 'All templates failed' },
		});
	return ctx.sendJson(206, {
		...finished,
		audio_files_processed: Math.max(0, session.uploads.length - 1),
		processing_errors: [{ code: 'audio_unclear', message: 'Some audio could not be processed' }],
	});
}

function patientDetailsOf(session: FakeSession): { patient_details?: unknown } {
	const patched = [...session.patches]
		.reverse()
		.find((patch) => isPlainObject(patch) && patch.patient_details !== undefined) as
		| Record<string, unknown>
		| undefined;
	const details = patched?.patient_details ?? session.input.patient_details;
	return details === undefined ? {} : { patient_details: details };
}

const PATCH_FIELDS = [
	'patient_details',
	'templates',
	'language_hint',
	'user_status',
	'processing_status',
	'session_mode',
	'model',
];

function patchSession(ctx: RouteContext): void {
	const session = sessionOf(ctx);
	if (!session) return;
	if (session.state === 'expired')
		return voiceError(ctx, 410, 'session_expired', 'session expired');
	const body = ctx.body;
	if (!body || !body.isJsonMediaType || !isPlainObject(body.value))
		return voiceError(
			ctx,
			400,
			'invalid_body',
			'body must be a JSON object sent as application/json',
		);
	const input = body.value;
	const unknown = Object.keys(input).filter((key) => !PATCH_FIELDS.includes(key));
	if (unknown.length > 0)
		return voiceError(ctx, 422, 'extra_forbidden', `unknown field(s): ${unknown.join(', ')}`);
	for (const key of ['user_status', 'processing_status'] as const) {
		if (input[key] !== undefined && input[key] !== 'cancelled')
			return voiceError(ctx, 422, 'invalid_status', `${key} may only be set to cancelled`);
	}
	if ((input.user_status === undefined) !== (input.processing_status === undefined))
		return voiceError(
			ctx,
			422,
			'invalid_status',
			'a cancel sets both user_status and processing_status',
		);
	if (
		session.state !== 'created' &&
		(input.session_mode !== undefined || input.model !== undefined)
	)
		return voiceError(
			ctx,
			409,
			'session_already_committed',
			'the session was ended: its mode and model are fixed',
		);
	session.patches.push(input);
	if (input.user_status === 'cancelled') {
		session.userStatus = 'cancelled';
		session.processingStatus = 'cancelled';
		if (session.state === 'created' || session.state === 'processing') session.state = 'cancelled';
	}
	ctx.sendJson(200, {
		session_id: session.sessionId,
		status: 'success',
		message: 'Session updated successfully',
	});
}

function mediaSignature(store: SessionStore, file: string, expires: string): string {
	return createHmac('sha256', store.signingKey).update(`${file}\n${expires}`).digest('hex');
}

function fullAudio(ctx: RouteContext): void {
	const session = sessionOf(ctx);
	if (!session) return;
	const store = storeOf(ctx.state);
	if (store.options.audio === 'not_enabled')
		return voiceError(
			ctx,
			403,
			'audio_not_enabled',
			'Audio storage is not enabled for this workspace',
		);
	if (
		store.options.audio === 'not_available' ||
		session.uploads.length === 0 ||
		session.state === 'created' ||
		session.state === 'expired'
	)
		return voiceError(ctx, 404, 'audio_not_available', 'No audio is available for this session');
	const expiresAt = Math.floor(Date.now() / 1000) + 86_400;
	const file = `${session.sessionId}.wav`;
	const port = (ctx.req.socket.localPort ?? 0).toString();
	const url = `http://localhost:${port}/media/session-audio/${file}?expires=${expiresAt}&signature=${mediaSignature(store, file, String(expiresAt))}`;
	ctx.sendJson(200, {
		session_id: session.sessionId,
		status: 'success',
		audio_url: url,
		expires_in: 86_400,
		expires_at: expiresAt,
	});
}

/** What storage answers a presigned URL that also carries an auth header (S3's wording). */
export const PRESIGNED_AUTH_REFUSAL =
	'Only one auth mechanism allowed: no authorization header with a presigned URL';

/** A request to a presigned URL that carries a token, an auth header or a client id. */
export function carriesAuth(ctx: RouteContext): boolean {
	const headers = ctx.req.headers;
	return (
		headers.authorization !== undefined ||
		headers.auth !== undefined ||
		headers['client-id'] !== undefined
	);
}

function media(ctx: RouteContext): void {
	const store = storeOf(ctx.state);
	const headerNames = Object.keys(ctx.req.headers);
	const answer = (status: number, code: string, message: string) => {
		store.mediaRequests.push({ headerNames, status });
		ctx.res.writeHead(status, { 'content-type': 'application/xml' });
		ctx.res.end(`<Error><Code>${code}</Code><Message>${message}</Message></Error>`);
	};
	if (carriesAuth(ctx)) return answer(400, 'InvalidArgument', PRESIGNED_AUTH_REFUSAL);
	const file = ctx.params.file;
	const expires = ctx.query.get('expires') ?? '';
	if (ctx.query.get('signature') !== mediaSignature(store, file, expires))
		return answer(403, 'SignatureDoesNotMatch', 'bad signature');
	if (Number(expires) * 1000 < Date.now())
		return answer(403, 'AccessDenied', 'Request has expired');
	const session = store.sessions.get(file.replace(/\.wav$/, ''));
	if (!session) return answer(404, 'NoSuchKey', 'The specified key does not exist.');
	const bytes = sessionAudioBytes(session);
	store.mediaRequests.push({ headerNames, status: 200 });
	ctx.res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(bytes.length) });
	ctx.res.end(bytes);
}

export const sessionRoutes: readonly RouteDefinition[] = [
	{
		method: 'POST',
		pattern: SESSION_AUDIO_UPLOAD_PATH,
		body: 'raw',
		errorStyle: 'envelope',
		handler: uploadAudio,
	},
	{
		method: 'POST',
		pattern: SESSION_END_PATH,
		body: 'json',
		errorStyle: 'envelope',
		handler: endSession,
	},
	{
		method: 'GET',
		pattern: SESSION_FULL_AUDIO_PATH,
		body: 'none',
		errorStyle: 'envelope',
		handler: fullAudio,
	},
	{
		method: 'GET',
		pattern: SESSION_PATH,
		body: 'none',
		errorStyle: 'envelope',
		handler: getSession,
	},
	{
		method: 'PATCH',
		pattern: SESSION_PATH,
		body: 'json',
		errorStyle: 'envelope',
		handler: patchSession,
	},
	{
		method: 'GET',
		pattern: SESSION_MEDIA_PATH,
		body: 'none',
		errorStyle: 'envelope',
		handler: media,
	},
];

/** A listed Content-Type (parameters compared without spaces, case-insensitively) or a generic one. */
function isAcceptedContentType(contentType: string): boolean {
	const normalised = contentType.replace(/\s+/g, '').toLowerCase();
	return (
		(SESSION_CONTENT_TYPES as readonly string[]).includes(normalised) ||
		GENERIC_CONTENT_TYPES.includes(normalised.split(';')[0])
	);
}
