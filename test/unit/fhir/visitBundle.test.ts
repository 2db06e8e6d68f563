/**
 * The visit's bundle as a whole: ids derived from the visit, the Patient and Practitioner choices,
 * the Encounter and Composition, the item's fields, the field values checked before anything is
 * sent, and the "not ready" answers that stand in for an empty bundle.
 */
import {
	readFhirSettings,
	type ParameterReader,
} from '../../../nodes/ClinicScribe/shared/fhir/fields';
import {
	buildFhirOutput,
	planFhirOutput,
	type FhirOutputSettings,
} from '../../../nodes/ClinicScribe/shared/fhir/fhirOutput';
import {
	isFhirId,
	nameBasedUuid,
	uuidV5,
	visitResourceId,
} from '../../../nodes/ClinicScribe/shared/fhir/ids';
import {
	DIRECTORY_PATIENT_SYSTEM,
	DOCTOR_SYSTEM,
	identifierSearch,
} from '../../../nodes/ClinicScribe/shared/fhir/participants';
import { emrDocument } from '../../fake-api/routes/transcription';
import { entriesOf, referenceProblems, resourcesOf } from '../../support/fhirR4';
import { built, emrResults, EXISTING, RECORDED_AT } from './fixtures';

const NOTES = { symptoms: [{ name: 'Fever' }], diagnosis: [{ name: 'Viral fever' }] };

describe('ids', () => {
	test('version-5 UUIDs (the RFC 4122 example vector), valid FHIR ids', () => {
		expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe(
			'2ed6657d-e927-568b-95e1-2665a8aea6a2',
		);
		const id = visitResourceId(
			{ sessionId: 'visit-0042', patientKey: 'Patient/p-42' },
			'Condition',
			'diagnosis/0',
		);
		expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		expect(isFhirId(id)).toBe(true);
		expect(isFhirId('dummy_patient_oid')).toBe(false);
		expect(isFhirId('x'.repeat(65))).toBe(false);
	});

	test('the parts stay apart: ["a-b","c"] and ["a","b-c"] differ', () => {
		expect(nameBasedUuid(['a-b', 'c'])).not.toBe(nameBasedUuid(['a', 'b-c']));
	});

	test('stable across runs for the same visit and patient; distinct for another visit or another patient', () => {
		const ids = (settings: FhirOutputSettings, sessionId = 'visit-0042') =>
			resourcesOf(built(emrResults(NOTES, { sessionId }), settings).bundle)
				.map((resource) => resource.id)
				.filter(Boolean);
		const first = ids(EXISTING);
		expect(ids(EXISTING)).toEqual(first);
		expect(first).toHaveLength(4);
		expect(ids(EXISTING, 'visit-0043').filter((id) => first.includes(id))).toEqual([]);
		// The same session id for another patient never overwrites the first patient's records.
		expect(
			ids({ ...EXISTING, patient: { kind: 'ehrPatient', id: 'p-43' } }).filter((id) =>
				first.includes(id),
			),
		).toEqual([]);
		// The doctor is not part of the ids: choosing another doctor updates the same records.
		expect(ids({ ...EXISTING, practitioner: { kind: 'ehrPractitioner', id: 'dr-8' } })).toEqual(
			first,
		);
	});
});

