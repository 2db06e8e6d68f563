/**
 * The builders of the visit's own sections of the EMR template's JSON, following the service's own
 * mapping ([EKA-FHIR] fhir-structure.mdx): symptoms and examinations → Observation, diagnoses →
 * Condition (encounter-diagnosis), lab tests and procedures → ServiceRequest, advice and notes →
 * CarePlan (intent plan / proposal), follow-up → Appointment (proposed). Which section each builds
 * is emrSections.ts's table. Names stay text (`code.text`) unless the notes carry a real code
 * (ICD-10). Pure.
 */
import type {
	Appointment,
	CarePlan,
	CodeableConcept,
	Condition,
	Observation,
	ServiceRequest,
} from '@medplum/fhirtypes';

import { asRecord, textOf } from '../values';
import { noteLines, propertyText, richText, type EmrEntry } from './emrDocument';
import {
	conditionCategory,
	conditionStatus,
	observationCategory,
	severityConcept,
	visitObservation,
	type EmrContext,
	type PlacedResource,
} from './emrContext';
import { annotations, fhirDateTime, textConcept } from './resources';
import {
	IMAGING_ORDER_CODE,
	LAB_ORDER_CODE,
	SNOMED,
	SURGICAL_ORDER_CODE,
	SYMPTOM_CATEGORY_CODE,
} from './sections';

/** A name as a CodeableConcept: text, with the ICD-10 code when the notes carry one. */
function nameConcept(entry: EmrEntry, name: string): CodeableConcept {
	const icd10 = textOf(entry.raw.icd10_code);
	if (!icd10) return textConcept(name);
	const display = textOf(entry.raw.icd10_name);
	return {
		coding: [
			{ system: 'http://hl7.org/fhir/sid/icd-10', code: icd10, ...(display ? { display } : {}) },
		],
		text: name,
	};
}

/** A symptom: Observation with the service's symptom category ([EKA-FHIR]: SNOMED CT 418799008), severity as its value, side as body site. */
export function symptom(entry: EmrEntry, name: string, ctx: EmrContext): Observation {
	const category: CodeableConcept = {
		coding: [
			{
				system: SNOMED,
				code: SYMPTOM_CATEGORY_CODE,
				display: 'Finding reported by subject or history provider',
			},
		],
		text: 'Symptom',
	};
	const severity = propertyText(entry, 'Severity');
	const side = propertyText(entry, 'Laterality', 'Side', 'Body Site');
	return {
		...visitObservation(ctx, category, nameConcept(entry, name)),
		valueCodeableConcept: severity ? severityConcept(severity) : undefined,
		bodySite: side ? textConcept(side) : undefined,
		note: annotations(noteLines(entry, ['Severity', 'Laterality', 'Side', 'Body Site'])),
	};
}

export function examination(entry: EmrEntry, name: string, ctx: EmrContext): Observation {
	const site = propertyText(entry, 'Body Site', 'Location');
	return {
		...visitObservation(ctx, observationCategory('exam', 'Exam'), textConcept(name)),
		bodySite: site ? textConcept(site) : undefined,
		note: annotations(noteLines(entry, ['Body Site', 'Location'])),
	};
}

/** A diagnosis of this visit: Condition, encounter-diagnosis; "Since" as the onset text, as said. */
export function diagnosis(entry: EmrEntry, name: string, ctx: EmrContext): Condition {
	const status = conditionStatus(
		propertyText(entry, 'Current status', 'Status') ?? textOf(entry.raw.status),
	);
	if (status.unmapped)
		ctx.adjust(
			`diagnosis "${name}": status "${status.unmapped}" is no FHIR condition status, kept as a note`,
		);
	const severity = propertyText(entry, 'Severity');
	const side = propertyText(entry, 'Laterality', 'Side', 'Body Site');
	const since = propertyText(entry, 'Since');
	return {
		resourceType: 'Condition',
		clinicalStatus: status.clinicalStatus,
		verificationStatus: status.verificationStatus,
		category: [conditionCategory('encounter-diagnosis', 'Encounter Diagnosis')],
		severity: severity ? severityConcept(severity) : undefined,
		code: nameConcept(entry, name),
		bodySite: side ? [textConcept(side)] : undefined,
		subject: ctx.patient,
		encounter: ctx.encounter,
		onsetString: since,
		recordedDate: ctx.recorded,
		asserter: ctx.practitioner,
		note: annotations([
			...noteLines(entry, [
				'Current status',
				'Status',
				'Severity',
				'Laterality',
				'Side',
				'Body Site',
				'Since',
			]),
			status.unmapped && `Status: ${status.unmapped}`,
		]),
	};
}

