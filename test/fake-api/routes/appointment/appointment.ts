/** One appointment: get, update (v2), reschedule, and the actions (cancel, complete, park, no-show). */
import type { RouteContext } from '../../types';
import { isPlainObject } from '../transcription/store';
import {
	appointmentDetailsProblem,
	commonFieldsProblem,
	idSet,
	patientDetailsProblem,
} from './bookingFields';
import { authorised, bearer, emptyBody, flat, invalid, jsonObject } from './requests';
import { ACTIVE, appointmentStoreOf, seedAppointment, type FakeAppointment } from './store';

export function getOne(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const appointment = addressed(ctx);
	if (!appointment) return;
	ctx.sendJson(200, {
		...appointment,
		payment: { payment_id: null, payment_status: null, amount: null },
		service: {
			created_at: 1704067200,
			mode: ['INCLINIC'],
			price: 500,
			post_pay: false,
			service_name: 'consultation',
			appointment_type: 'REGULAR',
			allow_patient_booking: true,
		},
	});
}

/** The appointment the path addresses (by Eka id, or by partner id with `partner_id=1`); undefined after answering. */
function addressed(ctx: RouteContext, extraQuery: string[] = []): FakeAppointment | undefined {
	const unknown = [...ctx.query.keys()].filter(
		(key) => key !== 'partner_id' && !extraQuery.includes(key),
	);
	if (unknown.length > 0) {
		invalid(ctx, `unexpected query parameter(s): ${unknown.join(', ')}`);
		return undefined;
	}
	const partnerValues = ctx.query.getAll('partner_id');
	if (
		partnerValues.length > 1 ||
		(partnerValues.length === 1 && !['0', '1'].includes(partnerValues[0]))
	) {
		invalid(ctx, 'partner_id is 1 (the id is your partner_appointment_id) or 0');
		return undefined;
	}
	const store = appointmentStoreOf(ctx.state);
	const byPartner = partnerValues[0] === '1';
	const appointment = byPartner
		? [...store.appointments.values()].find((a) => a.partner_appointment_id === ctx.params.id)
		: store.appointments.get(ctx.params.id);
	if (!appointment) {
		ctx.sendJson(404, {
			error: {
				code: 'APPOINTMENT_NOT_FOUND',
				message: 'The specified appointment ID does not exist',
			},
		});
		return undefined;
	}
	return appointment;
}

const UPDATE_FIELDS = [
	'clinic_id',
	'doctor_id',
	'patient_id',
	'partner_clinic_id',
	'partner_doctor_id',
	'partner_patient_id',
	'token',
	'appointment_details',
	'partner_meta',
	'patient_details',
	'display_meta',
];

export function updateV2(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const body = jsonObject(ctx);
	if (!body) return;
	const appointment = addressed(ctx);
	if (!appointment) return;
	const unknown = Object.keys(body).filter((key) => !UPDATE_FIELDS.includes(key));
	if (unknown.length > 0) return invalid(ctx, `unknown field(s): ${unknown.join(', ')}`);
	const ids = idSet(ctx, body);
	if (!ids) return;
	if (
		ids.clinic_id !== appointment.clinic_id ||
		ids.doctor_id !== appointment.doctor_id ||
		ids.patient_id !== appointment.patient_id
	) {
		return invalid(ctx, "the id set does not match the appointment's clinic, doctor and patient");
	}
	if (body.appointment_details !== undefined) {
		if (!isPlainObject(body.appointment_details))
			return invalid(ctx, 'appointment_details must be an object');
		const problem = appointmentDetailsProblem(body.appointment_details, false);
		if (problem) return invalid(ctx, problem);
	}
	if (body.patient_details !== undefined) {
		const problem = patientDetailsProblem(body.patient_details);
		if (problem) return invalid(ctx, problem);
	}
	const otherProblem = commonFieldsProblem(body);
	if (otherProblem) return invalid(ctx, otherProblem);
	if (!ACTIVE.has(appointment.status))
		return ctx.sendJson(403, {
			error: { code: 'UPDATE_NOT_ALLOWED', message: `appointment is ${appointment.status}` },
		});
	const details = isPlainObject(body.appointment_details) ? body.appointment_details : {};
	if (typeof details.start_time === 'number') appointment.start_time = details.start_time;
	if (typeof details.end_time === 'number') appointment.end_time = details.end_time;
	if (typeof details.mode === 'string') appointment.mode = details.mode;
	if (isPlainObject(details.custom_attributes))
		appointment.custom_attributes = {
			...appointment.custom_attributes,
			...details.custom_attributes,
		};
	// Replaced whole ([EKA-DT]).
	if (isPlainObject(body.partner_meta)) appointment.partner_meta = body.partner_meta;
	if (isPlainObject(body.display_meta)) appointment.display_meta = body.display_meta;
	if (typeof body.token === 'number') appointment.token = body.token;
	appointment.modified_at = Math.floor(Date.now() / 1000);
	appointmentStoreOf(ctx.state).accepted.push({
		method: 'PATCH',
		path: ctx.record.pathname,
		appointmentId: appointment.appointment_id,
		body,
	});
	ctx.res.writeHead(204).end();
}

