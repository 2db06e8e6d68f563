/** The parts of a booking body an update takes too: one id set, appointment_details, patient_details, the other fields. */
import { CLINICS } from '../../fixtures';
import type { RouteContext } from '../../types';
import { isPlainObject } from '../transcription/store';
import { invalid } from './requests';
import { PARTNER_CLINICS, PARTNER_DOCTORS, type FakeAppointment } from './store';

const DETAIL_FIELDS = ['start_time', 'end_time', 'mode', 'custom_attributes', 'video_connect'];
export const BOOK_MODES = ['INCLINIC', 'PHONE', 'VIDEO'];
const DESIGNATIONS = [
	'Mr.',
	'Ms.',
	'Mrs.',
	'Miss.',
	'Kumar.',
	'Shri.',
	'Smt.',
	'Dr.',
	'Master.',
	'Baby.',
	'Mohd.',
	'B/O',
];
const PATIENT_FIELDS = [
	'designation',
	'first_name',
	'middle_name',
	'last_name',
	'mobile',
	'gender',
	'address',
	'partner_patient_id',
	'dob',
	'age',
];

/** Exactly one complete id set (Eka trio or partner trio), resolved; undefined after answering 400. */
export function idSet(
	ctx: RouteContext,
	body: Record<string, unknown>,
): Partial<FakeAppointment> | undefined {
	const eka = ['clinic_id', 'doctor_id', 'patient_id'];
	const partner = ['partner_clinic_id', 'partner_doctor_id', 'partner_patient_id'];
	const has = (keys: string[]) => keys.filter((key) => body[key] !== undefined);
	const ekaGiven = has(eka);
	const partnerGiven = has(partner);
	if (ekaGiven.length > 0 && partnerGiven.length > 0) {
		invalid(
			ctx,
			'give one id set: clinic_id+doctor_id+patient_id or partner_clinic_id+partner_doctor_id+partner_patient_id, not both',
		);
		return undefined;
	}
	const chosen = ekaGiven.length > 0 ? eka : partnerGiven.length > 0 ? partner : undefined;
	if (
		!chosen ||
		chosen.some((key) => typeof body[key] !== 'string' || (body[key] as string) === '')
	) {
		invalid(
			ctx,
			`one complete id set is required: ${(chosen ?? eka).join('+')}${chosen ? '' : ' or ' + partner.join('+')}`,
		);
		return undefined;
	}
	if (chosen === eka) {
		const clinic = CLINICS.find((c) => c.clinic_id === body.clinic_id);
		if (!clinic || !(clinic.doctors as readonly string[]).includes(body.doctor_id as string)) {
			invalid(ctx, 'doctor_id does not work at clinic_id');
			return undefined;
		}
		return {
			clinic_id: body.clinic_id as string,
			doctor_id: body.doctor_id as string,
			patient_id: body.patient_id as string,
		};
	}
	const clinicId = own(PARTNER_CLINICS, body.partner_clinic_id as string);
	const doctorId = own(PARTNER_DOCTORS, body.partner_doctor_id as string);
	if (!clinicId || !doctorId) {
		invalid(ctx, 'partner_clinic_id and partner_doctor_id must be registered on the hub');
		return undefined;
	}
	return {
		clinic_id: clinicId,
		doctor_id: doctorId,
		patient_id: `pt-${body.partner_patient_id as string}`,
		partner_clinic_id: body.partner_clinic_id as string,
		partner_doctor_id: body.partner_doctor_id as string,
		partner_patient_id: body.partner_patient_id as string,
	};
}

function own(table: Readonly<Record<string, string>>, key: string): string | undefined {
	return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
}

export function appointmentDetailsProblem(
	details: Record<string, unknown>,
	startRequired: boolean,
): string | undefined {
	const unknown = Object.keys(details).filter((key) => !DETAIL_FIELDS.includes(key));
	if (unknown.length > 0) return `unknown appointment_details field(s): ${unknown.join(', ')}`;
	if (details.start_time === undefined && startRequired)
		return 'appointment_details.start_time is required';
	for (const key of ['start_time', 'end_time']) {
		const value = details[key];
		if (
			value !== undefined &&
			(!Number.isInteger(value) ||
				(value as number) < 1_000_000_000 ||
				(value as number) > 99_999_999_999)
		) {
			return `appointment_details.${key} must be epoch seconds (an integer)`;
		}
	}
	if (
		typeof details.start_time === 'number' &&
		typeof details.end_time === 'number' &&
		details.end_time < details.start_time
	) {
		return 'end_time must not be before start_time';
	}
	if (details.mode !== undefined && !BOOK_MODES.includes(details.mode as string))
		return `appointment_details.mode must be one of ${BOOK_MODES.join(', ')}`;
	if (details.custom_attributes !== undefined && !isPlainObject(details.custom_attributes))
		return 'custom_attributes must be an object';
	return undefined;
}

export function patientDetailsProblem(value: unknown): string | undefined {
	if (!isPlainObject(value)) return 'patient_details must be an object';
	const unknown = Object.keys(value).filter((key) => !PATIENT_FIELDS.includes(key));
	if (unknown.length > 0) return `unknown patient_details field(s): ${unknown.join(', ')}`;
	if (value.designation !== undefined && !DESIGNATIONS.includes(value.designation as string))
		return 'patient_details.designation is not valid';
	if (value.gender !== undefined && !['M', 'F', 'O'].includes(value.gender as string))
		return 'patient_details.gender must be M, F or O';
	if (value.dob !== undefined && value.age !== undefined)
		return 'patient_details: give dob or age, not both';
	if (
		value.dob !== undefined &&
		(typeof value.dob !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value.dob))
	)
		return 'patient_details.dob must be YYYY-MM-DD';
	if (value.age !== undefined && (!Number.isInteger(value.age) || (value.age as number) < 0))
		return 'patient_details.age must be an integer';
	if (
		value.mobile !== undefined &&
		(typeof value.mobile !== 'string' || !/^\+\d{8,15}$/.test(value.mobile))
	)
		return 'patient_details.mobile must have the country code (+91…)';
	for (const key of ['first_name', 'middle_name', 'last_name', 'partner_patient_id']) {
		if (value[key] !== undefined && (typeof value[key] !== 'string' || value[key] === ''))
			return `patient_details.${key} must be a non-empty string`;
	}
	if (value.address !== undefined) {
		const address = value.address;
		if (
			!isPlainObject(address) ||
			Object.keys(address).some((k) => k !== 'city' && k !== 'pincode')
		)
			return 'patient_details.address is {city, pincode}';
		if (address.pincode !== undefined && !Number.isInteger(address.pincode))
			return 'patient_details.address.pincode must be an integer';
	}
	return undefined;
}

export function commonFieldsProblem(body: Record<string, unknown>): string | undefined {
	if (body.partner_meta !== undefined && !isPlainObject(body.partner_meta))
		return 'partner_meta must be an object';
	if (body.display_meta !== undefined) {
		if (!isPlainObject(body.display_meta)) return 'display_meta must be an object';
		for (const [key, value] of Object.entries(body.display_meta)) {
			if (key.length > 30) return 'display_meta keys are at most 30 characters';
			if (!['string', 'number'].includes(typeof value) || String(value).length > 50)
				return 'display_meta values are text or numbers of at most 50 characters';
		}
	}
	if (body.notes !== undefined && typeof body.notes !== 'string') return 'notes must be a string';
	if (body.token !== undefined && !Number.isInteger(body.token)) return 'token must be an integer';
	return undefined;
}
