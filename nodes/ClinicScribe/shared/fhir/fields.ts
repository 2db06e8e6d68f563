/**
 * The fields of the "FHIR Transaction Bundle for the EHR" output, shared by Get Results, Upload
 * Audio, Convert Transcript and the trigger, and their reading (through the caller's parameter
 * getter, so this stays pure). The trigger has no input items, so it offers only choices that come
 * from the session itself or hold for every visit: the patient the session names, and the
 * session's doctor or one fixed EHR Practitioner. Messages never repeat a value: it may be patient data.
 */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { isRecord } from '../values';
import { DEFAULT_MIN_CODE_SCORE, type CodingSettings } from './codes';
import type { FhirOutputSettings } from './fhirOutput';
import { notesStatusFields, readSignature, type ParameterReader, type Show } from './signingFields';
import {
	checkIdentifierSystem,
	checkIdentifierValue,
	checkResourceId,
	DIRECTORY_PATIENT_SYSTEM,
	DOCTOR_SYSTEM,
	type Checked,
	type PatientChoice,
	type PractitionerChoice,
} from './participants';

const FHIR_PATIENT_PARAMETER = 'fhirPatient';
const FHIR_DOCTOR_PARAMETER = 'fhirDoctor';

export type { ParameterReader };

/** Which node the fields are for: the trigger has no items to take a patient from. */
type FhirFieldsFor = 'action' | 'trigger';

const HOW_TO_SEND =
	'Each item holds one FHIR R4 transaction bundle under "bundle". To store it in the EHR, add an HTTP Request node: Method POST, URL your EHR\'s FHIR base URL (e.g. https://ehr.example.org/fhir), Send Body on, Body Content Type JSON, JSON {{ $json.bundle }}, header Content-Type application/fhir+json. Sending the same visit again updates what it stored, it does not duplicate it.';

