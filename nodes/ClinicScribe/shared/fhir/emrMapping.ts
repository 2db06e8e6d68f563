/**
 * The EMR template's JSON as FHIR R4 resources, section by section, following the service's own
 * mapping ([EKA-FHIR] fhir-structure.mdx): symptoms and examinations → Observation, diagnoses →
 * Condition (encounter-diagnosis), lab tests and procedures → ServiceRequest, advice and notes →
 * CarePlan (intent plan / proposal), follow-up → Appointment (proposed); medications in
 * emrMedications.ts; vitals and lab results in emrMeasurements.ts; the medical history in
 * emrHistory.ts. A section the notes do not hold makes nothing; an entry without a name is left
 * out and said so; names stay text (`code.text`) unless the notes carry a real code (ICD-10).
 * Sections with no R4 home here are listed as not mapped. Pure.
 */
import { asRecord, textOf } from '../values';
import { noteLines, propertyText, richText, type EmrEntry } from './emrDocument';
import {
	conditionCategory,
	conditionStatus,
	named,
	observationCategory,
	severityConcept,
	visitObservation,
	type EmrContext,
	type MappedResource,
} from './emrContext';
import { mapHistory } from './emrHistory';
import { mapLabResults, mapVitals } from './emrMeasurements';
import { mapMedications } from './emrMedications';
import {
	annotations,
	fhirDateTime,
	textConcept,
	withoutUndefined,
	type CodeableConcept,
	type FhirResource,
} from './resources';
import {
	IMAGING_ORDER_CODE,
	LAB_ORDER_CODE,
	SNOMED,
	SURGICAL_ORDER_CODE,
	SYMPTOM_CATEGORY_CODE,
} from './sections';

interface EmrMapping {
	resources: MappedResource[];
	/** EMR sections that hold something but have no mapping here (see docs/fhir.md). */
	notMapped: string[];
}

/** EMR sections read nowhere: they are reported when they hold something. */
const NOT_MAPPED_SECTIONS = ['injections', 'allVaccines', 'administeredVaccines'];
const NOT_MAPPED_HISTORY = ['recentTravelHistory', 'otherMedicalHistory'];

export function mapEmrDocument(prescription: Record<string, unknown>, ctx: EmrContext): EmrMapping {
	const history = asRecord(prescription.medicalHistory);
	const patientHistory = asRecord(history?.patientHistory);
	const resources: MappedResource[] = [
		...named(
			ctx,
			'symptoms',
			prescription.symptoms,
			(entry, name) => symptom(entry, name, ctx),
			'symptoms',
		),
		...mapVitals(history?.vitals, ctx),
		...named(
			ctx,
			'medicalHistory.examinations',
			history?.examinations,
			(entry, name) => examination(entry, name, ctx),
			'examinations',
		),
		...named(
			ctx,
			'diagnosis',
			prescription.diagnosis,
			(entry, name) => diagnosis(entry, name, ctx),
			'diagnoses',
		),
		...mapHistory(patientHistory, ctx),
		...mapLabResults(prescription.labVitals, ctx),
		...mapMedications(prescription.medications, ctx),
		...named(
			ctx,
			'labTests',
			prescription.labTests,
			(entry, name) => order(entry, name, ctx, labTestCategory(entry)),
			'labTests',
		),
		...named(
			ctx,
			'procedures',
			prescription.procedures,
			(entry, name) => order(entry, name, ctx, 'procedure'),
			'procedures',
		),
		...advice(prescription.advices ?? prescription.advice, ctx),
		...notes(prescription.prescriptionNotes, ctx),
		...followUp(prescription.followup ?? prescription.followUp, ctx),
	].map((mapped) => ({ ...mapped, resource: withoutUndefined(mapped.resource) }));
	// Imaging orders sit in the lab tests' list: their section follows their category.
	for (const mapped of resources)
		if (mapped.section === 'labTests' && isImaging(mapped.resource)) mapped.section = 'imaging';
	const notMapped = [
		...NOT_MAPPED_SECTIONS.filter((key) => holdsSomething(prescription[key])),
		...NOT_MAPPED_HISTORY.filter((key) => holdsSomething(patientHistory?.[key])).map(
			(key) => `medicalHistory.patientHistory.${key}`,
		),
	];
	return { resources, notMapped };
}

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
function symptom(entry: EmrEntry, name: string, ctx: EmrContext): FhirResource {
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

function examination(entry: EmrEntry, name: string, ctx: EmrContext): FhirResource {
	const site = propertyText(entry, 'Body Site', 'Location');
	return {
		...visitObservation(ctx, observationCategory('exam', 'Exam'), textConcept(name)),
		bodySite: site ? textConcept(site) : undefined,
		note: annotations(noteLines(entry, ['Body Site', 'Location'])),
	};
}

/** A diagnosis of this visit: Condition, encounter-diagnosis; "Since" as the onset text, as said. */
function diagnosis(entry: EmrEntry, name: string, ctx: EmrContext): FhirResource {
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

function isImaging(resource: FhirResource): boolean {
	const category = (resource.category as CodeableConcept[] | undefined)?.[0];
	return category?.coding?.[0]?.code === IMAGING_ORDER_CODE;
}

/** Lab tests, imaging and procedures ordered: ServiceRequest, active order ([EKA-FHIR]). */
function order(entry: EmrEntry, name: string, ctx: EmrContext, kind: OrderKind): FhirResource {
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
): FhirResource {
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
function advice(value: unknown, ctx: EmrContext): MappedResource[] {
	return texts(value).map((text, index) => ({
		section: 'advice',
		place: `advices/${index}`,
		resource: carePlan(ctx, 'plan', 'Advice', text),
	}));
}

/** The doctor's notes: CarePlan, intent proposal ([EKA-FHIR] Notes). */
function notes(value: unknown, ctx: EmrContext): MappedResource[] {
	return texts(value).map((text, index) => ({
		section: 'notes',
		place: `prescriptionNotes/${index}`,
		resource: carePlan(ctx, 'proposal', 'Clinical notes', text),
	}));
}

/**
 * The follow-up: a proposed Appointment ([EKA-FHIR]: status proposed, type FOLLOWUP). A date is a
 * requested period, not a booked time (R4 lets a proposed appointment have no start); notes go in
 * its description. Nothing when the follow-up says neither.
 */
function followUp(value: unknown, ctx: EmrContext): MappedResource[] {
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
	const resource: FhirResource = {
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
	return [{ section: 'followUp', place: 'followup', resource }];
}

function holdsSomething(value: unknown): boolean {
	if (value === undefined || value === null) return false;
	if (typeof value === 'string') return value.trim() !== '';
	if (Array.isArray(value)) return value.some(holdsSomething);
	if (typeof value === 'object') return Object.values(value as object).some(holdsSomething);
	return true;
}
