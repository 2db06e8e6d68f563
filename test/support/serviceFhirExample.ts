/**
 * A FHIR output in the exact shape of the service's published 44-entry example (eka-docs
 * `ekascribe/resources/fhir-bundle-example.mdx`), with the project's own clinical content: a `batch`
 * of 13 Observations (6 symptoms, 4 vitals, 3 examinations), 12 CarePlans (11 advice, 1 note), 7
 * ServiceRequests (4 lab, 2 imaging, 1 surgical), 6 Conditions (3 diagnoses, 3 history), 3
 * MedicationRequests, 1 AllergyIntolerance, 1 Appointment and a Composition posted, with the
 * example's defects: no Patient (`Patient/dummy_patient_oid`), no Encounter (references to two
 * different ids), `Practitioner/` with an empty id and `Practitioner/None`, no fullUrl, and
 * verification statuses in the clinical-status system (`confirmed`, `suspected`, `refuted`).
 * Deterministic: the same bundle every time.
 */
import { createHash } from 'node:crypto';

const CARE_CONTEXT = 'c0ffee12-3b4a-4c5d-9e8f-visit-2026-11-27';
const ENCOUNTER = 'Encounter/8d2f6c1e-5a7b-5c3d-9e4f-0a1b2c3d4e5f';
const PATIENT = { display: 'dummy_patient', reference: 'Patient/dummy_patient_oid' };
const DOCTOR = { display: 'dummy doctor', reference: 'Practitioner/' };
const WHEN = '2026-11-27T10:34:14.410092+00:00';

/** A uuid-shaped id from a name, as the service derives its ids. */
function uuidOf(name: string): string {
	const hex = createHash('sha1').update(name).digest('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const common = (local: string) => ({
	extension: [{ url: 'https://www.eka.care/care_context_id', valueString: CARE_CONTEXT }],
	identifier: [{ system: 'https://www.eka.care', value: `${CARE_CONTEXT}#${local}` }],
});

const code = (local: string, display: string, system = 'https://www.eka.care') => ({
	coding: [{ code: local, display, system }],
});

function entry(resource: Record<string, unknown>): Record<string, unknown> {
	return {
		request: { method: 'PUT', url: `${String(resource.resourceType)}/${String(resource.id)}` },
		resource,
	};
}

function symptom(name: string, note: string) {
	const local = `locale-${uuidOf(name).replace(/-/g, '')}`;
	return entry({
		id: uuidOf(`symptom ${name}`),
		...common(local),
		category: [
			{ coding: [{ code: 'symptom', display: 'symptom', system: 'https://www.custom.code' }] },
		],
		code: code(local, name),
		encounter: { reference: ENCOUNTER },
		note: [{ text: note }],
		performer: [DOCTOR],
		status: 'preliminary',
		subject: PATIENT,
		resourceType: 'Observation',
	});
}

function vital(id: string, name: string, snomed: string, value: Record<string, unknown>) {
	return entry({
		id: uuidOf(`vital ${name}`),
		...common(id),
		category: [
			{
				coding: [
					{
						code: 'vital-signs',
						display: 'Vital Signs',
						system: 'http://terminology.hl7.org/CodeSystem/observation-category',
					},
				],
				text: 'Vital Signs',
			},
		],
		code: {
			coding: [
				{ code: id, display: name, system: 'https://www.custom.code/technical' },
				{ code: snomed, display: name, system: 'http://snomed.info/sct' },
			],
		},
		effectiveDateTime: WHEN,
		// The example's vitals name the visit by its care-context id, the rest by a uuid: two encounters, neither in the bundle.
		encounter: { reference: `Encounter/${CARE_CONTEXT}` },
		performer: [DOCTOR],
		status: 'final',
		subject: PATIENT,
		...value,
		resourceType: 'Observation',
	});
}

