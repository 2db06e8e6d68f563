/**
 * MedLink, the service's entity linking ([EKA-MEDLINK] med-link.yaml), strict:
 *
 *   GET  /med-link/registry/        → 200 {ontologies: [{name, versions}]} (the docs' example)
 *   POST /med-link/nel/link         → 200 NELResponse for {query, ontology, version, top_k?, metadata?}
 *   POST /med-link/nel/link/batch   → 200 {results: [NELResponse, …]} for {queries (1–5), ontology,
 *                                     version, top_k?, metadata?}, one block per query in order
 *
 * Auth: `Authorization: Bearer <token>` (the spec's bearer scheme); else 401 {detail}. A body that
 * breaks the schema (6 queries, an empty query, a missing field, an unknown field, top_k outside
 * 1–10) → 422 {detail: [{loc, msg, type}]} as FastAPI answers; an ontology or version the registry
 * does not list → 422 too (the docs say only "fetch valid values from the registry": assumed).
 *
 * Codes come from MEDLINK_VOCABULARY (case and spacing ignored); a term it does not know gets no
 * candidate (`results: []`). Faults: the fake's own mechanism (injectFault on these paths).
 */
import type { RouteContext, RouteDefinition } from '../types';

export const MEDLINK_REGISTRY = {
	ontologies: [
		{ name: 'snomed', versions: ['20250401_extended'] },
		{ name: 'loinc', versions: ['v1.0'] },
		{ name: 'medication', versions: ['v5.0'] },
		{ name: 'icd-10-cm', versions: ['comprehend'] },
	],
};

interface Candidate {
	term_id: string;
	term_name: string;
	score: number | null;
	is_linked: boolean;
	metadata?: Record<string, unknown>;
}

const linked = (term_id: string, term_name: string, score: number | null = 0.97): Candidate => ({
	term_id,
	term_name,
	score,
	is_linked: true,
});

/** Known terms per ontology (lower case). Tests use these; anything else has no candidate. */
export const MEDLINK_VOCABULARY: Record<string, Record<string, Candidate[]>> = {
	snomed: {
		fever: [linked('386661006', 'Fever')],
		बुखार: [linked('386661006', 'Fever', 0.93)],
		खांसी: [linked('49727002', 'Cough', 0.91)],
		cough: [linked('49727002', 'Cough')],
		hypertension: [linked('38341003', 'Hypertensive disorder')],
		'type 2 diabetes': [linked('44054006', 'Diabetes mellitus type 2')],
		'penicillin allergy': [linked('91936005', 'Allergy to penicillin')],
		headache: [linked('25064002', 'Headache', 0.99)],
		'chest pain': [linked('29857009', 'Chest pain', 1)],
		vomiting: [linked('422400008', 'Vomiting')],
		diarrhoea: [linked('62315008', 'Diarrhea')],
		'abdominal pain': [linked('21522001', 'Abdominal pain')],
		breathlessness: [linked('267036007', 'Dyspnea')],
		'back pain': [linked('161891005', 'Backache')],
		'sore throat': [linked('162397003', 'Pain in throat')],
		// The fever-and-cough visit of the fake's EMR document (routes/transcription/documents.ts).
		'dry cough': [linked('11833005', 'Dry cough', 0.95)],
		'acute upper respiratory tract infection': [
			linked('54150009', 'Upper respiratory infection', 0.9),
		],
		// Linked, but with a low score.
		'feeling off': [linked('367391008', 'Malaise', 0.32)],
		// A candidate the service does not link.
		'general weakness': [
			{ term_id: '13791008', term_name: 'Asthenia', score: 0.41, is_linked: false },
		],
	},
	loinc: {
		haemoglobin: [
			{
				...linked('718-7', 'HEMOGLOBIN (HB) [Mass/Vol]', 1),
				metadata: { unit_normalised: 'g/dl' },
			},
			{
				term_id: '59260-0',
				term_name: 'HEMOGLOBIN (Hb) [Moles/Vol]',
				score: 0.5,
				is_linked: false,
			},
		],
		hemoglobin: [
			{
				...linked('718-7', 'HEMOGLOBIN (HB) [Mass/Vol]', 1),
				metadata: { unit_normalised: 'g/dl' },
			},
		],
		'complete blood count (cbc)': [linked('58410-2', 'CBC panel - Blood by Automated count', 0.9)],
		hba1c: [
			{
				...linked('4548-4', 'HEMOGLOBIN A1C/HEMOGLOBIN.TOTAL [Mass fraction]', 0.95),
				metadata: { unit_normalised: '%' },
			},
		],
	},
	'icd-10-cm': {
		'type 2 diabetes': [
			linked('E11', 'Type 2 diabetes mellitus', 0.91),
			{
				term_id: 'E11.9',
				term_name: 'Type 2 diabetes mellitus without complications',
				score: 0.83,
				is_linked: false,
			},
		],
		hypertension: [linked('I10', 'Essential (primary) hypertension', 0.9)],
		fever: [linked('R50.9', 'Fever, unspecified', 0.88)],
		cough: [linked('R05.9', 'Cough, unspecified', 0.87)],
		'acute upper respiratory tract infection': [
			linked('J06.9', 'Acute upper respiratory infection, unspecified', 0.92),
		],
	},
	medication: {
		'paracetamol 500 mg': [linked('b-1000000001', 'Paracetamol 500 mg Tablet', null)],
		amoxicillin: [linked('b-1000000002', 'Amoxicillin 500 mg Capsule', null)],
		'dolo 650': [linked('b-4117370658', 'Dolo 650 Tablet', null)],
		'paracetamol 650 mg tablet': [linked('b-1020304050', 'Paracetamol 650 mg Tablet', null)],
		'cetirizine 10 mg tablet': [linked('b-1020304051', 'Cetirizine 10 mg Tablet', null)],
		'metformin 500 mg tablet': [linked('b-200', 'Metformin 500 mg Tablet', null)],
	},
};

