/**
 * Who the visit's bundle is about and by: the Patient and the Practitioner, as the user chose them.
 * Either an existing resource of the EHR (`Patient/<id>`, referenced as it is), or one found by an
 * identifier and created when the EHR has none (a conditional create, `request.ifNoneExist`
 * [FHIR-R4] http.html#ccreate), so sending the bundle again finds the same one. Pure: the patient
 * directory profile and the clinic's doctor are fetched by the caller and handed in.
 */
import type { HumanName, Patient, Practitioner } from '@medplum/fhirtypes';

import type { SessionResults } from '../answers/sessionResults';
import { asRecord, isRecord, textOf } from '../values';
import { isFhirId, nameBasedUuid, uuidUrl } from './ids';
import { codeIn, ADMINISTRATIVE_GENDER } from './valueSets';
import type { BundleEntry } from './resources';

/**
 * The identifier systems the package gives the service's own ids. No source publishes one, so they
 * are the package's choice (changeable under FHIR Options), named after the service's fields
 * `patient_oid` and `doctor_oid` ([EKA-FHIR] fhir-structure.mdx) under the address the service
 * uses for its identifiers ([EKA-FHIR-EXAMPLE]).
 */
export const DIRECTORY_PATIENT_SYSTEM = 'https://www.eka.care/patient_oid';
export const DOCTOR_SYSTEM = 'https://www.eka.care/doctor_oid';

export type PatientChoice =
	/** A Patient the EHR holds: `Patient/<id>`. */
	| { kind: 'ehrPatient'; id: string }
	/** Found by an identifier of the clinic's (a medical record number), created with it when missing. */
	| { kind: 'identifier'; system: string; value: string }
	/** Built from the patient directory's profile; `directoryId` empty: the patient the session names. */
	| { kind: 'directory'; directoryId?: string; system: string };

export type PractitionerChoice =
	/** The doctor the session names (`additional_data.doctor`, [EKA-V2] ekascribe.yaml). */
	| { kind: 'sessionDoctor'; system: string }
	/** A doctor of the clinic directory, by the service's doctor id. */
	| { kind: 'clinicDoctor'; doctorId: string; system: string }
	/** A Practitioner the EHR holds: `Practitioner/<id>`. */
	| { kind: 'ehrPractitioner'; id: string };