describe('Patient and Practitioner', () => {
	const session = emrResults(NOTES, {
		additionalData: {
			doctor: { _id: 'do1001', profile: { personal: { name: { f: 'Asha', l: 'Rao' } } } },
			patient: { oid: '175074536120088' },
		},
	});

	test('an existing EHR Patient and Practitioner are referenced as they are, never created', () => {
		const record = built(session);
		expect(record).toMatchObject({ patient: 'Patient/p-42', practitioner: 'Practitioner/dr-7' });
		expect(resourcesOf(record.bundle, 'Patient')).toEqual([]);
		expect(resourcesOf(record.bundle, 'Practitioner')).toEqual([]);
		expect(referenceProblems(record.bundle, ['Patient/p-42', 'Practitioner/dr-7'])).toEqual([]);
		expect(referenceProblems(record.bundle)).toEqual(
			expect.arrayContaining(['Encounter.subject → "Patient/p-42" resolves to nothing']),
		);
	});

	test('found or created by an identifier: a conditional create the resources refer to by its fullUrl', () => {
		const record = built(session, {
			patient: {
				kind: 'identifier',
				system: 'https://hospital.example.org/mrn',
				value: 'MRN 7|8,9',
			},
			practitioner: { kind: 'sessionDoctor', system: DOCTOR_SYSTEM },
		});
		const [patientEntry, doctorEntry] = entriesOf(record.bundle);
		expect(patientEntry).toEqual({
			fullUrl: expect.stringMatching(/^urn:uuid:/),
			resource: {
				resourceType: 'Patient',
				identifier: [{ system: 'https://hospital.example.org/mrn', value: 'MRN 7|8,9' }],
			},
			request: {
				method: 'POST',
				url: 'Patient',
				ifNoneExist: 'identifier=https%3A%2F%2Fhospital.example.org%2Fmrn|MRN%207%5C%7C8%5C%2C9',
			},
		});
		expect(doctorEntry).toMatchObject({
			resource: {
				resourceType: 'Practitioner',
				identifier: [{ system: DOCTOR_SYSTEM, value: 'do1001' }],
				name: [{ text: 'Asha Rao', given: ['Asha'], family: 'Rao' }],
			},
			request: {
				method: 'POST',
				url: 'Practitioner',
				ifNoneExist: identifierSearch(DOCTOR_SYSTEM, 'do1001'),
			},
		});
		expect(referenceProblems(record.bundle)).toEqual([]);
		expect(resourcesOf(record.bundle, 'Condition')[0]).toMatchObject({
			subject: { reference: patientEntry.fullUrl },
			asserter: { reference: doctorEntry.fullUrl },
		});
		expect(record.practitioner).toBe(`Practitioner?${identifierSearch(DOCTOR_SYSTEM, 'do1001')}`);
	});

	test('from the patient directory: the profile the session names, as a Patient carrying its directory id', () => {
		const settings: FhirOutputSettings = {
			patient: { kind: 'directory', system: DIRECTORY_PATIENT_SYSTEM },
			practitioner: { kind: 'ehrPractitioner', id: 'dr-7' },
		};
		expect(planFhirOutput(session, settings)).toEqual({
			ok: true,
			directoryPatientId: '175074536120088',
		});
		const profile = {
			oid: '175074536120088',
			fn: 'ravi',
			ln: 'kumar',
			fln: 'ravi kumar',
			gen: 'M',
			dob: '1985-04-12',
			mobile: '9876543210',
			ccd: '+91',
			email: 'ravi.kumar@example.com',
		};
		const record = built(session, settings, { directoryProfile: profile });
		expect(entriesOf(record.bundle)[0]).toMatchObject({
			resource: {
				resourceType: 'Patient',
				identifier: [{ system: DIRECTORY_PATIENT_SYSTEM, value: '175074536120088' }],
				name: [{ text: 'ravi kumar', given: ['ravi'], family: 'kumar' }],
				gender: 'male',
				birthDate: '1985-04-12',
				telecom: [{ system: 'phone', value: '+919876543210', use: 'mobile' }],
			},
			request: {
				method: 'POST',
				url: 'Patient',
				ifNoneExist: identifierSearch(DIRECTORY_PATIENT_SYSTEM, '175074536120088'),
			},
		});
		expect(JSON.stringify(record.bundle)).not.toContain('ravi.kumar@example.com');
	});

	test('a session that names two different patients, or none, is refused: never a guess', () => {
		const settings: FhirOutputSettings = {
			patient: { kind: 'directory', system: DIRECTORY_PATIENT_SYSTEM },
			practitioner: { kind: 'ehrPractitioner', id: 'dr-7' },
		};
		const twoPatients = { ...session, patientDetails: { oid: '175074536120089' } };
		expect(planFhirOutput(twoPatients, settings)).toMatchObject({
			ok: false,
			problem: {
				message:
					'The session names two different patients (patient_details.oid and additional_data.patient.oid differ)',
				notReady: false,
			},
		});
		expect(planFhirOutput(emrResults(NOTES), settings)).toMatchObject({
			ok: false,
			problem: {
				message: expect.stringMatching(/^The session names no patient of the patient directory/),
			},
		});
		expect(
			planFhirOutput(emrResults(NOTES), {
				...EXISTING,
				practitioner: { kind: 'sessionDoctor', system: DOCTOR_SYSTEM },
			}),
		).toMatchObject({
			ok: false,
			problem: { message: 'The session names no doctor (additional_data.doctor._id)' },
		});
	});

	test('a doctor of the clinic comes from the clinic directory; one it does not list is refused', () => {
		const settings: FhirOutputSettings = {
			...EXISTING,
			practitioner: { kind: 'clinicDoctor', doctorId: 'do1002', system: DOCTOR_SYSTEM },
		};
		expect(planFhirOutput(session, settings)).toEqual({ ok: true, clinicDoctorId: 'do1002' });
		const doctors = [
			{ doctor_id: 'do1001', name: 'Dr. Asha Rao' },
			{ doctor_id: 'do1002', name: 'Dr. Vikram Mehta' },
		];
		expect(
			entriesOf(built(session, settings, { clinicDoctors: doctors }).bundle)[0].resource,
		).toEqual({
			resourceType: 'Practitioner',
			identifier: [{ system: DOCTOR_SYSTEM, value: 'do1002' }],
			name: [{ text: 'Dr. Vikram Mehta' }],
		});
		const unknown = buildFhirOutput(
			session,
			{ ...settings, practitioner: { ...settings.practitioner, doctorId: 'do9999' } as never },
			{ clinicDoctors: doctors },
		);
		expect(unknown).toMatchObject({
			ok: false,
			problem: { message: 'Doctor "do9999" is not a doctor of the clinic directory' },
		});
	});
});

