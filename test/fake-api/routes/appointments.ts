/**
 * Appointments of the doctor-tool API (service notes beyond the document §1), strict as the other routes:
 *
 *   GET   /dr/v1/doctor/:doctorId/clinic/:clinicId/appointment/slot?start_date&end_date → 200 {data:{schedule, services}, success, status_code}
 *   POST  /dr/v1/appointment                       one id set + appointment_details.start_time … → 201 {appointment_id}
 *   GET   /dr/v1/appointment?<filter set>&page_no   → 200 {appointments:[…]} (filter sets and page sizes of §1.5)
 *   GET   /dr/v1/appointment/:id[?partner_id=1]     → 200 the appointment object (§1.4, no wrapper)
 *   PATCH /dr/v2/appointment/:id[?partner_id=1]     one id set + fields → 204
 *   PATCH /appointments/v1/:id/reschedule           {start_time*, end_time*, partner_appointment_id?} → 200 the new appointment
 *   PUT   /dr/v1/appointment/:id/cancel             → 204      POST …/complete → 204      POST …/parked → 204
 *   POST  /dr/v1/appointment/:id/change-status      {"status":"NS"} → 200
 *
 * `/dr` routes take the token raw in `auth` (document §5) or as `Authorization: Bearer` (DT declares
 * the latter on the list); `/appointments/v1` takes Bearer only. A `client-id` that does not match the
 * token is refused. Slot query dates are `YYYY-MM-DD` or MCP's ISO midnight form, and the range is
 * the strict reading (end at most start + 1 day, APPT-GS). Partner clinic/doctor ids must be
 * registered (PARTNER_CLINICS / PARTNER_DOCTORS). Booking with `patient_details` adds the patient to
 * the directory (`directoryAdds`). A `partner_appointment_id` used before answers 409.
 *
 * Seeding: in process `fakeAppointments(api).seed({...})`; from another process
 * `POST /__admin/appointments/seed` with one appointment or `{appointments:[…]}` (missing fields get
 * defaults), `GET /__admin/appointments`, `POST /__admin/appointments/clear`.
 */
import { BUSINESS, CLINICS } from '../fixtures';
import type { AdminDefinition, FakeClinicState, RouteContext, RouteDefinition } from '../types';
import { isPlainObject } from './transcription/store';

export const PARTNER_CLINICS: Readonly<Record<string, string>> = Object.freeze({ CL04: 'c-1001', CL05: 'c-1002' });
export const PARTNER_DOCTORS: Readonly<Record<string, string>> = Object.freeze({ 'test-doc-123': 'do1001', 'test-doc-456': 'do1003' });

/** Page size per filter set (§1.5). */
export const PAGE_SIZES = Object.freeze({ patient: 20, doctorOrClinic: 50, datesOnly: 30 });
export const LIST_MAX_SPAN_DAYS = 7;

/** Slots each day, IST wall clock (hour, minute), 15 minutes long. */
export const SLOT_TIMES: ReadonlyArray<readonly [number, number]> = Object.freeze([
	[9, 30],
	[9, 45],
	[10, 0],
	[10, 15],
]);
export const SLOT_CONF_ID = 'conf-1001-01';
const IST_OFFSET_SECONDS = 19800;

export interface FakeAppointment {
	appointment_id: string;
	partner_appointment_id?: string;
	clinic_id: string;
	doctor_id: string;
	patient_id: string;
	partner_clinic_id?: string;
	partner_doctor_id?: string;
	partner_patient_id?: string;
	status: string;
	mode: string;
	start_time: number;
	end_time: number;
	created_at: number;
	custom_attributes: Record<string, unknown>;
	partner_meta: Record<string, unknown>;
	display_meta?: Record<string, unknown>;
	notes?: string;
	token?: number;
	prescription_id?: string | null;
	prev_aids?: string[];
	next_aid?: string;
	[extra: string]: unknown;
}

export interface AppointmentStore {
	appointments: Map<string, FakeAppointment>;
	/** Patients added to the directory by bookings with patient_details, in order. */
	directoryAdds: Array<Record<string, unknown>>;
	/** Accepted write bodies, in order. */
	accepted: Array<{ method: string; path: string; appointmentId?: string; body: unknown }>;
	nextId: number;
	seed(appointment: Partial<FakeAppointment> & { appointment_id?: string }): FakeAppointment;
}

