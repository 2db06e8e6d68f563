/**
 * A time or a date as the user gives it (an n8n date-time, ISO 8601 or epoch seconds, read in the
 * clinic's zone), and whole-day arithmetic on `YYYY-MM-DD` dates. Pure: read by the appointment
 * fields and the list and slot date ranges.
 */
import { dateInZone, epochOfWallClock, pad, type WallClock } from './timeZones';
import { isRecord } from './values';

type TimeReading = { ok: true; epoch: number } | { ok: false; problem: string };

/** Epoch seconds beyond this are taken for milliseconds by mistake (year 5138). */
export const MAX_EPOCH_SECONDS = 99_999_999_999;

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