export const MEDLINK_REGISTRY_ROUTE = '/med-link/registry/';
export const MEDLINK_LINK_ROUTE = '/med-link/nel/link';
export const MEDLINK_BATCH_ROUTE = '/med-link/nel/link/batch';
const MAX_BATCH = 5;

export const medLinkRoutes: readonly RouteDefinition[] = [
	{
		method: 'GET',
		pattern: MEDLINK_REGISTRY_ROUTE,
		body: 'none',
		errorStyle: 'envelope',
		handler: registry,
	},
	{
		method: 'POST',
		pattern: MEDLINK_LINK_ROUTE,
		body: 'json',
		errorStyle: 'envelope',
		handler: linkOne,
	},
	{
		method: 'POST',
		pattern: MEDLINK_BATCH_ROUTE,
		body: 'json',
		errorStyle: 'envelope',
		handler: linkBatch,
	},
];

function registry(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	if ([...ctx.query.keys()].length > 0 || ctx.record.bodyLength > 0)
		return invalid(ctx, ['query'], 'the registry takes no query and no body', 'extra_forbidden');
	ctx.sendJson(200, MEDLINK_REGISTRY);
}

/** The fields a link request takes beside its query (or queries), as med-link.yaml lists them. */
const LINK_FIELDS = ['ontology', 'version', 'top_k', 'metadata', 'request_id'];

function linkOne(ctx: RouteContext): void {
	const body = checkedBody(ctx, ['query', ...LINK_FIELDS]);
	if (!body) return;
	if (typeof body.query !== 'string' || body.query.length === 0)
		return invalid(
			ctx,
			['body', 'query'],
			'String should have at least 1 character',
			'string_too_short',
		);
	const target = checkedTarget(ctx, body);
	if (!target) return;
	ctx.sendJson(200, block(body.query, target, body.request_id));
}

