/**
 * A session's documents ([EKA-OAS] create-update-document.mdx, get-document, delete-document and
 * list-session-documents), strict:
 *
 *   POST   /voice/api/v1/documents               Bearer; {session_id*, document_id?, template_id?,
 *          type? (context|custom|notes|integration), document_name?, status?, errors?, warnings?,
 *          usage_information?}; unknown fields or wrong types → 422; an unknown session → 404
 *          session_not_found; without document_id → 201 (a new document), with it → 200 (an update;
 *          an id unknown, deleted or of another session → 404 document_not_found: the docs list 404
 *          for the session only, the document's is our choice). The answer's data carries a
 *          presigned PUT URL on host "localhost" (not the API's 127.0.0.1: another host).
 *   GET    /voice/api/v1/documents/:documentId   200 {status, data} with a presigned GET URL; 404.
 *   DELETE /voice/api/v1/documents/:documentId   200 {status, message}; a deleted one again → 200.
 *   GET    /voice/api/v1/sessions/:sessionId     200 {status, data:{session_id, status, documents}}
 *          (deleted ones left out); `presigned=true` adds download_url; 404 unknown session.
 *   PUT    /storage/session-documents/:file      the presigned upload: 400 with any auth header,
 *          403 bad signature, 415 without Content-Type text/markdown; stores the bytes (200).
 *   GET    /storage/session-documents/:file      the presigned download (no auth header either).
 *
 * Faults: the server's own injectFault on any of these paths; `loseCreateAnswer` carries a create
 * out and then loses its answer. Control in-process through
 * `fakeSessionDocuments(api)`: the documents, the markdown stored, a seeded (generated) document.
 */
import { createHmac, randomBytes } from 'node:crypto';

import { BUSINESS } from '../../fixtures';
import type { FakeClinicApi, FakeClinicState, RouteContext, RouteDefinition } from '../../types';
import { carriesAuth, PRESIGNED_AUTH_REFUSAL } from './sessionRoutes';
import { findSession } from './sessionStore';
import { bearerBusiness, isPlainObject, voiceError } from './store';

export const DOCUMENTS_PATH = '/voice/api/v1/documents';
export const DOCUMENT_PATH = '/voice/api/v1/documents/:documentId';
export const SESSION_DOCUMENTS_PATH = '/voice/api/v1/sessions/:sessionId';
export const DOCUMENT_STORAGE_PATH = '/storage/session-documents/:file';

const DOCUMENT_TYPES = ['context', 'custom', 'notes', 'integration'];
const FIELD_TYPES: Record<string, (value: unknown) => boolean> = {
	session_id: (v) => typeof v === 'string' && v !== '',
	document_id: (v) => typeof v === 'string' && v !== '',
	template_id: (v) => typeof v === 'string',
	type: (v) => DOCUMENT_TYPES.includes(v as string),
	document_name: (v) => typeof v === 'string',
	status: (v) => typeof v === 'string',
	errors: Array.isArray,
	warnings: Array.isArray,
	usage_information: isPlainObject,
};

export interface FakeDocument {
	documentId: string;
	sessionId: string;
	businessId: string;
	templateId: string | null;
	documentName: string | null;
	/** The document's category as the listing calls it (`template`, `custom`, …). */
	type: string;
	status: string;
	createdAt: string;
	updatedAt: string;
	deleted: boolean;
	/** The stored markdown; undefined until a PUT stored it. */
	content?: Buffer;
	/** Every accepted POST body for this document, in order. */
	posts: Array<Record<string, unknown>>;
}

interface DocumentStore {
	documents: Map<string, FakeDocument>;
	/** The storage requests: header names, status, content type. */
	storageRequests: Array<{ method: string; headerNames: string[]; status: number }>;
	signingKey: Buffer;
	nextId: number;
	/** Creates still to be carried out and then have their answer lost: a 500, or the connection dropped. */
	createAnswerLosses: Array<'status500' | 'drop'>;
}

const stores = new WeakMap<FakeClinicState, DocumentStore>();

function storeOf(state: FakeClinicState): DocumentStore {
	let store = stores.get(state);
	if (!store) {
		store = {
			documents: new Map(),
			storageRequests: [],
			signingKey: randomBytes(16),
			nextId: 1,
			createAnswerLosses: [],
		};
		stores.set(state, store);
	}
	return store;
}

function signature(store: DocumentStore, method: string, file: string): string {
	return createHmac('sha256', store.signingKey).update(`${method}\n${file}`).digest('hex');
}

function presignedUrl(ctx: RouteContext, method: 'PUT' | 'GET', documentId: string): string {
	const file = `${documentId}.md`;
	const port = String(ctx.req.socket.localPort ?? 0);
	return `http://localhost:${port}/storage/session-documents/${file}?method=${method}&signature=${signature(storeOf(ctx.state), method, file)}`;
}