describe('the Encounter, the Composition and the item', () => {
	const record = built(emrResults(NOTES));

	test('the item: the bundle, where to find what it stored, and what it holds', () => {
		expect(Object.keys(record)).toEqual([
			'session_id',
			'status',
			'bundle',
			'source',
			'source_template_id',
			'patient',
			'practitioner',
			'encounter',
			'composition',
			'notes_status',
			'entry_count',
			'resource_counts',
			'sections',
			'not_mapped',
			'adjustments',
			'review',
		]);
		const [encounter] = resourcesOf(record.bundle, 'Encounter');
		const [composition] = resourcesOf(record.bundle, 'Composition');
		expect(record).toMatchObject({
			session_id: 'visit-0042',
			status: 'completed',
			source: 'emr',
			source_template_id: 'eka_emr_template',
			notes_status: 'preliminary',
			encounter: `Encounter/${String(encounter.id)}`,
			composition: `Composition/${String(composition.id)}`,
			entry_count: 4,
			sections: ['Symptoms', 'Diagnoses'],
		});
		expect(entriesOf(record.bundle).map((entry) => entry.request)).toEqual(
			resourcesOf(record.bundle).map((resource) => ({
				method: 'PUT',
				url: `${String(resource.resourceType)}/${String(resource.id)}`,
			})),
		);
	});

	test('an ambulatory Encounter of the visit, found again by the session id; a preliminary consult note dated at the visit', () => {
		const [encounter] = resourcesOf(record.bundle, 'Encounter');
		expect(encounter).toMatchObject({
			status: 'finished',
			class: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB' },
			identifier: [{ system: 'https://www.eka.care/care_context_id', value: 'visit-0042' }],
			subject: { reference: 'Patient/p-42' },
			participant: [{ individual: { reference: 'Practitioner/dr-7' } }],
			period: { start: RECORDED_AT },
		});
		const [composition] = resourcesOf(record.bundle, 'Composition');
		expect(composition).toMatchObject({
			status: 'preliminary',
			type: { coding: [{ system: 'http://loinc.org', code: '11488-4' }] },
			date: RECORDED_AT,
			author: [{ reference: 'Practitioner/dr-7' }],
			encounter: { reference: `urn:uuid:${String(encounter.id)}` },
		});
	});

	test("without the session's own time, the Composition is dated when the bundle is made, and the item says so", () => {
		const undated = built(emrResults(NOTES, { createdAt: undefined }));
		expect(resourcesOf(undated.bundle, 'Composition')[0].date).toBe('2026-11-27T12:00:00.000Z');
		expect(resourcesOf(undated.bundle, 'Encounter')[0].period).toBeUndefined();
		expect(undated.adjustments).toEqual([
			'the session gave no time of its own: the Composition is dated when the bundle was made',
		]);
	});
});

