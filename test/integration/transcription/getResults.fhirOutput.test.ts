/**
 * Output "FHIR Transaction Bundle for the EHR" over real HTTP against the fake clinic API: Get
 * Results, Upload Audio with Wait for Completion and Convert Transcript give one transaction bundle
 * per visit, reading the patient directory profile or the clinic's doctors when the choices say so;
 * a visit with no notes yet fails the item (never an empty bundle); bad input fails before
 * anything is sent.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import {
	DIRECTORY_PATIENT_SYSTEM,
	DOCTOR_SYSTEM,
	identifierSearch,
} from '../../../nodes/ClinicScribe/shared/fhir/participants';
import { CONVERT_PATH, PRESIGN_PATH, type Outcome } from '../../fake-api/routes/transcription';
import { entriesOf, loadR4, referenceProblems, resourcesOf } from '../../support/fhirR4';
import { useSessionRig } from '../../support/sessionRig';
import { item, resultsParameters, uploadParameters } from '../../support/transcriptionRig';

const t = useSessionRig();
const { rig } = t;

const EMR_AND_NOTES = {
	templates: [
		{ template: 'clinical_notes_template', customTemplateId: '', codificationNeeded: false },
		{ template: 'emr', customTemplateId: '', codificationNeeded: true },
	],
};
const NOTES_ONLY = {
	templates: [
		{ template: 'clinical_notes_template', customTemplateId: '', codificationNeeded: false },
	],
};

const DOCTOR = { _id: 'do1001', profile: { personal: { name: { f: 'Asha', l: 'Rao' } } } };
const RAVI = '175074536120088';

/** A finished transaction whose upload named the patient and the doctor as a clinic would. */
async function startVisit(
	txnId: string,
	options: {
		outcome?: Outcome;
		processingPolls?: number;
		templates?: object;
		additionalData?: object;
	} = {},
) {
	rig.fake.script(txnId, {
		processingPolls: options.processingPolls ?? 0,
		outcome: options.outcome ?? 'success',
	});
	const additionalData = JSON.stringify(
		options.additionalData ?? { patient: { oid: RAVI }, doctor: DOCTOR },
	);
	await rig.run(
		uploadParameters({
			transactionId: txnId,
			outputTemplates: options.templates ?? EMR_AND_NOTES,
			options: { additionalData },
		}),
		{
			items: [item({ data: rig.storedBinary(rig.audioFile('visit.wav', 2000)) })],
		},
	);
}

const FHIR = { resultsOutput: 'fhirBundle' };
const EXISTING_PATIENT = {
	...FHIR,
	fhirPatient: 'ehrPatient',
	fhirPatientId: 'Patient/p-42',
	fhirDoctor: 'sessionDoctor',
};

async function results(
	sessionId: string,
	extra: Record<string, unknown>,
	options: { continueOnFail?: boolean } = {},
): Promise<INodeExecutionData[]> {
	return await rig.run(resultsParameters(sessionId, extra), options);
}

async function failure(run: Promise<unknown>): Promise<{ message: string; description: string }> {
	try {
		await run;
	} catch (error) {
		return {
			message: (error as Error).message,
			description: String((error as { description?: unknown }).description ?? ''),
		};
	}
	throw new Error('expected the run to fail');
}

function bundleOf(output: INodeExecutionData[]): IDataObject {
	expect(output).toHaveLength(1);
	return output[0].json.bundle as IDataObject;
}

