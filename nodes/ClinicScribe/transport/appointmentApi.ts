/**
 * The appointment calls of the doctor-tool API ([EKA-DT]), as calls.
 * Refusals become errors that say what went wrong and what to do; shaping is in
 * shared/answers/appointmentRecords.ts. Patient details sent with a booking are redacted from every error.
 */
import { NodeApiError, type IDataObject, type JsonObject } from 'n8n-workflow';

import { readAppointmentBody } from '../shared/answers/appointmentRecords';
import type { ClinicApiContext, ClinicApiResponse } from './apiCall';
import { readErrorFields, unexpectedBodyError } from './errors';
import { clinicApiRequest, pathSegment } from './request';

const APPOINTMENTS_PATH = '/dr/v1/appointment';
/** Updates go to v2: [EKA-DT] documents v1 and v2, and [EKA-MCP] uses v2 for every update. */
const APPOINTMENT_UPDATE_PREFIX = '/dr/v2/appointment';
/** The reschedule that answers the new appointment ([EKA-DT]); v1's answers "not available for this workspace" ([EKA-MCP]). */
const RESCHEDULE_PREFIX = '/appointments/v1';

/** How the path's id is meant: Eka's appointment id, or the partner's own (`?partner_id=1`). */
interface AppointmentRef {
	appointmentId: string;
	/** True: the id is your partner_appointment_id. */
	partnerId?: boolean;
}

interface AppointmentCallOptions {
	partnerId?: boolean;
	itemIndex?: number;
	/** Ends the call and its retries (the trigger's deadline); default: the execution's cancel signal. */
	abortSignal?: AbortSignal;
	timeoutMs?: number;
}

/** Refusals read here rather than thrown by the transport, to say what they mean for appointments. */
const REFUSALS = [400, 403, 404, 409, 422];

function idPath(
	ctx: ClinicApiContext,
	prefix: string,
	appointmentId: string,
	itemIndex?: number,
): string {
	return `${prefix}/${pathSegment(ctx, appointmentId, 'Appointment ID', itemIndex)}`;
}

/**
 * `partner_id=1` when the id is the partner's; nothing otherwise. [EKA-DT] marks the parameter
 * required on the actions, but [EKA-MCP] never sends it there, so it is sent only when it changes
 * the meaning.
 */
function partnerQuery(partnerId: boolean | undefined): IDataObject | undefined {
	return partnerId ? { partner_id: 1 } : undefined;
}

/**
 * One appointment (`GET /dr/v1/appointment/{id}`), as the service sent it (not normalised: see
 * `normalizeAppointment`). Used by Appointment → Get and by the trigger's clinic events.
 */
export async function getAppointment(
	ctx: ClinicApiContext,
	appointmentId: string,
	options: AppointmentCallOptions = {},
): Promise<IDataObject> {
	const purpose = `appointment "${appointmentId}"`;
	const response = await clinicApiRequest(ctx, {
		method: 'GET',
		path: idPath(ctx, APPOINTMENTS_PATH, appointmentId, options.itemIndex),
		qs: partnerQuery(options.partnerId),
		idempotent: true,
		acceptStatuses: REFUSALS,
		abortSignal: options.abortSignal,
		timeoutMs: options.timeoutMs,
		purpose,
		itemIndex: options.itemIndex,
	});
	refuseUnlessOk(ctx, response, { purpose, itemIndex: options.itemIndex, appointmentId });
	const appointment = readAppointmentBody(response.body);
	if (!appointment)
		throw unexpectedBodyError(ctx, { purpose, itemIndex: options.itemIndex }, response.statusCode);
	return appointment;
}

