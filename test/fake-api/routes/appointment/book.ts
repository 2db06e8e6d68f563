/** POST /dr/v1/appointment: a booking; with patient_details the patient joins the directory. */
import type { FakeClinicState, RouteContext } from '../../types';
import { patientDirectoryOf, WORKSPACE_ID, type FakeProfile } from '../patient';
import { isPlainObject } from '../transcription/store';
import {
	appointmentDetailsProblem,
	commonFieldsProblem,
	idSet,
	patientDetailsProblem,
} from './bookingFields';
import { authorised, invalid, jsonObject } from './requests';
import { appointmentStoreOf, seedAppointment } from './store';

const BOOK_FIELDS = [
	'clinic_id',
	'doctor_id',
	'patient_id',
	'partner_clinic_id',
	'partner_doctor_id',
	'partner_patient_id',
	'partner_appointment_id',
	'appointment_details',
	'patient_details',
	'token',
	'partner_meta',
	'display_meta',
	'notes',
];

export function book(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const body = jsonObject(ctx);
	if (!body) return;
	const unknown = Object.keys(body).filter((key) => !BOOK_FIELDS.includes(key));
	if (unknown.length > 0) return invalid(ctx, `unknown field(s): ${unknown.join(', ')}`);
	const ids = idSet(ctx, body);
	if (!ids) return;
	const details = body.appointment_details;
	if (!isPlainObject(details)) return invalid(ctx, 'appointment_details is required');
	const detailProblem = appointmentDetailsProblem(details, true);
	if (detailProblem) return invalid(ctx, detailProblem);
	if (body.patient_details !== undefined) {
		const problem = patientDetailsProblem(body.patient_details);
		if (problem) return invalid(ctx, problem);
	}
	const otherProblem = commonFieldsProblem(body);
	if (otherProblem) return invalid(ctx, otherProblem);
	const store = appointmentStoreOf(ctx.state);
	const partnerAppointmentId = body.partner_appointment_id;
	if (partnerAppointmentId !== undefined) {
		if (typeof partnerAppointmentId !== 'string' || partnerAppointmentId === '')
			return invalid(ctx, 'partner_appointment_id must be a non-empty string');
		if (
			[...store.appointments.values()].some(
				(a) => a.partner_appointment_id === partnerAppointmentId,
			)
		) {
			return ctx.sendJson(409, {
				error: {
					code: 'CONFLICT',
					message: 'An appointment with this partner_appointment_id already exists',
				},
			});
		}
	}
	const start = details.start_time as number;
	const appointment = seedAppointment(store, {
		...ids,
		...(typeof partnerAppointmentId === 'string'
			? { partner_appointment_id: partnerAppointmentId }
			: {}),
		status: 'BK',
		mode: typeof details.mode === 'string' ? details.mode : 'INCLINIC',
		start_time: start,
		end_time: typeof details.end_time === 'number' ? details.end_time : start + 900,
		created_at: Math.floor(Date.now() / 1000),
		custom_attributes: {
			label: [],
			tags: [],
			...(isPlainObject(details.custom_attributes) ? details.custom_attributes : {}),
		},
		partner_meta: isPlainObject(body.partner_meta) ? body.partner_meta : {},
		...(isPlainObject(body.display_meta) ? { display_meta: body.display_meta } : {}),
		...(typeof body.notes === 'string' ? { notes: body.notes } : {}),
		...(typeof body.token === 'number' ? { token: body.token } : {}),
	});
	if (isPlainObject(body.patient_details)) {
		store.directoryAdds.push({ patient_id: appointment.patient_id, ...body.patient_details });
		addToDirectory(ctx.state, appointment.patient_id, {
			partner_patient_id: appointment.partner_patient_id,
			...body.patient_details,
		});
	}
	store.accepted.push({ method: 'POST', path: ctx.record.pathname, body });
	ctx.sendJson(201, { appointment_id: appointment.appointment_id });
}

/**
 * Booking with patient_details adds the patient to the directory ([EKA-APPT-GS]), as the directory's
 * profile under the appointment's patient id (oid); a patient already there is left as is.
 */
function addToDirectory(
	state: FakeClinicState,
	oid: string,
	details: Record<string, unknown>,
): void {
	const directory = patientDirectoryOf(state);
	if (directory.profiles.has(oid)) return;
	const now = Math.floor(Date.now() / 1000);
	const text = (key: string) =>
		typeof details[key] === 'string' ? (details[key] as string).toLowerCase() : undefined;
	const names = [text('first_name'), text('middle_name'), text('last_name')].filter(
		(n): n is string => n !== undefined,
	);
	const mobile = typeof details.mobile === 'string' ? /^\+91(\d{10})$/.exec(details.mobile) : null;
	const age = typeof details.age === 'number' ? details.age : undefined;
	const profile: FakeProfile = {
		oid,
		wid: WORKSPACE_ID,
		ps: 'P',
		c_ate: now,
		u_ate: now,
		arc: false,
		fln: names.join(' '),
		gen: (['M', 'F', 'O'].includes(details.gender as string)
			? details.gender
			: 'O') as FakeProfile['gen'],
		dob:
			typeof details.dob === 'string'
				? details.dob
				: age !== undefined
					? `${new Date().getUTCFullYear() - age}-01-01`
					: '',
		...(age !== undefined ? { is_age: true } : {}),
		...(text('first_name') ? { fn: text('first_name') } : {}),
		...(text('last_name') ? { ln: text('last_name') } : {}),
		...(mobile ? { mobile: mobile[1], ccd: '+91' } : {}),
		...(typeof details.partner_patient_id === 'string'
			? { username: details.partner_patient_id }
			: {}),
		...(typeof details.designation === 'string' ? { s: details.designation } : {}),
	};
	directory.profiles.set(oid, profile);
}