const stores = new WeakMap<FakeClinicState, AppointmentStore>();

export function appointmentStoreOf(state: FakeClinicState): AppointmentStore {
	let store = stores.get(state);
	if (!store) {
		const created: AppointmentStore = {
			appointments: new Map(),
			directoryAdds: [],
			accepted: [],
			nextId: 1,
			seed: (appointment) => seedAppointment(created, appointment),
		};
		store = created;
		stores.set(state, store);
	}
	return store;
}

export function resetAppointmentStore(store: AppointmentStore): void {
	store.appointments.clear();
	store.directoryAdds.length = 0;
	store.accepted.length = 0;
	store.nextId = 1;
}

/** In-process control for tests: the store of this fake API. */
export function fakeAppointments(api: { state: FakeClinicState }): AppointmentStore {
	return appointmentStoreOf(api.state);
}

function seedAppointment(store: AppointmentStore, input: Partial<FakeAppointment>): FakeAppointment {
	const id = typeof input.appointment_id === 'string' && input.appointment_id !== '' ? input.appointment_id : newId(store);
	const start = typeof input.start_time === 'number' ? input.start_time : 1795500000;
	const appointment: FakeAppointment = {
		clinic_id: 'c-1001',
		doctor_id: 'do1001',
		patient_id: 'pt-0001',
		status: 'BK',
		mode: 'INCLINIC',
		end_time: start + 900,
		created_at: start - 86400,
		custom_attributes: { label: [], tags: [] },
		partner_meta: {},
		prescription_id: null,
		...input,
		start_time: start,
		appointment_id: id,
	};
	store.appointments.set(id, appointment);
	return appointment;
}

function newId(store: AppointmentStore): string {
	return `api-fake-${String(store.nextId++).padStart(4, '0')}`;
}

const DR = { errorStyle: 'envelope' as const, faultErrorCodes: { 400: 'INVALID_REQUEST_PARAMETERS', 404: 'NOT_FOUND', 500: 'SERVER_ERROR' } };

export const appointmentRoutes: readonly RouteDefinition[] = [
	{ method: 'GET', pattern: '/dr/v1/doctor/:doctorId/clinic/:clinicId/appointment/slot', body: 'none', ...DR, handler: slots },
	{ method: 'POST', pattern: '/dr/v1/appointment', body: 'json', ...DR, handler: book },
	{ method: 'GET', pattern: '/dr/v1/appointment', body: 'none', ...DR, handler: list },
	{ method: 'GET', pattern: '/dr/v1/appointment/:id', body: 'none', ...DR, handler: getOne },
	{ method: 'PATCH', pattern: '/dr/v2/appointment/:id', body: 'json', ...DR, handler: updateV2 },
	{ method: 'PATCH', pattern: '/appointments/v1/:id/reschedule', body: 'json', ...DR, handler: reschedule },
	{ method: 'PUT', pattern: '/dr/v1/appointment/:id/cancel', body: 'json', ...DR, handler: (ctx) => action(ctx, 'cancel') },
	{ method: 'POST', pattern: '/dr/v1/appointment/:id/complete', body: 'json', ...DR, handler: (ctx) => action(ctx, 'complete') },
	{ method: 'POST', pattern: '/dr/v1/appointment/:id/parked', body: 'json', ...DR, handler: (ctx) => action(ctx, 'park') },
	{ method: 'POST', pattern: '/dr/v1/appointment/:id/change-status', body: 'json', ...DR, handler: changeStatus },
];

// ---------------------------------------------------------------------------------------------
// Slots