describe('Get Results', () => {
	test('from the EMR template: one item holding one transaction bundle, every reference resolved, Hindi intact', async () => {
		await startVisit('visit-fhir-1');
		const output = await results('visit-fhir-1', EXISTING_PATIENT);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		const json = output[0].json;
		expect(json).toMatchObject({
			session_id: 'visit-fhir-1',
			status: 'completed',
			source: 'emr',
			source_template_id: 'svc_emr_template',
			patient: 'Patient/p-42',
			practitioner: `Practitioner?${identifierSearch(DOCTOR_SYSTEM, 'do1001')}`,
			entry_count: 22,
			not_mapped: [],
			adjustments: [],
		});
		const bundle = bundleOf(output);
		expect(bundle.type).toBe('transaction');
		expect(referenceProblems(bundle, ['Patient/p-42'])).toEqual([]);
		expect(resourcesOf(bundle, 'Practitioner')).toEqual([
			{
				resourceType: 'Practitioner',
				identifier: [{ system: DOCTOR_SYSTEM, value: 'do1001' }],
				name: [{ text: 'Asha Rao', given: ['Asha'], family: 'Rao' }],
			},
		]);
		expect(resourcesOf(bundle, 'Condition').map((condition) => condition.code)).toEqual([
			{
				coding: [
					{
						system: 'http://hl7.org/fhir/sid/icd-10',
						code: 'J06.9',
						display: 'Acute upper respiratory infection, unspecified',
					},
				],
				text: 'Acute upper respiratory tract infection',
			},
			{ text: 'Viral fever' },
			{ text: 'Type 2 diabetes' },
		]);
		expect(JSON.stringify(bundle)).toContain('बुखार होने पर ही लें');
		const r4 = await loadR4();
		expect(r4.validate(bundle)).toEqual([]);
		expect(r4.requiredCodeProblems(bundle)).toEqual([]);
		// Nothing but the status call was needed: the patient is the EHR's, the doctor the session's.
		expect(
			rig.api.requests.filter((r) => r.path.startsWith('/profiles') || r.path.startsWith('/dr/')),
		).toEqual([]);
	});

	test('run twice, the same bundle: a second POST updates what the first stored', async () => {
		await startVisit('visit-fhir-twice');
		const first = await results('visit-fhir-twice', EXISTING_PATIENT);
		const second = await results('visit-fhir-twice', EXISTING_PATIENT);
		expect(second[0].json.bundle).toEqual(first[0].json.bundle);
		expect(
			entriesOf(first[0].json.bundle).every(
				(entry) => entry.request?.method === 'PUT' || entry.request?.ifNoneExist,
			),
		).toBe(true);
	});

	test('from the patient directory: the profile the session names is read and becomes the Patient, found again by its directory id', async () => {
		await startVisit('visit-fhir-directory');
		const output = await results('visit-fhir-directory', {
			...FHIR,
			fhirPatient: 'directory',
			fhirDirectoryPatientId: '',
			fhirDoctor: 'sessionDoctor',
		});
		expect(rig.api.requestsTo(`/profiles/v1/patient/${RAVI}`, 'GET')).toHaveLength(1);
		const bundle = bundleOf(output);
		const [patientEntry] = entriesOf(bundle);
		expect(patientEntry).toMatchObject({
			resource: {
				resourceType: 'Patient',
				identifier: [{ system: DIRECTORY_PATIENT_SYSTEM, value: RAVI }],
				name: [{ text: 'ravi kumar', given: ['ravi'], family: 'kumar' }],
				gender: 'male',
				birthDate: '1985-04-12',
				telecom: [{ system: 'phone', value: '+919876543210', use: 'mobile' }],
			},
			request: {
				method: 'POST',
				url: 'Patient',
				ifNoneExist: identifierSearch(DIRECTORY_PATIENT_SYSTEM, RAVI),
			},
		});
		expect(referenceProblems(bundle)).toEqual([]);
		expect(output[0].json.patient).toBe(
			`Patient?${identifierSearch(DIRECTORY_PATIENT_SYSTEM, RAVI)}`,
		);
	});

	test('a Directory Patient ID the directory does not know fails the item with its answer; Continue On Fail gives the error item', async () => {
		await startVisit('visit-fhir-unknown-patient');
		const parameters = {
			...FHIR,
			fhirPatient: 'directory',
			fhirDirectoryPatientId: '175074536199999',
			fhirDoctor: 'sessionDoctor',
		};
		const refused = await failure(results('visit-fhir-unknown-patient', parameters));
		expect(refused.message).toMatch(/patient.*404|404.*patient/i);
		const output = await results('visit-fhir-unknown-patient', parameters, {
			continueOnFail: true,
		});
		expect(output).toEqual([
			{ json: expect.objectContaining({ error: refused.message }), pairedItem: { item: 0 } },
		]);
	});

	test('a doctor of the clinic: read from the clinic directory, named as it lists them', async () => {
		await startVisit('visit-fhir-clinic-doctor', { additionalData: { patient: { oid: RAVI } } });
		const output = await results('visit-fhir-clinic-doctor', {
			...EXISTING_PATIENT,
			fhirDoctor: 'clinicDoctor',
			fhirClinicDoctor: { __rl: true, mode: 'list', value: 'do1002' },
		});
		expect(rig.api.requestsTo('/dr/v1/business/entities', 'GET')).toHaveLength(1);
		expect(resourcesOf(bundleOf(output), 'Practitioner')).toEqual([
			{
				resourceType: 'Practitioner',
				identifier: [{ system: DOCTOR_SYSTEM, value: 'do1002' }],
				name: [{ text: 'Dr. Vikram Mehta' }],
			},
		]);
		const unknown = await failure(
			results('visit-fhir-clinic-doctor', {
				...EXISTING_PATIENT,
				fhirDoctor: 'clinicDoctor',
				fhirClinicDoctor: { __rl: true, mode: 'id', value: 'do9999' },
			}),
		);
		expect(unknown.message).toBe('Doctor "do9999" is not a doctor of the clinic directory');
	});

	test("the older FHIR output (data.output.fhir) is repaired: the chosen patient and doctor, the visit's encounter, no dangling reference", async () => {
		await startVisit('visit-fhir-legacy', { outcome: 'fhir' });
		const output = await results('visit-fhir-legacy', EXISTING_PATIENT);
		expect(output[0].json).toMatchObject({
			source: 'service_fhir',
			source_template_id: 'fhir',
			resource_counts: {
				Practitioner: 1,
				Encounter: 1,
				Condition: 1,
				Observation: 1,
				MedicationRequest: 1,
				Composition: 1,
			},
		});
		const bundle = bundleOf(output);
		expect(referenceProblems(bundle, ['Patient/p-42'])).toEqual([]);
		expect(resourcesOf(bundle, 'Condition')[0].verificationStatus).toEqual({
			coding: [
				{
					system: 'http://terminology.hl7.org/CodeSystem/condition-ver-status',
					code: 'unconfirmed',
					display: 'Unconfirmed',
				},
			],
		});
	});

	test('Results Of "Session": the patient named in the session\'s patient_details', async () => {
		const sessionId = 'fhir-session-patient-0001';
		const send = async (method: string, path: string, body: string | Uint8Array, type: string) =>
			await fetch(`${rig.api.url}${path}`, {
				method,
				headers: {
					authorization: `Bearer ${rig.api.validCredentials.staticToken}`,
					'content-type': type,
				},
				body: body as BodyInit,
			});
		const created = await send(
			'POST',
			'/voice/v1/sessions',
			JSON.stringify({
				session_id: sessionId,
				upload_type: 'single',
				templates: ['svc_emr_template'],
				patient_details: { oid: RAVI, name: 'Ravi Kumar' },
				additional_data: { doctor: DOCTOR },
			}),
			'application/json',
		);
		expect(created.status).toBe(201);
		expect(
			(
				await send(
					'POST',
					`/voice/v1/sessions/${sessionId}/audio/audio_0.wav`,
					new Uint8Array(64).fill(1),
					'audio/wav',
				)
			).status,
		).toBe(200);
		expect(
			(await send('POST', `/voice/v1/sessions/${sessionId}/end`, '{}', 'application/json')).status,
		).toBe(202);
		t.sessions.script(sessionId, { processingPolls: 0 });
		const output = await results(sessionId, {
			...FHIR,
			resultsSource: 'session',
			fhirPatient: 'directory',
			fhirDirectoryPatientId: '',
			fhirDoctor: 'sessionDoctor',
		});
		expect(rig.api.requestsTo(`/profiles/v1/patient/${RAVI}`, 'GET')).toHaveLength(1);
		expect(referenceProblems(bundleOf(output))).toEqual([]);
		expect(output[0].json).toMatchObject({
			session_id: sessionId,
			source: 'emr',
			source_template_id: 'svc_emr_template',
		});
	});
});

