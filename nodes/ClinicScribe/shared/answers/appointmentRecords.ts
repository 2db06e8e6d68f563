/**
 * Pure rules of the appointment (doctor-tool) API ([EKA-DT] `/dr/v1/appointment…`): times
 * (epoch seconds on the wire, ISO with the clinic's offset for people), status codes and their
 * labels, and the shaping of an appointment object. No requests here; the trigger's clinic events
 * reuse `normalizeAppointment`.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	dateInZone,
	epochOfWallClock,
	isKnownTimeZone,
	isoInZone,
	pad,
	type WallClock,
} from '../timeZones';
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

// ---------------------------------------------------------------------------------------------
// Time

type TimeReading = { ok: true; epoch: number } | { ok: false; problem: string };

/** Epoch seconds beyond this are taken for milliseconds by mistake (year 5138). */
const MAX_EPOCH_SECONDS = 99_999_999_999;

const ISO_PATTERN =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * A time as the user may give it: an n8n date-time (a Luxon DateTime or a Date from an
 * expression), an ISO 8601 string (one without an offset is read as the clinic's wall clock),
 * or epoch seconds (a number or a string of digits). A date alone is refused unless `allowDateOnly`
 * (then it is midnight at the clinic). Milliseconds are refused: they would book year 50 000.
 */
export function readTimeInput(
	value: unknown,
	timeZone: string,
	allowDateOnly = false,
): TimeReading {
	if (value instanceof Date) {
		const ms = value.getTime();
		return Number.isFinite(ms)
			? { ok: true, epoch: Math.floor(ms / 1000) }
			: { ok: false, problem: 'is not a valid date' };
	}
	if (isRecord(value) || (typeof value === 'object' && value !== null)) {
		const candidate = value as { toMillis?: unknown; toISO?: unknown; isValid?: unknown };
		if (typeof candidate.toMillis === 'function') {
			const ms = (candidate.toMillis as () => number)();
			if (candidate.isValid === false || !Number.isFinite(ms))
				return { ok: false, problem: 'is not a valid date-time' };
			return { ok: true, epoch: Math.floor(ms / 1000) };
		}
		return { ok: false, problem: 'is not a date-time, an ISO 8601 text or epoch seconds' };
	}
	if (typeof value === 'number') return epochSeconds(value);
	if (typeof value !== 'string') return { ok: false, problem: 'is empty' };
	const text = value.trim();
	if (text === '') return { ok: false, problem: 'is empty' };
	if (/^\d+(\.\d+)?$/.test(text)) return epochSeconds(Number(text));
	const match = ISO_PATTERN.exec(text);
	if (!match)
		return {
			ok: false,
			problem: `"${text}" is not a date-time: give ISO 8601 (2026-11-24T10:30:00+05:30) or epoch seconds`,
		};
	const [, y, mo, d, h, mi, s, zone] = match;
	if (h === undefined && !allowDateOnly) {
		return {
			ok: false,
			problem: `"${text}" is a date without a time of day: give the time too (2026-11-24T10:30:00)`,
		};
	}
	const wall = {
		year: Number(y),
		month: Number(mo),
		day: Number(d),
		hour: Number(h ?? 0),
		minute: Number(mi ?? 0),
		second: Number(s ?? 0),
	};
	if (!validWallClock(wall))
		return { ok: false, problem: `"${text}" is not a real date or time of day` };
	if (zone) {
		const ms = Date.parse(
			`${y}-${mo}-${d}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}${normalizeZone(zone)}`,
		);
		if (!Number.isFinite(ms))
			return { ok: false, problem: `"${text}" has an offset that is not valid` };
		return { ok: true, epoch: Math.floor(ms / 1000) };
	}
	return { ok: true, epoch: epochOfWallClock(wall, timeZone) };
}

function epochSeconds(value: number): TimeReading {
	if (!Number.isFinite(value) || value < 0)
		return { ok: false, problem: 'is not a valid epoch in seconds' };
	if (value > MAX_EPOCH_SECONDS) {
		return {
			ok: false,
			problem: `${value} looks like milliseconds: give epoch seconds (divide by 1000) or an ISO 8601 date-time`,
		};
	}
	return { ok: true, epoch: Math.floor(value) };
}

function normalizeZone(zone: string): string {
	if (zone.toUpperCase() === 'Z') return 'Z';
	return zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
}

function validWallClock(wall: WallClock): boolean {
	if (
		wall.month < 1 ||
		wall.month > 12 ||
		wall.day < 1 ||
		wall.hour > 23 ||
		wall.minute > 59 ||
		wall.second > 59
	)
		return false;
	const days = new Date(Date.UTC(wall.year, wall.month, 0)).getUTCDate();
	return wall.day <= days;
}

type DateReading = { ok: true; date: string } | { ok: false; problem: string };

/**
 * A calendar date for the list's date filters (`YYYY-MM-DD`, [EKA-DT]): the date itself, or the
 * clinic's date of any time `readTimeInput` accepts.
 */
export function readDateInput(value: unknown, timeZone: string): DateReading {
	if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value.trim())) {
		const [y, m, d] = value.trim().split('-').map(Number);
		if (!validWallClock({ year: y, month: m, day: d, hour: 0, minute: 0, second: 0 })) {
			return { ok: false, problem: `"${value.trim()}" is not a real date` };
		}
		return { ok: true, date: value.trim() };
	}
	const time = readTimeInput(value, timeZone, true);
	return time.ok ? { ok: true, date: dateInZone(time.epoch, timeZone) } : time;
}

/** Whole days from one `YYYY-MM-DD` to another (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
	return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** The `YYYY-MM-DD` a number of days after another. */
export function addDays(date: string, days: number): string {
	return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
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
