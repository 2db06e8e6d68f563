/**
 * The EMR template's JSON → FHIR R4, section by section, from fixtures in the service's shapes:
 * what each section becomes, Hindi kept as written, text that cannot be coded kept as text, codes
 * only from R4's value sets (or real codes the notes carry), absent sections absent.
 */
import { emrDocument } from '../../fake-api/routes/transcription';
import { loadR4, referenceProblems, resourcesOf, type R4 } from '../../support/fhirR4';
import {
	built,
	emrResults,
	EXISTING_REFERENCES,
	mapped,
	properties,
	RECORDED_AT,
} from './fixtures';

let r4: R4;
beforeAll(async () => {
	r4 = await loadR4();
});

const PATIENT = { reference: 'Patient/p-42' };
const DOCTOR = { reference: 'Practitioner/dr-7' };

function only<T>(list: T[]): T {
	expect(list).toHaveLength(1);
	return list[0];
}

describe('symptoms → Observation', () => {
	const symptoms = [
		{
			id: 's-1',
			name: 'Headache',
			properties: properties({ Severity: 'Moderate', Laterality: 'Right', Since: ['3', 'Days'] }),
			notes: 'Throbbing',
		},
		{ id: 's-2', name: 'सिर दर्द', properties: properties({ Severity: 'बहुत तेज़' }) },
	];

	test("a preliminary Observation of the visit, the service's symptom category, name as text, severity coded, side as body site", () => {
		const [headache] = mapped({ symptoms }, 'Observation');
		expect(headache).toMatchObject({
			status: 'preliminary',
			category: [
				{ coding: [{ system: 'http://snomed.info/sct', code: '418799008' }], text: 'Symptom' },
			],
			code: { text: 'Headache' },
			subject: PATIENT,
			performer: [DOCTOR],
			valueCodeableConcept: {
				coding: [{ system: 'http://snomed.info/sct', code: '6736007', display: 'Moderate' }],
				text: 'Moderate',
			},
			bodySite: { text: 'Right' },
			note: [{ text: 'Since: 3 Days' }, { text: 'Throbbing' }],
		});
		expect(headache.code).toEqual({ text: 'Headache' });
	});

	test('Hindi stays exactly as written; a severity that is not mild, moderate or severe stays text, not coded', () => {
		const [, hindi] = mapped({ symptoms }, 'Observation');
		expect(hindi.code).toEqual({ text: 'सिर दर्द' });
		expect(hindi.valueCodeableConcept).toEqual({ text: 'बहुत तेज़' });
	});
});

describe('vitals → Observation (vital-signs)', () => {
	const vitals = [
		{
			name: 'Blood Pressure',
			dis_name: 'Blood Pressure',
			value: { qt: '130/85', unit: 'mmHg' },
			date: '2026-11-27T10:10:00Z',
		},
		{ name: 'Pulse', value: { qt: '82', unit: 'bpm' } },
		{ name: 'Weight', value: { qt: '71.5', unit: 'kg' } },
		{ name: 'Pain score', value: { qt: '6/10', unit: '' } },
		{ name: 'Temperature', value: { qt: 'normal' } },
	];

	test('clear vital signs get their LOINC code and UCUM units; blood pressure its two components', () => {
		const [pressure, pulse, weight] = mapped({ medicalHistory: { vitals } }, 'Observation');
		expect(pressure).toMatchObject({
			category: [
				{
					coding: [
						{
							system: 'http://terminology.hl7.org/CodeSystem/observation-category',
							code: 'vital-signs',
						},
					],
				},
			],
			code: { coding: [{ system: 'http://loinc.org', code: '85354-9' }], text: 'Blood Pressure' },
			effectiveDateTime: '2026-11-27T10:10:00Z',
			component: [
				{
					code: { coding: [{ code: '8480-6' }] },
					valueQuantity: {
						value: 130,
						unit: 'mmHg',
						system: 'http://unitsofmeasure.org',
						code: 'mm[Hg]',
					},
				},
				{
					code: { coding: [{ code: '8462-4' }] },
					valueQuantity: {
						value: 85,
						unit: 'mmHg',
						system: 'http://unitsofmeasure.org',
						code: 'mm[Hg]',
					},
				},
			],
		});
		expect(pressure.valueQuantity).toBeUndefined();
		expect(pulse).toMatchObject({
			code: { coding: [{ code: '8867-4' }] },
			valueQuantity: { value: 82, code: '/min' },
		});
		expect(weight).toMatchObject({
			code: { coding: [{ code: '29463-7' }] },
			valueQuantity: { value: 71.5, unit: 'kg', code: 'kg' },
		});
	});

	test('a vital no table knows keeps its name as text; a value that is no number stays text', () => {
		const [, , , pain, temperature] = mapped({ medicalHistory: { vitals } }, 'Observation');
		expect(pain.code).toEqual({ text: 'Pain score' });
		expect(pain.valueString).toBe('6/10');
		expect(temperature).toMatchObject({
			code: { coding: [{ code: '8310-5' }] },
			valueString: 'normal',
		});
		expect(temperature.valueQuantity).toBeUndefined();
	});
});

