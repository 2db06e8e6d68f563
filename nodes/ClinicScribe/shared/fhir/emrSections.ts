/**
 * Which EMR section becomes which FHIR R4 resource, made by which builder, and in which section of
 * the visit's Composition it is listed: one table, EMR_SECTIONS. mapEmrDocument reads the EMR
 * document by it; sectionOf (the Composition section of a resource, for the EMR's resources and
 * the service's own FHIR output alike) is read from it. docs/fhir.md's "Which EMR sections become
 * which resources" is held to it by a unit test. Pure.
 */
import type { Resource, ResourceType } from '@medplum/fhirtypes';

import { asRecord } from '../values';
import { named, type EmrContext, type MappedResource, type PlacedResource } from './emrContext';
import type { EmrEntry } from './emrDocument';
import {
	currentMedication,
	drugAllergy,
	familyMember,
	foodOtherAllergy,
	habit,
	pastCondition,
	pastProcedure,
} from './emrHistory';
import { labResult, vital } from './emrMeasurements';
import { medication } from './emrMedications';
import {
	advice,
	diagnosis,
	examination,
	followUp,
	labTest,
	notes,
	procedureOrder,
	symptom,
} from './emrVisit';
import { withoutUndefined } from './resources';
import {
	IMAGING_ORDER_CODE,
	LAB_ORDER_CODE,
	SURGICAL_ORDER_CODE,
	SYMPTOM_CATEGORY_CODE,
	type SectionKey,
} from './sections';

/** A kind of resource a section makes, and the Composition section it is listed in. */
export interface ResourceKind {
	resourceType: ResourceType;
	/** The category codes that tell it from other kinds of its type (any one marks it), the one it is built with first. */
	category?: readonly string[];
	/** The intent that tells it apart (CarePlan: advice is a plan, the doctor's notes a proposal). */
	intent?: string;
	/** Also the section of a resource of its type that no other kind marks (the service's own output). */
	otherwise?: true;
	/** Its mark yields to every other kind's: a resource that carries one of those goes by that one. */
	yields?: true;
	section: SectionKey;
}

/** Makes the resources of one EMR section from its value; `path` is its first path. */
type SectionBuilder = (value: unknown, ctx: EmrContext, path: string) => PlacedResource[];

export interface EmrSection {
	/** Where the EMR document holds it (dotted); a later path is read when the one before holds nothing. */
	paths: readonly [string, ...string[]];
	kinds: readonly ResourceKind[];
	build: SectionBuilder;
}

/** One resource per named entry of the section, made by `builder`. */
function each(
	builder: (entry: EmrEntry, name: string, ctx: EmrContext) => Resource,
): SectionBuilder {
	return (value, ctx, path) => named(ctx, path, value, (entry, name) => builder(entry, name, ctx));
}

function observation(section: SectionKey, ...category: string[]): ResourceKind {
	return { resourceType: 'Observation', category, section };
}

const HISTORY = 'medicalHistory.patientHistory';

/** The sections, in the order their resources are listed in the bundle. */
export const EMR_SECTIONS: readonly EmrSection[] = [
	{
		paths: ['symptoms'],
		// The service's symptom category yields to R4's own: a vital sign also marked a symptom is a vital sign.
		kinds: [{ ...observation('symptoms', SYMPTOM_CATEGORY_CODE, 'symptom'), yields: true }],
		build: each(symptom),
	},
	{
		paths: ['medicalHistory.vitals'],
		kinds: [observation('vitals', 'vital-signs')],
		build: each(vital),
	},
	{
		paths: ['medicalHistory.examinations'],
		kinds: [observation('examinations', 'exam')],
		build: each(examination),
	},
	{
		paths: ['diagnosis'],
		kinds: [
			{
				resourceType: 'Condition',
				category: ['encounter-diagnosis'],
				otherwise: true,
				section: 'diagnoses',
			},
		],
		build: each(diagnosis),
	},
	{
		paths: [`${HISTORY}.patientMedicalConditions`],
		kinds: [
			{ resourceType: 'Condition', category: ['problem-list-item'], section: 'medicalHistory' },
		],
		build: each(pastCondition),
	},
	{
		paths: [`${HISTORY}.drugAllergy`],
		kinds: [{ resourceType: 'AllergyIntolerance', section: 'allergies' }],
		build: each(drugAllergy),
	},
	{
		paths: [`${HISTORY}.foodOtherAllergy`],
		kinds: [{ resourceType: 'AllergyIntolerance', section: 'allergies' }],
		build: each(foodOtherAllergy),
	},
	{
		paths: [`${HISTORY}.familyHistory`],
		kinds: [{ resourceType: 'FamilyMemberHistory', section: 'familyHistory' }],
		build: each(familyMember),
	},
	{
		paths: [`${HISTORY}.currentMedications`],
		kinds: [{ resourceType: 'MedicationStatement', section: 'currentMedications' }],
		build: each(currentMedication),
	},
	{
		paths: [`${HISTORY}.lifestyleHabits`],
		kinds: [observation('lifestyle', 'social-history')],
		build: each(habit),
	},
	{
		paths: [`${HISTORY}.pastProcedures`],
		kinds: [{ resourceType: 'Procedure', section: 'pastProcedures' }],
		build: each(pastProcedure),
	},
	{
		paths: ['labVitals'],
		kinds: [observation('labResults', 'laboratory')],
		build: each(labResult),
	},
	{
		paths: ['medications'],
		kinds: [{ resourceType: 'MedicationRequest', section: 'medications' }],
		build: each(medication),
	},
	{
		// Imaging orders sit in the lab tests' list: their section follows their category.
		paths: ['labTests'],
		kinds: [
			{ resourceType: 'ServiceRequest', category: [IMAGING_ORDER_CODE], section: 'imaging' },
			{
				resourceType: 'ServiceRequest',
				category: [LAB_ORDER_CODE],
				otherwise: true,
				section: 'labTests',
			},
		],
		build: each(labTest),
	},
	{
		paths: ['procedures'],
		kinds: [
			{ resourceType: 'ServiceRequest', category: [SURGICAL_ORDER_CODE], section: 'procedures' },
		],
		build: each(procedureOrder),
	},
	{
		// `advice` is not in the documented shape; read when present.
		paths: ['advices', 'advice'],
		kinds: [{ resourceType: 'CarePlan', intent: 'plan', otherwise: true, section: 'advice' }],
		build: advice,
	},
	{
		paths: ['prescriptionNotes'],
		kinds: [{ resourceType: 'CarePlan', intent: 'proposal', section: 'notes' }],
		build: notes,
	},
	{
		paths: ['followup', 'followUp'],
		kinds: [{ resourceType: 'Appointment', section: 'followUp' }],
		build: followUp,
	},
];

