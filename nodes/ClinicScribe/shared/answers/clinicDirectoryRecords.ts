/**
 * Pure shaping of the clinic directory's answers (`/dr/v1/…`, [IFD §2.1–2.3]; the patient
 * directory's are patientDirectoryRecords.ts). Each function accepts every documented form of a
 * response and returns one shape, or undefined when the body is not the documented JSON at all.
 */
import type { IDataObject } from 'n8n-workflow';

import { firstNonNull, isRecord } from '../values';

interface BusinessEntities {
	clinics: IDataObject[];
	doctors: IDataObject[];
	business: IDataObject;
}

/** `data.services` is declared an array; one sample shows a single object. Both become a list. */
export function readDoctorServices(body: unknown): IDataObject[] | undefined {
	const data = dataOf(body);
	if (!data) return undefined;
	const services = data.services;
	if (services === undefined || services === null) return [];
	if (Array.isArray(services)) return services.filter(isRecord);
	return isRecord(services) ? [services] : undefined;
}

/**
 * Patient search answers `data.profiles`, or in another sample `data.patients` with extra fields and
 * `gen` for gender. Both become one shape with every field present (null when not sent).
 */
export function readBusinessPatientProfiles(body: unknown): IDataObject[] | undefined {
	const data = dataOf(body);
	if (!data) return undefined;
	const list = data.profiles ?? data.patients;
	if (list === undefined || list === null) return [];
	if (!Array.isArray(list)) return undefined;
	return list.filter(isRecord).map(normalizePatientEntry);
}

function normalizePatientEntry(entry: IDataObject): IDataObject {
	const profile = isRecord(entry.patient_profile) ? entry.patient_profile : {};
	const patientId = firstSent(entry.patient_id, profile.patient_id);
	return {
		name: firstSent(entry.name, joinName(profile)),
		patient_id: patientId,
		clinic_id: firstSent(entry.clinic_id),
		is_recent: typeof entry.is_recent === 'boolean' ? entry.is_recent : null,
		patient_profile: {
			patient_id: firstSent(profile.patient_id, patientId),
			first_name: firstSent(profile.first_name),
			middle_name: firstSent(profile.middle_name),
			last_name: firstSent(profile.last_name),
			dob: firstSent(profile.dob),
			gender: firstSent(profile.gender, profile.gen),
			mobile: firstSent(profile.mobile),
			email: firstSent(profile.email),
			created_at: firstSent(profile.created_at),
		},
	};
}

/** A flat record of a normalised patient entry, for the node's Simplify option. */
export function simplifyPatient(entry: IDataObject): IDataObject {
	const profile = isRecord(entry.patient_profile) ? entry.patient_profile : {};
	return {
		patient_id: entry.patient_id,
		name: entry.name,
		first_name: profile.first_name,
		middle_name: profile.middle_name,
		last_name: profile.last_name,
		dob: profile.dob,
		gender: profile.gender,
		mobile: profile.mobile,
		email: profile.email,
	};
}

export function readBusinessEntities(body: unknown): BusinessEntities | undefined {
	const data = dataOf(body);
	if (!data) return undefined;
	return {
		clinics: Array.isArray(data.clinics) ? data.clinics.filter(isRecord) : [],
		doctors: Array.isArray(data.doctors) ? data.doctors.filter(isRecord) : [],
		business: isRecord(data.business) ? data.business : {},
	};
}

type MobileCheck = { ok: true; digits: string } | { ok: false; problem: string };

/**
 * The search takes exactly 10 digits ([IFD §4.2]). Spaces, dashes, dots and brackets are
 * formatting and are dropped; anything else is refused before a request is made.
 */
export function checkTenDigitMobile(value: unknown): MobileCheck {
	const raw =
		typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
	if (raw === '') return { ok: false, problem: 'is empty' };
	const digits = raw.replace(/[\s\-.()]/g, '');
	if (!/^\d+$/.test(digits)) {
		return {
			ok: false,
			problem: digits.startsWith('+')
				? 'has a country code: the search takes the 10-digit national number only, without "+" and country code'
				: 'contains characters other than digits, spaces, dashes, dots and brackets',
		};
	}
	if (digits.length !== 10) {
		return {
			ok: false,
			problem: `has ${digits.length} digits: the search needs exactly 10 (partial numbers are not searchable)`,
		};
	}
	return { ok: true, digits };
}

function dataOf(body: unknown): IDataObject | undefined {
	if (!isRecord(body)) return undefined;
	return isRecord(body.data) ? body.data : undefined;
}

/** The first value the API sent (an empty string included: the record shows it as sent), else null. */
function firstSent(...values: unknown[]): IDataObject[string] {
	return (firstNonNull(...values) ?? null) as IDataObject[string];
}

function joinName(profile: IDataObject): string | null {
	const parts = [profile.first_name, profile.middle_name, profile.last_name].filter(
		(part) => typeof part === 'string' && part.trim() !== '',
	);
	return parts.length > 0 ? parts.join(' ') : null;
}
