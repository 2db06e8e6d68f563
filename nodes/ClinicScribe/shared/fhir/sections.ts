/**
 * The sections of the visit's Composition, in the order a consultation note reads, and which
 * section a resource of the service's own FHIR output belongs to (by its type and category, as
 * [EKA-FHIR] fhir-structure.mdx's summary table assigns them). Pure.
 */
import { asRecord } from '../values';
import type { FhirResource } from './resources';

export const SECTIONS = {
	symptoms: 'Symptoms',
	vitals: 'Vital signs',
	examinations: 'Examinations',
	diagnoses: 'Diagnoses',
	medicalHistory: 'Medical history',
	allergies: 'Allergies',
	familyHistory: 'Family history',
	currentMedications: 'Current medications',
	lifestyle: 'Lifestyle',
	pastProcedures: 'Past procedures',
	labResults: 'Lab results',
	medications: 'Medications',
	labTests: 'Lab tests',
	imaging: 'Imaging',
	procedures: 'Procedures',
	advice: 'Advice',
	notes: 'Notes',
	followUp: 'Follow-up',
	other: 'Other',
} as const;

export type SectionKey = keyof typeof SECTIONS;

export const SECTION_ORDER = Object.keys(SECTIONS) as SectionKey[];

/** SNOMED CT codes of the service's categories ([EKA-FHIR]; R4's servicerequest-category for the orders). */
export const SNOMED = 'http://snomed.info/sct';
export const SYMPTOM_CATEGORY_CODE = '418799008';
export const LAB_ORDER_CODE = '108252007';
export const IMAGING_ORDER_CODE = '363679005';
export const SURGICAL_ORDER_CODE = '387713003';

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

/** The section a resource of the service's bundle goes in. */
export function sectionOf(resource: FhirResource): SectionKey {
	const codes = categoryCodes(resource.category);
	switch (resource.resourceType) {
		case 'Observation':
			if (codes.includes('vital-signs')) return 'vitals';
			if (codes.includes('exam')) return 'examinations';
			if (codes.includes('laboratory')) return 'labResults';
			if (codes.includes('social-history')) return 'lifestyle';
			if (codes.includes('symptom') || codes.includes(SYMPTOM_CATEGORY_CODE)) return 'symptoms';
			return 'other';
		case 'Condition':
			if (codes.includes('problem-list-item')) return 'medicalHistory';
			return 'diagnoses';
		case 'MedicationRequest':
			return 'medications';
		case 'MedicationStatement':
			return 'currentMedications';
		case 'ServiceRequest':
			if (codes.includes(IMAGING_ORDER_CODE)) return 'imaging';
			if (codes.includes(SURGICAL_ORDER_CODE)) return 'procedures';
			return 'labTests';
		case 'CarePlan':
			return resource.intent === 'proposal' ? 'notes' : 'advice';
		case 'Appointment':
			return 'followUp';
		case 'AllergyIntolerance':
			return 'allergies';
		case 'FamilyMemberHistory':
			return 'familyHistory';
		case 'Procedure':
			return 'pastProcedures';
		default:
			return 'other';
	}
}