function slots(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const unknown = [...ctx.query.keys()].filter((key) => key !== 'start_date' && key !== 'end_date');
	if (unknown.length > 0) return slotError(ctx, 400, `unexpected query parameter(s): ${unknown.join(', ')}`);
	const start = slotDate(ctx.query.getAll('start_date'));
	const end = slotDate(ctx.query.getAll('end_date'));
	if (!start || !end) return slotError(ctx, 400, 'start_date and end_date are required, as YYYY-MM-DD');
	const span = daysBetween(start, end);
	if (span < 0) return slotError(ctx, 400, 'end_date must not be before start_date');
	if (span > 1) return slotError(ctx, 400, 'Slots can be fetched only from D to D+1');
	const clinic = CLINICS.find((c) => c.clinic_id === ctx.params.clinicId);
	if (!clinic) return slotError(ctx, 404, 'Clinic not found. Please check the provided clinic ID.');
	if (!(clinic.doctors as readonly string[]).includes(ctx.params.doctorId)) {
		return slotError(ctx, 404, 'Doctor not found. Please check the provided doctor ID.');
	}
	const store = appointmentStoreOf(ctx.state);
	const list: Array<Record<string, unknown>> = [];
	for (let day = 0; day <= span; day++) {
		const date = addDays(start, day);
		for (const [hour, minute] of SLOT_TIMES) {
			const s = Date.parse(`${date}T00:00:00Z`) / 1000 + hour * 3600 + minute * 60 - IST_OFFSET_SECONDS;
			const taken = [...store.appointments.values()].some(
				(a) => a.doctor_id === ctx.params.doctorId && a.clinic_id === clinic.clinic_id && a.start_time === s && ACTIVE.has(a.status),
			);
			list.push({ available: !taken, conf_id: SLOT_CONF_ID, s: istIso(s), e: istIso(s + 900), ...(taken ? { slots_booked: 1 } : {}) });
		}
	}
	ctx.sendJson(200, {
		data: {
			schedule: { [clinic.clinic_id]: [{ service_type: 'consultation', slots: list }] },
			services: {
				[SLOT_CONF_ID]: {
					allow_patient_booking: true,
					appointment_type: 'REGULAR',
					currency: 'INR',
					mode: ['in-clinic'],
					owner_id: BUSINESS.business_id,
					pre_pay: true,
					price: 500,
					service_name: 'consultation',
				},
			},
		},
		success: 'true',
		status_code: 200,
	});
}

/** `YYYY-MM-DD` (DT-bkp) or MCP's `YYYY-MM-DDT00:00:00.000Z` / `T23:59:59.000Z`; exactly one value. */
function slotDate(values: string[]): string | undefined {
	if (values.length !== 1) return undefined;
	const match = /^(\d{4}-\d{2}-\d{2})(T00:00:00\.000Z|T23:59:59\.000Z)?$/.exec(values[0]);
	return match && !Number.isNaN(Date.parse(`${match[1]}T00:00:00Z`)) ? match[1] : undefined;
}

function slotError(ctx: RouteContext, status: number, message: string): void {
	ctx.sendJson(status, { success: 'false', status_code: status, message });
}

const ACTIVE = new Set(['BK', 'CK', 'RV', 'IN', 'PA', 'OG']);

// ---------------------------------------------------------------------------------------------
// Book

const BOOK_FIELDS = [
	'clinic_id', 'doctor_id', 'patient_id', 'partner_clinic_id', 'partner_doctor_id', 'partner_patient_id',
	'partner_appointment_id', 'appointment_details', 'patient_details', 'token', 'partner_meta', 'display_meta', 'notes',
];
const DETAIL_FIELDS = ['start_time', 'end_time', 'mode', 'custom_attributes', 'video_connect'];
export const BOOK_MODES = ['INCLINIC', 'PHONE', 'VIDEO'];
const DESIGNATIONS = ['Mr.', 'Ms.', 'Mrs.', 'Miss.', 'Kumar.', 'Shri.', 'Smt.', 'Dr.', 'Master.', 'Baby.', 'Mohd.', 'B/O'];
const PATIENT_FIELDS = ['designation', 'first_name', 'middle_name', 'last_name', 'mobile', 'gender', 'address', 'partner_patient_id', 'dob', 'age'];

