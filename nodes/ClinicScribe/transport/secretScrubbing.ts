/**
 * Scrubbing secrets out of what a failure says: the credential's values, and what a call names in
 * `redact` (patient data it sends, a mobile number in any spelling), removed from text, copies of
 * answers and errors in place. Knows no node context: the credential's token exchange uses it too.
 */

const REDACTED = '[redacted]';

/** A value to remove from text: a secret as it is, or a pattern (a mobile number in any spelling). */
type Redaction = string | RegExp;

/**
 * Never let a secret reach a message, whatever the server echoed back: a copy of a text or a JSON
 * value (an API answer: every string in it, keys included) with the credential's values (`secrets`)
 * as they are, and the values a call sent (`sent`: patient data, a signing key), a 10-digit mobile
 * number in any spelling, replaced. Used on every error answer as it arrives, so no message built
 * from it can carry a secret.
 */
export function scrubSecrets<T>(
	value: T,
	secrets: Array<string | undefined>,
	sent: string[] = [],
): T {
	return scrubCopy(value, redactionsOf(secrets, sent), new WeakSet()) as T;
}

function scrubText(text: string, redactions: Redaction[]): string {
	let result = text;
	for (const secret of redactions) {
		result =
			typeof secret === 'string'
				? result.split(secret).join(REDACTED)
				: result.replace(secret, REDACTED);
	}
	return result;
}

/**
 * What to remove, longest first, so a secret that contains another is replaced whole; too short ones
 * are skipped. A value a call sent that is a 10-digit mobile number is removed in any spelling.
 */
function redactionsOf(secrets: Array<string | undefined>, sent: string[]): Redaction[] {
	const all = [
		...secrets,
		...sent.map((value) => (/^\d{10}$/.test(value) ? mobileNumberPattern(value) : value)),
	];
	const strings = all
		.filter((s): s is string => typeof s === 'string' && s.length >= 4)
		.sort((a, b) => b.length - a.length);
	const patterns = all.filter((s): s is RegExp => s instanceof RegExp);
	return [...patterns, ...strings];
}

/**
 * A 10-digit number as an API may echo it: digits apart by spaces, dashes, dots or brackets, and
 * after a +91, 0091, 91 or 0 prefix.
 */
function mobileNumberPattern(digits: string): RegExp {
	const separator = '[\\s\\-.()]*';
	const body = [...digits].join(separator);
	return new RegExp(`[(]?(?:(?:\\+|00)?91${separator}|0${separator})?${body}`, 'g');
}

function scrubCopy(value: unknown, redactions: Redaction[], seen: WeakSet<object>): unknown {
	if (typeof value === 'string') return scrubText(value, redactions);
	if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return value;
	if (seen.has(value)) return undefined;
	seen.add(value);
	if (Array.isArray(value)) return value.map((entry) => scrubCopy(entry, redactions, seen));
	const copy: Record<string, unknown> = {};
	for (const [key, entry] of Object.entries(value))
		copy[scrubText(key, redactions)] = scrubCopy(entry, redactions, seen);
	return copy;
}

/**
 * Replaces every secret (as `scrubSecrets` takes them) in an error as n8n keeps it, in place:
 * message, description, messages, context, errorResponse, stack and cause, and every object below
 * them (n8n stores these with the execution and shows them).
 */
export function scrubErrorInPlace(
	error: unknown,
	secrets: Array<string | undefined>,
	sent: string[] = [],
): void {
	const redactions = redactionsOf(secrets, sent);
	if (redactions.length === 0) return;
	scrubObjectInPlace(error, redactions, new WeakSet(), 0);
}

const ERROR_TEXT_KEYS = ['message', 'description', 'stack'];

function scrubObjectInPlace(
	target: unknown,
	redactions: Redaction[],
	seen: WeakSet<object>,
	depth: number,
): void {
	if (typeof target !== 'object' || target === null || seen.has(target) || depth > 8) return;
	seen.add(target);
	const record = target as Record<string, unknown>;
	const keys = new Set([
		...Object.keys(record),
		...(target instanceof Error ? [...ERROR_TEXT_KEYS, 'cause'] : []),
	]);
	for (const key of keys) {
		let entry: unknown;
		try {
			entry = record[key];
		} catch {
			continue;
		}
		if (typeof entry === 'string') {
			const clean = scrubText(entry, redactions);
			if (clean !== entry) {
				try {
					record[key] = clean;
				} catch {
					// A read-only property keeps its value; the error's own fields are writable.
				}
			}
		} else if (typeof entry === 'object' && entry !== null) {
			scrubObjectInPlace(entry, redactions, seen, depth + 1);
		}
	}
}
