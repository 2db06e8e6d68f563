/**
 * The workspace's templates ([EKA-OAS] `/voice/api/v1/template`), strict as the other routes:
 *
 *   GET    /voice/api/v1/template               → 200 {items:[{id, title, desc, section_ids, default, is_favorite}]}
 *   POST   /voice/api/v1/template               {title*, desc?, section_ids*:[], type?:"custom"} → 201 {msg, template_id}
 *   PATCH  /voice/api/v1/template/:templateId   any of {title, desc, section_ids} → 200 {msg}
 *   DELETE /voice/api/v1/template/:templateId   → 200 {msg} (archives: no longer listed or usable)
 *
 * Bearer token; with the public variant a token issued to a client also needs `client-id` (its
 * client id); a `client-id` that does not match is refused with either variant. No GET of one
 * template (405, as [EKA-OAS] has none). Refusals as [EKA-SCRIBE] gives them (every 4xx → 400
 * BAD_REQUEST with a message) by default, or as [EKA-OAS] documents them (404 unknown id, 422 bad body) with
 * `fakeTemplates(api).errorStyle = 'docs'`. Seeded with the service's two defaults and one custom
 * template (`tpl-soap-note`, the id Upload Audio's tests use); init accepts every listed id.
 */
import { BUSINESS } from '../fixtures';
import type { FakeClinicState, RouteContext, RouteDefinition } from '../types';
import { isPlainObject } from './transcription/store';

export const TEMPLATES_PATH = '/voice/api/v1/template';
export const TEMPLATE_PATH = `${TEMPLATES_PATH}/:templateId`;

/** Section ids the fake workspace knows; any other in section_ids is refused. */
export const KNOWN_SECTION_IDS = ['sec_history', 'sec_examination', 'sec_plan'];

export interface FakeTemplate {
	id: string;
	title: string;
	desc: string;
	section_ids: string[];
	default: boolean;
	is_favorite: boolean;
	archived: boolean;
}

export interface TemplateStore {
	templates: Map<string, FakeTemplate>;
	/** 'backend' (default, [EKA-SCRIBE]): every 4xx answered as 400 BAD_REQUEST; 'docs' ([EKA-OAS]): 404 / 422. */
	errorStyle: 'backend' | 'docs';
	/** Every request body the routes accepted, in order (creates and updates). */
	accepted: Array<{ method: string; templateId?: string; body: Record<string, unknown> }>;
	nextId: number;
}

export const SEEDED_TEMPLATES: readonly FakeTemplate[] = Object.freeze([
	{
		id: 'clinical_notes_template',
		title: 'Clinical Notes',
		desc: 'Standard clinical note',
		section_ids: [],
		default: true,
		is_favorite: false,
		archived: false,
	},
	{
		id: 'transcript_template',
		title: 'Transcript',
		desc: 'The conversation as text',
		section_ids: [],
		default: true,
		is_favorite: false,
		archived: false,
	},
	{
		id: 'tpl-soap-note',
		title: 'SOAP Note',
		desc: 'Write a SOAP note: ## Subjective, ## Objective, ## Assessment, ## Plan',
		section_ids: ['sec_history', 'sec_plan'],
		default: false,
		is_favorite: true,
		archived: false,
	},
]);

const stores = new WeakMap<FakeClinicState, TemplateStore>();

export function templateStoreOf(state: FakeClinicState): TemplateStore {
	let store = stores.get(state);
	if (!store) {
		store = { templates: new Map(), errorStyle: 'backend', accepted: [], nextId: 1 };
		resetTemplateStore(store);
		stores.set(state, store);
	}
	return store;
}

export function resetTemplateStore(store: TemplateStore): void {
	store.templates.clear();
	for (const template of SEEDED_TEMPLATES)
		store.templates.set(template.id, { ...template, section_ids: [...template.section_ids] });
	store.errorStyle = 'backend';
	store.accepted.length = 0;
	store.nextId = 1;
}

/** In-process control for tests: the store of this fake API. */
export function fakeTemplates(api: { state: FakeClinicState }): TemplateStore {
	return templateStoreOf(api.state);
}