describe('not ready: the item fails, no bundle is made', () => {
	test('a session still being processed', async () => {
		await startVisit('visit-fhir-busy', { processingPolls: 50 });
		const refused = await failure(results('visit-fhir-busy', EXISTING_PATIENT));
		expect(refused.message).toBe(
			'Session "visit-fhir-busy" is still being processed, so it has no notes for the EHR yet',
		);
		expect(refused.description).toMatch(
			/^Run this again once the transcription is done: turn on Wait for Completion/,
		);
		const output = await results('visit-fhir-busy', EXISTING_PATIENT, { continueOnFail: true });
		expect(output).toEqual([
			{
				json: { error: refused.message, description: refused.description },
				pairedItem: { item: 0 },
			},
		]);
	});

	test('a session whose templates all failed', async () => {
		await startVisit('visit-fhir-failed', { outcome: 'failure' });
		expect((await failure(results('visit-fhir-failed', EXISTING_PATIENT))).message).toBe(
			'Session "visit-fhir-failed" failed, so it has no notes for the EHR',
		);
	});

	test('a session without the EMR template: the message says which template to add', async () => {
		await startVisit('visit-fhir-no-emr', { templates: NOTES_ONLY });
		const refused = await failure(results('visit-fhir-no-emr', EXISTING_PATIENT));
		expect(refused.message).toBe(
			'Session "visit-fhir-no-emr" has no EMR or FHIR document to build the FHIR bundle from (it holds clinical_notes_template)',
		);
		expect(refused.description).toContain('Add EMR Format under Upload Audio → Output Templates');
	});
});