describe('not ready: never an empty bundle', () => {
	const problem = (results: Parameters<typeof planFhirOutput>[0]) => {
		const plan = planFhirOutput(results, EXISTING);
		expect(plan.ok).toBe(false);
		return (plan as { problem: { message: string; description: string; notReady: boolean } })
			.problem;
	};

	test.each([
		['processing', 'is still being processed, so it has no notes for the EHR yet'],
		['failed', 'failed, so it has no notes for the EHR'],
		['not_found', 'is not known to the clinic API, so it has no notes for the EHR'],
		['expired', 'expired before it was ended, so it has no notes for the EHR'],
		['cancelled', 'was cancelled, so it has no notes for the EHR'],
	] as const)('a session %s', (status, said) => {
		expect(problem(emrResults(NOTES, { status }))).toMatchObject({
			message: `Session "visit-0042" ${said}`,
			notReady: true,
		});
	});

	test('a finished session without an EMR or FHIR document names what it holds and the template to add', () => {
		const results = emrResults(NOTES);
		results.templates = results.templates.slice(0, 1);
		expect(problem(results)).toMatchObject({
			message:
				'Session "visit-0042" has no EMR or FHIR document to build the FHIR bundle from (it holds clinical_notes_template)',
			description: expect.stringContaining('Add EMR Format under Upload Audio → Output Templates'),
			notReady: true,
		});
	});

	test('a partial session whose EMR template failed says so', () => {
		const results = emrResults(NOTES, { status: 'partial' });
		results.templates[1] = {
			...results.templates[1],
			status: 'failure',
			format: 'empty',
			value: null,
		};
		expect(problem(results).message).toBe(
			'Session "visit-0042" has no EMR or FHIR document to build the FHIR bundle from: its EKA EMR Template (eka_emr_template) failed',
		);
	});

	test('an EMR document that holds nothing the bundle can carry is no bundle either', () => {
		const outcome = buildFhirOutput(
			emrResults({ symptoms: [], medicalHistory: { vitals: [] }, injections: [{ name: 'TT' }] }),
			EXISTING,
			{},
		);
		expect(outcome).toMatchObject({
			ok: false,
			problem: {
				message:
					'Session "visit-0042"\'s EMR document holds no clinical section the FHIR bundle can carry',
				notReady: true,
			},
		});
	});

	test('an EMR template only partly produced still gives what it has, and the item says so', () => {
		const results = emrResults(emrDocument(false).prescription, { status: 'partial' });
		results.templates[1] = { ...results.templates[1], status: 'partial_success' };
		expect(built(results).adjustments).toEqual([
			'the EKA EMR Template was only partly produced: the bundle holds what it has',
		]);
	});
});

