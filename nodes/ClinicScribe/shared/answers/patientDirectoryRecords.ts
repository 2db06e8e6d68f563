/**
 * The patient directory (`/profiles/v1/patient…`, [EKA-PD]): checking what the user gives before
 * anything is sent, building the bodies, and reading the answers, whose shapes [EKA-PD], [EKA-PDTS]
 * and [EKA-MCP] disagree on. Messages never repeat a value (it is patient data).
 */
import type { IDataObject } from 'n8n-workflow';

import { epochOfWallClock, isKnownTimeZone } from '../timeZones';
import { asRecord, isRecord, textOf } from '../values';

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

interface DirectoryMobile {
	/** As the directory's `mob` and `mobile` take it: `+<country code><number>` (`+919876543210`). */
	withCountryCode: string;
	/** The national number (`9876543210`), for redaction in any spelling. */
	national: string;
}

/**
 * A mobile number as the directory expects it: [EKA-PD] says "+<country_code><number>" and
 * [EKA-MCP]'s validator `^\+91[6-9]\d{9}$` agrees; [EKA-PD-GS] and [EKA-PD-TSDOC] pass it without
 * the country code. Both are accepted from the user; [EKA-PD]'s reading is sent: a 10-digit number
 * (also written 0…, 91… or 0091…) gets +91; a number with another country code is sent as given.
 */
export function checkDirectoryMobile(value: unknown): Checked<DirectoryMobile> {
	const raw =
		typeof value === 'number' && Number.isFinite(value)
			? String(value)
			: typeof value === 'string'
				? value.trim()
				: '';
	if (raw === '') return { ok: false, problem: 'is empty' };
	const compact = raw.replace(/[\s\-.()]/g, '');
	if (!/^(\+|00)?\d+$/.test(compact)) {
		return {
			ok: false,
			problem:
				'contains characters other than digits, a leading "+", spaces, dashes, dots and brackets',
		};
	}
	const international = compact.startsWith('+')
		? compact.slice(1)
		: compact.startsWith('00')
			? compact.slice(2)
			: undefined;
	if (international !== undefined) {
		if (international.startsWith('91')) return indian(international.slice(2));
		if (international.length < 8 || international.length > 15) {
			return {
				ok: false,
				problem: `has ${international.length} digits after the country code sign: a number with its country code has 8 to 15`,
			};
		}
		return { ok: true, value: { withCountryCode: `+${international}`, national: international } };
	}
	if (compact.length === 10) return indian(compact);
	if (compact.length === 11 && compact.startsWith('0')) return indian(compact.slice(1));
	if (compact.length === 12 && compact.startsWith('91')) return indian(compact.slice(2));
	return {
		ok: false,
		problem: `has ${compact.length} digits: give the 10-digit mobile number, or the number with its country code (+91 and 10 digits)`,
	};
}

function indian(national: string): Checked<DirectoryMobile> {
	if (!/^\d{10}$/.test(national)) {
		return {
			ok: false,
			problem: `has ${national.length} digits after +91: an Indian mobile number has 10`,
		};
	}
	if (!/^[6-9]/.test(national))
		return {
			ok: false,
			problem: 'is not an Indian mobile number (after +91 it must start with 6, 7, 8 or 9)',
		};
	return { ok: true, value: { withCountryCode: `+91${national}`, national } };
}

/**
 * A calendar date (`YYYY-MM-DD`) from an n8n date (Luxon DateTime, Date), an ISO string or a plain
 * date. The date is taken as written (a birth date has no time zone): `2000-01-02T23:30:00-05:00`
 * is 2000-01-02.
 */
