/** Documents the fake "produces" (tests compare the node's decoded output with these). */
import { CLINICAL_NOTES_ID, TRANSCRIPT_ID } from './store';

export const CLINICAL_NOTES_DOCUMENT = Object.freeze({
	chief_complaints: ['Fever for 3 days', 'Dry cough'],
	history_of_present_illness:
		'Fever up to 101 °F for three days with a dry cough. In the patient\'s words: "मुझे तीन दिन से बुखार है".',
	vitals: { temperature: '100.8 °F', pulse: '92/min', blood_pressure: '124/80 mmHg', spo2: '97%' },
	examination: 'Throat congested. Chest clear on auscultation.',
	diagnosis: ['Acute upper respiratory tract infection'],
	medications: [
		{
			name: 'Paracetamol 650 mg',
			dose: '1 tablet',
			frequency: 'three times a day after food',
			duration: '3 days',
		},
		{ name: 'Cetirizine 10 mg', dose: '1 tablet', frequency: 'at night', duration: '5 days' },
	],
	advice: ['Warm fluids', 'Rest for two days'],
	follow_up: 'After 5 days, or earlier if breathless',
});

/**
 * The EMR template's JSON in the service's shape: `{"prescription": {…}}` ([EKA-EMR]'s Base64 example
 * for the wrapper and a medication's frequency object; the other sections as [EKA-EMR-ADAPTER]
 * writes them: `properties` with `pg-…` selections, dose / duration objects, `medicalHistory` with
 * `patientHistory`, `vitals` and `examinations`, `prescriptionNotes` with `parsedText`). A
 * consultation for fever and cough, partly in Hindi. With codification, diagnoses carry ICD-10.
 */
export function emrDocument(codification: boolean) {
	const since = (value: string, unit: string) => ({
		'pg-1541659976': { name: 'Since', selection: [{ value, unit }] },
	});
	const icd10 = (code: string, name: string) =>
		codification ? { icd10_code: code, icd10_name: name } : {};
	return {
		prescription: {
			language: 'EN',
			symptoms: [
				{
					id: 's-3938038535',
					name: 'Fever',
					properties: {
						...since('3', 'Days'),
						'pg-2869689919': { name: 'Severity', selection: [{ value: 'Moderate' }] },
					},
					notes: 'Up to 101 °F, worse at night',
				},
				{
					id: 's-1216394523',
					name: 'Dry cough',
					properties: since('3', 'Days'),
					notes: 'मरीज़ के शब्दों में: "तीन दिन से सूखी खांसी है"',
				},
			],
			diagnosis: [
				{
					id: 'd-6732275838',
					name: 'Acute upper respiratory tract infection',
					...icd10('J06.9', 'Acute upper respiratory infection, unspecified'),
					properties: { 'pg-002': { name: 'Current status', selection: [{ value: 'Confirmed' }] } },
				},
				{
					id: 'd-6732275839',
					name: 'Viral fever',
					properties: { 'pg-002': { name: 'Current status', selection: [{ value: 'Suspected' }] } },
				},
			],
			medications: [
				{
					id: 'b-1020304050',
					name: 'Paracetamol 650 mg Tablet',
					generic_name: 'Paracetamol',
					dose: { value: '1', unit: 'tablet', custom: '1 tablet' },
					frequency: {
						pattern_id: 'fp-3',
						dose: ['1', '1', '1'],
						period: 1,
						period_unit: 'day',
						frequency: '3',
						custom: '1-1-1',
					},
					timing: 'After Food',
					duration: { value: '3', unit: 'Days', custom: '3 Days' },
					instruction: 'बुखार होने पर ही लें',
				},
				{
					id: 'b-1020304051',
					name: 'Cetirizine 10 mg Tablet',
					generic_name: 'Cetirizine',
					dose: { value: '1', unit: 'tablet', custom: '1 tablet' },
					frequency: {
						pattern_id: 'fp-1',
						dose: ['0', '0', '1'],
						period: 1,
						period_unit: 'day',
						frequency: '1',
						custom: '0-0-1',
					},
					timing: 'At bedtime',
					duration: { value: '5', unit: 'Days', custom: '5 Days' },
					instruction: 'May cause drowsiness',
				},
			],
			labTests: [
				{
					id: 'lp-5566778899',
					name: 'Complete blood count (CBC)',
					notes: 'If the fever lasts beyond 5 days',
				},
			],
			followup: { date: '2026-12-02', notes: 'Review after 5 days, earlier if breathless' },
			prescriptionNotes: {
				id: 'locale-notes-1',
				text: '<p>Warm fluids and rest for two days.</p><p>गुनगुना पानी पिएं और आराम करें।</p>',
				parsedText: 'Warm fluids and rest for two days.\nगुनगुना पानी पिएं और आराम करें।',
			},
			medicalHistory: {
				patientHistory: {
					patientMedicalConditions: [
						{
							id: 'd-100',
							name: 'Type 2 diabetes',
							status: 'Active',
							since: { custom: '5 Years' },
						},
					],
					currentMedications: [
						{
							id: 'b-200',
							name: 'Metformin 500 mg Tablet',
							status: 'Active',
							frequency: { custom: '1-0-1' },
						},
					],
					familyHistory: [{ id: 'd-300', name: 'Hypertension', who: 'Father' }],
					lifestyleHabits: [],
					foodOtherAllergy: [],
					drugAllergy: [{ id: 'b-400', name: 'Penicillin', status: 'Active', notes: 'Rash' }],
					pastProcedures: [],
					recentTravelHistory: [],
					otherMedicalHistory: [],
				},
				vitals: [
					{
						name: 'Temperature',
						dis_name: 'Temperature',
						id: 'v-temperature',
						value: { qt: '100.8', unit: '°F' },
					},
					{
						name: 'Pulse',
						dis_name: 'Pulse',
						id: 'lb-1201285132',
						value: { qt: '92', unit: 'bpm' },
					},
					{
						name: 'Blood Pressure',
						dis_name: 'Blood Pressure',
						id: 'v-1365277675',
						value: { qt: '124/80', unit: 'mmHg' },
					},
					{ name: 'SpO2', dis_name: 'SpO2', id: 'v-oxygen', value: { qt: '97', unit: '%' } },
				],
				examinations: [
					{ id: 's-700', name: 'Throat examination', notes: 'Throat congested' },
					{ id: 's-701', name: 'Chest examination', notes: 'Clear on auscultation' },
				],
			},
		},
	};
}