describe('examinations → Observation (exam)', () => {
	test('name as text, findings as notes', () => {
		const exam = only(
			mapped(
				{
					medicalHistory: {
						examinations: [{ id: 's-9', name: 'Abdominal examination', notes: 'Soft, non-tender' }],
					},
				},
				'Observation',
			),
		);
		expect(exam).toMatchObject({
			status: 'preliminary',
			category: [{ coding: [{ code: 'exam' }] }],
			code: { text: 'Abdominal examination' },
			note: [{ text: 'Soft, non-tender' }],
		});
	});
});

describe('diagnosis → Condition (encounter-diagnosis)', () => {
	const status = (value: string) => properties({ 'Current status': value });

	test('an ICD-10 code the notes carry is sent as one, beside the name', () => {
		const condition = only(
			mapped(
				{
					diagnosis: [
						{
							name: 'Hypertension',
							icd10_code: 'I10',
							icd10_name: 'Essential (primary) hypertension',
							properties: properties({ Since: ['2', 'Years'] }),
						},
					],
				},
				'Condition',
			),
		);
		expect(condition).toMatchObject({
			category: [
				{
					coding: [
						{
							system: 'http://terminology.hl7.org/CodeSystem/condition-category',
							code: 'encounter-diagnosis',
						},
					],
				},
			],
			code: {
				coding: [
					{
						system: 'http://hl7.org/fhir/sid/icd-10',
						code: 'I10',
						display: 'Essential (primary) hypertension',
					},
				],
				text: 'Hypertension',
			},
			onsetString: '2 Years',
			recordedDate: RECORDED_AT,
			subject: PATIENT,
			asserter: DOCTOR,
		});
	});

	test("statuses follow the service's table: confirmed, suspected → unconfirmed, ruled out → refuted", () => {
		const [confirmed, suspected, ruledOut] = mapped(
			{
				diagnosis: [
					{ name: 'A', properties: status('Confirmed') },
					{ name: 'B', properties: status('Suspected') },
					{ name: 'C', properties: status('Ruled out') },
				],
			},
			'Condition',
		);
		const ver = (code: string) => ({
			coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-ver-status', code }],
		});
		const clinical = (code: string) => ({
			coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code }],
		});
		expect(confirmed).toMatchObject({
			clinicalStatus: clinical('active'),
			verificationStatus: ver('confirmed'),
		});
		expect(suspected).toMatchObject({ verificationStatus: ver('unconfirmed') });
		// R4's clinical statuses have no "unknown": a suspected condition claims none.
		expect(suspected.clinicalStatus).toBeUndefined();
		expect(ruledOut).toMatchObject({
			clinicalStatus: clinical('inactive'),
			verificationStatus: ver('refuted'),
		});
	});

	test('a status no value set knows is never sent as a code: it stays a note, and the item says so', () => {
		const record = built(
			emrResults({ diagnosis: [{ name: 'Dengue', properties: status('Probable') }] }),
		);
		const condition = only(resourcesOf(record.bundle, 'Condition'));
		expect(condition.clinicalStatus).toBeUndefined();
		expect(condition.verificationStatus).toBeUndefined();
		expect(condition.note).toEqual([{ text: 'Status: Probable' }]);
		expect(record.adjustments).toEqual([
			'diagnosis "Dengue": status "Probable" is no FHIR condition status, kept as a note',
		]);
	});
});

