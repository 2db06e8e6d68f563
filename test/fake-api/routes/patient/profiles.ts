/**
 * The patient directory ([EKA-PD]), strict as the other routes:
 *
 *   POST   /profiles/v1/patient/              create body ([EKA-PD]) → 201 {oid}
 *   GET    /profiles/v1/patient/search        ?prefix=…[&limit≤50][&select=…] → 200 [{username, mobile, oid, fln, …select}]
 *   GET    /profiles/v1/patient/by-mobile/    ?mob=+<cc><number>[&full_profile=true] → 200 array ([EKA-PDTS]) or object ([EKA-PD])
 *   GET    /profiles/v1/patient/minified/     ?pageNo≥1[&pageSize≤2000][&select][&from=epoch s][&arc=true] → {profiles, currPageMeta}
 *   GET    /profiles/v1/patient/:oid          → 200 profile ([EKA-PD])
 *   PATCH  /profiles/v1/patient/:oid          any create field → 200 {message}
 *   DELETE /profiles/v1/patient/:oid          → 200 {message} (archived: no longer found, listed only with arc=true)
 *
 * Every call needs `Authorization: Bearer <token>` and `client-id` equal to the token's client id
 * (the static token's: the credential's client id). Trailing slashes are as [EKA-PD] writes them and
 * are not optional. Errors as [EKA-PD]: 400 {error:{message, code:"invalid_request"}}, 404 {message:"Not
 * found", code:"profile_not_found"}, 401 without body detail. Create/update accept both readings
 * of the conflicts (mobile with country code or digits + ccd; `bloodgroup` or `bg`) and record which
 * was sent (`accepted`). Names are stored lower-cased, as [EKA-PD] says.
 *
 * Control: `fakePatientDirectory(api)` (store, byMobileForm 'array' | 'object', reset).
 */
import type { FakeClinicApi, FakeClinicState, RouteContext, RouteDefinition } from '../../types';
import { isPlainObject } from '../transcription/store';

export const PATIENTS_BASE = '/profiles/v1/patient';
export const WORKSPACE_ID = '77088166996724';

export interface FakeProfile {
	oid: string;
	wid: string;
	ps: 'P';
	c_ate: number;
	u_ate: number;
	arc: boolean;
	fn?: string;
	mn?: string;
	ln?: string;
	fln: string;
	gen: 'M' | 'F' | 'O';
	dob: string;
	is_age?: boolean;
	mobile?: string;
	ccd?: string;
	email?: string;
	username?: string;
	s?: string;
	abha?: string;
	bg?: string;
	extras?: Record<string, unknown>;
}

export interface PatientDirectoryStore {
	profiles: Map<string, FakeProfile>;
	/** 'array' ([EKA-PDTS], [EKA-PD-TSDOC]; default) or 'object' ([EKA-PD]'s 200 schema: the first match). */
	byMobileForm: 'array' | 'object';
	/** Bodies the routes accepted (creates and updates), in order. */
	accepted: Array<{ method: string; oid?: string; body: Record<string, unknown> }>;
	nextOid: number;
}

export const SEEDED_PROFILES: readonly FakeProfile[] = Object.freeze([
	{
		oid: '175074536120088',
		wid: WORKSPACE_ID,
		ps: 'P',
		c_ate: 1750745358,
		u_ate: 1750745358,
		arc: false,
		fn: 'ravi',
		ln: 'kumar',
		fln: 'ravi kumar',
		gen: 'M',
		dob: '1985-04-12',
		mobile: '9876543210',
		ccd: '+91',
		email: 'ravi.kumar@example.com',
		username: 'UHID-0042',
		s: 'Mr.',
		bg: 'B+',
	},
	{
		oid: '175074536120089',
		wid: WORKSPACE_ID,
		ps: 'P',
		c_ate: 1750831758,
		u_ate: 1760000000,
		arc: false,
		fn: 'priya',
		ln: 'kumar',
		fln: 'priya kumar',
		gen: 'F',
		dob: '1988-09-30',
		mobile: '9876543210',
		ccd: '+91',
		username: 'UHID-0043',
	},
	{
		oid: '175074536120090',
		wid: WORKSPACE_ID,
		ps: 'P',
		c_ate: 1751918158,
		u_ate: 1751918158,
		arc: false,
		fn: 'arjun',
		ln: 'mehta',
		fln: 'arjun mehta',
		gen: 'M',
		dob: '1979-01-05',
		mobile: '9123456780',
		ccd: '+91',
		username: 'RAV-100',
		abha: 'arjun@abdm',
	},
]);