export const TRANSCRIPT_TEXT = [
	'Doctor: Good morning. What brings you in today?',
	'Patient: मुझे तीन दिन से बुखार और सूखी खांसी है।',
	'Doctor: Any breathlessness or chest pain?',
	'Patient: नहीं, सांस की कोई तकलीफ़ नहीं है।',
	'Doctor: Take paracetamol three times a day and come back after five days.',
].join('\n');

export function customTemplateText(templateId: string): string {
	return `# ${templateId}\n\n**S:** Fever and dry cough for 3 days.\n**O:** Temp 100.8 °F, throat congested.\n**A:** Acute URTI.\n**P:** Paracetamol, cetirizine; review in 5 days.\n`;
}

/**
 * The older status answer's FHIR output (`data.output.fhir`, [IFD §4.8]), in the service's shape
 * ([EKA-FHIR-EXAMPLE], smaller): a `batch` whose references name a placeholder patient
 * (`Patient/dummy_patient_oid`), a doctor with an empty id, an encounter not in the bundle, with a
 * verification status from the clinical-status system (`suspected`), and a Composition posted.
 */
export const FHIR_BUNDLE = Object.freeze({
	resourceType: 'Bundle',
	type: 'batch',
	entry: [
		{
			request: { method: 'PUT', url: 'Condition/7d38dfba-9bdb-5834-9eee-f8aa545aa5cb' },
			resource: {
				resourceType: 'Condition',
				id: '7d38dfba-9bdb-5834-9eee-f8aa545aa5cb',
				category: [
					{
						coding: [
							{
								code: 'encounter-diagnosis',
								display: 'Encounter Diagnosis',
								system: 'http://terminology.hl7.org/CodeSystem/condition-category',
							},
						],
					},
				],
				clinicalStatus: {
					coding: [
						{
							code: 'active',
							display: 'active',
							system: 'http://terminology.hl7.org/CodeSystem/condition-clinical',
						},
					],
				},
				verificationStatus: {
					coding: [
						{
							code: 'suspected',
							display: 'suspected',
							system: 'http://terminology.hl7.org/CodeSystem/condition-clinical',
						},
					],
				},
				code: {
					coding: [
						{
							code: 'locale-97f95df7ab182ac40f0e48c5d1dfbbbb',
							display: 'Acute upper respiratory tract infection',
							system: 'https://www.eka.care',
						},
					],
				},
				subject: { display: 'dummy_patient', reference: 'Patient/dummy_patient_oid' },
				encounter: { reference: 'Encounter/edfad957-7379-5416-a97c-45982d9cb531' },
				asserter: { display: 'dummy doctor', reference: 'Practitioner/' },
				note: [{ text: 'तीन दिन से बुखार और सूखी खांसी' }],
			},
		},
		{
			request: { method: 'PUT', url: 'Observation/788869c9-bdc5-5b2a-9ff3-8dcf3e4206d1' },
			resource: {
				resourceType: 'Observation',
				id: '788869c9-bdc5-5b2a-9ff3-8dcf3e4206d1',
				status: 'preliminary',
				category: [
					{ coding: [{ code: 'symptom', display: 'symptom', system: 'https://www.custom.code' }] },
				],
				code: {
					coding: [
						{
							code: 'locale-f8a79ef309a886ba94602ec9429dd5b1',
							display: 'Fever',
							system: 'https://www.eka.care',
						},
					],
				},
				subject: { display: 'dummy_patient', reference: 'Patient/dummy_patient_oid' },
				encounter: { reference: 'Encounter/edfad957-7379-5416-a97c-45982d9cb531' },
				performer: [{ display: 'dummy doctor', reference: 'Practitioner/' }],
			},
		},
		{
			request: { method: 'PUT', url: 'MedicationRequest/71747c56-19dc-58e5-ab73-bb45b37f0a44' },
			resource: {
				resourceType: 'MedicationRequest',
				id: '71747c56-19dc-58e5-ab73-bb45b37f0a44',
				status: 'active',
				intent: 'order',
				medicationCodeableConcept: {
					coding: [
						{
							code: 'locale-34e44334caaf5b59d3330526f322661b',
							display: 'Paracetamol 650 mg',
							system: 'https://www.eka.care/mdb',
						},
					],
				},
				dosageInstruction: [
					{
						text: 'After food',
						timing: {
							repeat: {
								duration: 3,
								durationUnit: 'd',
								frequency: 3,
								period: 1,
								periodUnit: 'd',
								when: ['PC'],
							},
						},
					},
				],
				subject: { display: 'dummy_patient', reference: 'Patient/dummy_patient_oid' },
				encounter: { reference: 'Encounter/edfad957-7379-5416-a97c-45982d9cb531' },
				requester: { display: 'dummy doctor', reference: 'Practitioner/None' },
			},
		},
		{
			request: { method: 'POST', url: 'Composition' },
			resource: {
				resourceType: 'Composition',
				status: 'preliminary',
				title: 'Prescription',
				type: {
					coding: [
						{ code: '440545006', display: 'Prescription record', system: 'http://snomed.info/sct' },
					],
				},
				date: '2026-11-27T10:34:14.410092+00:00',
				subject: { display: 'dummy_patient', reference: 'Patient/dummy_patient_oid' },
				author: [{ display: 'dummy doctor', reference: 'Practitioner/' }],
				section: [
					{
						title: 'Condition',
						entry: [{ reference: 'Condition/7d38dfba-9bdb-5834-9eee-f8aa545aa5cb' }],
					},
				],
			},
		},
	],
});

export function base64Of(value: unknown): string {
	return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8').toString(
		'base64',
	);
}

export interface RequestedTemplate {
	template_id: string;
	codification_needed: boolean;
}

/** The document a template produces, as the value before Base64, and its type. */
export function templateDocument(
	emrTemplateId: string,
	template: RequestedTemplate,
): { value: unknown; type: string } {
	if (template.template_id === CLINICAL_NOTES_ID)
		return { value: CLINICAL_NOTES_DOCUMENT, type: 'json' };
	if (template.template_id === TRANSCRIPT_ID) return { value: TRANSCRIPT_TEXT, type: 'text' };
	if (template.template_id === emrTemplateId)
		return { value: emrDocument(template.codification_needed), type: 'json' };
	return { value: customTemplateText(template.template_id), type: 'markdown' };
}