describe('medical history (patientHistory)', () => {
	test('past conditions → Condition (problem-list-item) with the onset as written; no status claimed when none is given', () => {
		const [diabetes, asthma] = mapped(
			{
				medicalHistory: {
					patientHistory: {
						patientMedicalConditions: [
							{ name: 'Type 2 diabetes', status: 'Active', since: { custom: '5 Years' } },
							{ name: 'Asthma' },
						],
					},
				},
			},
			'Condition',
		);
		expect(diabetes).toMatchObject({
			category: [{ coding: [{ code: 'problem-list-item' }] }],
			code: { text: 'Type 2 diabetes' },
			clinicalStatus: { coding: [{ code: 'active' }] },
			onsetString: '5 Years',
		});
		expect(asthma.clinicalStatus).toBeUndefined();
	});

	test('allergies → AllergyIntolerance: drug allergies are medication; "food or other" claims no category; active unless the EMR says otherwise', () => {
		const allergies = mapped(
			{
				medicalHistory: {
					patientHistory: {
						drugAllergy: [{ name: 'Penicillin', status: 'Active', notes: 'Rash' }],
						foodOtherAllergy: [
							{ name: 'मूंगफली', status: 'Resolved' },
							{ name: 'Dust' },
							{ name: 'Pollen', status: 'Seasonal' },
						],
					},
				},
			},
			'AllergyIntolerance',
		);
		expect(
			allergies.map((allergy) => [
				allergy.code,
				allergy.category,
				(allergy.clinicalStatus as { coding: Array<{ code: string }> }).coding[0].code,
			]),
		).toEqual([
			[{ text: 'Penicillin' }, ['medication'], 'active'],
			[{ text: 'मूंगफली' }, undefined, 'resolved'],
			[{ text: 'Dust' }, undefined, 'active'],
			[{ text: 'Pollen' }, undefined, 'active'],
		]);
		expect(allergies[0]).toMatchObject({
			patient: PATIENT,
			recorder: DOCTOR,
			note: [{ text: 'Rash' }],
		});
		expect(allergies[3].note).toEqual([{ text: 'Status: Seasonal' }]);
	});

	test('family history → FamilyMemberHistory: a clear relative is coded, another kept as text, none is "family member"', () => {
		const relatives = mapped(
			{
				medicalHistory: {
					patientHistory: {
						familyHistory: [
							{ name: 'Hypertension', who: 'Father' },
							{ name: 'Diabetes', who: 'Maternal uncle' },
							{ name: 'Asthma' },
						],
					},
				},
			},
			'FamilyMemberHistory',
		);
		expect(relatives.map((relative) => relative.relationship)).toEqual([
			{
				coding: [
					{
						system: 'http://terminology.hl7.org/CodeSystem/v3-RoleCode',
						code: 'FTH',
						display: 'father',
					},
				],
				text: 'Father',
			},
			{ text: 'Maternal uncle' },
			{
				coding: [
					{
						system: 'http://terminology.hl7.org/CodeSystem/v3-RoleCode',
						code: 'FAMMEMB',
						display: 'family member',
					},
				],
				text: 'Family member',
			},
		]);
		expect(relatives[0]).toMatchObject({
			status: 'completed',
			patient: PATIENT,
			condition: [{ code: { text: 'Hypertension' } }],
		});
	});

	test('current medications → MedicationStatement; lifestyle → Observation (social-history); past procedures → Procedure', () => {
		const history = {
			medicalHistory: {
				patientHistory: {
					currentMedications: [
						{ name: 'Metformin 500 mg', status: 'Active', frequency: { custom: '1-0-1' } },
					],
					lifestyleHabits: [
						{ name: 'Smoking', status: 'Active', frequency: { custom: '5 a day' } },
					],
					pastProcedures: [{ name: 'Appendectomy', on: { yyyy: '2019', mm: '3' } }],
				},
			},
		};
		expect(only(mapped(history, 'MedicationStatement'))).toMatchObject({
			status: 'active',
			medicationCodeableConcept: { text: 'Metformin 500 mg' },
			subject: PATIENT,
			dosage: [{ text: '1-0-1' }],
		});
		expect(only(mapped(history, 'Observation'))).toMatchObject({
			category: [{ coding: [{ code: 'social-history' }] }],
			code: { text: 'Smoking' },
			valueString: 'Active, 5 a day',
		});
		expect(only(mapped(history, 'Procedure'))).toMatchObject({
			status: 'completed',
			code: { text: 'Appendectomy' },
			performedDateTime: '2019-03',
		});
	});
});