const stores = new WeakMap<FakeClinicState, PatientDirectoryStore>();

export function patientDirectoryOf(state: FakeClinicState): PatientDirectoryStore {
	let store = stores.get(state);
	if (!store) {
		store = { profiles: new Map(), byMobileForm: 'array', accepted: [], nextOid: 1 };
		resetPatientDirectory(store);
		stores.set(state, store);
	}
	return store;
}

export function resetPatientDirectory(store: PatientDirectoryStore): void {
	store.profiles.clear();
	for (const profile of SEEDED_PROFILES) store.profiles.set(profile.oid, { ...profile });
	store.byMobileForm = 'array';
	store.accepted.length = 0;
	store.nextOid = 1;
}

/** In-process control for tests. */
export function fakePatientDirectory(
	api: FakeClinicApi,
): PatientDirectoryStore & { reset(): void } {
	const store = patientDirectoryOf(api.state);
	return Object.assign(store, { reset: () => resetPatientDirectory(store) });
}

export const patientDirectoryRoutes: readonly RouteDefinition[] = [
	{
		method: 'POST',
		pattern: `${PATIENTS_BASE}/`,
		body: 'json',
		errorStyle: 'envelope',
		handler: createProfile,
	},
	{
		method: 'GET',
		pattern: `${PATIENTS_BASE}/search`,
		body: 'none',
		errorStyle: 'envelope',
		handler: searchProfiles,
	},
	{
		method: 'GET',
		pattern: `${PATIENTS_BASE}/by-mobile/`,
		body: 'none',
		errorStyle: 'envelope',
		handler: profilesByMobile,
	},
	{
		method: 'GET',
		pattern: `${PATIENTS_BASE}/minified/`,
		body: 'none',
		errorStyle: 'envelope',
		handler: listProfiles,
	},
	{
		method: 'GET',
		pattern: `${PATIENTS_BASE}/:oid`,
		body: 'none',
		errorStyle: 'envelope',
		faultErrorCodes: { 404: 'profile_not_found' },
		handler: getProfile,
	},
	{
		method: 'PATCH',
		pattern: `${PATIENTS_BASE}/:oid`,
		body: 'json',
		errorStyle: 'envelope',
		handler: updateProfile,
	},
	{
		method: 'DELETE',
		pattern: `${PATIENTS_BASE}/:oid`,
		body: 'none',
		errorStyle: 'envelope',
		handler: archiveProfile,
	},
];

const WRITABLE = [
	'fn',
	'mn',
	'ln',
	'fln',
	's',
	'gen',
	'dob',
	'email',
	'abha',
	'mobile',
	'ccd',
	'username',
	'bloodgroup',
	'bg',
	'is_age',
	'extras',
];
const BLOOD_GROUPS = ['A+', 'A-', 'B+', 'B-', 'AB+', 'AB-', 'O+', 'O-'];
const SELECTABLE = ['abha', 'c_ate', 'dob', 'gen', 'u_ate', 'is_age'];

function createProfile(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	if ([...ctx.query.keys()].length > 0) return invalid(ctx, 'unexpected query parameter(s)');
	const body = jsonObject(ctx);
	if (!body) return;
	const problem = fieldsProblem(ctx, body, undefined);
	if (problem) return invalid(ctx, problem);
	if (typeof body.dob !== 'string') return invalid(ctx, 'dob is required');
	if (typeof body.gen !== 'string') return invalid(ctx, 'gen is required');
	if (typeof body.fn !== 'string' && typeof body.fln !== 'string')
		return invalid(ctx, 'fn or fln is required');
	const store = patientDirectoryOf(ctx.state);
	const oid = `17507453612${String(1000 + store.nextOid++)}`;
	const now = Math.floor(Date.now() / 1000);
	const profile: FakeProfile = {
		oid,
		wid: WORKSPACE_ID,
		ps: 'P',
		c_ate: now,
		u_ate: now,
		arc: false,
		fln: '',
		gen: 'O',
		dob: '',
	};
	applyFields(profile, body);
	store.profiles.set(oid, profile);
	store.accepted.push({ method: 'POST', body });
	ctx.sendJson(201, { oid });
}

