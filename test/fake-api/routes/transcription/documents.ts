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
		{ name: 'Paracetamol 650 mg', dose: '1 tablet', frequency: 'three times a day after food', duration: '3 days' },
		{ name: 'Cetirizine 10 mg', dose: '1 tablet', frequency: 'at night', duration: '5 days' },
	],
	advice: ['Warm fluids', 'Rest for two days'],
	follow_up: 'After 5 days, or earlier if breathless',
});

export function emrDocument(codification: boolean) {
	return {
		encounter: { type: 'consultation', language: 'en-IN' },
		complaints: [{ text: 'Fever', duration: '3 days' }, { text: 'Dry cough' }],
		diagnoses: [codification ? { text: 'Acute upper respiratory tract infection', code: 'J06.9', system: 'ICD-10' } : { text: 'Acute upper respiratory tract infection' }],
		prescriptions: [
			{ drug: 'Paracetamol', strength: '650 mg', frequency: '1-1-1', days: 3 },
			{ drug: 'Cetirizine', strength: '10 mg', frequency: '0-0-1', days: 5 },
		],
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

export const FHIR_BUNDLE = Object.freeze({
	resourceType: 'Bundle',
	type: 'document',
	entry: [
		{ resource: { resourceType: 'Composition', status: 'final', title: 'Consultation note' } },
		{ resource: { resourceType: 'Condition', code: { text: 'Acute upper respiratory tract infection' } } },
	],
});

export function base64Of(value: unknown): string {
	return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8').toString('base64');
}

export interface RequestedTemplate {
	template_id: string;
	codification_needed: boolean;
}

/** The document a template produces, as the value before Base64, and its type. */
export function templateDocument(emrTemplateId: string, template: RequestedTemplate): { value: unknown; type: string } {
	if (template.template_id === CLINICAL_NOTES_ID) return { value: CLINICAL_NOTES_DOCUMENT, type: 'json' };
	if (template.template_id === TRANSCRIPT_ID) return { value: TRANSCRIPT_TEXT, type: 'text' };
	if (template.template_id === emrTemplateId) return { value: emrDocument(template.codification_needed), type: 'json' };
	return { value: customTemplateText(template.template_id), type: 'markdown' };
}