describe('bad input: a clear error, and nothing is sent', () => {
	test.each([
		[
			{
				fhirPatient: 'identifier',
				fhirPatientIdentifierSystem: 'MRN',
				fhirPatientIdentifierValue: '12345',
			},
			'The Identifier System is not an absolute URI (for example https://hospital.example.org/mrn or urn:oid:1.2.3) (item 0, Output "FHIR Transaction Bundle for the EHR")',
		],
		[
			{
				fhirPatient: 'identifier',
				fhirPatientIdentifierSystem: 'https://hospital.example.org/mrn',
				fhirPatientIdentifierValue: '',
			},
			'The Identifier Value is empty (item 0, Output "FHIR Transaction Bundle for the EHR")',
		],
		[
			{ fhirPatient: 'ehrPatient', fhirPatientId: 'Patient/../admin' },
			'The EHR Patient ID is not a FHIR ID (1 to 64 letters, digits, "-" or ".") (item 0, Output "FHIR Transaction Bundle for the EHR")',
		],
		[
			{
				fhirPatient: 'ehrPatient',
				fhirPatientId: 'p-42',
				fhirDoctor: 'ehrPractitioner',
				fhirPractitionerId: '',
			},
			'The EHR Practitioner ID is empty (item 0, Output "FHIR Transaction Bundle for the EHR")',
		],
	])('%j', async (fields, message) => {
		const refused = await failure(
			results('visit-anything', { ...FHIR, fhirDoctor: 'sessionDoctor', ...fields }),
		);
		expect(refused).toEqual({
			message,
			description:
				'Correct the field, or make its expression give a valid value. Nothing was sent.',
		});
		expect(rig.api.requests).toEqual([]);
	});
});

