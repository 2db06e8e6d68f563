/**
 * The sections of the visit's Composition, in the order a consultation note reads, and the codes
 * of the service's categories that tell them apart; which resource goes in which section is
 * emrSections.ts's table (as [EKA-FHIR] fhir-structure.mdx's summary table assigns them). Pure.
 */

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