export function checkCalendarDate(value: unknown): Checked<string> {
	let text: string | undefined;
	if (value instanceof Date) text = Number.isNaN(value.getTime()) ? undefined : value.toISOString();
	else if (typeof value === 'object' && value !== null) {
		const toISO = (value as { toISO?: unknown }).toISO;
		text = typeof toISO === 'function' ? textOf((toISO as () => unknown).call(value)) : undefined;
	} else text = textOf(typeof value === 'number' ? undefined : value);
	if (text === undefined)
		return {
			ok: false,
			problem: typeof value === 'number' ? 'is a number, not a date' : 'is empty',
		};
	const match = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T ])/.exec(text);
	if (!match) return { ok: false, problem: 'is not a date in the form YYYY-MM-DD' };
	const date = `${match[1]}-${match[2]}-${match[3]}`;
	const parsed = new Date(`${date}T00:00:00Z`);
	if (Number.isNaN(parsed.getTime()) || !parsed.toISOString().startsWith(date))
		return { ok: false, problem: 'is not a real calendar date' };
	if (parsed.getUTCFullYear() < 1880) return { ok: false, problem: 'is before 1880' };
	return { ok: true, value: date };
}

/**
 * A point in time as epoch seconds, from an n8n date, an ISO string, or epoch seconds (a number or
 * digits; milliseconds are recognised by size). A date or date-time written without a zone (what
 * n8n's date picker gives) is read in `timeZone` (the workflow's), else UTC.
 */
export function checkEpochSeconds(
	value: unknown,
	now = Date.now(),
	timeZone = 'UTC',
): Checked<number> {
	let ms: number | undefined;
	if (typeof value === 'number' || (typeof value === 'string' && /^\s*\d+\s*$/.test(value))) {
		const n = Number(value);
		if (Number.isFinite(n)) ms = n > 1e11 ? n : n * 1000;
	} else if (value instanceof Date) {
		ms = value.getTime();
	} else if (
		typeof value === 'object' &&
		value !== null &&
		typeof (value as { toMillis?: unknown }).toMillis === 'function'
	) {
		ms = Number((value as { toMillis: () => unknown }).toMillis());
	} else if (typeof value === 'string' && value.trim() !== '') {
		const text = value.trim();
		const local = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/.exec(
			text,
		);
		if (local) {
			const [year, month, day, hour, minute, second] = local
				.slice(1)
				.map((part) => Number(part ?? 0));
			ms = zonedTimeToEpochMs([year, month, day, hour, minute, second], timeZone);
		} else if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(text)) {
			ms = Date.parse(text);
		} else {
			return {
				ok: false,
				problem: 'is not a date and time (for example 2026-01-31T09:00:00+05:30)',
			};
		}
	} else {
		return { ok: false, problem: 'is empty' };
	}
	if (ms === undefined || !Number.isFinite(ms))
		return { ok: false, problem: 'is not a valid date and time' };
	if (ms < 0) return { ok: false, problem: 'is before 1970' };
	if (ms > now + 24 * 3600 * 1000) return { ok: false, problem: 'is in the future' };
	return { ok: true, value: Math.floor(ms / 1000) };
}

/** A wall-clock time in an IANA zone as epoch milliseconds (NaN for an impossible date or zone). */
function zonedTimeToEpochMs(parts: number[], timeZone: string): number {
	const [year, month, day, hour, minute, second] = parts;
	const asUtc = Date.UTC(year, month - 1, day, hour, minute, second);
	const check = new Date(asUtc);
	if (
		check.getUTCMonth() !== month - 1 ||
		check.getUTCDate() !== day ||
		hour > 23 ||
		minute > 59 ||
		second > 59
	)
		return NaN;
	if (!isKnownTimeZone(timeZone)) return NaN;
	return epochOfWallClock({ year, month, day, hour, minute, second }, timeZone) * 1000;
}

const GENDERS = ['M', 'F', 'O'] as const;
export const BLOOD_GROUPS = ['A+', 'A-', 'B+', 'B-', 'AB+', 'AB-', 'O+', 'O-'] as const;

/** M, F or O; also the words (male, female, other) an expression may give. */
export function checkGender(value: unknown): Checked<string> {
	const text = textOf(value)?.toUpperCase();
	if (text === undefined) return { ok: false, problem: 'is empty' };
	const mapped = text === 'MALE' ? 'M' : text === 'FEMALE' ? 'F' : text === 'OTHER' ? 'O' : text;
	return (GENDERS as readonly string[]).includes(mapped)
		? { ok: true, value: mapped }
		: { ok: false, problem: 'is not M, F or O' };
}