describe('Upload Audio with Wait for Completion', () => {
	const upload = (extra: Record<string, unknown>) =>
		uploadParameters({
			transactionId: 'visit-fhir-upload',
			outputTemplates: EMR_AND_NOTES,
			waitForCompletion: true,
			options: { additionalData: JSON.stringify({ doctor: DOCTOR }) },
			...EXISTING_PATIENT,
			...extra,
		});

	test('the recording in, one transaction bundle out, paired with its item', async () => {
		rig.fake.script('visit-fhir-upload', { processingPolls: 1 });
		const output = await rig.run(upload({}), {
			items: [item({ data: rig.storedBinary(rig.audioFile('visit.wav', 4000)) })],
		});
		expect(output[0].pairedItem).toEqual([{ item: 0 }]);
		expect(output[0].json).toMatchObject({
			session_id: 'visit-fhir-upload',
			status: 'completed',
			source: 'emr',
			patient: 'Patient/p-42',
		});
		expect(referenceProblems(bundleOf(output), ['Patient/p-42'])).toEqual([]);
	});

	test('without the EMR template it is refused before anything is sent: no paid transcription without a bundle', async () => {
		const refused = await failure(
			rig.run(upload({ outputTemplates: NOTES_ONLY }), {
				items: [item({ data: rig.storedBinary(rig.audioFile('visit.wav', 4000)) })],
			}),
		);
		expect(refused.message).toBe(
			'Output "FHIR Transaction Bundle for the EHR" needs the EMR Format template, which item 0 does not ask for',
		);
		expect(rig.api.requestsTo(PRESIGN_PATH)).toEqual([]);
		expect(rig.api.requests.filter((r) => r.method === 'POST')).toEqual([]);
	});

	test('two items of one transaction for different patients are refused: one visit, one patient', async () => {
		const context = rig.context(upload({}), {
			items: [
				item({ data: rig.storedBinary(rig.audioFile('a.wav', 1000)) }),
				item({ data: rig.storedBinary(rig.audioFile('b.wav', 1000)) }),
			],
		});
		const base = context.getNodeParameter.bind(context);
		(context as { getNodeParameter: unknown }).getNodeParameter = (
			name: string,
			itemIndex: number,
			fallback?: unknown,
			options?: unknown,
		) =>
			name === 'fhirPatientId'
				? `p-${40 + itemIndex}`
				: base(name, itemIndex, fallback as never, options as never);
		const refused = await failure(rig.node.execute.call(context));
		expect(refused.message).toBe(
			'Items 0 and 1 share transaction "visit-fhir-upload" but ask for a different Patient and Doctor of the FHIR output',
		);
		expect(rig.api.requests.filter((r) => r.method === 'POST')).toEqual([]);
	});
});

describe('Convert Transcript', () => {
	const convert = (extra: Record<string, unknown>) => ({
		resource: 'transcription',
		operation: 'convertTranscript',
		transcript: 'तीन दिन से बुखार और सूखी खांसी। Paracetamol 650 three times a day for three days.',
		convertTemplate: 'emr',
		customTemplateId: { __rl: true, mode: 'list', value: '' },
		waitForCompletion: true,
		timeoutMinutes: 1,
		pollIntervalSeconds: 1,
		...EXISTING_PATIENT,
		fhirDoctor: 'ehrPractitioner',
		fhirPractitionerId: 'dr-7',
		...extra,
	});

	test('EMR Format converted, one bundle out, with the document id', async () => {
		const output = await rig.run(convert({}));
		expect(output[0].json).toMatchObject({
			source: 'emr',
			patient: 'Patient/p-42',
			practitioner: 'Practitioner/dr-7',
			document_id: expect.any(String),
		});
		expect(referenceProblems(bundleOf(output), ['Patient/p-42', 'Practitioner/dr-7'])).toEqual([]);
	});

	test('Clinical Notes cannot give a bundle: refused before the session is made', async () => {
		const refused = await failure(rig.run(convert({ convertTemplate: 'clinical_notes_template' })));
		expect(refused.message).toBe(
			'Output "FHIR Transaction Bundle for the EHR" needs the EMR Format template, but item 0 converts to clinical_notes_template',
		);
		expect(
			rig.api.requests.filter(
				(r) =>
					r.method === 'POST' && (r.path.startsWith('/voice') || r.path.endsWith(CONVERT_PATH)),
			),
		).toEqual([]);
	});
});