/** Every kind, those whose mark yields last. */
const KINDS = [true, false].flatMap((first) =>
	EMR_SECTIONS.flatMap((emrSection) => emrSection.kinds).filter((kind) => !kind.yields === first),
);

/** Every code of a list of CodeableConcepts (and plain codes), lower-case. */
function categoryCodes(value: unknown): string[] {
	const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
	return list.flatMap((entry) => {
		if (typeof entry === 'string') return [entry.toLowerCase()];
		const coding = asRecord(entry)?.coding;
		return (Array.isArray(coding) ? coding : []).map((c) =>
			String(asRecord(c)?.code ?? '').toLowerCase(),
		);
	});
}

/**
 * The Composition section a resource goes in: the first kind of its type whose category (or
 * intent) it carries, else its type's kind for the rest, else Other.
 */
export function sectionOf(resource: Resource): SectionKey {
	const kinds = KINDS.filter((kind) => kind.resourceType === resource.resourceType);
	const codes = categoryCodes('category' in resource ? resource.category : undefined);
	const intent = 'intent' in resource ? resource.intent : undefined;
	const marked = kinds.find(
		(kind) =>
			!kind.otherwise &&
			((kind.intent !== undefined && kind.intent === intent) ||
				kind.category?.some((code) => codes.includes(code.toLowerCase()))),
	);
	const rest = kinds.find(
		(kind) => kind.otherwise || (kind.category === undefined && kind.intent === undefined),
	);
	return (marked ?? rest)?.section ?? 'other';
}

interface EmrMapping {
	resources: MappedResource[];
	/** EMR sections that hold something but have no mapping here (see docs/fhir.md). */
	notMapped: string[];
}

/** EMR sections read nowhere: they are reported when they hold something. */
const NOT_MAPPED_SECTIONS = ['injections', 'allVaccines', 'administeredVaccines'];
const NOT_MAPPED_HISTORY = ['recentTravelHistory', 'otherMedicalHistory'];

/**
 * The EMR template's JSON as FHIR R4 resources, section by section, as EMR_SECTIONS says. A
 * section the notes do not hold makes nothing; an entry without a name is left out and said so.
 * Sections with no R4 home here are listed as not mapped.
 */
export function mapEmrDocument(prescription: Record<string, unknown>, ctx: EmrContext): EmrMapping {
	const resources = EMR_SECTIONS.flatMap((emrSection) =>
		emrSection.build(valueAt(prescription, emrSection.paths), ctx, emrSection.paths[0]),
	).map(({ place, resource }) => ({
		section: sectionOf(resource),
		place,
		resource: withoutUndefined(resource),
	}));
	const patientHistory = asRecord(asRecord(prescription.medicalHistory)?.patientHistory);
	const notMapped = [
		...NOT_MAPPED_SECTIONS.filter((key) => holdsSomething(prescription[key])),
		...NOT_MAPPED_HISTORY.filter((key) => holdsSomething(patientHistory?.[key])).map(
			(key) => `${HISTORY}.${key}`,
		),
	];
	return { resources, notMapped };
}

/** The value at the first of `paths` that holds one (not undefined or null). */
function valueAt(document: Record<string, unknown>, paths: readonly string[]): unknown {
	for (const path of paths) {
		let value: unknown = document;
		for (const key of path.split('.')) value = asRecord(value)?.[key];
		if (value !== undefined && value !== null) return value;
	}
	return undefined;
}

function holdsSomething(value: unknown): boolean {
	if (value === undefined || value === null) return false;
	if (typeof value === 'string') return value.trim() !== '';
	if (Array.isArray(value)) return value.some(holdsSomething);
	if (typeof value === 'object') return Object.values(value as object).some(holdsSomething);
	return true;
}
