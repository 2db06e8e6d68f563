/**
 * Clinic webhook events (appointments, prescriptions, receipts, …) in one shape. [EKA-PW] (the
 * payload schemas) and [EKA-WH-SAMPLES] (real deliveries) disagree, and every reading is accepted:
 * - the event name: `event` ([EKA-PW]), `event_type` ([EKA-WH-SAMPLES]), or `payload.event` inside
 *   the envelope the `v2rx.completed` samples use; read in that order.
 * - times: epoch seconds ([EKA-PW]), epoch milliseconds (receipts), ISO strings ([EKA-WH-SAMPLES]).
 * - ids: `prescription_id` ([EKA-PW]) or `rx_id` ([EKA-WH-SAMPLES]); receipts name the appointment
 *   `aid` and the doctor and patient `doctor_oid` / `patient_oid`; receipt ids are integers in
 *   [EKA-PW], strings in [EKA-WH-SAMPLES].
 *
 * `occurredAt` is when the event happened: `event_time` ([EKA-PW], every family), else the top-level
 * `timestamp`, else the record's own modified/updated/created time. Pure: no n8n calls.
 */
import type { IDataObject } from 'n8n-workflow';

import { statusLabel } from '../shared/answers/appointmentRecords';
import { toIsoTimestamp } from './completionEvents';
import { firstPresent, firstText, isRecord } from '../shared/values';

type ClinicEventKind =
	| 'appointment'
	| 'prescription'
	| 'receipt'
	| 'schedule'
	| 'certificate'
	| 'review'
	| 'vaccination'
	| 'admission'
	| 'user';

/** The kind of an event name by its documented prefix; undefined for names of no clinic family (`v2rx.*`, unknown). */
export function clinicEventKind(eventName: string): ClinicEventKind | undefined {
	const name = eventName.trim().toLowerCase();
	const prefix = name.split('.')[0];
	if (prefix === 'appointment') return 'appointment';
	if (prefix === 'prescription') return 'prescription';
	if (prefix === 'receipt' || prefix === 'receipt_payment') return 'receipt';
	if (prefix === 'schedule') return 'schedule';
	if (prefix === 'mcert') return 'certificate';
	if (prefix === 'google_review') return 'review';
	if (prefix === 'vaccination') return 'vaccination';
	if (prefix.startsWith('ipd_')) return 'admission';
	if (prefix === 'user') return 'user';
	return undefined;
}

/** The documented clinic events ([EKA-WH]'s list and [EKA-PW]'s payloads), as the trigger offers them. */
export const CLINIC_EVENTS: ReadonlyArray<{ value: string; name: string; description: string }> = [
	{
		value: 'appointment.created',
		name: 'Appointment Created',
		description: 'An appointment was booked, in any mode (appointment.created)',
	},
	{
		value: 'appointment.updated',
		name: 'Appointment Updated',
		description: 'An appointment was changed, e.g. cancelled (appointment.updated)',
	},
	{
		value: 'appointment.statuschange',
		name: 'Appointment Status Changed',
		description:
			'An appointment changed status, e.g. completed or no-show (appointment.statuschange)',
	},
	{
		value: 'appointment.assessments.taken',
		name: 'Appointment Assessments Taken',
		description: 'Assessments were recorded for an appointment (appointment.assessments.taken)',
	},
	{
		value: 'appointment.tele.dr_joined',
		name: 'Appointment Doctor Joined Teleconsultation',
		description: 'The doctor joined a teleconsultation (appointment.tele.dr_joined)',
	},
	{
		value: 'appointment.reminder_instant',
		name: 'Appointment Reminder',
		description: 'The clinic sent an appointment reminder (appointment.reminder_instant)',
	},
	{
		value: 'appointment.followup_reminder_instant',
		name: 'Appointment Follow-Up Reminder',
		description: 'The clinic sent a follow-up reminder (appointment.followup_reminder_instant)',
	},
	{
		value: 'prescription.created',
		name: 'Prescription Created',
		description: 'A prescription was finished (prescription.created)',
	},
	{
		value: 'prescription.updated',
		name: 'Prescription Updated',
		description: 'A saved prescription was edited (prescription.updated)',
	},
	{
		value: 'prescription.communication',
		name: 'Prescription Sent to Patient',
		description: 'A prescription was sent to the patient (prescription.communication)',
	},
	{
		value: 'receipt.created',
		name: 'Receipt Created',
		description: 'A receipt was created (receipt.created)',
	},
	{
		value: 'receipt.updated',
		name: 'Receipt Updated',
		description: 'A receipt was changed (receipt.updated)',
	},
	{
		value: 'receipt.deleted',
		name: 'Receipt Deleted',
		description: 'A receipt was deleted (receipt.deleted)',
	},
	{
		value: 'receipt_payment.requested',
		name: 'Receipt Payment Requested',
		description: 'A payment link was requested for an appointment (receipt_payment.requested)',
	},
	{
		value: 'schedule.start_practice',
		name: 'Schedule Practice Started',
		description: 'A doctor started practice (schedule.start_practice)',
	},
	{
		value: 'schedule.stop_practice',
		name: 'Schedule Practice Stopped',
		description: 'A doctor stopped practice (schedule.stop_practice)',
	},
	{
		value: 'schedule.available_for_consultation',
		name: 'Schedule Available for Consultation',
		description: 'A doctor became available for consultation (schedule.available_for_consultation)',
	},
	{
		value: 'mcert.created',
		name: 'Medical Certificate Created',
		description: 'A medical certificate was created (mcert.created)',
	},
	{
		value: 'mcert.updated',
		name: 'Medical Certificate Updated',
		description: 'A medical certificate was changed (mcert.updated)',
	},
	{
		value: 'google_review.request',
		name: 'Review Requested',
		description: 'A Google review was requested from a patient (google_review.request)',
	},
	{
		value: 'google_review.request_manual',
		name: 'Review Requested Manually',
		description: 'Staff requested a Google review by hand (google_review.request_manual)',
	},
	{
		value: 'vaccination.reminder',
		name: 'Vaccination Reminder',
		description: 'A vaccination reminder is due (vaccination.reminder)',
	},
	{ value: 'user.delete', name: 'User Deleted', description: 'A user was deleted (user.delete)' },
];

