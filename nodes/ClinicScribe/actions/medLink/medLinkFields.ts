/**
 * The Link Terms operation's input read and checked before anything is sent: the Code System chosen
 * and the item's terms. The package's bounds (the docs give none): an item is a short list of terms.
 */
import {
	MEDLINK_MAX_TERM_LENGTH,
	MEDLINK_ONTOLOGIES,
	type MedLinkOntology,
} from '../../shared/answers/medLinkTerms';

const MEDLINK_MAX_TERMS_PER_ITEM = 100;

export function isMedLinkOntology(value: unknown): value is MedLinkOntology {
	return (
		typeof value === 'string' && Object.prototype.hasOwnProperty.call(MEDLINK_ONTOLOGIES, value)
	);
}

type TermsReading = { ok: true; terms: string[] } | { ok: false; problem: string };

/**
 * The terms of one item: a list, or text with one term per line or between commas. Blank entries
 * are dropped; what is left must be 1–100 terms of at most 200 characters each.
 */
export function readTerms(value: unknown): TermsReading {
	const entries = Array.isArray(value)
		? value.map((entry) => (typeof entry === 'string' ? entry : String(entry ?? '')))
		: typeof value === 'string'
			? value.split(/[,\n\r]/)
			: typeof value === 'number'
				? [String(value)]
				: [];
	const terms = entries.map((entry) => entry.replace(/\s+/g, ' ').trim()).filter(Boolean);
	if (terms.length === 0) return { ok: false, problem: 'is empty' };
	if (terms.length > MEDLINK_MAX_TERMS_PER_ITEM)
		return {
			ok: false,
			problem: `has ${terms.length} terms, more than the ${MEDLINK_MAX_TERMS_PER_ITEM} one item may have`,
		};
	const tooLong = terms.findIndex((term) => [...term].length > MEDLINK_MAX_TERM_LENGTH);
	if (tooLong >= 0)
		return {
			ok: false,
			problem: `has a term (number ${tooLong + 1}) longer than ${MEDLINK_MAX_TERM_LENGTH} characters`,
		};
	return { ok: true, terms };
}
