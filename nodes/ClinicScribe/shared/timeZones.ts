/**
 * Pure time-zone arithmetic on the runtime's Intl data (IANA names): the wall clock and offset of an
 * instant in a zone, ISO text with that offset, and the instant a wall-clock time names. Shared by the
 * appointment and patient-directory rules, which read and write times in a clinic's or workflow's zone.
 */

/** Whether the name is a time zone this runtime knows (IANA name, e.g. Asia/Kolkata). */
export function isKnownTimeZone(timeZone: string): boolean {
	try {
		new Intl.DateTimeFormat('en-US', { timeZone });
		return timeZone.trim() !== '';
	} catch {
		return false;
	}
}

export interface WallClock {
	year: number;
	month: number;
	day: number;
	hour: number;
	minute: number;
	second: number;
}

/**
 * One formatter per zone: making one costs far more than using it (a list of 6,000 appointments spent
 * about 3 s making two per record).
 */
const wallClockFormats = new Map<string, Intl.DateTimeFormat>();

function wallClockFormat(timeZone: string): Intl.DateTimeFormat {
	let format = wallClockFormats.get(timeZone);
	if (!format) {
		format = new Intl.DateTimeFormat('en-US', {
			timeZone,
			hourCycle: 'h23',
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			second: '2-digit',
		});
		// A zone name comes from a parameter: the cache stays small whatever the workflows send.
		if (wallClockFormats.size >= 64) wallClockFormats.clear();
		wallClockFormats.set(timeZone, format);
	}
	return format;
}

function wallClockAt(epochMs: number, timeZone: string): WallClock {
	const parts = wallClockFormat(timeZone).formatToParts(new Date(epochMs));
	const get = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? 0);
	return {
		year: get('year'),
		month: get('month'),
		day: get('day'),
		hour: get('hour') % 24,
		minute: get('minute'),
		second: get('second'),
	};
}

/** Minutes the zone is ahead of UTC at that instant (+330 for Asia/Kolkata). */
function zoneOffsetMinutes(epochMs: number, timeZone: string): number {
	const wall = wallClockAt(epochMs, timeZone);
	const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
	return Math.round((asUtc - Math.floor(epochMs / 1000) * 1000) / 60000);
}

/** A number's digits, zero-padded to the width (no sign). */
export const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** Epoch seconds as ISO 8601 in the zone, with its offset: `2026-11-24T10:00:00+05:30`. */
export function isoInZone(epochSeconds: number, timeZone: string): string {
	const ms = epochSeconds * 1000;
	const wall = wallClockAt(ms, timeZone);
	const offset = zoneOffsetMinutes(ms, timeZone);
	const sign = offset < 0 ? '-' : '+';
	const date = `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}`;
	const time = `${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}`;
	return `${date}T${time}${sign}${pad(Math.trunc(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}

/** The calendar date (YYYY-MM-DD) of an instant in the zone. */
export function dateInZone(epochSeconds: number, timeZone: string): string {
	return isoInZone(epochSeconds, timeZone).slice(0, 10);
}

/** The instant a wall-clock time of the zone names (the earlier one when a clock change repeats it). */
export function epochOfWallClock(wall: WallClock, timeZone: string): number {
	const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
	let guess = asUtc - zoneOffsetMinutes(asUtc, timeZone) * 60000;
	guess = asUtc - zoneOffsetMinutes(guess, timeZone) * 60000;
	return Math.floor(guess / 1000);
}
