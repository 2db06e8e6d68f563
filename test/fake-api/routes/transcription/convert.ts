/**
 * Notes from text ([EKA-OAS] upload-transcript.mdx), strict:
 *
 *   POST /voice/v1/sessions                               (Bearer) {"upload_type":"single","templates":[id], and the
 *        session API's fields (sessionStore.ts): session_id, language_hint, model, additional_data…}
 *        → 201 {session_id, status:"created", created_at, expires_at, upload_url}; 400 a wrong body or
 *          unknown template; more than 2 templates refused.
 *   POST /voice/api/v1/transaction/:txnId/convert-to-template   (Bearer, no `flavour` header)
 *        {transcript, template_id?} → 202 {status:"in-progress", message, txn_id, b_id, template_id,
 *        document_id, templates:[{template_id, document_id}]}; 404 transaction_not_found; 400
 *        invalid_request (no transcript), invalid_template_id, invalid_field.
 *
 * The conversion starts the session in the shared store, so the status route (status.ts) answers
 * it as it does an uploaded transaction: 202 while processing, then the document as scripted.
 */
import { randomBytes } from 'node:crypto';

import type { RouteContext } from '../../types';
import { activeTemplateIds } from '../template';
import {
	registerSession,
	SESSION_CREATE_FIELDS,
	sessionCreateProblem,
	takeCreateAnswerLoss,
} from './sessionStore';
import {
	bearerBusiness,
	CLINICAL_NOTES_ID,
	isPlainObject,
	pendingScripts,
	storeOf,
	variantOf,
	voiceError,
	type Store,
} from './store';

export const SESSIONS_PATH = '/voice/v1/sessions';
export const CONVERT_PATH = '/voice/api/v1/transaction/:txnId/convert-to-template';

/** Templates a conversion can make: the structured ones (not the transcript itself). */
function knownTemplates(ctx: RouteContext, store: Store): string[] {
	return [
		CLINICAL_NOTES_ID,
		variantOf(ctx).emrTemplateId,
		...store.options.customTemplateIds,
		...activeTemplateIds(ctx.state),
	];
}

export function createSession(ctx: RouteContext): void {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return;
	const store = storeOf(ctx.state);
	const body = ctx.body;
	if (!body || !body.isJsonMediaType || !isPlainObject(body.value))
		return voiceError(
			ctx,
			400,
			'invalid_body',
			'body must be a JSON object sent as application/json',
		);
	const input = body.value;
	const unknown = Object.keys(input).filter(
		(key) => key !== 'upload_type' && key !== 'templates' && !SESSION_CREATE_FIELDS.includes(key),
	);
	if (unknown.length > 0)
		return voiceError(
			ctx,
			400,
			'invalid_field',
			`unexpected field(s) for a session: ${unknown.join(', ')}`,
		);
	if (input.upload_type !== 'single')
		return voiceError(ctx, 400, 'invalid_upload_type', 'upload_type must be single');
	const templates = input.templates;
	if (
		!Array.isArray(templates) ||
		templates.length === 0 ||
		templates.length > 2 ||
		templates.some((id) => typeof id !== 'string')
	)
		return voiceError(ctx, 400, 'invalid_templates', 'templates must list 1 or 2 template ids');
	const known = knownTemplates(ctx, store);
	const unknownTemplate = (templates as string[]).find((id) => !known.includes(id));
	if (unknownTemplate !== undefined)
		return voiceError(ctx, 400, 'invalid_template_id', `unknown template_id ${unknownTemplate}`);
	const problem = sessionCreateProblem(ctx.state, input);
	if (problem) return voiceError(ctx, ...problem);
	const sessionId =
		typeof input.session_id === 'string'
			? input.session_id
			: `ses_${randomBytes(8).toString('hex')}`;
	if (store.transactions.has(sessionId))
		return voiceError(ctx, 409, 'session_already_exists', `session ${sessionId} already exists`);
	const script = pendingScripts(store).get(sessionId);
	store.transactions.set(sessionId, {
		txnId: sessionId,
		businessId,
		folderPath: '',
		presigns: 0,
		initAttempts: 0,
		initsStarted: 0,
		statusCalls: 0,
		statusCallsAbandoned: 0,
		script,
	});
	templatesOfSessions(store).set(sessionId, templates as string[]);
	const createdAt = Date.now();
	// The session API (sessionStore.ts) knows every session: audio may be uploaded to it.
	registerSession(ctx.state, sessionId, businessId, input, createdAt);
	const loss = takeCreateAnswerLoss(ctx.state, sessionId);
	if (loss === 'drop') return void ctx.req.socket.destroy();
	if (loss === 'status500') return voiceError(ctx, 500, 'internal_error', 'upstream timed out');
	const origin = `http://${ctx.req.headers.host ?? '127.0.0.1'}`;
	ctx.sendJson(201, {
		session_id: sessionId,
		status: 'created',
		created_at: new Date(createdAt).toISOString(),
		expires_at: new Date(createdAt + 3_600_000).toISOString(),
		upload_url: `${origin}${SESSIONS_PATH}/${sessionId}/audio`,
	});
}

/** The templates each session was created with (a conversion without template_id uses the first). */
const sessionTemplatesByStore = new WeakMap<Store, Map<string, string[]>>();

function templatesOfSessions(store: Store): Map<string, string[]> {
	let templates = sessionTemplatesByStore.get(store);
	if (!templates) {
		templates = new Map();
		sessionTemplatesByStore.set(store, templates);
	}
	return templates;
}

export function convertToTemplate(ctx: RouteContext): void {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return;
	const store = storeOf(ctx.state);
	if (ctx.req.headers.flavour !== undefined)
		return voiceError(
			ctx,
			400,
			'invalid_request',
			'a flavour header only stores the transcript: do not send it',
		);
	const body = ctx.body;
	if (!body || !body.isJsonMediaType || !isPlainObject(body.value))
		return voiceError(
			ctx,
			400,
			'invalid_body',
			'body must be a JSON object sent as application/json',
		);
	const txn = store.transactions.get(ctx.params.txnId);
	if (!txn || txn.businessId !== businessId)
		return voiceError(ctx, 404, 'transaction_not_found', 'transaction not found');
	const input = body.value;
	const unknown = Object.keys(input).filter(
		(key) => !['transcript', 'template_id', 'target_language'].includes(key),
	);
	if (unknown.length > 0)
		return voiceError(ctx, 400, 'invalid_field', `unknown field(s): ${unknown.join(', ')}`);
	if (typeof input.transcript !== 'string' || input.transcript.trim() === '')
		return voiceError(
			ctx,
			400,
			'invalid_request',
			'Either transcript or target_language must be provided',
		);
	const templateId = input.template_id ?? templatesOfSessions(store).get(txn.txnId)?.[0];
	if (typeof templateId !== 'string' || !knownTemplates(ctx, store).includes(templateId))
		return voiceError(ctx, 400, 'invalid_template_id', `unknown template_id ${String(templateId)}`);
	const documentId = `doc_${randomBytes(6).toString('hex')}`;
	// The status route reads the requested templates from initBody, as for an uploaded transaction.
	txn.initBody = {
		output_format_template: [{ template_id: templateId, codification_needed: false }],
		transcript: input.transcript,
	};
	txn.initAt = Date.now();
	txn.initAttempts++;
	txn.initsStarted++;
	txn.statusCalls = 0;
	ctx.sendJson(202, {
		status: 'in-progress',
		message: 'Template generation started in background',
		txn_id: txn.txnId,
		b_id: businessId,
		template_id: templateId,
		document_id: documentId,
		templates: [{ template_id: templateId, document_id: documentId }],
	});
}