export function checkBloodGroup(value: unknown): Checked<string> {
	const text = textOf(value)
		?.toUpperCase()
		.replace(/\s+/g, '')
		.replace(/(POSITIVE|POS|\+VE)$/, '+')
		.replace(/(NEGATIVE|NEG|-VE)$/, '-');
	if (text === undefined) return { ok: false, problem: 'is empty' };
	return (BLOOD_GROUPS as readonly string[]).includes(text)
		? { ok: true, value: text }
		: { ok: false, problem: `is not one of ${BLOOD_GROUPS.join(', ')}` };
}

function checkEmail(value: unknown): Checked<string> {
	const text = textOf(value);
	if (text === undefined) return { ok: false, problem: 'is empty' };
	return /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(text)
		? { ok: true, value: text }
		: { ok: false, problem: 'is not an e-mail address' };
}

/** The node's fields of a profile, as the user names them. */
interface ProfileFields {
	firstName?: unknown;
	middleName?: unknown;
	lastName?: unknown;
	fullName?: unknown;
	salutation?: unknown;
	dateOfBirth?: unknown;
	dobFromAge?: unknown;
	gender?: unknown;
	mobile?: unknown;
	email?: unknown;
	abha?: unknown;
	username?: unknown;
	bloodGroup?: unknown;
}

const FIELD_LABELS: Record<keyof ProfileFields, string> = {
	firstName: 'First Name',
	middleName: 'Middle Name',
	lastName: 'Last Name',
	fullName: 'Full Name',
	salutation: 'Salutation',
	dateOfBirth: 'Date of Birth',
	dobFromAge: 'Date of Birth Is From Age',
	gender: 'Gender',
	mobile: 'Mobile Number',
	email: 'Email',
	abha: 'ABHA Address',
	username: 'Username',
	bloodGroup: 'Blood Group',
};

interface ProfileBody {
	body: IDataObject;
	/** The values sent that are patient data, for redaction from any error. */
	sensitive: string[];
}

/**
 * The create / update body ([EKA-PD]). Only the fields given are sent (an update that leaves out
 * the names keeps them; `username` only when given: it must stay unique). Blood group: [EKA-PD]'s
 * create/update documents `bloodgroup`, but the profiles it returns, [EKA-PD-GS] and [EKA-PDTS] use
 * `bg`, which is sent. Mobile: sent with its country code ([EKA-PD], [EKA-MCP]), not as digits +
 * `ccd` ([EKA-PDTS]).
 */