describe('the fields, read and checked before anything is sent', () => {
	const reader =
		(values: Record<string, unknown>): ParameterReader =>
		(name, fallback) =>
			name in values ? values[name] : fallback;
	const read = (values: Record<string, unknown>, node: 'action' | 'trigger' = 'action') =>
		readFhirSettings(reader(values), node);

	test("the defaults: the patient the session names, from the directory; the session's doctor", () => {
		expect(read({})).toEqual({
			ok: true,
			value: {
				patient: { kind: 'directory', system: DIRECTORY_PATIENT_SYSTEM },
				practitioner: { kind: 'sessionDoctor', system: DOCTOR_SYSTEM },
			},
		});
		expect(read({ fhirPatient: 'ehrPatient', fhirPatientId: 'x' }, 'trigger')).toEqual(
			read({}, 'trigger'),
		);
	});

	test('an EHR id, with or without its type; identifiers; the identifier systems of the options', () => {
		expect(
			read({
				fhirPatient: 'ehrPatient',
				fhirPatientId: ' Patient/abc-1.2 ',
				fhirDoctor: 'ehrPractitioner',
				fhirPractitionerId: 'Practitioner/dr-7',
			}),
		).toEqual({
			ok: true,
			value: {
				patient: { kind: 'ehrPatient', id: 'abc-1.2' },
				practitioner: { kind: 'ehrPractitioner', id: 'dr-7' },
			},
		});
		expect(
			read({
				fhirPatient: 'identifier',
				fhirPatientIdentifierSystem: 'urn:oid:1.2.36.146.595.217.0.1',
				fhirPatientIdentifierValue: 'MRN-7',
			}),
		).toMatchObject({
			ok: true,
			value: {
				patient: { kind: 'identifier', system: 'urn:oid:1.2.36.146.595.217.0.1', value: 'MRN-7' },
			},
		});
		expect(
			read({
				fhirPatient: 'directory',
				fhirDirectoryPatientId: 175074536120088,
				fhirOptions: { directoryIdentifierSystem: 'https://clinic.example.org/oid' },
			}),
		).toMatchObject({
			ok: true,
			value: {
				patient: {
					kind: 'directory',
					directoryId: '175074536120088',
					system: 'https://clinic.example.org/oid',
				},
			},
		});
		expect(
			read({
				fhirDoctor: 'clinicDoctor',
				fhirClinicDoctor: { __rl: true, mode: 'list', value: 'do1001' },
			}),
		).toMatchObject({
			ok: true,
			value: { practitioner: { kind: 'clinicDoctor', doctorId: 'do1001' } },
		});
	});

	test.each([
		[{ fhirPatient: 'ehrPatient', fhirPatientId: '' }, 'The EHR Patient ID is empty'],
		[
			{ fhirPatient: 'ehrPatient', fhirPatientId: 'Patient/../1' },
			'The EHR Patient ID is not a FHIR ID (1 to 64 letters, digits, "-" or ".")',
		],
		[
			{ fhirPatient: 'ehrPatient', fhirPatientId: 'Practitioner/7' },
			'The EHR Patient ID is not a Patient ID (it names another resource type)',
		],
		[
			{
				fhirPatient: 'identifier',
				fhirPatientIdentifierSystem: 'MRN',
				fhirPatientIdentifierValue: '7',
			},
			'The Identifier System is not an absolute URI (for example https://hospital.example.org/mrn or urn:oid:1.2.3)',
		],
		[
			{
				fhirPatient: 'identifier',
				fhirPatientIdentifierSystem: 'https://h.example/mrn',
				fhirPatientIdentifierValue: ' ',
			},
			'The Identifier Value is empty',
		],
		[
			{
				fhirPatient: 'identifier',
				fhirPatientIdentifierSystem: 'https://h.example/mrn',
				fhirPatientIdentifierValue: 'a\u0007b',
			},
			'The Identifier Value contains control characters',
		],
		[{ fhirPatient: 'somebody' }, 'The Patient field is not one of its choices'],
		[
			{ fhirDoctor: 'ehrPractitioner', fhirPractitionerId: 'dr 7' },
			'The EHR Practitioner ID is not a FHIR ID (1 to 64 letters, digits, "-" or ".")',
		],
		[
			{ fhirDoctor: 'clinicDoctor', fhirClinicDoctor: { __rl: true, mode: 'list', value: '' } },
			'The Clinic Doctor is empty',
		],
		[
			{ fhirOptions: { doctorIdentifierSystem: 'doctors' } },
			'FHIR Options → Doctor Identifier System is not an absolute URI (for example https://hospital.example.org/mrn or urn:oid:1.2.3)',
		],
	])('%j is refused: %s', (values, problem) => {
		expect(read(values)).toEqual({ ok: false, problem });
	});

	test('the trigger offers no clinic doctor (its list needs the editor), and the message never repeats the value', () => {
		expect(read({ fhirDoctor: 'clinicDoctor', fhirClinicDoctor: 'do1001' }, 'trigger')).toEqual({
			ok: false,
			problem: 'The Doctor field is not one of its choices',
		});
		const refused = read({
			fhirPatient: 'identifier',
			fhirPatientIdentifierSystem: 'https://h.example/mrn',
			fhirPatientIdentifierValue: `MRN-${'9'.repeat(300)}`,
		});
		expect(refused).toEqual({
			ok: false,
			problem: 'The Identifier Value is 304 characters long (at most 200)',
		});
	});
});