function documentView(ctx: RouteContext, document: FakeDocument, method: 'PUT' | 'GET') {
	return {
		document_id: document.documentId,
		session_id: document.sessionId,
		template_id: document.templateId,
		document_name: document.documentName,
		type: 'markdown',
		document_type: document.type,
		status: document.status,
		errors: [],
		warnings: [],
		usage_information: {},
		presigned_url: presignedUrl(ctx, method, document.documentId),
		created_at: document.createdAt,
		updated_at: document.updatedAt,
		publish: {},
	};
}

function saveDocument(ctx: RouteContext): void {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return;
	const body = ctx.body;
	if (!body?.isJsonMediaType || !isPlainObject(body.value))
		return voiceError(ctx, 422, 'validation_error', 'body must be a JSON object');
	const input = body.value;
	const unknown = Object.keys(input).filter((key) => !(key in FIELD_TYPES));
	if (unknown.length > 0)
		return voiceError(ctx, 422, 'validation_error', `unknown field(s): ${unknown.join(', ')}`);
	const wrong = Object.keys(input).filter((key) => !FIELD_TYPES[key](input[key]));
	if (input.session_id === undefined)
		return voiceError(ctx, 422, 'validation_error', 'session_id is required');
	if (wrong.length > 0)
		return voiceError(ctx, 422, 'validation_error', `invalid field(s): ${wrong.join(', ')}`);
	const sessionId = input.session_id as string;
	if (!findSession(ctx.state, sessionId, businessId))
		return voiceError(ctx, 404, 'session_not_found', 'Session not found');
	const store = storeOf(ctx.state);
	const now = new Date().toISOString();
	if (typeof input.document_id === 'string') {
		const document = store.documents.get(input.document_id);
		if (!document || document.deleted || document.sessionId !== sessionId)
			return voiceError(ctx, 404, 'document_not_found', 'Document not found');
		if (typeof input.template_id === 'string') document.templateId = input.template_id;
		if (typeof input.document_name === 'string') document.documentName = input.document_name;
		if (typeof input.status === 'string') document.status = input.status;
		document.updatedAt = now;
		document.posts.push(input);
		return ctx.sendJson(200, { status: 'success', data: documentView(ctx, document, 'PUT') });
	}
	const document: FakeDocument = {
		documentId: `doc_fake${String(store.nextId++).padStart(6, '0')}`,
		sessionId,
		businessId,
		templateId: typeof input.template_id === 'string' ? input.template_id : null,
		documentName: typeof input.document_name === 'string' ? input.document_name : null,
		type: typeof input.type === 'string' ? input.type : 'custom',
		status: typeof input.status === 'string' ? input.status : 'in-progress',
		createdAt: now,
		updatedAt: now,
		deleted: false,
		posts: [input],
	};
	store.documents.set(document.documentId, document);
	const loss = store.createAnswerLosses.shift();
	if (loss === 'drop') return void ctx.res.destroy();
	if (loss === 'status500') return voiceError(ctx, 500, 'internal_error', 'Internal server error');
	ctx.sendJson(201, { status: 'success', data: documentView(ctx, document, 'PUT') });
}

function ownDocument(ctx: RouteContext): FakeDocument | undefined {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return undefined;
	const document = storeOf(ctx.state).documents.get(ctx.params.documentId);
	if (!document || document.businessId !== businessId) {
		voiceError(ctx, 404, 'document_not_found', 'Document not found');
		return undefined;
	}
	return document;
}

function getDocument(ctx: RouteContext): void {
	const document = ownDocument(ctx);
	if (!document) return;
	if (document.deleted) return voiceError(ctx, 404, 'document_not_found', 'Document not found');
	ctx.sendJson(200, { status: 'success', data: documentView(ctx, document, 'GET') });
}

function deleteDocument(ctx: RouteContext): void {
	const document = ownDocument(ctx);
	if (!document) return;
	document.deleted = true;
	ctx.sendJson(200, { status: 'success', message: 'Document deleted successfully' });
}

function listSessionDocuments(ctx: RouteContext): void {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return;
	const unknown = [...ctx.query.keys()].filter((key) => key !== 'presigned');
	if (unknown.length > 0)
		return voiceError(
			ctx,
			422,
			'validation_error',
			`unknown query parameter(s): ${unknown.join(', ')}`,
		);
	const session = findSession(ctx.state, ctx.params.sessionId, businessId);
	if (!session) return voiceError(ctx, 404, 'session_not_found', 'Session not found');
	const presigned = ctx.query.get('presigned') === 'true';
	const documents = [...storeOf(ctx.state).documents.values()]
		.filter((document) => document.sessionId === session.sessionId && !document.deleted)
		.map((document) => ({
			document_id: document.documentId,
			session_id: document.sessionId,
			template_id: document.templateId,
			document_name: document.documentName,
			type: document.type,
			status: document.status,
			created_at: document.createdAt,
			download_url: presigned ? presignedUrl(ctx, 'GET', document.documentId) : null,
		}));
	ctx.sendJson(200, {
		status: 'success',
		data: {
			schema_version: '1.0',
			session_id: session.sessionId,
			status: session.state,
			created_at: new Date(session.createdAt).toISOString(),
			documents,
		},
	});
}