type OrderKind = 'lab' | 'imaging' | 'procedure';

/** R4's servicerequest-category codes, as the service uses them ([EKA-FHIR]). */
const ORDER_CATEGORY: Readonly<Record<OrderKind, [string, string]>> = {
	lab: [LAB_ORDER_CODE, 'Laboratory procedure'],
	imaging: [IMAGING_ORDER_CODE, 'Imaging'],
	procedure: [SURGICAL_ORDER_CODE, 'Surgical procedure'],
};

/** A lab test is an imaging order only when the EMR says so (`kind`), never guessed from its name. */
function labTestCategory(entry: EmrEntry): OrderKind {
	return /imag|radiolog/i.test(textOf(entry.raw.kind) ?? '') ? 'imaging' : 'lab';
}

/** A lab test ordered; an imaging order when the EMR says so. */
export function labTest(entry: EmrEntry, name: string, ctx: EmrContext): ServiceRequest {
	return order(entry, name, ctx, labTestCategory(entry));
}

export function procedureOrder(entry: EmrEntry, name: string, ctx: EmrContext): ServiceRequest {
	return order(entry, name, ctx, 'procedure');
}

/** Lab tests, imaging and procedures ordered: ServiceRequest, active order ([EKA-FHIR]). */
function order(entry: EmrEntry, name: string, ctx: EmrContext, kind: OrderKind): ServiceRequest {
	const [code, display] = ORDER_CATEGORY[kind];
	return {
		resourceType: 'ServiceRequest',
		status: 'active',
		intent: 'order',
		category: [{ coding: [{ system: SNOMED, code, display }] }],
		code: textConcept(name),
		subject: ctx.patient,
		encounter: ctx.encounter,
		authoredOn: ctx.recorded,
		requester: ctx.practitioner,
		note: annotations(noteLines(entry)),
	};
}

function texts(value: unknown): string[] {
	const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
	return list
		.map((entry) => richText(entry) ?? textOf(asRecord(entry)?.name))
		.filter((text): text is string => text !== undefined);
}

function carePlan(
	ctx: EmrContext,
	intent: 'plan' | 'proposal',
	category: string,
	description: string,
): CarePlan {
	return {
		resourceType: 'CarePlan',
		status: 'active',
		intent,
		category: [textConcept(category)],
		description,
		subject: ctx.patient,
		encounter: ctx.encounter,
		created: ctx.recorded,
		author: ctx.practitioner,
	};
}

/** Each piece of advice: CarePlan, intent plan ([EKA-FHIR] Advices). */
export function advice(value: unknown, ctx: EmrContext): PlacedResource[] {
	return texts(value).map((text, index) => ({
		place: `advices/${index}`,
		resource: carePlan(ctx, 'plan', 'Advice', text),
	}));
}

/** The doctor's notes: CarePlan, intent proposal ([EKA-FHIR] Notes). */
export function notes(value: unknown, ctx: EmrContext): PlacedResource[] {
	return texts(value).map((text, index) => ({
		place: `prescriptionNotes/${index}`,
		resource: carePlan(ctx, 'proposal', 'Clinical notes', text),
	}));
}

/**
 * The follow-up: a proposed Appointment ([EKA-FHIR]: status proposed, type FOLLOWUP). A date is a
 * requested period, not a booked time (R4 lets a proposed appointment have no start); notes go in
 * its description. Nothing when the follow-up says neither.
 */
export function followUp(value: unknown, ctx: EmrContext): PlacedResource[] {
	const record = asRecord(value);
	const said = record ? undefined : textOf(value);
	const rawDate = record ? record.date : undefined;
	const date = fhirDateTime(rawDate);
	if (rawDate !== undefined && rawDate !== null && rawDate !== '' && !date)
		ctx.adjust(`followup: date "${String(rawDate)}" is not a date, left out`);
	const description =
		said ??
		(record
			? (textOf(record.notes) ??
				textOf(record.text) ??
				textOf(record.custom) ??
				richText(record.note))
			: undefined);
	if (!date && !description) return [];
	const resource: Appointment = {
		resourceType: 'Appointment',
		status: 'proposed',
		appointmentType: {
			coding: [
				{
					system: 'http://terminology.hl7.org/CodeSystem/v2-0276',
					code: 'FOLLOWUP',
					display: 'A follow up visit from a previous appointment',
				},
			],
		},
		description,
		requestedPeriod: date ? [{ start: date, end: date }] : undefined,
		created: ctx.recorded,
		participant: [{ actor: ctx.patient, status: 'needs-action' }],
	};
	return [{ place: 'followup', resource }];
}
