/**
 * FHIR R4 as the bundle builds it: R4's own types (@medplum/fhirtypes, imported as types only, so
 * nothing of it ships), the bundle's entries, and where each resource type names its patient, its
 * visit and its doctor ([FHIR-R4] the resource pages). Pure.
 */
import type {
	Annotation,
	BundleEntry as R4BundleEntry,
	BundleEntryRequest,
	CodeableConcept,
	Reference as R4Reference,
	Resource,
} from '@medplum/fhirtypes';

/** An entry of the transaction: every one has its resource, its fullUrl and its request. */
export interface BundleEntry<T extends Resource = Resource> extends R4BundleEntry<T> {
	fullUrl: string;
	resource: T;
	request: BundleEntryRequest & { method: 'POST' | 'PUT' };
}

/** A reference the bundle writes: always to something, by its fullUrl or `Type/id` (fits any target). */
export interface Reference extends Omit<R4Reference, 'resource'> {
	reference: string;
}

/** The element that names the patient, by resource type (all required in R4 except Observation's and Appointment's). */
export const PATIENT_ELEMENT: Readonly<Record<string, string>> = {
	Observation: 'subject',
	Condition: 'subject',
	MedicationRequest: 'subject',
	MedicationStatement: 'subject',
	ServiceRequest: 'subject',
	CarePlan: 'subject',
	Procedure: 'subject',
	AllergyIntolerance: 'patient',
	FamilyMemberHistory: 'patient',
	Composition: 'subject',
	Encounter: 'subject',
};

/** The element that names the visit (R4 has none on FamilyMemberHistory and Appointment). */
export const ENCOUNTER_ELEMENT: Readonly<Record<string, string>> = {
	Observation: 'encounter',
	Condition: 'encounter',
	MedicationRequest: 'encounter',
	MedicationStatement: 'context',
	ServiceRequest: 'encounter',
	CarePlan: 'encounter',
	Procedure: 'encounter',
	AllergyIntolerance: 'encounter',
	Composition: 'encounter',
};

/** Plain text as a CodeableConcept: what the notes said, not claimed to be a code. */
export function textConcept(text: string): CodeableConcept {
	return { text };
}

/** Notes as FHIR Annotations; undefined when there is none. */
export function annotations(texts: Array<string | undefined>): Annotation[] | undefined {
	const kept = texts.filter(
		(text): text is string => typeof text === 'string' && text.trim() !== '',
	);
	return kept.length > 0 ? kept.map((text) => ({ text })) : undefined;
}

/** A copy of `resource` without the elements whose value is undefined (JSON has no undefined). */
export function withoutUndefined<T extends Resource>(resource: T): T {
	return Object.fromEntries(
		Object.entries(resource).filter(([, value]) => value !== undefined),
	) as T;
}

/** A FHIR dateTime ([FHIR-R4] datatypes.html#dateTime): a date, or a date and time with its zone. */
const DATE_TIME =
	/^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d{1,9})?(Z|[+-]((0\d|1[0-3]):[0-5]\d|14:00)))?)?)?$/;

/** The value as a FHIR dateTime, or undefined when it is not one (nothing is guessed). */
export function fhirDateTime(value: unknown): string | undefined {
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	return DATE_TIME.test(text) ? text : undefined;
}
