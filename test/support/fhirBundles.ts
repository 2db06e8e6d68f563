/**
 * Bundles for the local EHR's tests, written for this project:
 *   - visitTransaction: one visit as the node is to send it: a transaction with the Patient and
 *     the Practitioner found or created by identifier (ifNoneExist), PUT with ids derived from the
 *     visit for the rest, references between entries by `urn:uuid:` fullUrls;
 *   - serviceShapedBundle: a 44-entry `batch` in the shapes of the service's published FHIR example
 *     (eka-docs `ekascribe/resources/fhir-bundle-example.mdx`; its content is not copied), with each
 *     of the defects that stop an EHR loading it: no Patient (`Patient/dummy_patient_oid`, not even a FHIR id), no
 *     Encounter, `Practitioner/` with an empty id and `Practitioner/None`, no fullUrls, Condition
 *     verification statuses from the clinical-status system (`suspected` among them). Its entry
 *     counts are the example's: 13 Observation, 12 CarePlan, 7 ServiceRequest, 6 Condition,
 *     3 MedicationRequest, 1 AllergyIntolerance, 1 Appointment, 1 Composition (POST).
 */
import type { Bundle, BundleEntry, Resource } from '@medplum/fhirtypes';

export const PATIENT_SYSTEM = 'https://clinic.example/patients';
export const DOCTOR_SYSTEM = 'https://clinic.example/doctors';

/** A UUID (version-4 shaped) derived from a number, so entries are stable across runs. */
export function uuidFor(n: number): string {
	const hex = n.toString(16).padStart(12, '0');
	return `00000000-0000-4000-8000-${hex}`;
}

export interface Visit {
	/** The visit's id: the resources' ids derive from it, so sending the visit again updates them. */
	id: string;
	patientIdentifier: string;
	doctorIdentifier: string;
}

/** The urn:uuid fullUrls of a visit's entries. */
export const VISIT_URNS = {
	patient: `urn:uuid:${uuidFor(1)}`,
	practitioner: `urn:uuid:${uuidFor(2)}`,
	encounter: `urn:uuid:${uuidFor(3)}`,
	condition: `urn:uuid:${uuidFor(4)}`,
	observation: `urn:uuid:${uuidFor(5)}`,
	medication: `urn:uuid:${uuidFor(6)}`,
	composition: `urn:uuid:${uuidFor(7)}`,
} as const;

/** Patient, Practitioner, Encounter, Condition, Observation, MedicationRequest, Composition: 7 entries. */
export function visitTransaction(visit: Visit): Bundle {
	const put = (fullUrl: string, resource: Resource & { id: string }): BundleEntry => ({
		fullUrl,
		resource,
		request: { method: 'PUT', url: `${resource.resourceType}/${resource.id}` },
	});
	// fresh objects per entry, so a test can change one entry's reference alone
	const subject = () => ({ reference: VISIT_URNS.patient });
	const encounter = () => ({ reference: VISIT_URNS.encounter });
	return {
		resourceType: 'Bundle',
		type: 'transaction',
		entry: [
			{
				fullUrl: VISIT_URNS.patient,
				resource: {
					resourceType: 'Patient',
					identifier: [{ system: PATIENT_SYSTEM, value: visit.patientIdentifier }],
					name: [{ given: ['Asha'], family: 'Verma' }],
					gender: 'female',
					birthDate: '1980-04-02',
				},
				request: {
					method: 'POST',
					url: 'Patient',
					ifNoneExist: `identifier=${PATIENT_SYSTEM}|${visit.patientIdentifier}`,
				},
			},
			{
				fullUrl: VISIT_URNS.practitioner,
				resource: {
					resourceType: 'Practitioner',
					identifier: [{ system: DOCTOR_SYSTEM, value: visit.doctorIdentifier }],
					name: [{ prefix: ['Dr.'], given: ['Ravi'], family: 'Kumar' }],
				},
				request: {
					method: 'POST',
					url: 'Practitioner',
					ifNoneExist: `identifier=${DOCTOR_SYSTEM}|${visit.doctorIdentifier}`,
				},
			},
			put(VISIT_URNS.encounter, {
				resourceType: 'Encounter',
				id: `${visit.id}`,
				status: 'finished',
				class: {
					system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode',
					code: 'AMB',
					display: 'ambulatory',
				},
				subject: subject(),
				participant: [{ individual: { reference: VISIT_URNS.practitioner } }],
				period: { start: '2026-11-27T10:00:00+05:30' },
			}),
			put(VISIT_URNS.condition, {
				resourceType: 'Condition',
				id: `${visit.id}-dx-1`,
				clinicalStatus: {
					coding: [
						{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'active' },
					],
				},
				verificationStatus: {
					coding: [
						{
							system: 'http://terminology.hl7.org/CodeSystem/condition-ver-status',
							code: 'provisional',
						},
					],
				},
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
				code: { text: 'बुखार (fever)' },
				subject: subject(),
				encounter: encounter(),
			}),
			put(VISIT_URNS.observation, {
				resourceType: 'Observation',
				id: `${visit.id}-vital-1`,
				status: 'preliminary',
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
				code: {
					coding: [{ system: 'http://loinc.org', code: '8310-5', display: 'Body temperature' }],
				},
				subject: subject(),
				encounter: encounter(),
				valueQuantity: {
					value: 38.5,
					unit: 'Cel',
					system: 'http://unitsofmeasure.org',
					code: 'Cel',
				},
			}),
			put(VISIT_URNS.medication, {
				resourceType: 'MedicationRequest',
				id: `${visit.id}-rx-1`,
				status: 'active',
				intent: 'order',
				medicationCodeableConcept: { text: 'Paracetamol 500 mg' },
				subject: subject(),
				encounter: encounter(),
				requester: { reference: VISIT_URNS.practitioner },
				dosageInstruction: [{ text: '1 tablet every 6 hours for 3 days' }],
			}),
			put(VISIT_URNS.composition, {
				resourceType: 'Composition',
				id: `${visit.id}-note`,
				status: 'preliminary',
				type: {
					coding: [{ system: 'http://loinc.org', code: '11488-4', display: 'Consult note' }],
				},
				subject: subject(),
				encounter: encounter(),
				date: '2026-11-27T10:30:00+05:30',
				author: [{ reference: VISIT_URNS.practitioner }],
				title: 'Consultation note',
				section: [
					{ title: 'Diagnoses', entry: [{ reference: VISIT_URNS.condition }] },
					{ title: 'Vitals', entry: [{ reference: VISIT_URNS.observation }] },
					{ title: 'Medications', entry: [{ reference: VISIT_URNS.medication }] },
				],
			}),
		],
	};
}