function examination(name: string) {
	const local = `locale-${uuidOf(name).replace(/-/g, '').slice(0, 32)}`;
	return entry({
		id: uuidOf(`exam ${name}`),
		...common(local),
		category: [
			{
				coding: [
					{
						code: 'exam',
						display: 'exam',
						system: 'http://terminology.hl7.org/CodeSystem/observation-category',
					},
				],
				text: 'exam',
			},
		],
		code: code(local, name),
		encounter: { reference: ENCOUNTER },
		performer: [DOCTOR],
		status: 'final',
		subject: PATIENT,
		resourceType: 'Observation',
	});
}

function carePlan(text: string, kind: 'advice' | 'note') {
	const local = `locale-${uuidOf(text).replace(/-/g, '').slice(0, 32)}`;
	return entry({
		id: uuidOf(`careplan ${text}`),
		...common(local),
		author: DOCTOR,
		category: [
			kind === 'advice'
				? code('386464006', 'Medical advice', 'http://snomed.info/sct')
				: code('371530004', 'Clinical note', 'http://snomed.info/sct'),
		],
		created: WHEN,
		description: text,
		encounter: { reference: ENCOUNTER },
		intent: kind === 'advice' ? 'plan' : 'proposal',
		status: 'active',
		subject: PATIENT,
		resourceType: 'CarePlan',
	});
}

function order(name: string, category: [string, string], note?: string) {
	const local = `locale-${uuidOf(name).replace(/-/g, '').slice(0, 32)}`;
	return entry({
		id: uuidOf(`order ${name}`),
		...common(local),
		authoredOn: WHEN,
		category: [code(category[0], category[1], 'http://snomed.info/sct')],
		code: code(local, name, 'https://www.eka.care/local'),
		encounter: { reference: ENCOUNTER },
		intent: 'order',
		...(note ? { note: [{ text: note }] } : {}),
		requester: DOCTOR,
		status: 'active',
		subject: PATIENT,
		resourceType: 'ServiceRequest',
	});
}

function condition(
	name: string,
	category: 'encounter-diagnosis' | 'problem-list-item',
	clinical: string,
	verification: string,
	note?: string,
) {
	const local = `locale-${uuidOf(name).replace(/-/g, '').slice(0, 32)}`;
	return entry({
		id: uuidOf(`condition ${name}`),
		...common(local),
		asserter: DOCTOR,
		category: [
			{
				coding: [
					{
						code: category,
						display:
							category === 'encounter-diagnosis' ? 'Encounter Diagnosis' : 'Problem List Item',
						system: 'http://terminology.hl7.org/CodeSystem/condition-category',
					},
				],
			},
		],
		clinicalStatus: {
			coding: [
				{
					code: clinical,
					display: clinical,
					system: 'http://terminology.hl7.org/CodeSystem/condition-clinical',
				},
			],
		},
		code: code(local, name),
		encounter: { reference: ENCOUNTER },
		evidence: [
			{
				code: [{ coding: [{ code: CARE_CONTEXT, system: 'https://www.eka.care/prescriptions' }] }],
			},
		],
		...(note ? { note: [{ text: note }] } : {}),
		recordedDate: WHEN,
		subject: PATIENT,
		// The service writes its verification statuses in the clinical-status system.
		verificationStatus: {
			coding: [
				{
					code: verification,
					display: verification,
					system: 'http://terminology.hl7.org/CodeSystem/condition-clinical',
				},
			],
		},
		resourceType: 'Condition',
	});
}