export function fhirOutputFields(
	show: Show,
	node: FhirFieldsFor,
	offerSigning = false,
): INodeProperties[] {
	const when = (extra: Show): IDisplayOptions => ({ show: { ...show, ...extra } });
	const patientOptions = [
		{
			name: 'Existing EHR Patient',
			value: 'ehrPatient',
			description: 'A Patient the EHR already holds, by its ID there',
		},
		{
			name: 'Find or Create by Identifier',
			value: 'identifier',
			description:
				"The EHR's Patient with this identifier (e.g. your medical record number); created with it when there is none",
		},
		{
			name: 'From the Patient Directory',
			value: 'directory',
			description:
				"The clinic API's patient directory profile (name, gender, birth date, mobile), found or created in the EHR by its directory ID",
		},
	];
	const doctorOptions = [
		{
			name: "The Session's Doctor",
			value: 'sessionDoctor',
			description:
				'The doctor named at upload (Additional Data doctor._id and its name), found or created in the EHR by that ID',
		},
		{
			name: 'A Doctor of the Clinic',
			value: 'clinicDoctor',
			description: 'A doctor of the clinic directory, found or created in the EHR by the doctor ID',
		},
		{
			name: 'Existing EHR Practitioner',
			value: 'ehrPractitioner',
			description: 'A Practitioner the EHR already holds, by its ID there',
		},
	];
	const fields: INodeProperties[] = [
		{
			displayName: HOW_TO_SEND,
			name: 'fhirHowToSend',
			type: 'notice',
			default: '',
			displayOptions: { show },
		},
	];
	if (node === 'action') {
		fields.push(
			{
				displayName: 'Patient',
				name: FHIR_PATIENT_PARAMETER,
				type: 'options',
				noDataExpression: true,
				options: patientOptions,
				default: 'directory',
				description:
					'Which patient in the EHR the visit belongs to. Every resource of the bundle refers to this patient.',
				displayOptions: { show },
			},
			{
				displayName: 'EHR Patient ID',
				name: 'fhirPatientId',
				type: 'string',
				default: '',
				required: true,
				placeholder: 'e.g. 12345 or Patient/12345',
				description:
					"The Patient's ID in the EHR. It must exist there: the EHR refuses the bundle otherwise.",
				displayOptions: when({ [FHIR_PATIENT_PARAMETER]: ['ehrPatient'] }),
			},
			{
				displayName: 'Identifier System',
				name: 'fhirPatientIdentifierSystem',
				type: 'string',
				default: '',
				required: true,
				placeholder: 'e.g. https://hospital.example.org/mrn',
				description: 'The namespace of the identifier, as your EHR records it (a URI)',
				displayOptions: when({ [FHIR_PATIENT_PARAMETER]: ['identifier'] }),
			},
			{
				displayName: 'Identifier Value',
				name: 'fhirPatientIdentifierValue',
				type: 'string',
				default: '',
				required: true,
				placeholder: 'e.g. {{ $json.mrn }}',
				description: "The patient's identifier in that namespace",
				displayOptions: when({ [FHIR_PATIENT_PARAMETER]: ['identifier'] }),
			},
			{
				displayName: 'Directory Patient ID',
				name: 'fhirDirectoryPatientId',
				type: 'string',
				default: '',
				placeholder: 'e.g. 175074536120088',
				description:
					'The patient directory ID (oid) of the patient. Leave empty to use the patient the session names: patient_details.oid, or additional_data.patient.oid given at upload.',
				displayOptions: when({ [FHIR_PATIENT_PARAMETER]: ['directory'] }),
			},
		);
	} else {
		fields.push({
			displayName:
				'The patient is the patient directory profile the session names (patient_details.oid, or additional_data.patient.oid given at upload), found or created in the EHR by its directory ID. For another choice, use Transcription → Get Results after this trigger.',
			name: 'fhirPatientNotice',
			type: 'notice',
			default: '',
			displayOptions: { show },
		});
	}
	fields.push({
		displayName: 'Doctor',
		name: FHIR_DOCTOR_PARAMETER,
		type: 'options',
		noDataExpression: true,
		options:
			node === 'action'
				? doctorOptions
				: doctorOptions.filter((option) => option.value !== 'clinicDoctor'),
		default: 'sessionDoctor',
		description:
			'Who recorded the visit: the author of the notes, the requester of the prescriptions and orders',
		displayOptions: { show },
	});
	if (node === 'action') {
		fields.push({
			displayName: 'Clinic Doctor',
			name: 'fhirClinicDoctor',
			type: 'resourceLocator',
			default: { mode: 'list', value: '' },
			required: true,
			description: 'The doctor, from the clinic directory',
			displayOptions: when({ [FHIR_DOCTOR_PARAMETER]: ['clinicDoctor'] }),
			modes: [
				{
					displayName: 'From List',
					name: 'list',
					type: 'list',
					typeOptions: { searchListMethod: 'searchDoctors', searchable: true },
				},
				{ displayName: 'By ID', name: 'id', type: 'string', placeholder: 'e.g. 174157340097045' },
			],
		});
	}
	fields.push(
		{
			displayName: 'EHR Practitioner ID',
			name: 'fhirPractitionerId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. 678 or Practitioner/678',
			description:
				node === 'trigger'
					? "The Practitioner's ID in the EHR. Every visit this trigger receives gets this practitioner: use it only where one doctor records."
					: "The Practitioner's ID in the EHR. It must exist there: the EHR refuses the bundle otherwise.",
			displayOptions: when({ [FHIR_DOCTOR_PARAMETER]: ['ehrPractitioner'] }),
		},
		{
			displayName: 'FHIR Options',
			name: 'fhirOptions',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			displayOptions: { show },
			options: [
				{
					displayName: 'Add Codes',
					name: 'addCodes',
					type: 'boolean',
					default: false,
					description:
						"Whether to code the notes' terms with the service's MedLink: symptoms and examinations in SNOMED CT, diagnoses and history in SNOMED CT and ICD-10-CM, lab tests and results in LOINC, medicines in the service's medication database. A code is added only where MedLink links the term with at least the Minimum Code Score; the text stays beside it, and adjustments name every term left uncoded.",
				},
				{
					displayName: 'Directory Identifier System',
					name: 'directoryIdentifierSystem',
					type: 'string',
					default: DIRECTORY_PATIENT_SYSTEM,
					description:
						"The identifier system of a patient directory ID in the EHR. Change it only to match the EHR's existing records.",
				},
				{
					displayName: 'Doctor Identifier System',
					name: 'doctorIdentifierSystem',
					type: 'string',
					default: DOCTOR_SYSTEM,
					description:
						"The identifier system of a doctor ID in the EHR. Change it only to match the EHR's existing records.",
				},
				{
					displayName: 'EHR Transaction Limits',
					name: 'ehrTransactionLimits',
					type: 'options',
					options: [
						{ name: 'None Known', value: 'none' },
						{
							name: 'Medplum',
							value: 'medplum',
							description:
								'At most 50 updates, and at most 8 entries when the patient or doctor is found by an identifier',
						},
					],
					default: 'none',
					description:
						'The limits your EHR puts on one transaction. A bundle beyond them is not made: the item says why and what to choose instead, and nothing reaches the EHR.',
				},
				{
					displayName: 'Minimum Code Score',
					name: 'minCodeScore',
					type: 'number',
					typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 2 },
					default: DEFAULT_MIN_CODE_SCORE,
					description:
						'With Add Codes: the lowest MedLink score (0–1) a linked code may have to be added. A code MedLink links without a score (its medication database gives none) is added.',
				},
				{
					displayName: 'When Coding Fails',
					name: 'codingFailure',
					type: 'options',
					default: 'uncoded',
					description: 'With Add Codes: what to do when MedLink cannot be reached or refuses',
					options: [
						{
							name: 'Make the Bundle Without Those Codes',
							value: 'uncoded',
							description:
								'The bundle is made as without Add Codes for the terms concerned; adjustments say which and why',
						},
						{
							name: 'Fail the Item',
							value: 'fail',
							description: 'No bundle is made; the error says what MedLink answered',
						},
					],
				},
			],
		},
	);
	// Signing happens after the doctor's review, later in a workflow (Get Results): the trigger,
	// Upload Audio and Convert Transcript file drafts only.
	if (offerSigning) fields.push(...notesStatusFields(when));
	return fields;
}

