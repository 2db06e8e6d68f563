/**
 * A stand-in for the EHR the example workflows post their clinical documents to (not part of the
 * clinic API): `npm start` points the examples' HTTP Request nodes here, so they run with no
 * internet. It checks what the examples send and records every document that arrived.
 *
 *   POST /__ehr/clinical-documents   a JSON object with a non-empty string `session_id` (the key an
 *        EHR write should be idempotent on) → 201 {id, session_id, received_at, duplicate}
 *        (`duplicate`: a document of this session arrived before; it is recorded all the same)
 *
 * No authentication. Checks (first failure wins): Content-Type JSON (415) → valid JSON (400) → a JSON
 * object (400) → session_id a non-empty string (400). Errors are `{error: {message, code}}`, never
 * echoing a value. Bodies above the framework's JSON bound get 413.
 *
 * Control (in-process through `fakeEhr(api)`, or over HTTP under /__admin/ehr/…):
 *   GET  /__admin/ehr/documents   every document received, oldest first (the last 1 000)
 *   POST /__admin/ehr/clear       forgets them
 */
import { randomBytes } from 'node:crypto';

import type {
	AdminDefinition,
	FakeClinicApi,
	FakeClinicState,
	RouteContext,
	RouteDefinition,
} from '../types';

export const EHR_DOCUMENTS_PATH = '/__ehr/clinical-documents';

const MAX_DOCUMENTS = 1000;

export interface EhrDocument {
	/** `ehr_doc_<hex>`, as answered to the sender. */
	id: string;
	session_id: string;
	/** ISO time of arrival. */
	received_at: string;
	/** A document of the same session_id had arrived before. */
	duplicate: boolean;
	/** The JSON as received. */
	body: Record<string, unknown>;
}

const stores = new WeakMap<FakeClinicState, EhrDocument[]>();

function storeOf(state: FakeClinicState): EhrDocument[] {
	let store = stores.get(state);
	if (!store) {
		store = [];
		stores.set(state, store);
	}
	return store;
}

// ---------------------------------------------------------------------------------------------
// Route
// ---------------------------------------------------------------------------------------------

export const ehrReceiverRoutes: readonly RouteDefinition[] = [
	{
		method: 'POST',
		pattern: EHR_DOCUMENTS_PATH,
		body: 'json',
		errorStyle: 'envelope',
		handler: receiveDocument,
	},
];

function receiveDocument(ctx: RouteContext): void {
	const body = ctx.body;
	if (!body || !body.isJsonMediaType)
		return sendError(ctx, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
	if (body.parseError !== undefined || body.length === 0)
		return sendError(ctx, 400, 'INVALID_REQUEST', 'Request body is not valid JSON');
	const value = body.value;
	if (!isPlainObject(value))
		return sendError(ctx, 400, 'INVALID_REQUEST', 'Request body must be a JSON object');
	if (typeof value.session_id !== 'string' || value.session_id.trim() === '')
		return sendError(ctx, 400, 'INVALID_REQUEST', 'Field session_id must be a non-empty string');
	const store = storeOf(ctx.state);
	const document: EhrDocument = {
		id: `ehr_doc_${randomBytes(8).toString('hex')}`,
		session_id: value.session_id,
		received_at: new Date().toISOString(),
		duplicate: store.some((d) => d.session_id === value.session_id),
		body: value,
	};
	store.push(document);
	if (store.length > MAX_DOCUMENTS) store.splice(0, store.length - MAX_DOCUMENTS);
	const { body: _body, ...answer } = document;
	ctx.sendJson(201, answer);
}

function sendError(ctx: RouteContext, status: number, code: string, message: string): void {
	ctx.sendJson(status, { error: { message, code } });
}

// ---------------------------------------------------------------------------------------------
// Control: in-process and /__admin/ehr/…
// ---------------------------------------------------------------------------------------------

export interface FakeEhr {
	/** Every document received, oldest first (copies). */
	documents(): EhrDocument[];
	clear(): void;
}

function controls(state: FakeClinicState): FakeEhr {
	const store = storeOf(state);
	return {
		documents: () => store.map((d) => ({ ...d, body: structuredClone(d.body) })),
		clear: () => {
			store.length = 0;
		},
	};
}

/** In-process control of a fake API's EHR receiver. */
export function fakeEhr(api: FakeClinicApi): FakeEhr {
	return controls(api.state);
}

export const ehrReceiverAdmin: readonly AdminDefinition[] = [
	{ method: 'GET', action: '/ehr/documents', handler: ({ state }) => controls(state).documents() },
	{
		method: 'POST',
		action: '/ehr/clear',
		handler: ({ state }) => {
			controls(state).clear();
			return { ok: true };
		},
	},
];

function isPlainObject(v: unknown): v is Record<string, unknown> {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}