function medication(
	name: string,
	pattern: string,
	perDay: number,
	days: number,
	when: string,
	instruction: string,
) {
	const local = `locale-${uuidOf(name).replace(/-/g, '').slice(0, 32)}`;
	return entry({
		id: uuidOf(`medication ${name}`),
		...common(local),
		authoredOn: WHEN,
		dispenseRequest: {
			quantity: { system: 'https://www.eka.care/mdb', unit: 'tablet', value: perDay * days },
		},
		dosageInstruction: [
			{
				additionalInstruction: [
					{ coding: [{ display: pattern, system: 'https://www.eka.care/' }] },
				],
				doseAndRate: [
					{
						doseQuantity: { system: 'https://www.eka.care/mdb', unit: 'tablet', value: 1 },
						type: {
							coding: [
								{
									code: 'ordered',
									display: 'Ordered',
									system: 'http://terminology.hl7.org/CodeSystem/dose-rate-type',
								},
							],
						},
					},
				],
				text: instruction,
				timing: {
					code: {
						coding: [{ code: 'tpr1$ta5', display: 'after meal', system: 'https://www.eka.care/' }],
					},
					repeat: {
						duration: days,
						durationUnit: 'd',
						frequency: perDay,
						period: 1,
						periodUnit: 'd',
						when: [when],
					},
				},
			},
		],
		encounter: { reference: ENCOUNTER },
		intent: 'order',
		medicationCodeableConcept: code(local, name, 'https://www.eka.care/mdb'),
		requester: { display: 'dummy doctor', reference: 'Practitioner/None' },
		status: 'active',
		subject: PATIENT,
		resourceType: 'MedicationRequest',
	});
}

