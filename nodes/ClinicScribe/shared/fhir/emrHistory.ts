/**
 * The EMR's `medicalHistory.patientHistory` ([EKA-EMR-ADAPTER] medicalHistory.js): past conditions →
 * Condition (problem-list-item, [EKA-FHIR] Medical History), allergies → AllergyIntolerance, family
 * history → FamilyMemberHistory, current medications → MedicationStatement, lifestyle habits →
 * Observation (social-history), past procedures → Procedure (completed): one builder each, read by
 * emrSections.ts's table. Pure.
 */
import type {
	AllergyIntolerance,
	CodeableConcept,
	Condition,
	FamilyMemberHistory,
	MedicationStatement,
	Observation,
	Procedure,
} from '@medplum/fhirtypes';

import { asRecord, textOf } from '../values';
import { noteLines, propertyText, type EmrEntry } from './emrDocument';
import {
	conditionCategory,
	conditionStatus,
	observationCategory,
	visitObservation,
	type EmrContext,
} from './emrContext';
import { annotations, fhirDateTime, textConcept } from './resources';
import { ALLERGY_CLINICAL, codedConcept, codeIn, MEDICATION_STATEMENT_STATUS } from './valueSets';

/** "Since" as the EMR writes it: `since.custom`, a string, or a "Since" property. */
function sinceOf(entry: EmrEntry): string | undefined {
	const since = entry.raw.since;
	return textOf(asRecord(since)?.custom) ?? textOf(since) ?? propertyText(entry, 'Since');
}

/**
 * A past condition, with the status the EMR gives. None is claimed when it gives none: R4 only
 * warns (con-3) about a problem-list item without a clinical status.
 */
export function pastCondition(entry: EmrEntry, name: string, ctx: EmrContext): Condition {
	const said = textOf(entry.raw.status) ?? propertyText(entry, 'Current status', 'Status');
	const status = conditionStatus(said);
	if (status.unmapped)
		ctx.adjust(
			`medical history "${name}": status "${status.unmapped}" is no FHIR condition status, kept as a note`,
		);
	return {
		resourceType: 'Condition',
		clinicalStatus: status.clinicalStatus,
		verificationStatus: status.verificationStatus,
		category: [conditionCategory('problem-list-item', 'Problem List Item')],
		code: textConcept(name),
		subject: ctx.patient,
		encounter: ctx.encounter,
		onsetString: sinceOf(entry),
		recordedDate: ctx.recorded,
		asserter: ctx.practitioner,
		note: annotations([
			...noteLines(entry, ['Current status', 'Status', 'Since']),
			status.unmapped && `Status: ${status.unmapped}`,
		]),
	};
}

/**
 * An allergy. Drug allergies are `medication`; the EMR's "food or other" list does not say which,
 * so no category is claimed for it. R4 requires a clinical status (ait-1): the stated one, else
 * `active`, as the service maps allergies ([EKA-FHIR] AllergyIntolerance: clinicalStatus active).
 */
export function drugAllergy(entry: EmrEntry, name: string, ctx: EmrContext): AllergyIntolerance {
	return allergy(entry, name, ctx, 'medication');
}

export function foodOtherAllergy(
	entry: EmrEntry,
	name: string,
	ctx: EmrContext,
): AllergyIntolerance {
	return allergy(entry, name, ctx, undefined);
}

function allergy(
	entry: EmrEntry,
	name: string,
	ctx: EmrContext,
	category: 'medication' | undefined,
): AllergyIntolerance {
	const said = textOf(entry.raw.status);
	const clinical = codeIn(ALLERGY_CLINICAL, said);
	if (said && !clinical)
		ctx.adjust(`allergy "${name}": status "${said}" is no FHIR allergy status, kept as a note`);
	const reaction = propertyText(entry, 'Reaction');
	return {
		resourceType: 'AllergyIntolerance',
		clinicalStatus: codedConcept(ALLERGY_CLINICAL, clinical ?? 'active'),
		category: category ? [category] : undefined,
		code: textConcept(name),
		patient: ctx.patient,
		encounter: ctx.encounter,
		onsetString: sinceOf(entry),
		recordedDate: ctx.recorded,
		recorder: ctx.practitioner,
		reaction: reaction ? [{ manifestation: [textConcept(reaction)] }] : undefined,
		note: annotations([
			...noteLines(entry, ['Reaction', 'Since']),
			said && !clinical ? `Status: ${said}` : undefined,
		]),
	};
}

