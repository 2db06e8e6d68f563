/**
 * Reading values of unknown shape (API bodies, webhook payloads, node parameters). One behaviour
 * each, used by every room, so two readers never disagree on the same value.
 */
import type { IDataObject } from 'n8n-workflow';

/** A plain object: not null, not an array. */
export function isRecord(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value if it is a plain object, otherwise undefined. */
export function asRecord(value: unknown): IDataObject | undefined {
	return isRecord(value) ? value : undefined;
}

/**
 * Whether two values are the same as JSON: objects by their keys and values in any order (a key
 * whose value is undefined counts as absent, as in JSON text), arrays item by item in order.
 */
export function sameJsonValue(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (Array.isArray(a) || Array.isArray(b)) {
		return (
			Array.isArray(a) &&
			Array.isArray(b) &&
			a.length === b.length &&
			a.every((entry, index) => sameJsonValue(entry, b[index]))
		);
	}
	if (!isRecord(a) || !isRecord(b)) return false;
	const keysOf = (record: IDataObject) =>
		Object.keys(record).filter((key) => record[key] !== undefined);
	const keys = keysOf(a);
	return (
		keys.length === keysOf(b).length &&
		keys.every(
			(key) => Object.prototype.hasOwnProperty.call(b, key) && sameJsonValue(a[key], b[key]),
		)
	);
}

/**
 * A JSON object parameter, given as JSON text or as an object from an expression: the object, no
 * object when the value is empty (undefined, null or ''), or why it is not one.
 */
export function readJsonObjectParameter(value: unknown): {
	object?: IDataObject;
	problem?: 'is not valid JSON' | 'is not a JSON object';
} {
	if (value === undefined || value === null || value === '') return {};
	let parsed: unknown = value;
	if (typeof value === 'string') {
		try {
			parsed = JSON.parse(value);
		} catch {
			return { problem: 'is not valid JSON' };
		}
	}
	return isRecord(parsed) ? { object: parsed } : { problem: 'is not a JSON object' };
}

/**
 * The value as text: a string with something in it, trimmed; a finite number as its decimal string.
 * Anything else (blank string, NaN, boolean, object, null, undefined) is no text: undefined.
 */
export function textOf(value: unknown): string | undefined {
	if (typeof value === 'string') {
		const trimmed = value.trim();
		return trimmed === '' ? undefined : trimmed;
	}
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return undefined;
}

/**
 * A string parameter, trimmed; '' for anything that is not a string (numbers included), so a
 * caller can use `||` for its default.
 */
export function trimmedString(value: unknown): string {
	return typeof value === 'string' ? value.trim() : '';
}

/** The first of the values that has text (see `textOf`), or undefined. */
export function firstText(...values: unknown[]): string | undefined {
	for (const value of values) {
		const found = textOf(value);
		if (found !== undefined) return found;
	}
	return undefined;
}

/**
 * The first value that is there at all: not undefined, not null ('' counts, unlike `firstPresent`:
 * for records that show a field as the API sent it). Undefined when none is.
 */
export function firstNonNull(...values: unknown[]): unknown {
	return values.find((value) => value !== undefined && value !== null);
}

/** The first value that is present: not undefined, not null, not ''. Undefined when none is. */
export function firstPresent(...values: unknown[]): unknown {
	return values.find((value) => value !== undefined && value !== null && value !== '');
}

/** The text with its first letter a capital, to begin a sentence ("the file of item 0" → "The file of item 0"). */
export function capitalised(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}