function getProfile(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	if ([...ctx.query.keys()].length > 0) return invalid(ctx, 'unexpected query parameter(s)');
	const profile = liveProfile(ctx);
	if (!profile) return;
	ctx.sendJson(200, publicProfile(profile));
}

function updateProfile(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const body = jsonObject(ctx);
	if (!body) return;
	const profile = liveProfile(ctx);
	if (!profile) return;
	if (Object.keys(body).length === 0) return invalid(ctx, 'nothing to update');
	const problem = fieldsProblem(ctx, body, profile.oid);
	if (problem) return invalid(ctx, problem);
	applyFields(profile, body);
	profile.u_ate = Math.max(profile.u_ate + 1, Math.floor(Date.now() / 1000));
	patientDirectoryOf(ctx.state).accepted.push({ method: 'PATCH', oid: profile.oid, body });
	ctx.sendJson(200, { message: 'Profile updated successfully' });
}

function archiveProfile(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	if (ctx.record.bodyLength > 0) return invalid(ctx, 'DELETE takes no body');
	const profile = liveProfile(ctx);
	if (!profile) return;
	profile.arc = true;
	ctx.sendJson(200, { message: 'Profile archived successfully' });
}

function profilesByMobile(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const unknown = [...ctx.query.keys()].filter((key) => key !== 'mob' && key !== 'full_profile');
	if (unknown.length > 0)
		return invalid(ctx, `unexpected query parameter(s): ${[...new Set(unknown)].join(', ')}`);
	const mobs = ctx.query.getAll('mob');
	// [EKA-PD]: "+<country_code><number>"; the fake takes only that reading.
	if (mobs.length !== 1 || !/^\+\d{8,15}$/.test(mobs[0]))
		return invalid(ctx, 'mob must be one number as +<country code><number>');
	const full = ctx.query.getAll('full_profile');
	if (full.length > 1 || (full.length === 1 && full[0] !== 'true'))
		return invalid(ctx, 'full_profile must be true when given');
	const found = [...patientDirectoryOf(ctx.state).profiles.values()].filter(
		(p) => !p.arc && p.mobile !== undefined && `${p.ccd ?? ''}${p.mobile}` === mobs[0],
	);
	if (found.length === 0) return notFound(ctx);
	const shaped = found.map((p) =>
		full.length === 1
			? publicProfile(p)
			: pick(p, ['oid', 'username', 'fln', 'gen', 'dob', 'abha', 'ccd', 'ps', 'mobile']),
	);
	ctx.sendJson(200, patientDirectoryOf(ctx.state).byMobileForm === 'object' ? shaped[0] : shaped);
}

function searchProfiles(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const unknown = [...ctx.query.keys()].filter(
		(key) => !['prefix', 'limit', 'select'].includes(key),
	);
	if (unknown.length > 0)
		return invalid(ctx, `unexpected query parameter(s): ${[...new Set(unknown)].join(', ')}`);
	const prefixes = ctx.query.getAll('prefix');
	if (prefixes.length !== 1 || prefixes[0].trim() === '') return invalid(ctx, 'prefix is required');
	const limit = optionalInteger(ctx, 'limit', 1, 50);
	if (limit === null) return;
	const select = selectFields(ctx);
	if (!select) return;
	const prefix = prefixes[0].toLowerCase();
	const found = [...patientDirectoryOf(ctx.state).profiles.values()]
		.filter((p) => !p.arc)
		.filter((p) =>
			[p.username, p.mobile, p.fln].some(
				(value) => typeof value === 'string' && value.toLowerCase().startsWith(prefix),
			),
		)
		.slice(0, limit ?? 100)
		.map((p) => pick(p, ['username', 'mobile', 'oid', 'fln', ...select]));
	ctx.sendJson(200, found);
}