describe('lab results (labVitals) → Observation (laboratory)', () => {
	test('a number is a Quantity with its UCUM unit; the interpretation stays text', () => {
		const result = only(
			mapped(
				{
					labVitals: [
						{
							name: 'Fasting blood sugar',
							value: '126',
							unit: { name: 'mg/dL' },
							interpretation: { value: 'High' },
							date: '2026-11-20',
						},
					],
				},
				'Observation',
			),
		);
		expect(result).toMatchObject({
			category: [{ coding: [{ code: 'laboratory' }] }],
			code: { text: 'Fasting blood sugar' },
			valueQuantity: {
				value: 126,
				unit: 'mg/dL',
				system: 'http://unitsofmeasure.org',
				code: 'mg/dL',
			},
			interpretation: [{ text: 'High' }],
			effectiveDateTime: '2026-11-20',
		});
	});
});

describe('medications → MedicationRequest', () => {
	const paracetamol = {
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
		duration: { value: '5', unit: 'Days', custom: '5 Days' },
		instruction: 'बुखार होने पर ही लें',
	};

	test('an active order by the doctor: the whole line as text, the structured timing it states, the instruction as written', () => {
		const request = only(mapped({ medications: [paracetamol] }, 'MedicationRequest'));
		expect(request).toMatchObject({
			status: 'active',
			intent: 'order',
			medicationCodeableConcept: { text: 'Paracetamol 650 mg Tablet' },
			subject: PATIENT,
			requester: DOCTOR,
			authoredOn: RECORDED_AT,
			note: [{ text: 'Generic name: Paracetamol' }],
		});
		expect(request.dosageInstruction).toEqual([
			{
				text: '1 tablet, 1-1-1, After Food, for 5 Days',
				patientInstruction: 'बुखार होने पर ही लें',
				timing: {
					repeat: {
						frequency: 3,
						period: 1,
						periodUnit: 'd',
						boundsDuration: {
							value: 5,
							unit: 'Days',
							system: 'http://unitsofmeasure.org',
							code: 'd',
						},
						when: ['PC'],
					},
				},
				doseAndRate: [{ doseQuantity: { value: 1, unit: 'tablet' } }],
			},
		]);
	});

	test('the service\'s own example ("1-0-1" beside frequency 3) disagrees with itself: only the text is sent, and the item says so', () => {
		const dolo = {
			name: 'dolo',
			frequency: {
				pattern_id: 'fp-1',
				dose: ['1', '0', '1'],
				period: 1,
				period_unit: 'day',
				frequency: '3',
				custom: '1-0-1',
			},
			instruction: 'Take twice a day',
			id: 'locale-2ab1e98b135871af6cb01b472195cff4',
		};
		const record = built(emrResults({ medications: [dolo], language: 'EN' }));
		const request = only(resourcesOf(record.bundle, 'MedicationRequest'));
		expect(request.dosageInstruction).toEqual([
			{ text: '1-0-1', patientInstruction: 'Take twice a day' },
		]);
		expect(record.adjustments).toEqual([
			'medication "dolo": the pattern "1-0-1" and "3 times a day" disagree, so the frequency is sent as text only',
		]);
	});

	test('a period unit no value set knows gives no structured frequency; the text keeps it', () => {
		const request = only(
			mapped(
				{
					medications: [
						{
							name: 'Vitamin D3',
							frequency: {
								frequency: '1',
								period: 1,
								period_unit: 'fortnight',
								custom: 'once a fortnight',
							},
						},
					],
				},
				'MedicationRequest',
			),
		);
		expect(request.dosageInstruction).toEqual([{ text: 'once a fortnight' }]);
	});
});