const ROLE_CODE = 'http://terminology.hl7.org/CodeSystem/v3-RoleCode';

/** Relatives whose v3 RoleCode is clear from the word ([FHIR-R4] v3-FamilyMember). */
const RELATIVES: Readonly<Record<string, [string, string]>> = {
	father: ['FTH', 'father'],
	mother: ['MTH', 'mother'],
	brother: ['BRO', 'brother'],
	sister: ['SIS', 'sister'],
	son: ['SON', 'natural son'],
	daughter: ['DAU', 'natural daughter'],
	grandfather: ['GRFTH', 'grandfather'],
	grandmother: ['GRMTH', 'grandmother'],
	husband: ['HUSB', 'husband'],
	wife: ['WIFE', 'wife'],
	uncle: ['UNCLE', 'uncle'],
	aunt: ['AUNT', 'aunt'],
};

/**
 * A relative's condition: FamilyMemberHistory, status `completed` as the service maps it
 * ([EKA-FHIR] Family History). R4 requires the relationship: the EMR's `who`, coded when the word
 * is clear, else "family member" (FAMMEMB), which claims nothing more.
 */
export function familyMember(entry: EmrEntry, name: string, ctx: EmrContext): FamilyMemberHistory {
	const who =
		textOf(entry.raw.who) ?? textOf(entry.raw.relation) ?? propertyText(entry, 'Relation', 'Who');
	const known = who ? RELATIVES[who.toLowerCase()] : undefined;
	const relationship: CodeableConcept = known
		? { coding: [{ system: ROLE_CODE, code: known[0], display: known[1] }], text: who }
		: who
			? { text: who }
			: {
					coding: [{ system: ROLE_CODE, code: 'FAMMEMB', display: 'family member' }],
					text: 'Family member',
				};
	return {
		resourceType: 'FamilyMemberHistory',
		status: 'completed',
		patient: ctx.patient,
		date: ctx.recorded,
		relationship,
		condition: [{ code: textConcept(name) }],
		note: annotations(noteLines(entry, ['Relation', 'Who'])),
	};
}

/** A medication the patient takes: MedicationStatement, `active` unless the EMR says another status. */
export function currentMedication(
	entry: EmrEntry,
	name: string,
	ctx: EmrContext,
): MedicationStatement {
	const said = textOf(entry.raw.status);
	const status = codeIn(MEDICATION_STATEMENT_STATUS, said);
	if (said && !status)
		ctx.adjust(`current medication "${name}": status "${said}" is no FHIR status, kept as a note`);
	const dosage = [
		textOf(asRecord(entry.raw.dose)?.custom),
		textOf(asRecord(entry.raw.frequency)?.custom),
	]
		.filter(Boolean)
		.join(', ');
	return {
		resourceType: 'MedicationStatement',
		status: status ?? 'active',
		medicationCodeableConcept: textConcept(name),
		subject: ctx.patient,
		context: ctx.encounter,
		dateAsserted: ctx.recorded,
		dosage: dosage ? [{ text: dosage }] : undefined,
		note: annotations([...noteLines(entry), said && !status ? `Status: ${said}` : undefined]),
	};
}

/** A habit (smoking, alcohol): Observation, social-history, with what the EMR says of it as its value. */
export function habit(entry: EmrEntry, name: string, ctx: EmrContext): Observation {
	const value = [
		textOf(entry.raw.status),
		textOf(asRecord(entry.raw.frequency)?.custom),
		sinceOf(entry) && `since ${sinceOf(entry)}`,
	]
		.filter(Boolean)
		.join(', ');
	return {
		...visitObservation(
			ctx,
			observationCategory('social-history', 'Social History'),
			textConcept(name),
		),
		valueString: value || undefined,
		note: annotations(noteLines(entry, ['Since'])),
	};
}

/** A procedure done before: Procedure, completed; `on` ({yyyy, mm}) as a partial date. */
export function pastProcedure(entry: EmrEntry, name: string, ctx: EmrContext): Procedure {
	const on = asRecord(entry.raw.on);
	const year = textOf(on?.yyyy);
	const month = textOf(on?.mm);
	const performed = year
		? fhirDateTime(month ? `${year}-${month.padStart(2, '0')}` : year)
		: undefined;
	return {
		resourceType: 'Procedure',
		status: 'completed',
		code: textConcept(name),
		subject: ctx.patient,
		encounter: ctx.encounter,
		performedDateTime: performed,
		recorder: ctx.practitioner,
		note: annotations(noteLines(entry)),
	};
}