export function buildProfileBody(
	fields: ProfileFields,
	mode: 'create' | 'update',
): Checked<ProfileBody> {
	const body: IDataObject = {};
	const sensitive: string[] = [];
	const fail = (field: keyof ProfileFields, problem: string): Checked<ProfileBody> => ({
		ok: false,
		problem: `The ${FIELD_LABELS[field]} ${problem}`,
	});
	const text = (field: keyof ProfileFields, key: string) => {
		const value = fields[field];
		if (!present(value)) return;
		const found = textOf(value);
		if (found === undefined) return `is not text`;
		body[key] = found;
		sensitive.push(found);
		return undefined;
	};
	for (const [field, key] of [
		['firstName', 'fn'],
		['middleName', 'mn'],
		['lastName', 'ln'],
		['fullName', 'fln'],
		['salutation', 's'],
		['abha', 'abha'],
		['username', 'username'],
	] as Array<[keyof ProfileFields, string]>) {
		const problem = text(field, key);
		if (problem) return fail(field, problem);
	}
	if (present(fields.dateOfBirth)) {
		const dob = checkCalendarDate(fields.dateOfBirth);
		if (!dob.ok) return fail('dateOfBirth', dob.problem);
		body.dob = dob.value;
		sensitive.push(dob.value);
	}
	if (fields.dobFromAge === true) body.is_age = true;
	if (present(fields.gender)) {
		const gender = checkGender(fields.gender);
		if (!gender.ok) return fail('gender', gender.problem);
		body.gen = gender.value;
	}
	if (present(fields.mobile)) {
		const mobile = checkDirectoryMobile(fields.mobile);
		if (!mobile.ok) return fail('mobile', mobile.problem);
		body.mobile = mobile.value.withCountryCode;
		sensitive.push(mobile.value.withCountryCode, mobile.value.national);
	}
	if (present(fields.email)) {
		const email = checkEmail(fields.email);
		if (!email.ok) return fail('email', email.problem);
		body.email = email.value;
		sensitive.push(email.value, email.value.toLowerCase());
	}
	if (present(fields.bloodGroup)) {
		const group = checkBloodGroup(fields.bloodGroup);
		if (!group.ok) return fail('bloodGroup', group.problem);
		body.bg = group.value;
	}
	if (mode === 'create') {
		if (body.fn === undefined && body.fln === undefined)
			return { ok: false, problem: 'The First Name is empty' };
		if (body.dob === undefined) return { ok: false, problem: 'The Date of Birth is empty' };
		if (body.gen === undefined) return { ok: false, problem: 'The Gender is empty' };
	} else if (Object.keys(body).length === 0) {
		return { ok: false, problem: 'No field to update was given' };
	}
	for (const value of [...sensitive]) sensitive.push(value.toLowerCase());
	return { ok: true, value: { body, sensitive: [...new Set(sensitive)] } };
}

/** Given at all: blank text counts as not given. */
function present(value: unknown): boolean {
	return (
		value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '')
	);
}

/**
 * The profiles of a by-mobile answer. [EKA-PD]'s schema: one object; [EKA-PDTS]'s type and
 * [EKA-PD-TSDOC]: an array (one mobile may hold a family). Both are read, as are `{profiles}` and
 * `{data}` wrappers.
 */
export function readDirectoryProfiles(body: unknown): IDataObject[] | undefined {
	if (Array.isArray(body)) return body.filter(isRecord);
	const record = asRecord(body);
	if (!record) return undefined;
	for (const key of ['profiles', 'data', 'patients']) {
		const inner = record[key];
		if (Array.isArray(inner)) return inner.filter(isRecord);
		if (isRecord(inner) && textOf(inner.oid) !== undefined) return [inner];
	}
	if (textOf(record.oid) !== undefined) return [record];
	return undefined;
}

/** One profile (Get): the object itself, or inside `data` / `profile`. */
export function readDirectoryProfile(body: unknown): IDataObject | undefined {
	const record = asRecord(body);
	if (!record) return undefined;
	if (textOf(record.oid) !== undefined) return record;
	for (const key of ['data', 'profile']) {
		const inner = asRecord(record[key]);
		if (inner && textOf(inner.oid) !== undefined) return inner;
	}
	return undefined;
}

interface ProfilePage {
	profiles: IDataObject[];
	/** The next page number, or undefined at the end (`nextPage` -1, [EKA-PD]). */
	nextPage: number | undefined;
}

/**
 * A page of the minified listing: [EKA-PD] `{profiles, currPageMeta:{nextPage}}` ([EKA-MCP] agrees);
 * [EKA-PDTS] reads `data[]`, accepted too (then a short page is the end).
 */
export function readProfilePage(body: unknown, pageSize: number): ProfilePage | undefined {
	const record = asRecord(body);
	if (!record) return undefined;
	const list = Array.isArray(record.profiles)
		? record.profiles
		: Array.isArray(record.data)
			? record.data
			: undefined;
	if (!list) return undefined;
	const profiles = list.filter(isRecord);
	const meta = asRecord(record.currPageMeta);
	if (meta) {
		const next = Number(meta.nextPage);
		return { profiles, nextPage: Number.isInteger(next) && next >= 0 ? next : undefined };
	}
	const current = Number(record.page ?? record.pageNo);
	return {
		profiles,
		nextPage: profiles.length >= pageSize && Number.isInteger(current) ? current + 1 : undefined,
	};
}