function linkBatch(ctx: RouteContext): void {
	const body = checkedBody(ctx, ['queries', ...LINK_FIELDS]);
	if (!body) return;
	const queries = body.queries;
	if (!Array.isArray(queries) || queries.some((q) => typeof q !== 'string'))
		return invalid(
			ctx,
			['body', 'queries'],
			'Input should be a valid list of strings',
			'list_type',
		);
	if (queries.length === 0)
		return invalid(
			ctx,
			['body', 'queries'],
			'List should have at least 1 item after validation, not 0',
			'too_short',
		);
	if (queries.length > MAX_BATCH)
		return invalid(
			ctx,
			['body', 'queries'],
			`List should have at most ${MAX_BATCH} items after validation, not ${queries.length}`,
			'too_long',
		);
	const target = checkedTarget(ctx, body);
	if (!target) return;
	ctx.sendJson(200, {
		results: (queries as string[]).map((q) => block(q, target, body.request_id)),
	});
}

interface Target {
	ontology: string;
	version: string;
	topK: number;
}

function block(query: string, target: Target, requestId: unknown): Record<string, unknown> {
	const key = query.replace(/\s+/g, ' ').trim().toLocaleLowerCase();
	const candidates = MEDLINK_VOCABULARY[target.ontology][key] ?? [];
	return {
		request_id: typeof requestId === 'string' ? requestId : '00000000-0000-4000-8000-000000000000',
		query,
		query_breakdown: null,
		ontology: target.ontology,
		version: target.version,
		index_name: `${target.ontology}_${target.version}`,
		model_version: null,
		results: candidates.slice(0, target.topK),
	};
}

function checkedBody(ctx: RouteContext, allowed: string[]): Record<string, unknown> | undefined {
	if (!authorised(ctx)) return undefined;
	const value = ctx.body?.value;
	if (
		!ctx.body?.isJsonMediaType ||
		typeof value !== 'object' ||
		value === null ||
		Array.isArray(value)
	) {
		invalid(ctx, ['body'], 'Input should be a valid JSON object', 'model_attributes_type');
		return undefined;
	}
	const body = value as Record<string, unknown>;
	const extra = Object.keys(body).find((key) => !allowed.includes(key));
	if (extra !== undefined) {
		invalid(ctx, ['body', extra], 'Extra inputs are not permitted', 'extra_forbidden');
		return undefined;
	}
	return body;
}

function checkedTarget(ctx: RouteContext, body: Record<string, unknown>): Target | undefined {
	const entry = MEDLINK_REGISTRY.ontologies.find((o) => o.name === body.ontology);
	if (!entry) {
		invalid(ctx, ['body', 'ontology'], 'ontology is not in the registry', 'value_error');
		return undefined;
	}
	if (typeof body.version !== 'string' || !entry.versions.includes(body.version)) {
		invalid(
			ctx,
			['body', 'version'],
			'version is not in the registry for this ontology',
			'value_error',
		);
		return undefined;
	}
	const topK = body.top_k ?? 5;
	if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 1 || topK > 10) {
		invalid(ctx, ['body', 'top_k'], 'Input should be an integer from 1 to 10', 'int_type');
		return undefined;
	}
	if (
		body.metadata !== undefined &&
		(typeof body.metadata !== 'object' || body.metadata === null)
	) {
		invalid(ctx, ['body', 'metadata'], 'Input should be a valid dictionary', 'dict_type');
		return undefined;
	}
	return { ontology: entry.name, version: body.version, topK };
}

function invalid(ctx: RouteContext, loc: string[], msg: string, type: string): void {
	ctx.sendJson(422, { detail: [{ loc, msg, type }] });
}

/** The spec's bearer scheme; false after answering 401. */
function authorised(ctx: RouteContext): boolean {
	const header = ctx.req.headers.authorization;
	const match = typeof header === 'string' ? /^Bearer (.+)$/.exec(header) : null;
	if (ctx.req.headers.auth !== undefined) {
		ctx.sendJson(401, { detail: 'MedLink takes the token as Authorization: Bearer, not auth' });
		return false;
	}
	if (!ctx.state.tokens.checkAccess(match ? match[1] : undefined).valid) {
		ctx.sendJson(401, { detail: 'Not authenticated' });
		return false;
	}
	return true;
}