function listProfiles(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const unknown = [...ctx.query.keys()].filter(
		(key) => !['pageNo', 'pageSize', 'select', 'from', 'arc'].includes(key),
	);
	if (unknown.length > 0)
		return invalid(ctx, `unexpected query parameter(s): ${[...new Set(unknown)].join(', ')}`);
	if (ctx.query.getAll('pageNo').length !== 1) return invalid(ctx, 'pageNo is required');
	const pageNo = optionalInteger(ctx, 'pageNo', 1, 1_000_000);
	if (pageNo === null || pageNo === undefined) return;
	const pageSize = optionalInteger(ctx, 'pageSize', 1, 2000);
	if (pageSize === null) return;
	const from = optionalInteger(ctx, 'from', 0, 99_999_999_999);
	if (from === null) return;
	const arc = ctx.query.getAll('arc');
	if (arc.length > 1 || (arc.length === 1 && arc[0] !== 'true'))
		return invalid(ctx, 'arc must be true when given');
	const select = selectFields(ctx);
	if (!select) return;
	const size = pageSize ?? 500;
	const all = [...patientDirectoryOf(ctx.state).profiles.values()]
		.filter((p) => arc.length === 1 || !p.arc)
		.filter((p) => from === undefined || p.c_ate > from)
		.sort((a, b) => a.c_ate - b.c_ate || a.oid.localeCompare(b.oid));
	const page = all.slice((pageNo - 1) * size, pageNo * size);
	const more = pageNo * size < all.length;
	ctx.sendJson(200, {
		profiles: page.map((p) =>
			pick(p, ['mobile', 'oid', 'username', 'fln', 'arc', 'wid', ...select]),
		),
		currPageMeta: { currPageNo: pageNo, pageSize: size, nextPage: more ? pageNo + 1 : -1 },
	});
}

// ---------------------------------------------------------------------------------------------

function fieldsProblem(
	ctx: RouteContext,
	body: Record<string, unknown>,
	ownOid: string | undefined,
): string | undefined {
	const unknown = Object.keys(body).filter((key) => !WRITABLE.includes(key));
	if (unknown.length > 0) return `unknown field(s): ${unknown.join(', ')}`;
	for (const key of ['fn', 'mn', 'ln', 'fln', 's', 'email', 'abha', 'username', 'ccd']) {
		if (
			body[key] !== undefined &&
			(typeof body[key] !== 'string' || (body[key] as string).trim() === '')
		)
			return `${key} must be a non-empty string`;
	}
	if (body.dob !== undefined && (typeof body.dob !== 'string' || !isCalendarDate(body.dob)))
		return 'dob must be YYYY-MM-DD';
	if (body.gen !== undefined && !['M', 'F', 'O'].includes(body.gen as string))
		return 'Invalid Gender Enum';
	if (body.bloodgroup !== undefined && body.bg !== undefined)
		return 'give bloodgroup or bg, not both';
	const group = body.bloodgroup ?? body.bg;
	if (group !== undefined && !BLOOD_GROUPS.includes(group as string)) return 'invalid blood group';
	if (body.is_age !== undefined && typeof body.is_age !== 'boolean')
		return 'is_age must be a boolean';
	if (body.email !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(body.email as string))
		return 'invalid email';
	if (body.mobile !== undefined) {
		if (typeof body.mobile !== 'string') return 'mobile must be a string';
		// [EKA-PD]: "+<cc><number>"; [EKA-PDTS]: 6–15 digits with ccd.
		const withCode = /^\+\d{8,15}$/.test(body.mobile);
		const digitsWithCcd =
			/^\d{6,15}$/.test(body.mobile) &&
			typeof body.ccd === 'string' &&
			/^\+\d{1,4}$/.test(body.ccd);
		if (!withCode && !digitsWithCcd)
			return 'mobile must have its country code (+916000000000), or be digits with ccd';
	} else if (body.ccd !== undefined) return 'ccd without mobile';
	if (body.extras !== undefined && !isPlainObject(body.extras)) return 'extras must be an object';
	if (typeof body.username === 'string') {
		const taken = [...patientDirectoryOf(ctx.state).profiles.values()].some(
			(p) => p.username === body.username && p.oid !== ownOid && !p.arc,
		);
		if (taken) return 'username already exists in this workspace';
	}
	return undefined;
}

