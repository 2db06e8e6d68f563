/**
 * What every EMR section mapper shares: the references of the visit's patient, encounter and doctor,
 * the visit's time, the list of what was adjusted, and the common shapes (a preliminary
 * Observation, a severity, a condition's status). Pure.
 */
import type { CodeableConcept, Observation, Resource } from '@medplum/fhirtypes';

import { emrEntries, type EmrEntry } from './emrDocument';
import { SNOMED, type SectionKey } from './sections';
import { CONDITION_CLINICAL, CONDITION_VERIFICATION, codedConcept } from './valueSets';
import type { Reference } from './resources';

export interface EmrContext {
	patient: Reference;
	encounter: Reference;
	practitioner: Reference;
	/** When the visit was recorded (the session's `created_at`), when known. */
	recorded?: string;
	/** Says in words what the mapping changed, dropped or kept as text. */
	adjust(message: string): void;
}

/** One resource of the visit: `place` is stable for the same notes ("symptoms/0"). */
export interface PlacedResource {
	place: string;
	resource: Resource;
}

/** One resource of the visit and the Composition section it goes in. */
export interface MappedResource extends PlacedResource {
	section: SectionKey;
}

/** Notes made from a recording are a draft for the doctor to confirm ([EKA-FHIR]: Voice2RX → `preliminary`). */
const VOICE_STATUS = 'preliminary';

const OBSERVATION_CATEGORY = 'http://terminology.hl7.org/CodeSystem/observation-category';

/** An Observation category of R4's observation-category code system. */
export function observationCategory(
	code: 'vital-signs' | 'exam' | 'laboratory' | 'social-history',
	display: string,
): CodeableConcept {
	return { coding: [{ system: OBSERVATION_CATEGORY, code, display }] };
}

/** A preliminary Observation of the visit. */
export function visitObservation(
	ctx: EmrContext,
	category: CodeableConcept,
	code: CodeableConcept,
): Observation {
	return {
		resourceType: 'Observation',
		status: VOICE_STATUS,
		category: [category],
		code,
		subject: ctx.patient,
		encounter: ctx.encounter,
		performer: [ctx.practitioner],
	};
}

/** The service's severity codes ([EKA-FHIR]: SNOMED CT 255604002 mild, 6736007 moderate, 24484000 severe). */
const SEVERITY: Readonly<Record<string, [string, string]>> = {
	mild: ['255604002', 'Mild'],
	moderate: ['6736007', 'Moderate'],
	severe: ['24484000', 'Severe'],
};

/** A severity as said; coded when it is one of the three, text otherwise. */
export function severityConcept(text: string): CodeableConcept {
	const known = SEVERITY[text.trim().toLowerCase()];
	return known
		? { coding: [{ system: SNOMED, code: known[0], display: known[1] }], text }
		: { text };
}

/**
 * A condition's status as the EMR says it ("Current status"), by the service's table ([EKA-FHIR]:
 * confirmed → active and confirmed; suspected → unconfirmed; ruled out → inactive and refuted). R4's
 * clinical statuses have no "unknown", so a suspected condition has no clinical status. Any other
 * clinical status (active, resolved, …) is taken as it is; a word neither table knows stays a note.
 */
export function conditionStatus(text: string | undefined): {
	clinicalStatus?: CodeableConcept;
	verificationStatus?: CodeableConcept;
	unmapped?: string;
} {
	if (!text) return {};
	const said = text
		.trim()
		.toLowerCase()
		.replace(/[\s_]+/g, '-');
	if (said === 'confirmed')
		return {
			clinicalStatus: codedConcept(CONDITION_CLINICAL, 'active'),
			verificationStatus: codedConcept(CONDITION_VERIFICATION, 'confirmed'),
		};
	if (said === 'suspected')
		return { verificationStatus: codedConcept(CONDITION_VERIFICATION, 'unconfirmed') };
	if (said === 'ruled-out')
		return {
			clinicalStatus: codedConcept(CONDITION_CLINICAL, 'inactive'),
			verificationStatus: codedConcept(CONDITION_VERIFICATION, 'refuted'),
		};
	const clinical = Object.keys(CONDITION_CLINICAL.codes).find((code) => code === said);
	return clinical
		? { clinicalStatus: codedConcept(CONDITION_CLINICAL, clinical) }
		: { unmapped: text };
}

/**
 * The named entries of a section, each made into a resource. An entry with no name cannot be
 * coded or read: it is left out, and the adjustments say how many.
 */
export function named(
	ctx: EmrContext,
	path: string,
	value: unknown,
	make: (entry: EmrEntry, name: string) => Resource,
): PlacedResource[] {
	const entries = emrEntries(value);
	const nameless = entries.filter((entry) => !entry.name).length;
	if (nameless > 0)
		ctx.adjust(`${path}: ${nameless} entr${nameless === 1 ? 'y' : 'ies'} without a name left out`);
	return entries.flatMap((entry, index) =>
		entry.name ? [{ place: `${path}/${index}`, resource: make(entry, entry.name) }] : [],
	);
}

export function conditionCategory(
	code: 'encounter-diagnosis' | 'problem-list-item',
	display: string,
): CodeableConcept {
	return {
		coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-category', code, display }],
	};
}