export function reschedule(ctx: RouteContext): void {
	if (!bearer(ctx)) return;
	const body = jsonObject(ctx);
	if (!body) return;
	if ([...ctx.query.keys()].length > 0) return flat(ctx, 400, 'no query parameters are taken');
	const store = appointmentStoreOf(ctx.state);
	const old = store.appointments.get(ctx.params.id);
	if (!old) return flat(ctx, 404, 'Appointment not found');
	const unknown = Object.keys(body).filter(
		(key) => !['start_time', 'end_time', 'partner_appointment_id'].includes(key),
	);
	if (unknown.length > 0) return flat(ctx, 400, `unknown field(s): ${unknown.join(', ')}`);
	for (const key of ['start_time', 'end_time']) {
		const value = body[key];
		if (
			!Number.isInteger(value) ||
			(value as number) < 1_000_000_000 ||
			(value as number) > 99_999_999_999
		)
			return flat(ctx, 400, `${key} is required, epoch seconds`);
	}
	if ((body.end_time as number) <= (body.start_time as number))
		return flat(ctx, 400, 'end_time must be after start_time');
	if (body.partner_appointment_id !== undefined) {
		if (typeof body.partner_appointment_id !== 'string' || body.partner_appointment_id === '')
			return flat(ctx, 400, 'partner_appointment_id must be a non-empty string');
		if (
			[...store.appointments.values()].some(
				(a) => a.partner_appointment_id === body.partner_appointment_id,
			)
		) {
			return flat(ctx, 409, 'An appointment with this partner_appointment_id already exists');
		}
	}
	if (!ACTIVE.has(old.status))
		return flat(ctx, 409, `Appointment is ${old.status} and cannot be rescheduled`);
	const {
		appointment_id: _id,
		partner_appointment_id: _partner,
		next_aid: _next,
		modified_at: _modified,
		...kept
	} = old;
	const fresh = seedAppointment(store, {
		...kept,
		...(typeof body.partner_appointment_id === 'string'
			? { partner_appointment_id: body.partner_appointment_id }
			: {}),
		status: 'BK',
		start_time: body.start_time as number,
		end_time: body.end_time as number,
		created_at: Math.floor(Date.now() / 1000),
		prev_aids: [...(old.prev_aids ?? []), old.appointment_id],
	});
	old.status = 'RES';
	old.next_aid = fresh.appointment_id;
	store.accepted.push({
		method: 'PATCH',
		path: ctx.record.pathname,
		appointmentId: old.appointment_id,
		body,
	});
	ctx.sendJson(200, {
		appointment_id: fresh.appointment_id,
		patient_id: fresh.patient_id,
		doctor_id: fresh.doctor_id,
		clinic_id: fresh.clinic_id,
		status: fresh.status,
		mode: 'IN_CLINIC',
		start_time: fresh.start_time,
		end_time: fresh.end_time,
		created_at: fresh.created_at,
		prev_aids: fresh.prev_aids,
	});
}

type Action = 'cancel' | 'complete' | 'park';

export function action(ctx: RouteContext, kind: Action): void {
	if (!authorised(ctx)) return;
	if (!emptyBody(ctx)) return;
	const appointment = addressed(ctx);
	if (!appointment) return;
	const code = {
		cancel: 'CANCEL_NOT_ALLOWED',
		complete: 'COMPLETE_NOT_ALLOWED',
		park: 'PARK_NOT_ALLOWED',
	}[kind];
	if (!ACTIVE.has(appointment.status)) {
		return ctx.sendJson(403, { error: { code, message: `Appointment is ${appointment.status}` } });
	}
	appointment.status =
		kind === 'cancel'
			? 'CN'
			: kind === 'complete'
				? appointment.prescription_id
					? 'CM'
					: 'CMNP'
				: 'PA';
	appointment.modified_at = Math.floor(Date.now() / 1000);
	appointmentStoreOf(ctx.state).accepted.push({
		method: ctx.record.method,
		path: ctx.record.pathname,
		appointmentId: appointment.appointment_id,
		body: undefined,
	});
	ctx.res.writeHead(204).end();
}

export function changeStatus(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const body = jsonObject(ctx);
	if (!body) return;
	const appointment = addressed(ctx);
	if (!appointment) return;
	if (Object.keys(body).length !== 1 || body.status !== 'NS')
		return invalid(ctx, 'body must be {"status":"NS"}');
	if (!ACTIVE.has(appointment.status))
		return ctx.sendJson(403, {
			error: { code: 'STATUS_CHANGE_NOT_ALLOWED', message: `Appointment is ${appointment.status}` },
		});
	appointment.status = 'NS';
	appointment.modified_at = Math.floor(Date.now() / 1000);
	appointmentStoreOf(ctx.state).accepted.push({
		method: 'POST',
		path: ctx.record.pathname,
		appointmentId: appointment.appointment_id,
		body,
	});
	ctx.sendJson(200, { message: 'Status updated' });
}