function book(ctx: RouteContext): void {
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
		if (typeof partnerAppointmentId !== 'string' || partnerAppointmentId === '') return invalid(ctx, 'partner_appointment_id must be a non-empty string');
		if ([...store.appointments.values()].some((a) => a.partner_appointment_id === partnerAppointmentId)) {
			return ctx.sendJson(409, { error: { code: 'CONFLICT', message: 'An appointment with this partner_appointment_id already exists' } });
		}
	}
	const start = details.start_time as number;
	const appointment = seedAppointment(store, {
		...ids,
		...(typeof partnerAppointmentId === 'string' ? { partner_appointment_id: partnerAppointmentId } : {}),
		status: 'BK',
		mode: typeof details.mode === 'string' ? details.mode : 'INCLINIC',
		start_time: start,
		end_time: typeof details.end_time === 'number' ? details.end_time : start + 900,
		created_at: Math.floor(Date.now() / 1000),
		custom_attributes: { label: [], tags: [], ...(isPlainObject(details.custom_attributes) ? details.custom_attributes : {}) },
		partner_meta: isPlainObject(body.partner_meta) ? body.partner_meta : {},
		...(isPlainObject(body.display_meta) ? { display_meta: body.display_meta } : {}),
		...(typeof body.notes === 'string' ? { notes: body.notes } : {}),
		...(typeof body.token === 'number' ? { token: body.token } : {}),
	});
	if (isPlainObject(body.patient_details)) store.directoryAdds.push({ patient_id: appointment.patient_id, ...body.patient_details });
	store.accepted.push({ method: 'POST', path: ctx.record.pathname, body });
	ctx.sendJson(201, { appointment_id: appointment.appointment_id });
}