/** Ids a transcription may use: every template listed (not archived). */
export function activeTemplateIds(state: FakeClinicState): string[] {
	return [...templateStoreOf(state).templates.values()].filter((t) => !t.archived).map((t) => t.id);
}

export const templateRoutes: readonly RouteDefinition[] = [
	{
		method: 'GET',
		pattern: TEMPLATES_PATH,
		body: 'none',
		errorStyle: 'envelope',
		faultErrorCodes: { 400: 'BAD_REQUEST' },
		handler: listTemplates,
	},
	{
		method: 'POST',
		pattern: TEMPLATES_PATH,
		body: 'json',
		errorStyle: 'envelope',
		faultErrorCodes: { 400: 'BAD_REQUEST' },
		handler: createTemplate,
	},
	{
		method: 'PATCH',
		pattern: TEMPLATE_PATH,
		body: 'json',
		errorStyle: 'envelope',
		faultErrorCodes: { 400: 'BAD_REQUEST' },
		handler: updateTemplate,
	},
	{
		method: 'DELETE',
		pattern: TEMPLATE_PATH,
		body: 'none',
		errorStyle: 'envelope',
		faultErrorCodes: { 400: 'BAD_REQUEST' },
		handler: deleteTemplate,
	},
];

function listTemplates(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	if ([...ctx.query.keys()].length > 0)
		return refuse(
			ctx,
			'invalid',
			`unexpected query parameter(s): ${[...new Set(ctx.query.keys())].join(', ')}`,
		);
	const items = [...templateStoreOf(ctx.state).templates.values()]
		.filter((template) => !template.archived)
		.map(({ archived: _archived, ...template }) => template);
	ctx.sendJson(200, { items });
}

function createTemplate(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const body = jsonObject(ctx);
	if (!body) return;
	const unknown = Object.keys(body).filter(
		(key) => !['title', 'desc', 'section_ids', 'type'].includes(key),
	);
	if (unknown.length > 0) return refuse(ctx, 'invalid', `unknown field(s): ${unknown.join(', ')}`);
	if (typeof body.title !== 'string' || body.title.trim() === '')
		return refuse(ctx, 'invalid', 'title is required');
	if (body.desc !== undefined && typeof body.desc !== 'string')
		return refuse(ctx, 'invalid', 'desc must be a string');
	if (body.section_ids === undefined) return refuse(ctx, 'invalid', 'section_ids is required');
	const sectionProblem = sectionIdsProblem(body.section_ids);
	if (sectionProblem) return refuse(ctx, 'invalid', sectionProblem);
	if (body.type !== undefined && body.type !== 'custom')
		return refuse(ctx, 'invalid', 'type must be custom');
	const store = templateStoreOf(ctx.state);
	const id = `tpl_fake${String(store.nextId++).padStart(4, '0')}`;
	store.templates.set(id, {
		id,
		title: body.title,
		desc: typeof body.desc === 'string' ? body.desc : '',
		section_ids: [...(body.section_ids as string[])],
		default: false,
		is_favorite: false,
		archived: false,
	});
	store.accepted.push({ method: 'POST', body });
	ctx.sendJson(201, { msg: 'created successfully', template_id: id });
}

function updateTemplate(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const body = jsonObject(ctx);
	if (!body) return;
	const template = editableTemplate(ctx);
	if (!template) return;
	const unknown = Object.keys(body).filter(
		(key) => !['title', 'desc', 'section_ids'].includes(key),
	);
	if (unknown.length > 0) return refuse(ctx, 'invalid', `unknown field(s): ${unknown.join(', ')}`);
	if (Object.keys(body).length === 0)
		return refuse(ctx, 'invalid', 'nothing to update: give title, desc or section_ids');
	if (body.title !== undefined && (typeof body.title !== 'string' || body.title.trim() === ''))
		return refuse(ctx, 'invalid', 'title must be a non-empty string');
	if (body.desc !== undefined && typeof body.desc !== 'string')
		return refuse(ctx, 'invalid', 'desc must be a string');
	const sectionProblem =
		body.section_ids === undefined ? undefined : sectionIdsProblem(body.section_ids);
	if (sectionProblem) return refuse(ctx, 'invalid', sectionProblem);
	if (typeof body.title === 'string') template.title = body.title;
	if (typeof body.desc === 'string') template.desc = body.desc;
	if (Array.isArray(body.section_ids)) template.section_ids = [...(body.section_ids as string[])];
	templateStoreOf(ctx.state).accepted.push({ method: 'PATCH', templateId: template.id, body });
	ctx.sendJson(200, { msg: 'updated successfully' });
}