/** The settings, checked; the problem names the field, says what is wrong, and never repeats a value. */
export function readFhirSettings(
	read: ParameterReader,
	node: FhirFieldsFor,
): Checked<FhirOutputSettings> {
	const options = read('fhirOptions', {});
	const systems = isRecord(options) ? options : {};
	const directorySystem = checkIdentifierSystem(
		systems.directoryIdentifierSystem ?? DIRECTORY_PATIENT_SYSTEM,
	);
	if (!directorySystem.ok)
		return {
			ok: false,
			problem: `FHIR Options → Directory Identifier System ${directorySystem.problem}`,
		};
	const limits = systems.ehrTransactionLimits ?? 'none';
	if (limits !== 'none' && limits !== 'medplum')
		return {
			ok: false,
			problem: 'FHIR Options → EHR Transaction Limits is not one of its choices',
		};
	const transactionLimits: Pick<FhirOutputSettings, 'transactionLimits'> =
		limits === 'medplum' ? { transactionLimits: 'medplum' } : {};
	const doctorSystem = checkIdentifierSystem(systems.doctorIdentifierSystem ?? DOCTOR_SYSTEM);
	if (!doctorSystem.ok)
		return {
			ok: false,
			problem: `FHIR Options → Doctor Identifier System ${doctorSystem.problem}`,
		};

	const coding = readCoding(systems);
	if (!coding.ok) return coding;

	let patient: PatientChoice = { kind: 'directory', system: directorySystem.value };
	if (node === 'action') {
		const choice = read(FHIR_PATIENT_PARAMETER, 'directory');
		if (choice === 'ehrPatient') {
			const id = checkResourceId(read('fhirPatientId', ''), 'Patient');
			if (!id.ok) return { ok: false, problem: `The EHR Patient ID ${id.problem}` };
			patient = { kind: 'ehrPatient', id: id.value };
		} else if (choice === 'identifier') {
			const system = checkIdentifierSystem(read('fhirPatientIdentifierSystem', ''));
			if (!system.ok) return { ok: false, problem: `The Identifier System ${system.problem}` };
			const value = checkIdentifierValue(read('fhirPatientIdentifierValue', ''));
			if (!value.ok) return { ok: false, problem: `The Identifier Value ${value.problem}` };
			patient = { kind: 'identifier', system: system.value, value: value.value };
		} else if (choice === 'directory') {
			const raw = read('fhirDirectoryPatientId', '');
			const given =
				typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : undefined;
			if (given === undefined)
				return { ok: false, problem: 'The Directory Patient ID is not text' };
			if (given !== '') {
				const id = checkIdentifierValue(given);
				if (!id.ok) return { ok: false, problem: `The Directory Patient ID ${id.problem}` };
				patient = { kind: 'directory', directoryId: id.value, system: directorySystem.value };
			}
		} else {
			return { ok: false, problem: 'The Patient field is not one of its choices' };
		}
	}

	const doctor = read(FHIR_DOCTOR_PARAMETER, 'sessionDoctor');
	let practitioner: PractitionerChoice;
	if (doctor === 'sessionDoctor')
		practitioner = { kind: 'sessionDoctor', system: doctorSystem.value };
	else if (doctor === 'ehrPractitioner') {
		const id = checkResourceId(read('fhirPractitionerId', ''), 'Practitioner');
		if (!id.ok) return { ok: false, problem: `The EHR Practitioner ID ${id.problem}` };
		practitioner = { kind: 'ehrPractitioner', id: id.value };
	} else if (doctor === 'clinicDoctor' && node === 'action') {
		const raw = read('fhirClinicDoctor', '');
		const id = checkIdentifierValue(isRecord(raw) ? raw.value : raw);
		if (!id.ok) return { ok: false, problem: `The Clinic Doctor ${id.problem}` };
		practitioner = { kind: 'clinicDoctor', doctorId: id.value, system: doctorSystem.value };
	} else {
		return { ok: false, problem: 'The Doctor field is not one of its choices' };
	}
	const chosen: FhirOutputSettings = { patient, practitioner, ...transactionLimits };
	if (coding.value) chosen.coding = coding.value;
	if (node === 'trigger') return { ok: true, value: chosen };
	const signature = readSignature(read);
	if (!signature.ok) return signature;
	if (signature.value) chosen.signature = signature.value;
	return { ok: true, value: chosen };
}

/** FHIR Options → Add Codes and its two settings; undefined when codes are not asked for. */
function readCoding(options: Record<string, unknown>): Checked<CodingSettings | undefined> {
	const add = options.addCodes ?? false;
	if (typeof add !== 'boolean')
		return { ok: false, problem: 'FHIR Options → Add Codes is not true or false' };
	if (!add) return { ok: true, value: undefined };
	const minScore = options.minCodeScore ?? DEFAULT_MIN_CODE_SCORE;
	if (typeof minScore !== 'number' || !Number.isFinite(minScore) || minScore < 0 || minScore > 1)
		return {
			ok: false,
			problem: 'FHIR Options → Minimum Code Score is not a number from 0 to 1 (e.g. 0.8)',
		};
	const onFailure = options.codingFailure ?? 'uncoded';
	if (onFailure !== 'uncoded' && onFailure !== 'fail')
		return { ok: false, problem: 'FHIR Options → When Coding Fails is not one of its choices' };
	return { ok: true, value: { minScore, onFailure } };
}