/** One clinic event, whatever documented variant arrived. Ids are strings (or null when absent). */
export interface ClinicEvent {
	event: string;
	kind: ClinicEventKind;
	/** `created`, `modified`, `updated`, `completed`, … as sent ([EKA-PW] `action`); null when absent. */
	action: string | null;
	/** Appointment status code (appointment events), as sent. */
	status: string | null;
	/** Its readable label, as Appointment → Get gives it (`Unknown (XY)` for a code not documented). */
	statusLabel: string | null;
	appointmentId: string | null;
	partnerAppointmentId: string | null;
	/** The appointment this one was rescheduled from (`data.p_aid`, as [EKA-PYSDK] reads it). */
	rescheduledFromAppointmentId: string | null;
	prescriptionId: string | null;
	receiptId: string | null;
	patientId: string | null;
	partnerPatientId: string | null;
	doctorId: string | null;
	partnerDoctorId: string | null;
	clinicId: string | null;
	partnerClinicId: string | null;
	businessId: string | null;
	transactionId: string | null;
	/** The PDF of a prescription (`prescription_url`) or receipt (`receipt_url`), or a payment link (`url`). */
	documentUrl: string | null;
	/** The printable prescription PDF (`prescription_url_print`). */
	printUrl: string | null;
	/** ISO 8601 UTC; null when the delivery carries no time. */
	occurredAt: string | null;
	/** Where the event name was read: `event` ([EKA-PW]), `event_type` ([EKA-WH-SAMPLES]) or `payload.event` (envelope). */
	nameField: 'event' | 'event_type' | 'payload.event';
	/** The delivery as received (parsed JSON). */
	body: IDataObject;
}

/** The event name a delivery carries (`event` ?? `event_type` ?? `payload.event` ?? `event_id`), or undefined. */
export function deliveryEventName(body: unknown): string | undefined {
	if (!isRecord(body)) return undefined;
	const payload = isRecord(body.payload) ? body.payload : {};
	return firstText(body.event, body.event_type, payload.event, body.event_id);
}

/** One shape for every documented clinic event; undefined when the body names no clinic event. */
export function normalizeClinicEvent(body: unknown): ClinicEvent | undefined {
	if (!isRecord(body)) return undefined;
	const payload = isRecord(body.payload) ? body.payload : undefined;
	const nameField: ClinicEvent['nameField'] =
		firstText(body.event) !== undefined
			? 'event'
			: firstText(body.event_type) !== undefined
				? 'event_type'
				: 'payload.event';
	const event = firstText(body.event, body.event_type, payload?.event);
	if (event === undefined) return undefined;
	const kind = clinicEventKind(event);
	if (kind === undefined) return undefined;
	// The envelope nests everything under `payload`; [EKA-PW] and [EKA-WH-SAMPLES] put `data` at the top.
	const outer: IDataObject = payload ?? body;
	const data: IDataObject = isRecord(body.data)
		? body.data
		: isRecord(outer.data)
			? outer.data
			: {};
	const text = (...values: unknown[]): string | null => firstText(...values) ?? null;

	const status = text(data.status);
	return {
		event,
		kind,
		action: text(data.action),
		status,
		statusLabel: status !== null ? statusLabel(status) : null,
		// Receipts name the appointment `aid` ([EKA-PW], [EKA-WH-SAMPLES]).
		appointmentId: text(data.appointment_id, data.aid),
		partnerAppointmentId: text(data.partner_appointment_id),
		rescheduledFromAppointmentId: text(data.p_aid),
		// [EKA-PW] `prescription_id`, [EKA-WH-SAMPLES] `rx_id`.
		prescriptionId: text(data.prescription_id, data.rx_id),
		receiptId: text(data.receipt_id),
		// Receipts: `patient_oid`, `doctor_oid`.
		patientId: text(data.patient_id, data.patient_oid),
		partnerPatientId: text(data.partner_patient_id),
		doctorId: text(data.doctor_id, data.doctor_oid),
		partnerDoctorId: text(data.partner_doctor_id),
		clinicId: text(data.clinic_id),
		partnerClinicId: text(data.partner_clinic_id),
		businessId: text(body.business_id, outer.business_id),
		transactionId: text(body.transaction_id, outer.transaction_id, data.transaction_id),
		documentUrl: text(data.prescription_url, data.receipt_url, data.url),
		printUrl: text(data.prescription_url_print),
		occurredAt: toIsoTimestamp(
			firstPresent(
				body.event_time,
				outer.event_time,
				body.timestamp,
				outer.timestamp,
				data.modified_at,
				data.updated_at,
				data.created_at,
			),
		),
		nameField,
		body,
	};
}