/** How the bundle refers to the patient or the doctor, and the entry that finds or creates it. */
export interface Participant {
	/** What the resources write in their references: `Patient/<id>` or the entry's `urn:uuid:`. */
	reference: string;
	/** The conditional create; none for a resource the EHR already holds. */
	entry?: BundleEntry;
	/** Stable across runs: part of every derived id (ids.ts). */
	key: string;
	/** Where to find it in the EHR after the POST: `Patient/<id>` or `Patient?identifier=…`. */
	search: string;
	/** The name, when known (for the Composition's author display). */
	display?: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * An id of an existing resource: `abc-123`, or `Patient/abc-123` (the type is dropped when it is the
 * right one). A FHIR id is 1 to 64 letters, digits, '-' or '.' ([FHIR-R4] datatypes.html#id).
 */
export function checkResourceId(
	value: unknown,
	resourceType: 'Patient' | 'Practitioner',
): Checked<string> {
	const text = textOf(value);
	if (text === undefined) return { ok: false, problem: 'is empty' };
	const slash = text.indexOf('/');
	const id = slash >= 0 && text.slice(0, slash) === resourceType ? text.slice(slash + 1) : text;
	if (slash >= 0 && id === text)
		return { ok: false, problem: `is not a ${resourceType} ID (it names another resource type)` };
	if (!isFhirId(id))
		return { ok: false, problem: 'is not a FHIR ID (1 to 64 letters, digits, "-" or ".")' };
	return { ok: true, value: id };
}

/** An identifier system: an absolute URI (`https://…`, `urn:oid:…`), as [FHIR-R4] datatypes.html#Identifier asks. */
export function checkIdentifierSystem(value: unknown): Checked<string> {
	const text = textOf(value);
	if (text === undefined) return { ok: false, problem: 'is empty' };
	if (!/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(text))
		return {
			ok: false,
			problem:
				'is not an absolute URI (for example https://hospital.example.org/mrn or urn:oid:1.2.3)',
		};
	return { ok: true, value: text };
}

export function checkIdentifierValue(value: unknown): Checked<string> {
	const text = textOf(value);
	if (text === undefined) return { ok: false, problem: 'is empty' };
	if ([...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f))
		return { ok: false, problem: 'contains control characters' };
	if (text.length > 200)
		return { ok: false, problem: `is ${text.length} characters long (at most 200)` };
	return { ok: true, value: text };
}

/**
 * The search of a conditional create: `identifier=<system>|<value>`. Inside a token, `\`, `|`, `,`
 * and `$` are escaped ([FHIR-R4] search.html#escaping), then the parts are URL-encoded.
 */
export function identifierSearch(system: string, value: string): string {
	const escape = (text: string) =>
		encodeURIComponent(text.replace(/[\\|,$]/g, (char) => `\\${char}`));
	return `identifier=${escape(system)}|${escape(value)}`;
}

/** The directory patient the session names: `patient_details.oid` ([EKA-OAS]) or `additional_data.patient.oid`. */
function sessionPatientId(results: SessionResults): Checked<string | undefined> {
	const fromDetails = textOf(asRecord(results.patientDetails)?.oid);
	const fromData = textOf(asRecord(asRecord(results.additionalData)?.patient)?.oid);
	if (fromDetails && fromData && fromDetails !== fromData) {
		return {
			ok: false,
			problem:
				'names two different patients (patient_details.oid and additional_data.patient.oid differ)',
		};
	}
	return { ok: true, value: fromDetails ?? fromData };
}

/** The doctor the session names: `additional_data.doctor._id` and its `profile.personal.name` ([EKA-V2] ekascribe.yaml). */
export function sessionDoctor(
	results: SessionResults,
): { id: string; name?: HumanName } | undefined {
	const doctor = asRecord(asRecord(results.additionalData)?.doctor);
	const id = textOf(doctor?._id) ?? textOf(doctor?.id);
	if (!id) return undefined;
	const name = asRecord(asRecord(asRecord(doctor?.profile)?.personal)?.name);
	const human = humanName(textOf(name?.f), undefined, textOf(name?.l), undefined);
	return human ? { id, name: human } : { id };
}

function humanName(
	first: string | undefined,
	middle: string | undefined,
	last: string | undefined,
	full: string | undefined,
): (HumanName & { text: string }) | undefined {
	const given = [first, middle].filter((part): part is string => part !== undefined);
	const text = full ?? [...given, last].filter(Boolean).join(' ');
	if (!text) return undefined;
	const name: HumanName & { text: string } = { text };
	if (given.length > 0) name.given = given;
	if (last) name.family = last;
	return name;
}

/** The patient directory's sexes ([EKA-PD] `gen`) as R4's administrative genders. */
const DIRECTORY_GENDER: Readonly<Record<string, Patient['gender']>> = {
	M: 'male',
	F: 'female',
	O: 'other',
};

/**
 * A patient directory profile ([EKA-PD]: `fn`, `mn`, `ln`, `fln`, `gen` M/F/O, `dob`, `mobile`
 * with `ccd`) as a FHIR Patient carrying the directory's id as its identifier.
 */
function patientFromDirectoryProfile(
	profile: Record<string, unknown>,
	system: string,
	oid: string,
): Patient {
	const patient: Patient = { resourceType: 'Patient', identifier: [{ system, value: oid }] };
	const name = humanName(
		textOf(profile.fn),
		textOf(profile.mn),
		textOf(profile.ln),
		textOf(profile.fln),
	);
	if (name) patient.name = [name];
	const gender =
		DIRECTORY_GENDER[
			String(profile.gen ?? profile.gender ?? '')
				.trim()
				.toUpperCase()
		] ?? codeIn(ADMINISTRATIVE_GENDER, profile.gen);
	if (gender) patient.gender = gender;
	const dob = textOf(profile.dob);
	if (dob && /^\d{4}-\d{2}-\d{2}$/.test(dob)) patient.birthDate = dob;
	const mobile = textOf(profile.mobile);
	if (mobile) {
		const code = textOf(profile.ccd);
		const number =
			mobile.startsWith('+') || !code
				? mobile
				: `${code.startsWith('+') ? code : `+${code}`}${mobile}`;
		patient.telecom = [{ system: 'phone', value: number, use: 'mobile' }];
	}
	return patient;
}

/** A conditional create of `resource` found by its identifier. */
function foundOrCreated(
	resource: Patient | Practitioner,
	system: string,
	value: string,
	display?: string,
): Participant {
	const key = `${resource.resourceType}?${system}|${value}`;
	const fullUrl = uuidUrl(nameBasedUuid(['participant', key]));
	const search = identifierSearch(system, value);
	const participant: Participant = {
		reference: fullUrl,
		key,
		search: `${resource.resourceType}?${search}`,
		entry: {
			fullUrl,
			resource,
			request: { method: 'POST', url: resource.resourceType, ifNoneExist: search },
		},
	};
	if (display) participant.display = display;
	return participant;
}

function existing(resourceType: 'Patient' | 'Practitioner', id: string): Participant {
	const reference = `${resourceType}/${id}`;
	return { reference, key: reference, search: reference };
}

/** What the patient choice needs fetched first: the directory profile's id, or nothing. */
type PatientResolution =
	| { ok: true; patient: Participant }
	| { ok: true; needsDirectoryProfile: string }
	| { ok: false; problem: string };

/** The patient as chosen; with a directory choice, call again with the profile once fetched. */
export function resolvePatient(
	choice: PatientChoice,
	results: SessionResults,
	profile?: Record<string, unknown>,
): PatientResolution {
	if (choice.kind === 'ehrPatient') return { ok: true, patient: existing('Patient', choice.id) };
	if (choice.kind === 'identifier') {
		const resource: Patient = {
			resourceType: 'Patient',
			identifier: [{ system: choice.system, value: choice.value }],
		};
		return { ok: true, patient: foundOrCreated(resource, choice.system, choice.value) };
	}
	let oid = choice.directoryId;
	if (!oid) {
		const named = sessionPatientId(results);
		if (!named.ok) return { ok: false, problem: `The session ${named.problem}` };
		if (!named.value) {
			return {
				ok: false,
				problem:
					'The session names no patient of the patient directory (neither patient_details.oid nor additional_data.patient.oid)',
			};
		}
		oid = named.value;
	}
	if (!profile) return { ok: true, needsDirectoryProfile: oid };
	const patient = patientFromDirectoryProfile(profile, choice.system, oid);
	const display = patient.name?.[0]?.text;
	return { ok: true, patient: foundOrCreated(patient, choice.system, oid, display) };
}

type PractitionerResolution =
	| { ok: true; practitioner: Participant }
	| { ok: true; needsClinicDoctor: string }
	| { ok: false; problem: string };

/**
 * The doctor as chosen; with a clinic doctor, call again with the clinic directory's doctors once
 * fetched ([IFD §2.3]: `doctors[]` of `{doctor_id, name}`). A doctor the clinic does not list is refused.
 */
export function resolvePractitioner(
	choice: PractitionerChoice,
	results: SessionResults,
	clinicDoctors?: unknown[],
): PractitionerResolution {
	if (choice.kind === 'ehrPractitioner')
		return { ok: true, practitioner: existing('Practitioner', choice.id) };
	if (choice.kind === 'sessionDoctor') {
		const doctor = sessionDoctor(results);
		if (!doctor)
			return { ok: false, problem: 'The session names no doctor (additional_data.doctor._id)' };
		return { ok: true, practitioner: practitionerOf(choice.system, doctor.id, doctor.name) };
	}
	if (!clinicDoctors) return { ok: true, needsClinicDoctor: choice.doctorId };
	const listed = clinicDoctors
		.filter(isRecord)
		.find((doctor) => textOf(doctor.doctor_id) === choice.doctorId);
	if (!listed)
		return {
			ok: false,
			problem: `Doctor "${choice.doctorId}" is not a doctor of the clinic directory`,
		};
	const name = textOf(listed.name);
	return {
		ok: true,
		practitioner: practitionerOf(choice.system, choice.doctorId, name ? { text: name } : undefined),
	};
}

function practitionerOf(
	system: string,
	doctorId: string,
	name: HumanName | undefined,
): Participant {
	const resource: Practitioner = {
		resourceType: 'Practitioner',
		identifier: [{ system, value: doctorId }],
	};
	if (name) resource.name = [name];
	return foundOrCreated(resource, system, doctorId, name?.text);
}