/** Exactly one complete id set (Eka trio or partner trio), resolved; undefined after answering 400. */
function idSet(ctx: RouteContext, body: Record<string, unknown>): Partial<FakeAppointment> | undefined {
	const eka = ['clinic_id', 'doctor_id', 'patient_id'];
	const partner = ['partner_clinic_id', 'partner_doctor_id', 'partner_patient_id'];
	const has = (keys: string[]) => keys.filter((key) => body[key] !== undefined);
	const ekaGiven = has(eka);
	const partnerGiven = has(partner);
	if (ekaGiven.length > 0 && partnerGiven.length > 0) {
		invalid(ctx, 'give one id set: clinic_id+doctor_id+patient_id or partner_clinic_id+partner_doctor_id+partner_patient_id, not both');
		return undefined;
	}
	const chosen = ekaGiven.length > 0 ? eka : partnerGiven.length > 0 ? partner : undefined;
	if (!chosen || chosen.some((key) => typeof body[key] !== 'string' || (body[key] as string) === '')) {
		invalid(ctx, `one complete id set is required: ${(chosen ?? eka).join('+')}${chosen ? '' : ' or ' + partner.join('+')}`);
		return undefined;
	}
	if (chosen === eka) {
		const clinic = CLINICS.find((c) => c.clinic_id === body.clinic_id);
		if (!clinic || !(clinic.doctors as readonly string[]).includes(body.doctor_id as string)) {
			invalid(ctx, 'doctor_id does not work at clinic_id');
			return undefined;
		}
		return { clinic_id: body.clinic_id as string, doctor_id: body.doctor_id as string, patient_id: body.patient_id as string };
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

function appointmentDetailsProblem(details: Record<string, unknown>, startRequired: boolean): string | undefined {
	const unknown = Object.keys(details).filter((key) => !DETAIL_FIELDS.includes(key));
	if (unknown.length > 0) return `unknown appointment_details field(s): ${unknown.join(', ')}`;
	if (details.start_time === undefined && startRequired) return 'appointment_details.start_time is required';
	for (const key of ['start_time', 'end_time']) {
		const value = details[key];
		if (value !== undefined && (!Number.isInteger(value) || (value as number) < 1_000_000_000 || (value as number) > 99_999_999_999)) {
			return `appointment_details.${key} must be epoch seconds (an integer)`;
		}
	}
	if (typeof details.start_time === 'number' && typeof details.end_time === 'number' && details.end_time < details.start_time) {
		return 'end_time must not be before start_time';
	}
	if (details.mode !== undefined && !BOOK_MODES.includes(details.mode as string)) return `appointment_details.mode must be one of ${BOOK_MODES.join(', ')}`;
	if (details.custom_attributes !== undefined && !isPlainObject(details.custom_attributes)) return 'custom_attributes must be an object';
	return undefined;
}

function patientDetailsProblem(value: unknown): string | undefined {
	if (!isPlainObject(value)) return 'patient_details must be an object';
	const unknown = Object.keys(value).filter((key) => !PATIENT_FIELDS.includes(key));
	if (unknown.length > 0) return `unknown patient_details field(s): ${unknown.join(', ')}`;
	if (value.designation !== undefined && !DESIGNATIONS.includes(value.designation as string)) return 'patient_details.designation is not valid';
	if (value.gender !== undefined && !['M', 'F', 'O'].includes(value.gender as string)) return 'patient_details.gender must be M, F or O';
	if (value.dob !== undefined && value.age !== undefined) return 'patient_details: give dob or age, not both';
	if (value.dob !== undefined && (typeof value.dob !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value.dob))) return 'patient_details.dob must be YYYY-MM-DD';
	if (value.age !== undefined && (!Number.isInteger(value.age) || (value.age as number) < 0)) return 'patient_details.age must be an integer';
	if (value.mobile !== undefined && (typeof value.mobile !== 'string' || !/^\+\d{8,15}$/.test(value.mobile))) return 'patient_details.mobile must have the country code (+91…)';
	for (const key of ['first_name', 'middle_name', 'last_name', 'partner_patient_id']) {
		if (value[key] !== undefined && (typeof value[key] !== 'string' || value[key] === '')) return `patient_details.${key} must be a non-empty string`;
	}
	if (value.address !== undefined) {
		const address = value.address;
		if (!isPlainObject(address) || Object.keys(address).some((k) => k !== 'city' && k !== 'pincode')) return 'patient_details.address is {city, pincode}';
		if (address.pincode !== undefined && !Number.isInteger(address.pincode)) return 'patient_details.address.pincode must be an integer';
	}
	return undefined;
}

function commonFieldsProblem(body: Record<string, unknown>): string | undefined {
	if (body.partner_meta !== undefined && !isPlainObject(body.partner_meta)) return 'partner_meta must be an object';
	if (body.display_meta !== undefined) {
		if (!isPlainObject(body.display_meta)) return 'display_meta must be an object';
		for (const [key, value] of Object.entries(body.display_meta)) {
			if (key.length > 30) return 'display_meta keys are at most 30 characters';
			if (!['string', 'number'].includes(typeof value) || String(value).length > 50) return 'display_meta values are text or numbers of at most 50 characters';
		}
	}
	if (body.notes !== undefined && typeof body.notes !== 'string') return 'notes must be a string';
	if (body.token !== undefined && !Number.isInteger(body.token)) return 'token must be an integer';
	return undefined;
}

// ---------------------------------------------------------------------------------------------
// List

function list(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const allowed = ['patient_id', 'doctor_id', 'clinic_id', 'start_date', 'end_date', 'page_no'];
	const keys = [...ctx.query.keys()];
	const unknown = keys.filter((key) => !allowed.includes(key));
	if (unknown.length > 0) return invalid(ctx, `unexpected query parameter(s): ${unknown.join(', ')}`);
	if (keys.some((key) => ctx.query.getAll(key).length !== 1 || ctx.query.get(key) === '')) return invalid(ctx, 'each filter is given once, not empty');
	const q = (key: string) => ctx.query.get(key) ?? undefined;
	const patient = q('patient_id');
	const doctor = q('doctor_id');
	const clinic = q('clinic_id');
	const start = q('start_date');
	const end = q('end_date');
	const combination = 'You must provide one of the valid filter combinations.';
	let pageSize: number;
	if (patient !== undefined) {
		if (doctor || clinic || start || end) return invalid(ctx, combination);
		pageSize = PAGE_SIZES.patient;
	} else {
		if (!start || !end) return invalid(ctx, combination);
		if (![start, end].every((d) => /^\d{4}-\d{2}-\d{2}$/.test(d) && !Number.isNaN(Date.parse(`${d}T00:00:00Z`)))) return invalid(ctx, 'dates are YYYY-MM-DD');
		const span = daysBetween(start, end);
		if (span < 0) return invalid(ctx, 'end_date must not be before start_date');
		if (span > LIST_MAX_SPAN_DAYS - 1) return invalid(ctx, `the date range may span at most ${LIST_MAX_SPAN_DAYS} days`);
		pageSize = doctor || clinic ? PAGE_SIZES.doctorOrClinic : PAGE_SIZES.datesOnly;
	}
	const pageText = q('page_no') ?? '0';
	if (!/^\d+$/.test(pageText)) return invalid(ctx, 'page_no is an integer from 0');
	const page = Number(pageText);
	const matches = [...appointmentStoreOf(ctx.state).appointments.values()]
		.filter((a) => (patient === undefined || a.patient_id === patient) && (!doctor || a.doctor_id === doctor) && (!clinic || a.clinic_id === clinic))
		.filter((a) => {
			if (!start || !end) return true;
			const day = istDate(a.start_time);
			return day >= start && day <= end;
		})
		.sort((a, b) => a.start_time - b.start_time || a.appointment_id.localeCompare(b.appointment_id));
	const slice = matches.slice(page * pageSize, (page + 1) * pageSize).map(listForm);
	ctx.sendJson(200, { appointments: slice });
}

/** List items carry the object's fields without payment and service (§1.5). */
function listForm(a: FakeAppointment): Record<string, unknown> {
	const { payment: _payment, service: _service, ...rest } = a;
	return rest;
}

// ---------------------------------------------------------------------------------------------
// One appointment, update, actions

function getOne(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const appointment = addressed(ctx);
	if (!appointment) return;
	ctx.sendJson(200, {
		...appointment,
		payment: { payment_id: null, payment_status: null, amount: null },
		service: { created_at: 1704067200, mode: ['INCLINIC'], price: 500, post_pay: false, service_name: 'consultation', appointment_type: 'REGULAR', allow_patient_booking: true },
	});
}

/** The appointment the path addresses (by Eka id, or by partner id with `partner_id=1`); undefined after answering. */
function addressed(ctx: RouteContext, extraQuery: string[] = []): FakeAppointment | undefined {
	const unknown = [...ctx.query.keys()].filter((key) => key !== 'partner_id' && !extraQuery.includes(key));
	if (unknown.length > 0) {
		invalid(ctx, `unexpected query parameter(s): ${unknown.join(', ')}`);
		return undefined;
	}
	const partnerValues = ctx.query.getAll('partner_id');
	if (partnerValues.length > 1 || (partnerValues.length === 1 && !['0', '1'].includes(partnerValues[0]))) {
		invalid(ctx, 'partner_id is 1 (the id is your partner_appointment_id) or 0');
		return undefined;
	}
	const store = appointmentStoreOf(ctx.state);
	const byPartner = partnerValues[0] === '1';
	const appointment = byPartner
		? [...store.appointments.values()].find((a) => a.partner_appointment_id === ctx.params.id)
		: store.appointments.get(ctx.params.id);
	if (!appointment) {
		ctx.sendJson(404, { error: { code: 'APPOINTMENT_NOT_FOUND', message: 'The specified appointment ID does not exist' } });
		return undefined;
	}
	return appointment;
}

const UPDATE_FIELDS = [
	'clinic_id', 'doctor_id', 'patient_id', 'partner_clinic_id', 'partner_doctor_id', 'partner_patient_id',
	'token', 'appointment_details', 'partner_meta', 'patient_details', 'display_meta',
];

function updateV2(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const body = jsonObject(ctx);
	if (!body) return;
	const appointment = addressed(ctx);
	if (!appointment) return;
	const unknown = Object.keys(body).filter((key) => !UPDATE_FIELDS.includes(key));
	if (unknown.length > 0) return invalid(ctx, `unknown field(s): ${unknown.join(', ')}`);
	const ids = idSet(ctx, body);
	if (!ids) return;
	if (ids.clinic_id !== appointment.clinic_id || ids.doctor_id !== appointment.doctor_id || ids.patient_id !== appointment.patient_id) {
		return invalid(ctx, "the id set does not match the appointment's clinic, doctor and patient");
	}
	if (body.appointment_details !== undefined) {
		if (!isPlainObject(body.appointment_details)) return invalid(ctx, 'appointment_details must be an object');
		const problem = appointmentDetailsProblem(body.appointment_details, false);
		if (problem) return invalid(ctx, problem);
	}
	if (body.patient_details !== undefined) {
		const problem = patientDetailsProblem(body.patient_details);
		if (problem) return invalid(ctx, problem);
	}
	const otherProblem = commonFieldsProblem(body);
	if (otherProblem) return invalid(ctx, otherProblem);
	if (!ACTIVE.has(appointment.status)) return ctx.sendJson(403, { error: { code: 'UPDATE_NOT_ALLOWED', message: `appointment is ${appointment.status}` } });
	const details = isPlainObject(body.appointment_details) ? body.appointment_details : {};
	if (typeof details.start_time === 'number') appointment.start_time = details.start_time;
	if (typeof details.end_time === 'number') appointment.end_time = details.end_time;
	if (typeof details.mode === 'string') appointment.mode = details.mode;
	if (isPlainObject(details.custom_attributes)) appointment.custom_attributes = { ...appointment.custom_attributes, ...details.custom_attributes };
	// Replaced whole (DT).
	if (isPlainObject(body.partner_meta)) appointment.partner_meta = body.partner_meta;
	if (isPlainObject(body.display_meta)) appointment.display_meta = body.display_meta;
	if (typeof body.token === 'number') appointment.token = body.token;
	appointment.modified_at = Math.floor(Date.now() / 1000);
	appointmentStoreOf(ctx.state).accepted.push({ method: 'PATCH', path: ctx.record.pathname, appointmentId: appointment.appointment_id, body });
	ctx.res.writeHead(204).end();
}

function reschedule(ctx: RouteContext): void {
	if (!bearer(ctx)) return;
	const body = jsonObject(ctx);
	if (!body) return;
	if ([...ctx.query.keys()].length > 0) return flat(ctx, 400, 'no query parameters are taken');
	const store = appointmentStoreOf(ctx.state);
	const old = store.appointments.get(ctx.params.id);
	if (!old) return flat(ctx, 404, 'Appointment not found');
	const unknown = Object.keys(body).filter((key) => !['start_time', 'end_time', 'partner_appointment_id'].includes(key));
	if (unknown.length > 0) return flat(ctx, 400, `unknown field(s): ${unknown.join(', ')}`);
	for (const key of ['start_time', 'end_time']) {
		const value = body[key];
		if (!Number.isInteger(value) || (value as number) < 1_000_000_000 || (value as number) > 99_999_999_999) return flat(ctx, 400, `${key} is required, epoch seconds`);
	}
	if ((body.end_time as number) <= (body.start_time as number)) return flat(ctx, 400, 'end_time must be after start_time');
	if (body.partner_appointment_id !== undefined) {
		if (typeof body.partner_appointment_id !== 'string' || body.partner_appointment_id === '') return flat(ctx, 400, 'partner_appointment_id must be a non-empty string');
		if ([...store.appointments.values()].some((a) => a.partner_appointment_id === body.partner_appointment_id)) {
			return flat(ctx, 409, 'An appointment with this partner_appointment_id already exists');
		}
	}
	if (!ACTIVE.has(old.status)) return flat(ctx, 409, `Appointment is ${old.status} and cannot be rescheduled`);
	const { appointment_id: _id, partner_appointment_id: _partner, next_aid: _next, modified_at: _modified, ...kept } = old;
	const fresh = seedAppointment(store, {
		...kept,
		...(typeof body.partner_appointment_id === 'string' ? { partner_appointment_id: body.partner_appointment_id } : {}),
		status: 'BK',
		start_time: body.start_time as number,
		end_time: body.end_time as number,
		created_at: Math.floor(Date.now() / 1000),
		prev_aids: [...(old.prev_aids ?? []), old.appointment_id],
	});
	old.status = 'RES';
	old.next_aid = fresh.appointment_id;
	store.accepted.push({ method: 'PATCH', path: ctx.record.pathname, appointmentId: old.appointment_id, body });
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

function action(ctx: RouteContext, kind: Action): void {
	if (!authorised(ctx)) return;
	if (!emptyBody(ctx)) return;
	const appointment = addressed(ctx);
	if (!appointment) return;
	const code = { cancel: 'CANCEL_NOT_ALLOWED', complete: 'COMPLETE_NOT_ALLOWED', park: 'PARK_NOT_ALLOWED' }[kind];
	if (!ACTIVE.has(appointment.status)) {
		return ctx.sendJson(403, { error: { code, message: `Appointment is ${appointment.status}` } });
	}
	appointment.status = kind === 'cancel' ? 'CN' : kind === 'complete' ? (appointment.prescription_id ? 'CM' : 'CMNP') : 'PA';
	appointment.modified_at = Math.floor(Date.now() / 1000);
	appointmentStoreOf(ctx.state).accepted.push({ method: ctx.record.method, path: ctx.record.pathname, appointmentId: appointment.appointment_id, body: undefined });
	ctx.res.writeHead(204).end();
}

function changeStatus(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const body = jsonObject(ctx);
	if (!body) return;
	const appointment = addressed(ctx);
	if (!appointment) return;
	if (Object.keys(body).length !== 1 || body.status !== 'NS') return invalid(ctx, 'body must be {"status":"NS"}');
	if (!ACTIVE.has(appointment.status)) return ctx.sendJson(403, { error: { code: 'STATUS_CHANGE_NOT_ALLOWED', message: `Appointment is ${appointment.status}` } });
	appointment.status = 'NS';
	appointment.modified_at = Math.floor(Date.now() / 1000);
	appointmentStoreOf(ctx.state).accepted.push({ method: 'POST', path: ctx.record.pathname, appointmentId: appointment.appointment_id, body });
	ctx.sendJson(200, { message: 'Status updated' });
}

// ---------------------------------------------------------------------------------------------

/** The actions take no body (DT); none, or MCP's empty object, is accepted. */
function emptyBody(ctx: RouteContext): boolean {
	if (ctx.record.bodyLength === 0) return true;
	if (ctx.body?.isJsonMediaType && isPlainObject(ctx.body.value) && Object.keys(ctx.body.value).length === 0) return true;
	invalid(ctx, 'this action takes no body');
	return false;
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
	ctx.sendJson(400, { error: { code: 'INVALID_REQUEST_PARAMETERS', message }, data: {} });
}

function flat(ctx: RouteContext, status: number, message: string): void {
	ctx.sendJson(status, { message });
}

/** `auth: <token>` or `Authorization: Bearer <token>`, and a matching client-id if sent; false after answering 401. */
function authorised(ctx: RouteContext): boolean {
	const raw = ctx.req.headers.auth;
	const header = ctx.req.headers.authorization;
	const bearerToken = typeof header === 'string' ? /^Bearer (.+)$/.exec(header)?.[1] : undefined;
	return checkToken(ctx, typeof raw === 'string' ? raw : bearerToken);
}

function bearer(ctx: RouteContext): boolean {
	const header = ctx.req.headers.authorization;
	const token = typeof header === 'string' ? /^Bearer (.+)$/.exec(header)?.[1] : undefined;
	if (!token) {
		ctx.sendJson(401, { message: 'Authorization: Bearer is required' });
		return false;
	}
	return checkToken(ctx, token);
}

function checkToken(ctx: RouteContext, token: string | undefined): boolean {
	const check = ctx.state.tokens.checkAccess(token);
	if (!check.valid) {
		ctx.sendJson(401, { error: { code: 'UNAUTHORIZED', message: 'token expired or invalid' } });
		return false;
	}
	const expectedClient = check.subject === 'static' ? ctx.state.credentials.clientId : check.subject.clientId;
	const sent = ctx.req.headers['client-id'];
	if (sent !== undefined && sent !== expectedClient) {
		ctx.sendJson(401, { error: { code: 'UNAUTHORIZED', message: 'client-id does not match the token' } });
		return false;
	}
	return true;
}

function daysBetween(from: string, to: string): number {
	return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

function addDays(date: string, days: number): string {
	return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

function istIso(epoch: number): string {
	return `${new Date((epoch + IST_OFFSET_SECONDS) * 1000).toISOString().slice(0, 19)}+05:30`;
}

function istDate(epoch: number): string {
	return new Date((epoch + IST_OFFSET_SECONDS) * 1000).toISOString().slice(0, 10);
}

// ---------------------------------------------------------------------------------------------
// Admin

export const appointmentAdmin: readonly AdminDefinition[] = [
	{ method: 'GET', action: '/appointments', handler: ({ state }) => [...appointmentStoreOf(state).appointments.values()] },
	{
		method: 'POST',
		action: '/appointments/seed',
		handler: ({ state, input }) => {
			if (!isPlainObject(input)) throw new Error('body must be an appointment object or {"appointments":[…]}');
			const list = Array.isArray(input.appointments) ? input.appointments : [input];
			if (!list.every(isPlainObject)) throw new Error('each appointment must be an object');
			const store = appointmentStoreOf(state);
			return { seeded: list.map((item) => store.seed(item as Partial<FakeAppointment>)) };
		},
	},
	{
		method: 'POST',
		action: '/appointments/clear',
		handler: ({ state }) => {
			resetAppointmentStore(appointmentStoreOf(state));
			return { ok: true };
		},
	},
];