export function serviceFhirExample(): Record<string, unknown> {
	const entries = [
		entry({
			id: uuidOf('allergy sulfa'),
			...common('locale-sulfa'),
			asserter: DOCTOR,
			category: ['medication'],
			clinicalStatus: {
				coding: [
					{
						code: 'active',
						display: 'Active',
						system: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical',
					},
				],
			},
			code: code('locale-sulfa', 'Sulfa drug allergy', 'https://www.eka.care/local'),
			criticality: 'high',
			note: [{ text: 'त्वचा पर चकत्ते' }],
			patient: PATIENT,
			recordedDate: WHEN,
			type: 'allergy',
			verificationStatus: {
				coding: [
					{
						code: 'confirmed',
						display: 'Confirmed',
						system: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-verification',
					},
				],
			},
			resourceType: 'AllergyIntolerance',
		}),
		entry({
			id: uuidOf('appointment'),
			extension: [{ url: 'https://www.eka.care/care_context_id', valueString: CARE_CONTEXT }],
			appointmentType: {
				coding: [
					{
						code: 'FOLLOWUP',
						display: 'Follow-up',
						system: 'http://terminology.hl7.org/CodeSystem/v2-0276',
					},
				],
			},
			created: WHEN,
			description: 'Review with the sugar report in one week',
			end: '2026-12-04T00:00:00+00:00',
			identifier: [{ system: 'https://www.eka.care', value: `${CARE_CONTEXT}#appointment` }],
			participant: [{ actor: PATIENT, status: 'accepted' }],
			start: '2026-12-04T00:00:00+00:00',
			status: 'proposed',
			resourceType: 'Appointment',
		}),
		condition(
			'Acute bronchitis',
			'encounter-diagnosis',
			'inactive',
			'suspected',
			'Working diagnosis from the chest findings',
		),
		condition('Viral upper respiratory infection', 'encounter-diagnosis', 'inactive', 'suspected'),
		condition(
			'Uncontrolled type 2 diabetes',
			'encounter-diagnosis',
			'inactive',
			'suspected',
			'Sugar 240 mg/dL at home',
		),
		condition('Type 2 diabetes mellitus', 'problem-list-item', 'active', 'confirmed'),
		condition('Hypertension', 'problem-list-item', 'active', 'confirmed'),
		condition(
			'Pulmonary tuberculosis',
			'problem-list-item',
			'inactive',
			'refuted',
			'Treated in 2015, no recurrence',
		),
		...[
			'Take the medicines after meals',
			'Check blood sugar before breakfast daily',
			'Steam inhalation twice a day',
			'Warm water gargles',
			'Avoid cold drinks',
			'Walk 30 minutes a day',
			'Avoid sweets and sugary drinks',
			'Sleep 7 to 8 hours',
			'रोज़ सुबह गुनगुना पानी पिएं',
			'Stop smoking',
			'Return at once if breathless',
		].map((text) => carePlan(text, 'advice')),
		carePlan(
			'Cough and fever for four days with raised sugars. Started on antibiotics and a cough syrup; sugar control reinforced. Chest X-ray and sugar profile ordered.',
			'note',
		),
		order('Complete blood count', ['108252007', 'Laboratory procedure'], 'To look for infection'),
		order('Fasting blood sugar', ['108252007', 'Laboratory procedure']),
		order('HbA1c', ['108252007', 'Laboratory procedure']),
		order('Sputum culture', ['108252007', 'Laboratory procedure']),
		order('Chest X-ray PA view', ['363679005', 'Imaging']),
		order('Ultrasound abdomen', ['363679005', 'Imaging']),
		order('Diabetic foot examination', ['387713003', 'Surgical procedure']),
		...[
			['Cough', 'Productive, worse at night'],
			['Fever', 'Up to 101 °F'],
			['Sore throat', 'Mild'],
			['Fatigue', 'For a week'],
			['Increased thirst', 'Recent'],
			['Chest tightness', 'सुबह के समय'],
		].map(([name, note]) => symptom(name, note)),
		vital('v-1365277675', 'Blood pressure', '75367002', {
			component: [
				{
					code: {
						coding: [
							{
								code: 'lb-8296133834',
								display: 'Diastolic Blood Pressure',
								system: 'https://www.custom.code/technical',
							},
						],
					},
					valueQuantity: {
						code: 'lu-736638821',
						system: 'https://www.eka.care/mdb/technical',
						unit: 'mmHg',
						value: 86,
					},
				},
				{
					code: {
						coding: [
							{
								code: 'lb-9242267093',
								display: 'Systolic Blood Pressure',
								system: 'https://www.custom.code/technical',
							},
						],
					},
					valueQuantity: {
						code: 'lu-736638821',
						system: 'https://www.eka.care/mdb/technical',
						unit: 'mmHg',
						value: 138,
					},
				},
			],
		}),
		vital('lb-1201285132', 'Pulse rate', '78564009', {
			valueQuantity: { system: 'https://www.eka.care/mdb/technical', unit: 'bpm', value: 96.0 },
		}),
		vital('lb-199711567', 'Temperature', '386725007', {
			valueQuantity: { system: 'https://www.eka.care/mdb/technical', unit: '°F', value: 100.6 },
		}),
		vital('lb-1771358750', 'Oxygen saturation', '431314004', {
			valueQuantity: { system: 'https://www.eka.care/mdb/technical', unit: '%', value: 96.0 },
		}),
		examination('Chest examination'),
		examination('Throat examination'),
		examination('Foot examination'),
		medication('Amoxicillin 500 mg', '1-1-1', 3, 5, 'PC', 'For the chest infection'),
		medication('Metformin 500 mg', '1-0-1', 2, 30, 'PC', 'For sugar control'),
		medication('Dextromethorphan syrup', '0-0-1', 1, 5, 'HS', 'For the night cough'),
	];
	const composition = {
		request: { method: 'POST', url: 'Composition' },
		resource: {
			extension: [{ url: 'https://www.eka.care/care_context_id', valueString: CARE_CONTEXT }],
			author: [DOCTOR],
			date: WHEN,
			identifier: { system: 'https://www.eka.care', value: CARE_CONTEXT },
			section: sectionsOf(entries),
			status: 'preliminary',
			subject: PATIENT,
			title: 'Prescription',
			type: {
				coding: [
					{ code: '440545006', display: 'Prescription record', system: 'http://snomed.info/sct' },
				],
			},
			resourceType: 'Composition',
		},
	};
	return { entry: [...entries, composition], type: 'batch', resourceType: 'Bundle' };
}

/** The example's Composition lists its entries by type, by `Type/id`. */
function sectionsOf(entries: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
	const byType = new Map<string, string[]>();
	for (const { resource } of entries as Array<{ resource: { resourceType: string; id: string } }>) {
		byType.set(resource.resourceType, [
			...(byType.get(resource.resourceType) ?? []),
			`${resource.resourceType}/${resource.id}`,
		]);
	}
	return [...byType].map(([title, references]) => ({
		entry: references.map((reference) => ({ reference })),
		title,
	}));
}
