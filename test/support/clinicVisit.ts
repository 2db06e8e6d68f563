/**
 * The patient and the doctor a visit names at upload (Upload Audio → Options → Additional Data, as
 * the service's own clients send them), taken from what the fake clinic API holds: Ravi Kumar of its
 * patient directory and Dr. Asha Rao of its clinic directory. The EHR examples ship with these
 * (npm start runs them against the fake API), demo:complete and the e2e tests make visits with them,
 * and the FHIR output finds or creates the Patient and Practitioner in the EHR by these IDs.
 */
import {
	DIRECTORY_PATIENT_SYSTEM,
	DOCTOR_SYSTEM,
} from '../../nodes/ClinicScribe/shared/fhir/participants';
import { DOCTORS } from '../fake-api/fixtures';
import { SEEDED_PROFILES } from '../fake-api/routes/patient';

const [patient] = SEEDED_PROFILES;
const [doctor] = DOCTORS;

export const VISIT_PATIENT_OID = patient.oid;
export const VISIT_DOCTOR_ID = doctor.doctor_id;

/** What a clinic passes as Additional Data: the patient directory's oid, the doctor's ID and name. */
export const VISIT_ADDITIONAL_DATA = Object.freeze({
	patient: { oid: VISIT_PATIENT_OID },
	doctor: { _id: VISIT_DOCTOR_ID, profile: { personal: { name: { f: 'Asha', l: 'Rao' } } } },
});

/** The FHIR searches that find them in the EHR once a visit was stored. */
export const VISIT_PATIENT_IDENTIFIER = `${DIRECTORY_PATIENT_SYSTEM}|${VISIT_PATIENT_OID}`;
export const VISIT_DOCTOR_IDENTIFIER = `${DOCTOR_SYSTEM}|${VISIT_DOCTOR_ID}`;
/** The Encounter's identifier system: the session ID is its value (shared/fhir/fhirOutput.ts). */
export const ENCOUNTER_SYSTEM = 'https://www.eka.care/care_context_id';