function applyFields(profile: FakeProfile, body: Record<string, unknown>): void {
	const lower = (value: unknown) => (value as string).trim().toLowerCase();
	for (const key of ['fn', 'mn', 'ln'] as const)
		if (body[key] !== undefined) profile[key] = lower(body[key]);
	if (body.fln !== undefined) profile.fln = lower(body.fln);
	else if (body.fn !== undefined || body.mn !== undefined || body.ln !== undefined)
		profile.fln = [profile.fn, profile.mn, profile.ln].filter(Boolean).join(' ');
	for (const key of ['s', 'abha', 'username', 'dob'] as const)
		if (body[key] !== undefined) profile[key] = body[key] as string;
	if (body.email !== undefined) profile.email = lower(body.email);
	if (body.gen !== undefined) profile.gen = body.gen as FakeProfile['gen'];
	if (body.is_age !== undefined) profile.is_age = body.is_age as boolean;
	const group = body.bloodgroup ?? body.bg;
	if (group !== undefined) profile.bg = group as string;
	if (typeof body.mobile === 'string') {
		const match = /^(\+91|\+\d{1,3})(\d{6,12})$/.exec(body.mobile);
		if (body.mobile.startsWith('+') && match) {
			const ccd = body.mobile.startsWith('+91') ? '+91' : match[1];
			profile.ccd = ccd;
			profile.mobile = body.mobile.slice(ccd.length);
		} else {
			profile.mobile = body.mobile;
			profile.ccd = body.ccd as string;
		}
	}
	if (isPlainObject(body.extras)) profile.extras = { ...body.extras };
}

function publicProfile(profile: FakeProfile): Record<string, unknown> {
	const { arc: _arc, ...rest } = profile;
	return rest;
}

function pick(profile: FakeProfile, keys: string[]): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const key of keys)
		if ((profile as unknown as Record<string, unknown>)[key] !== undefined)
			out[key] = (profile as unknown as Record<string, unknown>)[key];
	return out;
}

function selectFields(ctx: RouteContext): string[] | undefined {
	const values = ctx.query.getAll('select');
	if (values.length > 1) {
		invalid(ctx, 'select given more than once');
		return undefined;
	}
	if (values.length === 0) return [];
	const fields = values[0].split(',');
	const bad = fields.filter((field) => !SELECTABLE.includes(field));
	if (bad.length > 0) {
		invalid(ctx, `select: unknown field(s) ${bad.join(', ')}`);
		return undefined;
	}
	return fields;
}

/** The parameter as an integer within bounds; undefined when absent; null after answering 400. */
function optionalInteger(
	ctx: RouteContext,
	name: string,
	min: number,
	max: number,
): number | undefined | null {
	const values = ctx.query.getAll(name);
	if (values.length === 0) return undefined;
	if (
		values.length > 1 ||
		!/^\d+$/.test(values[0]) ||
		Number(values[0]) < min ||
		Number(values[0]) > max
	) {
		invalid(ctx, `${name} must be an integer from ${min} to ${max}`);
		return null;
	}
	return Number(values[0]);
}

function isCalendarDate(value: string): boolean {
	if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
	const date = new Date(`${value}T00:00:00Z`);
	return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

function liveProfile(ctx: RouteContext): FakeProfile | undefined {
	const profile = patientDirectoryOf(ctx.state).profiles.get(ctx.params.oid);
	if (!profile || profile.arc) {
		notFound(ctx);
		return undefined;
	}
	return profile;
}

function jsonObject(ctx: RouteContext): Record<string, unknown> | undefined {
	const body = ctx.body;
	if (!body || !body.isJsonMediaType || !isPlainObject(body.value)) {
		invalid(ctx, 'body must be a JSON object sent as application/json');
		return undefined;
	}
	return body.value;
}

function invalid(ctx: RouteContext, message: string): void {
	ctx.sendJson(400, { error: { message, code: 'invalid_request' } });
}

function notFound(ctx: RouteContext): void {
	ctx.sendJson(404, { message: 'Not found', code: 'profile_not_found' });
}

/** Bearer token and the matching client-id (required on every call, [EKA-PD]); false after answering 401. */
function authorised(ctx: RouteContext): boolean {
	const header = ctx.req.headers.authorization;
	const match = typeof header === 'string' ? /^Bearer (.+)$/.exec(header) : null;
	const check = ctx.state.tokens.checkAccess(match ? match[1] : undefined);
	if (!check.valid) {
		ctx.sendJson(401, { message: 'Unauthorized' });
		return false;
	}
	const expectedClient =
		check.subject === 'static' ? ctx.state.credentials.clientId : check.subject.clientId;
	const sent = ctx.req.headers['client-id'];
	if (sent === undefined) {
		ctx.sendJson(400, {
			error: { message: 'client-id header is required', code: 'invalid_request' },
		});
		return false;
	}
	if (sent !== expectedClient) {
		ctx.sendJson(401, { message: 'client-id does not match the token' });
		return false;
	}
	return true;
}