async function storage(ctx: RouteContext): Promise<void> {
	const store = storeOf(ctx.state);
	const method = ctx.req.method ?? '';
	const headerNames = Object.keys(ctx.req.headers);
	const body = ctx.rawBody();
	const answer = (status: number, code: string, message: string) => {
		store.storageRequests.push({ method, headerNames, status });
		body.resume();
		ctx.res.writeHead(status, { 'content-type': 'application/xml' });
		ctx.res.end(`<Error><Code>${code}</Code><Message>${message}</Message></Error>`);
	};
	if (carriesAuth(ctx)) return answer(400, 'InvalidArgument', PRESIGNED_AUTH_REFUSAL);
	const file = ctx.params.file;
	if (
		ctx.query.get('method') !== method ||
		ctx.query.get('signature') !== signature(store, method, file)
	)
		return answer(403, 'SignatureDoesNotMatch', 'bad signature');
	const document = store.documents.get(file.replace(/\.md$/, ''));
	if (!document) return answer(404, 'NoSuchKey', 'The specified key does not exist.');
	if (method === 'GET') {
		const content = document.content ?? Buffer.alloc(0);
		store.storageRequests.push({ method, headerNames, status: 200 });
		body.resume();
		ctx.res.writeHead(200, { 'content-type': 'text/markdown' });
		return void ctx.res.end(content);
	}
	const contentType = (ctx.req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	if (contentType !== 'text/markdown')
		return answer(415, 'InvalidContentType', 'Content-Type must be text/markdown');
	const chunks: Buffer[] = [];
	for await (const chunk of body) chunks.push(chunk as Buffer);
	document.content = Buffer.concat(chunks);
	store.storageRequests.push({ method, headerNames, status: 200 });
	ctx.res.writeHead(200);
	ctx.res.end();
}

export const sessionDocumentRoutes: readonly RouteDefinition[] = [
	{
		method: 'POST',
		pattern: DOCUMENTS_PATH,
		body: 'json',
		errorStyle: 'envelope',
		handler: saveDocument,
	},
	{
		method: 'GET',
		pattern: DOCUMENT_PATH,
		body: 'none',
		errorStyle: 'envelope',
		handler: getDocument,
	},
	{
		method: 'DELETE',
		pattern: DOCUMENT_PATH,
		body: 'none',
		errorStyle: 'envelope',
		handler: deleteDocument,
	},
	{
		method: 'GET',
		pattern: SESSION_DOCUMENTS_PATH,
		body: 'none',
		errorStyle: 'envelope',
		handler: listSessionDocuments,
	},
	{
		method: 'PUT',
		pattern: DOCUMENT_STORAGE_PATH,
		body: 'raw',
		errorStyle: 'envelope',
		handler: storage,
	},
	{
		method: 'GET',
		pattern: DOCUMENT_STORAGE_PATH,
		body: 'raw',
		errorStyle: 'envelope',
		handler: storage,
	},
];

export interface FakeSessionDocuments {
	documents(): FakeDocument[];
	document(documentId: string): FakeDocument | undefined;
	/** The markdown stored for the document, as text; undefined when none was stored. */
	markdown(documentId: string): string | undefined;
	/** A document as the service's processing makes it (the generated notes). */
	seed(
		sessionId: string,
		fields: { documentName?: string; templateId?: string; type?: string },
	): FakeDocument;
	storageRequests(): Array<{ method: string; headerNames: string[]; status: number }>;
	/** The next create is carried out, then its answer is lost (a 500, or the connection dropped). */
	loseCreateAnswer(kind: 'status500' | 'drop'): void;
	reset(): void;
}

export function fakeSessionDocuments(api: FakeClinicApi): FakeSessionDocuments {
	const store = storeOf(api.state);
	return {
		documents: () => [...store.documents.values()],
		document: (documentId) => store.documents.get(documentId),
		markdown: (documentId) => store.documents.get(documentId)?.content?.toString('utf8'),
		seed: (sessionId, fields) => {
			const now = new Date().toISOString();
			const document: FakeDocument = {
				documentId: `doc_seed${String(store.nextId++).padStart(6, '0')}`,
				sessionId,
				businessId: findSessionBusiness(api.state, sessionId),
				templateId: fields.templateId ?? null,
				documentName: fields.documentName ?? null,
				type: fields.type ?? 'template',
				status: 'success',
				createdAt: now,
				updatedAt: now,
				deleted: false,
				posts: [],
			};
			store.documents.set(document.documentId, document);
			return document;
		},
		storageRequests: () => [...store.storageRequests],
		loseCreateAnswer: (kind) => void store.createAnswerLosses.push(kind),
		reset: () => {
			store.createAnswerLosses.length = 0;
			store.documents.clear();
			store.storageRequests.length = 0;
			store.nextId = 1;
		},
	};
}

function findSessionBusiness(state: FakeClinicState, sessionId: string): string {
	const business = BUSINESS.business_id;
	if (!findSession(state, sessionId, business)) throw new Error(`no session ${sessionId}`);
	return business;
}