/** Slots of a doctor at a clinic (`start_date`/`end_date` as `YYYY-MM-DD` as [EKA-DT-OLD] writes them; [EKA-MCP] sends ISO midnights). */
export async function getSlots(
	ctx: ClinicApiContext,
	request: { doctorId: string; clinicId: string; startDate: string; endDate: string },
	itemIndex?: number,
): Promise<ClinicApiResponse> {
	const purpose = `the slots of doctor "${request.doctorId}" at clinic "${request.clinicId}"`;
	const doctor = pathSegment(ctx, request.doctorId, 'Doctor ID', itemIndex);
	const clinic = pathSegment(ctx, request.clinicId, 'Clinic ID', itemIndex);
	const response = await clinicApiRequest(ctx, {
		method: 'GET',
		path: `/dr/v1/doctor/${doctor}/clinic/${clinic}/appointment/slot`,
		qs: { start_date: request.startDate, end_date: request.endDate },
		idempotent: true,
		acceptStatuses: REFUSALS,
		purpose,
		itemIndex,
	});
	refuseUnlessOk(ctx, response, { purpose, itemIndex });
	return response;
}

/**
 * `POST /dr/v1/appointment`. Never repeated after a 5xx or a lost answer (the transport repeats a
 * call that is not idempotent only after 408/429): a repeat could book the patient twice.
 * `redact`: the patient's details, which must not come back in an error.
 */
export async function bookAppointment(
	ctx: ClinicApiContext,
	body: IDataObject,
	redact: string[],
	itemIndex: number,
): Promise<ClinicApiResponse> {
	const purpose = 'the booking';
	const response = await clinicApiRequest(ctx, {
		method: 'POST',
		path: APPOINTMENTS_PATH,
		body,
		idempotent: false,
		acceptStatuses: REFUSALS,
		purpose,
		itemIndex,
		redact,
	});
	refuseUnlessOk(ctx, response, { purpose, itemIndex, redact });
	return response;
}

/** One page of `GET /dr/v1/appointment` (the filter set is checked by the caller: shared/appointmentFilters.ts). */
export async function listAppointmentsPage(
	ctx: ClinicApiContext,
	qs: IDataObject,
	itemIndex?: number,
): Promise<ClinicApiResponse> {
	const purpose = 'the list of appointments';
	const response = await clinicApiRequest(ctx, {
		method: 'GET',
		path: APPOINTMENTS_PATH,
		qs,
		idempotent: true,
		acceptStatuses: REFUSALS,
		purpose,
		itemIndex,
	});
	refuseUnlessOk(ctx, response, { purpose, itemIndex });
	return response;
}

/** `PATCH /dr/v2/appointment/{id}` (204). Setting the same fields twice leaves the same appointment. */
export async function updateAppointment(
	ctx: ClinicApiContext,
	ref: AppointmentRef,
	body: IDataObject,
	redact: string[],
	itemIndex: number,
): Promise<ClinicApiResponse> {
	const purpose = `the update of appointment "${ref.appointmentId}"`;
	const response = await clinicApiRequest(ctx, {
		method: 'PATCH',
		path: idPath(ctx, APPOINTMENT_UPDATE_PREFIX, ref.appointmentId, itemIndex),
		qs: partnerQuery(ref.partnerId),
		body,
		idempotent: true,
		acceptStatuses: REFUSALS,
		purpose,
		itemIndex,
		redact,
	});
	refuseUnlessOk(ctx, response, { purpose, itemIndex, appointmentId: ref.appointmentId, redact });
	return response;
}

/**
 * `PATCH /appointments/v1/{id}/reschedule` → 200, the new appointment. It creates an appointment,
 * so it is not repeated after a 5xx either (a second repeat would find the old one already moved).
 */
export async function rescheduleAppointment(
	ctx: ClinicApiContext,
	appointmentId: string,
	body: IDataObject,
	itemIndex: number,
): Promise<ClinicApiResponse> {
	const purpose = `the rescheduling of appointment "${appointmentId}"`;
	const response = await clinicApiRequest(ctx, {
		method: 'PATCH',
		path: `${idPath(ctx, RESCHEDULE_PREFIX, appointmentId, itemIndex)}/reschedule`,
		body,
		idempotent: false,
		acceptStatuses: REFUSALS,
		purpose,
		itemIndex,
	});
	refuseUnlessOk(ctx, response, { purpose, itemIndex, appointmentId });
	return response;
}

export type AppointmentAction = 'cancel' | 'complete' | 'park' | 'noShow';

/** The action endpoints ([EKA-DT]). Each sets a state: doing it twice leaves the same state. */
const ACTIONS: Record<
	AppointmentAction,
	{ method: 'PUT' | 'POST'; suffix: string; body?: IDataObject; words: string }
