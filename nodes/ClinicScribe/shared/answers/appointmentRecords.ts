/**
 * Pure rules of the appointment (doctor-tool) API ([EKA-DT] `/dr/v1/appointment…`): times of an
 * answer (epoch seconds on the wire, ISO with the clinic's offset for people), status codes and their
 * labels, and the shaping of an appointment object. The user's time input is read by ../timeInput.ts. No requests here; the trigger's clinic events
 * reuse `normalizeAppointment`.
 */
import type { IDataObject } from 'n8n-workflow';

import { MAX_EPOCH_SECONDS } from '../timeInput';
import { isKnownTimeZone, isoInZone } from '../timeZones';
import { isRecord, textOf } from '../values';

/**
 * The clinic's time zone when none is given: every source shows Indian time ([EKA-DT] slot times
 * carry +05:30; [EKA-MCP] computes epochs from an IST wall clock).
 */
export const DEFAULT_CLINIC_TIME_ZONE = 'Asia/Kolkata';

/** Status codes as [EKA-DT]'s descriptions list them (its schema enum has fewer), with a readable label and their group. */
export const APPOINTMENT_STATUSES: Readonly<
	Record<string, { label: string; group: AppointmentStatusGroup }>
> = Object.freeze({
	BK: { label: 'Booked', group: 'booked' },
	CK: { label: 'Checked In', group: 'booked' },
	RV: { label: 'Reserved (Follow-up Confirmed)', group: 'booked' },
	IN: { label: 'Initiated (Follow-up Message Sent)', group: 'booked' },
	PA: { label: 'Parked', group: 'booked' },
	OG: { label: 'Ongoing', group: 'ongoing' },
	CM: { label: 'Completed', group: 'completed' },
	CMNP: { label: 'Completed Without Prescription', group: 'completed' },
	AB: { label: 'Aborted', group: 'completed' },
	NS: { label: 'No-Show', group: 'completed' },
	NSD: { label: 'No-Show (Marked by Doctor)', group: 'completed' },
	NSS: { label: 'No-Show (Marked by Staff)', group: 'completed' },
	CN: { label: 'Cancelled', group: 'cancelled' },
	CND: { label: 'Cancelled by Doctor', group: 'cancelled' },
	CNS: { label: 'Cancelled by Staff', group: 'cancelled' },
	PC: { label: 'Provisionally Cancelled', group: 'cancelled' },
	PNR: { label: 'Payment Not Received', group: 'cancelled' },
	RE: { label: 'Rescheduled', group: 'rescheduled' },
	RES: { label: 'Rescheduled by Staff', group: 'rescheduled' },
	RED: { label: 'Rescheduled by Doctor', group: 'rescheduled' },
});

type AppointmentStatusGroup = 'booked' | 'ongoing' | 'completed' | 'cancelled' | 'rescheduled';

/** The readable label of a status code; an unknown code is shown as itself (never hidden). */
export function statusLabel(code: unknown): string | null {
	const text = textOf(code);
	if (text === undefined) return null;
	const known = ownStatus(text.toUpperCase());
	return known ? known.label : `Unknown (${text})`;
}

function ownStatus(code: string): { label: string; group: AppointmentStatusGroup } | undefined {
	return Object.prototype.hasOwnProperty.call(APPOINTMENT_STATUSES, code)
		? APPOINTMENT_STATUSES[code]
		: undefined;
}

/**
 * A status the user typed or picked, as its code: the code itself ("bk", "CN") or its label
 * ("Cancelled", "no-show"), case and spaces ignored. Undefined when it is neither.
 */
export function statusCodeOf(value: unknown): string | undefined {
	const text = textOf(value);
	if (text === undefined) return undefined;
	const upper = text.toUpperCase();
	if (ownStatus(upper)) return upper;
	const squash = (s: string) => s.toLowerCase().replace(/[^a-z]/g, '');
	const wanted = squash(text);
	return Object.keys(APPOINTMENT_STATUSES).find(
		(code) => squash(APPOINTMENT_STATUSES[code].label) === wanted,
	);
}

/**
 * The mode as one spelling: [EKA-DT]'s enum and examples alone write `INCLINIC`, `in_clinic`,
 * `in-clinic`, `IN_CLINIC` and `tele`: lower case, `-` read as `_`, `inclinic` as `in_clinic`.
 */
export function normalizeMode(value: unknown): string | null {
	const text = textOf(value);
	if (text === undefined) return null;
	const mode = text.toLowerCase().replace(/-/g, '_');
	return mode === 'inclinic' ? 'in_clinic' : mode;
}

/**
 * A time field of an answer as epoch seconds: seconds as sent; milliseconds (receipts, some
 * events) divided; an ISO text (older endpoints, webhook samples) parsed. Null when absent or unreadable.
 */
export function epochOfAnswer(value: unknown): number | null {
	if (typeof value === 'number' && Number.isFinite(value))
		return value > MAX_EPOCH_SECONDS ? Math.floor(value / 1000) : value;
	if (typeof value === 'string' && value.trim() !== '') {
		const text = value.trim();
		if (/^\d+(\.\d+)?$/.test(text)) return epochOfAnswer(Number(text));
		const ms = Date.parse(text);
		return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
	}
	return null;
}

// ---------------------------------------------------------------------------------------------
// The appointment object

/** Time fields of an appointment that get a readable twin. */
const APPOINTMENT_TIME_FIELDS = ['start_time', 'end_time', 'created_at', 'modified_at'] as const;

/**
 * An appointment as the node returns it (and the trigger's events use it): every field the
 * service sent, kept; each time field as epoch seconds (`start_time`) with an ISO twin in the
 * clinic's offset (`start_time_iso`); `status` as sent with `status_label` beside it; `mode` in one
 * spelling (`mode_raw` keeps what was sent when that differs). Fields the service left out are
 * not invented, except the two readable twins, null when their source is absent.
 */
export function normalizeAppointment(
	raw: IDataObject,
	timeZone: string = DEFAULT_CLINIC_TIME_ZONE,
): IDataObject {
	const zone = isKnownTimeZone(timeZone) ? timeZone : DEFAULT_CLINIC_TIME_ZONE;
	const out: IDataObject = { ...raw };
	for (const field of APPOINTMENT_TIME_FIELDS) {
		if (!(field in raw) && field !== 'start_time' && field !== 'end_time') continue;
		const epoch = epochOfAnswer(raw[field]);
		out[field] = epoch ?? (raw[field] === undefined ? null : raw[field]);
		out[`${field}_iso`] = epoch === null ? null : isoInZone(epoch, zone);
	}
	if ('status' in raw) {
		const code = textOf(raw.status);
		out.status = code === undefined ? (raw.status ?? null) : code.toUpperCase();
		out.status_label = statusLabel(raw.status);
	}
	if ('mode' in raw) {
		const mode = normalizeMode(raw.mode);
		if (mode !== null && mode !== raw.mode) out.mode_raw = raw.mode;
		out.mode = mode;
	}
	out.time_zone = zone;
	return out;
}

/** The appointment object of `GET /dr/v1/appointment/{id}` (no `data` wrapper, [EKA-DT]; a wrapped one is read too). */
export function readAppointmentBody(body: unknown): IDataObject | undefined {
	if (!isRecord(body)) return undefined;
	if (textOf(body.appointment_id) !== undefined) return body;
	const data = body.data;
	return isRecord(data) && textOf(data.appointment_id) !== undefined ? data : undefined;
}