/** The index of a visit entry by resource type. */
export function entryOf(bundle: Bundle, type: string): { index: number; entry: BundleEntry } {
	const index = (bundle.entry ?? []).findIndex((e) => e.resource?.resourceType === type);
	if (index === -1) throw new Error(`no ${type} entry`);
	return { index, entry: (bundle.entry ?? [])[index] };
}

// --- in the shapes of the service's example -------------------------------------------------------

export const SERVICE_PATIENT = 'Patient/dummy_patient_oid';
export const SERVICE_ENCOUNTER = `Encounter/${uuidFor(900)}`;
const EKA_LOCAL = 'https://www.eka.care/local';
const CLINICAL = 'http://terminology.hl7.org/CodeSystem/condition-clinical';

/** The entries per type, in the example's order; the Composition (POST) comes last. */
const SERVICE_SHAPE: Array<[type: string, count: number]> = [
	['AllergyIntolerance', 1],
	['Appointment', 1],
	['Condition', 6],
	['CarePlan', 12],
	['ServiceRequest', 7],
	['Observation', 13],
	['MedicationRequest', 3],
];

export function serviceShapedBundle(): Bundle {
	const subject = { reference: SERVICE_PATIENT, display: 'dummy_patient' };
	const encounter = { reference: SERVICE_ENCOUNTER };
	const practitioner = { reference: 'Practitioner/', display: 'dummy doctor' };
	const local = (code: string, display: string) => ({
		coding: [{ system: EKA_LOCAL, code, display }],
	});
	const verification = ['suspected', 'confirmed', 'suspected', 'confirmed', 'refuted', 'suspected'];
	let n = 100;
	const entries: BundleEntry[] = [];
	for (const [type, count] of SERVICE_SHAPE) {
		for (let i = 0; i < count; i++) {
			const id = uuidFor(n++);
			const resource = serviceResource(type, id, i, {
				subject,
				encounter,
				practitioner,
				local,
				verification: verification[i],
			});
			entries.push({ resource, request: { method: 'PUT', url: `${type}/${id}` } });
		}
	}
	const byType = new Map<string, string[]>();
	for (const entry of entries) {
		const resource = entry.resource as Resource;
		byType.set(resource.resourceType, [
			...(byType.get(resource.resourceType) ?? []),
			`${resource.resourceType}/${resource.id}`,
		]);
	}
	entries.push({
		resource: {
			resourceType: 'Composition',
			status: 'preliminary',
			type: local('eka-prescription', 'Prescription'),
			subject,
			date: '2026-11-20T10:34:14+00:00',
			author: [practitioner],
			title: 'Prescription',
			section: [...byType].map(([title, references]) => ({
				title,
				entry: references.map((reference) => ({ reference })),
			})),
		},
		request: { method: 'POST', url: 'Composition' },
	});
	return { resourceType: 'Bundle', type: 'batch', entry: entries };
}