> = {
	cancel: { method: 'PUT', suffix: 'cancel', words: 'the cancellation' },
	complete: { method: 'POST', suffix: 'complete', words: 'the completion' },
	park: { method: 'POST', suffix: 'parked', words: 'the parking' },
	// "NS" is the only value [EKA-DT] documents for change-status.
	noShow: {
		method: 'POST',
		suffix: 'change-status',
		body: { status: 'NS' },
		words: 'the no-show mark',
	},
};

export async function appointmentAction(
	ctx: ClinicApiContext,
	action: AppointmentAction,
	ref: AppointmentRef,
	itemIndex: number,
): Promise<ClinicApiResponse> {
	const spec = ACTIONS[action];
	const purpose = `${spec.words} of appointment "${ref.appointmentId}"`;
	const response = await clinicApiRequest(ctx, {
		method: spec.method,
		path: `${idPath(ctx, APPOINTMENTS_PATH, ref.appointmentId, itemIndex)}/${spec.suffix}`,
		qs: partnerQuery(ref.partnerId),
		body: spec.body,
		idempotent: true,
		acceptStatuses: REFUSALS,
		purpose,
		itemIndex,
	});
	refuseUnlessOk(ctx, response, { purpose, itemIndex, appointmentId: ref.appointmentId });
	return response;
}

interface AppointmentRequest {
	purpose: string;
	itemIndex?: number;
	appointmentId?: string;
	redact?: string[];
}

function refuseUnlessOk(
	ctx: ClinicApiContext,
	response: ClinicApiResponse,
	request: AppointmentRequest,
): void {
	if (response.statusCode >= 200 && response.statusCode < 300) return;
	throw appointmentRefusedError(ctx, request, response.statusCode, response.body);
}

/** The service's refusal, said as what went wrong and what to do (its own words kept, patient data removed). */
function appointmentRefusedError(
	ctx: ClinicApiContext,
	request: AppointmentRequest,
	statusCode: number,
	body: unknown,
): NodeApiError {
	const fields = readErrorFields(body);
	const said = scrub(fields.message, request.redact);
	const label = fields.code ? `${statusCode} ${fields.code}` : `${statusCode}`;
	const apiSaid = said ? `: ${said}` : '';
	const item = request.itemIndex === undefined ? '' : ` (item ${request.itemIndex})`;
	let message = `The clinic API refused ${request.purpose}${item} (HTTP ${label})${apiSaid}`;
	let description: string;
	if (statusCode === 404) {
		if (request.appointmentId) {
			message = `The clinic has no appointment "${request.appointmentId}"${item} (HTTP ${label})${apiSaid}`;
			description =
				"Check the Appointment ID, and whether it is Eka's appointment ID or your partner appointment ID (ID Type). Appointment → Get Many lists the appointments.";
		} else {
			description =
				'Check the doctor and clinic IDs (pick them from the lists) and that the doctor works at that clinic.';
		}
	} else if (statusCode === 403) {
		description = /NOT_ALLOWED$/.test(fields.code ?? '')
			? 'The appointment is not in a state that allows this (for example it is already cancelled or completed). Get the appointment to see its status.'
			: 'The credential is not allowed to do this for this clinic or doctor. Check its permissions with your workspace admin.';
	} else if (statusCode === 409) {
		description =
			'An appointment with this partner appointment ID already exists: it was booked before. Get it with ID Type "Partner Appointment ID" instead of booking again.';
	} else {
		description =
			'A field is missing or not valid for the service: check the IDs (one complete set), the times (end after start) and the other fields, then run again.';
	}
	return new NodeApiError(
		ctx.getNode(),
		{ status_code: statusCode, code: fields.code ?? null, message: said ?? null } as JsonObject,
		{
			message,
			description,
			httpCode: String(statusCode),
			itemIndex: request.itemIndex,
		},
	);
}

function scrub(text: string | undefined, values: string[] | undefined): string | undefined {
	if (text === undefined || !values) return text;
	let out = text;
	for (const value of values.filter((v) => v.length >= 3))
		out = out.split(value).join('[redacted]');
	return out;
}