function deleteTemplate(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	if (ctx.record.bodyLength > 0) return refuse(ctx, 'invalid', 'DELETE takes no body');
	const template = editableTemplate(ctx);
	if (!template) return;
	template.archived = true;
	ctx.sendJson(200, { msg: 'archived successfully' });
}

// ---------------------------------------------------------------------------------------------

/** The path's template, when it exists, is not archived and is the workspace's own; else answered. */
function editableTemplate(ctx: RouteContext): FakeTemplate | undefined {
	const store = templateStoreOf(ctx.state);
	const template = store.templates.get(ctx.params.templateId);
	if (!template || template.archived) {
		refuse(ctx, 'not-found', 'Template not found or already archived');
		return undefined;
	}
	if (template.default) {
		refuse(ctx, 'not-editable', 'Template not editable');
		return undefined;
	}
	return template;
}

function sectionIdsProblem(value: unknown): string | undefined {
	if (!Array.isArray(value) || value.some((id) => typeof id !== 'string' || id === ''))
		return 'section_ids must be an array of section ids';
	const unknown = value.filter((id) => !KNOWN_SECTION_IDS.includes(id as string));
	return unknown.length > 0 ? `unknown section id(s): ${unknown.join(', ')}` : undefined;
}

function jsonObject(ctx: RouteContext): Record<string, unknown> | undefined {
	const body = ctx.body;
	if (!body || !body.isJsonMediaType || !isPlainObject(body.value)) {
		refuse(ctx, 'invalid', 'body must be a JSON object sent as application/json');
		return undefined;
	}
	return body.value;
}

type Refusal = 'invalid' | 'not-found' | 'not-editable' | 'unauthorised';

/** A refusal as [EKA-SCRIBE] sends it (400 BAD_REQUEST for every 4xx) or as [EKA-OAS] documents it. */
function refuse(ctx: RouteContext, kind: Refusal, message: string): void {
	if (kind === 'unauthorised')
		return ctx.sendJson(401, { error: { code: 'UNAUTHORIZED', message } });
	if (templateStoreOf(ctx.state).errorStyle === 'backend')
		return ctx.sendJson(400, { error: { code: 'BAD_REQUEST', message } });
	const status = kind === 'not-found' ? 404 : kind === 'invalid' ? 422 : 400;
	const code =
		kind === 'not-found' ? 'NOT_FOUND' : kind === 'invalid' ? 'VALIDATION_ERROR' : 'BAD_REQUEST';
	ctx.sendJson(status, { error: { code, message, details: {} } });
}

/** Bearer token, and the client id where the service's SDKs send it ([EKA-PYSDK], [EKA-MCP]); false after answering 401. */
function authorised(ctx: RouteContext): boolean {
	const header = ctx.req.headers.authorization;
	const match = typeof header === 'string' ? /^Bearer (.+)$/.exec(header) : null;
	const check = ctx.state.tokens.checkAccess(match ? match[1] : undefined);
	if (!check.valid) {
		refuse(ctx, 'unauthorised', 'token expired or invalid');
		return false;
	}
	const expectedClient =
		check.subject === 'static' ? ctx.state.credentials.clientId : check.subject.clientId;
	const sent = ctx.req.headers['client-id'];
	if (sent === undefined && ctx.state.options.variant === 'public' && check.subject !== 'static') {
		refuse(ctx, 'unauthorised', 'client-id header is required');
		return false;
	}
	if (sent !== undefined && sent !== expectedClient) {
		refuse(ctx, 'unauthorised', 'client-id does not match the token');
		return false;
	}
	const business = check.subject === 'static' ? BUSINESS.business_id : check.subject.businessId;
	if (business !== BUSINESS.business_id) {
		refuse(ctx, 'unauthorised', 'workspace not found for this token');
		return false;
	}
	return true;
}