describe('orders → ServiceRequest', () => {
	test('lab tests are laboratory orders, imaging only when the EMR says so; procedures are surgical procedures', () => {
		const record = built(
			emrResults({
				labTests: [
					{ name: 'Complete blood count', notes: 'Fasting' },
					{ name: 'Chest X-ray PA view', kind: 'Imaging' },
					{ name: 'X-ray knee' },
				],
				procedures: [{ name: 'Nebulisation' }],
			}),
		);
		const orders = resourcesOf(record.bundle, 'ServiceRequest');
		expect(
			orders.map((order) => [
				order.code,
				(order.category as Array<{ coding: Array<{ code: string }> }>)[0].coding[0].code,
			]),
		).toEqual([
			[{ text: 'Complete blood count' }, '108252007'],
			[{ text: 'Chest X-ray PA view' }, '363679005'],
			[{ text: 'X-ray knee' }, '108252007'],
			[{ text: 'Nebulisation' }, '387713003'],
		]);
		expect(orders[0]).toMatchObject({
			status: 'active',
			intent: 'order',
			subject: PATIENT,
			requester: DOCTOR,
			note: [{ text: 'Fasting' }],
		});
		expect(record.sections).toEqual(['Lab tests', 'Imaging', 'Procedures']);
	});
});

describe('advice and notes → CarePlan', () => {
	test('each piece of advice is a plan; the notes one proposal, their HTML removed, Hindi intact', () => {
		const record = built(
			emrResults({
				advices: ['Drink warm fluids', { text: '<p>Rest for <b>two</b> days</p>' }],
				prescriptionNotes: { text: '<p>Warm fluids.</p><p>गुनगुना पानी पिएं।</p>' },
			}),
		);
		const plans = resourcesOf(record.bundle, 'CarePlan');
		expect(plans.map((plan) => [plan.intent, plan.description])).toEqual([
			['plan', 'Drink warm fluids'],
			['plan', 'Rest for two days'],
			['proposal', 'Warm fluids.\nगुनगुना पानी पिएं।'],
		]);
		expect(plans[0]).toMatchObject({
			status: 'active',
			subject: PATIENT,
			author: DOCTOR,
			category: [{ text: 'Advice' }],
		});
		expect(record.sections).toEqual(['Advice', 'Notes']);
	});

	test("the notes' parsedText is preferred to their HTML", () => {
		const plan = only(
			mapped(
				{ prescriptionNotes: { text: '<p>x</p>', parsedText: 'Review sugar levels' } },
				'CarePlan',
			),
		);
		expect(plan.description).toBe('Review sugar levels');
	});
});