interface ServiceParts {
	subject: { reference: string; display: string };
	encounter: { reference: string };
	practitioner: { reference: string; display: string };
	local: (
		code: string,
		display: string,
	) => { coding: Array<{ system: string; code: string; display: string }> };
	verification: string;
}

function serviceResource(type: string, id: string, i: number, p: ServiceParts): Resource {
	switch (type) {
		case 'AllergyIntolerance':
			return {
				resourceType: type,
				id,
				patient: p.subject,
				asserter: p.practitioner,
				code: p.local('allergy-1', 'Peanut allergy'),
				criticality: 'high',
				clinicalStatus: {
					coding: [
						{
							system: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical',
							code: 'active',
						},
					],
				},
			};
		case 'Appointment':
			return {
				resourceType: type,
				id,
				status: 'proposed',
				description: 'Follow-up in one week',
				start: '2026-11-27T10:00:00+00:00',
				end: '2026-11-27T10:15:00+00:00',
				participant: [{ actor: p.subject, status: 'needs-action' }],
			};
		case 'Condition':
			return {
				resourceType: type,
				id,
				subject: p.subject,
				encounter: p.encounter,
				asserter: p.practitioner,
				code: p.local(
					`condition-${i}`,
					['Fever', 'Headache', 'Cough', 'Hypertension', 'Migraine', 'Gastritis'][i],
				),
				clinicalStatus: { coding: [{ system: CLINICAL, code: 'active' }] },
				// the example's defect: a code of the clinical-status system as the verification status
				verificationStatus: { coding: [{ system: CLINICAL, code: p.verification }] },
			};
		case 'CarePlan':
			return {
				resourceType: type,
				id,
				status: 'active',
				intent: i % 2 ? 'proposal' : 'plan',
				subject: p.subject,
				encounter: p.encounter,
				author: p.practitioner,
				description: `Advice ${i + 1}: rest and fluids`,
			};
		case 'ServiceRequest':
			return {
				resourceType: type,
				id,
				status: 'active',
				intent: 'order',
				subject: p.subject,
				encounter: p.encounter,
				requester: p.practitioner,
				code: p.local(`lab-${i}`, `Lab test ${i + 1}`),
			};
		case 'Observation': {
			// the last one refers to the visit by its care-context id, as four of the example's do
			const encounter =
				i === 12 ? { reference: 'Encounter/care-context-2026-11-20-visit' } : p.encounter;
			return {
				resourceType: type,
				id,
				status: 'preliminary',
				subject: p.subject,
				encounter,
				performer: [p.practitioner],
				code: p.local(`symptom-${i}`, `Symptom ${i + 1}`),
			};
		}
		case 'MedicationRequest':
			return {
				resourceType: type,
				id,
				status: 'active',
				intent: 'order',
				subject: p.subject,
				encounter: p.encounter,
				requester: { reference: 'Practitioner/None' },
				medicationCodeableConcept: p.local(`drug-${i}`, `Medicine ${i + 1}`),
			};
		default:
			throw new Error(`no shape for ${type}`);
	}
}

/** The verification status R4 has for each of the service's words (the table of eka-docs `ekascribe/resources/fhir-structure.mdx`). */
const VERIFICATION: Record<string, string> = {
	suspected: 'unconfirmed',
	confirmed: 'confirmed',
	refuted: 'refuted',
};

/**
 * serviceShapedBundle with its defects mended (what the node is to do): a transaction with a
 * Patient and a Practitioner found or created by identifier and an Encounter, every reference to
 * them resolved, verification statuses from R4's own value set. 47 entries, 43 of them updates.
 */
export function repairedServiceBundle(visit: Visit): Bundle {
	const replacements: Record<string, string> = {
		[SERVICE_PATIENT]: VISIT_URNS.patient,
		'Practitioner/': VISIT_URNS.practitioner,
		'Practitioner/None': VISIT_URNS.practitioner,
		[SERVICE_ENCOUNTER]: VISIT_URNS.encounter,
		'Encounter/care-context-2026-11-20-visit': VISIT_URNS.encounter,
	};
	const mended = JSON.parse(JSON.stringify(serviceShapedBundle()), (key, value) =>
		key === 'reference' && typeof value === 'string' && value in replacements
			? replacements[value]
			: value,
	) as Bundle;
	for (const entry of mended.entry ?? []) {
		const resource = entry.resource as Resource & {
			verificationStatus?: { coding: Array<{ system: string; code: string }> };
		};
		for (const coding of resource.verificationStatus?.coding ?? []) {
			coding.system = 'http://terminology.hl7.org/CodeSystem/condition-ver-status';
			coding.code = VERIFICATION[coding.code];
		}
	}
	const visitEntries = visitTransaction(visit).entry ?? [];
	return {
		resourceType: 'Bundle',
		type: 'transaction',
		entry: [...visitEntries.slice(0, 3), ...(mended.entry ?? [])],
	};
}
