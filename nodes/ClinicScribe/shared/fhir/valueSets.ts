/**
 * The FHIR R4 value sets of the elements the bundle fills whose binding is *required* (a server may
 * refuse any other code), with their codes and displays as R4 defines them ([FHIR-R4]
 * terminologies-valuesets.html; a unit test compares every table with R4's own definitions). A
 * value outside its set is never sent as if it were coded: it is mapped when its meaning is clear
 * (`suspected` → `unconfirmed`), otherwise dropped and said in words (see serviceBundle.ts).
 */

/** `C`: its codes, as R4's types spell the element's values. */
export interface ValueSet<C extends string = string> {
	/** The code system of a CodeableConcept's coding; undefined for a plain `code` element. */
	system?: string;
	/** code → display. */
	codes: Readonly<Record<C, string>>;
	/** Other spellings of a code whose meaning is clear, lower-case → code. */
	aliases?: Readonly<Record<string, C>>;
}

const TERMINOLOGY = 'http://terminology.hl7.org/CodeSystem';

export const CONDITION_CLINICAL: ValueSet = {
	system: `${TERMINOLOGY}/condition-clinical`,
	codes: {
		active: 'Active',
		recurrence: 'Recurrence',
		relapse: 'Relapse',
		inactive: 'Inactive',
		remission: 'Remission',
		resolved: 'Resolved',
	},
	// The service's mapping table: confirmed → active, ruled-out → inactive ([EKA-FHIR] fhir-structure.mdx).
	aliases: { confirmed: 'active', 'ruled-out': 'inactive', 'ruled out': 'inactive' },
};

/**
 * The service sends its verification statuses in the clinical-status system, and `suspected`,
 * which is no R4 verification status ([EKA-FHIR-EXAMPLE]); its own mapping table says suspected →
 * unconfirmed, ruled-out → refuted ([EKA-FHIR] fhir-structure.mdx).
 */
export const CONDITION_VERIFICATION: ValueSet = {
	system: `${TERMINOLOGY}/condition-ver-status`,
	codes: {
		unconfirmed: 'Unconfirmed',
		provisional: 'Provisional',
		differential: 'Differential',
		confirmed: 'Confirmed',
		refuted: 'Refuted',
		'entered-in-error': 'Entered in Error',
	},
	aliases: { suspected: 'unconfirmed', 'ruled-out': 'refuted', 'ruled out': 'refuted' },
};

export const ALLERGY_CLINICAL: ValueSet = {
	system: `${TERMINOLOGY}/allergyintolerance-clinical`,
	codes: { active: 'Active', inactive: 'Inactive', resolved: 'Resolved' },
};

export const ALLERGY_VERIFICATION: ValueSet = {
	system: `${TERMINOLOGY}/allergyintolerance-verification`,
	codes: {
		unconfirmed: 'Unconfirmed',
		confirmed: 'Confirmed',
		refuted: 'Refuted',
		'entered-in-error': 'Entered in Error',
	},
	aliases: { suspected: 'unconfirmed' },
};

/** `code` elements: the code is the value, so only the codes count. */
function codes<C extends string>(...list: C[]): ValueSet<C> {
	const table: Partial<Record<C, string>> = {};
	for (const code of list) table[code] = code;
	return { codes: table as Record<C, string> };
}

export const ALLERGY_CATEGORY = codes('food', 'medication', 'environment', 'biologic');
export const ALLERGY_CRITICALITY = codes('low', 'high', 'unable-to-assess');
export const ALLERGY_TYPE = codes('allergy', 'intolerance');
export const OBSERVATION_STATUS = codes(
	'registered',
	'preliminary',
	'final',
	'amended',
	'corrected',
	'cancelled',
	'entered-in-error',
	'unknown',
);
export const MEDICATION_REQUEST_STATUS = codes(
	'active',
	'on-hold',
	'cancelled',
	'completed',
	'entered-in-error',
	'stopped',
	'draft',
	'unknown',
);
export const MEDICATION_REQUEST_INTENT = codes(
	'proposal',
	'plan',
	'order',
	'original-order',
	'reflex-order',
	'filler-order',
	'instance-order',
	'option',
);
export const MEDICATION_STATEMENT_STATUS = codes(
	'active',
	'completed',
	'entered-in-error',
	'intended',
	'stopped',
	'on-hold',
	'unknown',
	'not-taken',
);
export const REQUEST_STATUS = codes(
	'draft',
	'active',
	'on-hold',
	'revoked',
	'completed',
	'entered-in-error',
	'unknown',
);
export const REQUEST_INTENT = codes(
	'proposal',
	'plan',
	'directive',
	'order',
	'original-order',
	'reflex-order',
	'filler-order',
	'instance-order',
	'option',
);
export const CARE_PLAN_INTENT = codes('proposal', 'plan', 'order', 'option');
export const APPOINTMENT_STATUS = codes(
	'proposed',
	'pending',
	'booked',
	'arrived',
	'fulfilled',
	'cancelled',
	'noshow',
	'entered-in-error',
	'checked-in',
	'waitlist',
);
export const PARTICIPATION_STATUS = codes('accepted', 'declined', 'tentative', 'needs-action');
export const HISTORY_STATUS = codes('partial', 'completed', 'entered-in-error', 'health-unknown');
export const EVENT_STATUS = codes(
	'preparation',
	'in-progress',
	'not-done',
	'on-hold',
	'stopped',
	'completed',
	'entered-in-error',
	'unknown',
);
export const UNITS_OF_TIME = codes('s', 'min', 'h', 'd', 'wk', 'mo', 'a');
export const EVENT_TIMING = codes(
	'MORN',
	'MORN.early',
	'MORN.late',
	'NOON',
	'AFT',
	'AFT.early',
	'AFT.late',
	'EVE',
	'EVE.early',
	'EVE.late',
	'NIGHT',
	'PHS',
	'HS',
	'WAKE',
	'C',
	'CM',
	'CD',
	'CV',
	'AC',
	'ACM',
	'ACD',
	'ACV',
	'PC',
	'PCM',
	'PCD',
	'PCV',
);
export const ADMINISTRATIVE_GENDER = codes('male', 'female', 'other', 'unknown');

function isCode<C extends string>(valueSet: ValueSet<C>, text: string): text is C {
	return Object.prototype.hasOwnProperty.call(valueSet.codes, text);
}

/** The value set's code for `value` (any case; an alias when its meaning is clear), or undefined. */
export function codeIn<C extends string>(valueSet: ValueSet<C>, value: unknown): C | undefined {
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	if (isCode(valueSet, text)) return text;
	const lower = text.toLowerCase();
	const exact = Object.keys(valueSet.codes).find((code) => code.toLowerCase() === lower);
	if (exact !== undefined && isCode(valueSet, exact)) return exact;
	const alias =
		valueSet.aliases && Object.prototype.hasOwnProperty.call(valueSet.aliases, lower)
			? valueSet.aliases[lower]
			: undefined;
	return alias;
}

/** A CodeableConcept holding the value set's code, with R4's display. */
export function codedConcept<C extends string>(
	valueSet: ValueSet<C>,
	code: C,
): { coding: Array<{ system: string; code: C; display: string }> } {
	if (!valueSet.system) throw new Error('codedConcept: a code element has no system');
	return { coding: [{ system: valueSet.system, code, display: valueSet.codes[code] }] };
}