describe('follow-up → Appointment', () => {
	test('a proposed follow-up: the date as the requested period (no booked time), the notes as its description', () => {
		const appointment = only(
			mapped({ followup: { date: '2026-12-02', notes: 'Review after 5 days' } }, 'Appointment'),
		);
		expect(appointment).toMatchObject({
			status: 'proposed',
			appointmentType: {
				coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0276', code: 'FOLLOWUP' }],
			},
			description: 'Review after 5 days',
			requestedPeriod: [{ start: '2026-12-02', end: '2026-12-02' }],
			participant: [{ actor: PATIENT, status: 'needs-action' }],
		});
		expect(appointment.start).toBeUndefined();
	});

	test('a date that is no date is left out and said; an empty follow-up is no Appointment', () => {
		const record = built(
			emrResults({ followup: { date: 'next week', notes: 'If needed' }, symptoms: ['Fever'] }),
		);
		expect(only(resourcesOf(record.bundle, 'Appointment')).requestedPeriod).toBeUndefined();
		expect(record.adjustments).toEqual(['followup: date "next week" is not a date, left out']);
		expect(mapped({ followup: {}, symptoms: ['Fever'] }, 'Appointment')).toEqual([]);
	});
});

describe('absent sections are absent', () => {
	test('a document with symptoms only: the bundle holds the visit and the symptoms, the Composition one section', () => {
		const record = built(
			emrResults({
				symptoms: [{ name: 'Fever' }],
				diagnosis: [],
				medications: [],
				labTests: [],
				followup: {},
				prescriptionNotes: {},
				medicalHistory: { patientHistory: { drugAllergy: [] }, vitals: [] },
			}),
		);
		expect(record.resource_counts).toEqual({ Encounter: 1, Observation: 1, Composition: 1 });
		const composition = only(resourcesOf(record.bundle, 'Composition'));
		expect(composition.section).toEqual([
			{ title: 'Symptoms', entry: [{ reference: expect.stringMatching(/^urn:uuid:/) }] },
		]);
		expect(record.not_mapped).toEqual([]);
	});

	test('entries without a name are left out and counted; sections with no FHIR mapping are named', () => {
		const record = built(
			emrResults({
				symptoms: [{ name: 'Fever' }, { notes: 'no name' }, {}],
				injections: [{ name: 'Tetanus toxoid' }],
				medicalHistory: { patientHistory: { recentTravelHistory: [{ name: 'Goa' }] } },
			}),
		);
		expect(record.adjustments).toEqual(['symptoms: 2 entries without a name left out']);
		expect(record.not_mapped).toEqual([
			'injections',
			'medicalHistory.patientHistory.recentTravelHistory',
		]);
	});
});

describe("the fake clinic API's EMR document, whole", () => {
	const record = built(emrResults(emrDocument(true).prescription));

	test('every section mapped, in the order a consultation note reads', () => {
		expect(record.sections).toEqual([
			'Symptoms',
			'Vital signs',
			'Examinations',
			'Diagnoses',
			'Medical history',
			'Allergies',
			'Family history',
			'Current medications',
			'Medications',
			'Lab tests',
			'Notes',
			'Follow-up',
		]);
		expect(record.resource_counts).toEqual({
			Encounter: 1,
			Observation: 8,
			Condition: 3,
			AllergyIntolerance: 1,
			FamilyMemberHistory: 1,
			MedicationStatement: 1,
			MedicationRequest: 2,
			ServiceRequest: 1,
			CarePlan: 1,
			Appointment: 1,
			Composition: 1,
		});
		expect(record.adjustments).toEqual([]);
	});

	test('valid R4: structure, required codes from R4 value sets, and no reference that resolves to nothing', () => {
		expect(r4.validate(record.bundle)).toEqual([]);
		for (const resource of resourcesOf(record.bundle))
			expect([resource.resourceType, r4.validate(resource)]).toEqual([resource.resourceType, []]);
		expect(r4.requiredCodeProblems(record.bundle)).toEqual([]);
		expect(referenceProblems(record.bundle, EXISTING_REFERENCES)).toEqual([]);
	});
});
