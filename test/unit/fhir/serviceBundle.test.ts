/**
 * The service's own FHIR output, repaired into a transaction an EHR accepts: a bundle in the shape of
 * its published 44-entry example (test/support/serviceFhirExample.ts) and the fake API's smaller one.
 */
import { FHIR_BUNDLE } from '../../fake-api/routes/transcription';
import {
	entriesOf,
	loadR4,
	referenceProblems,
	referencesIn,
	resourcesOf,
	type R4,
} from '../../support/fhirR4';
import { serviceFhirExample } from '../../support/serviceFhirExample';
import { built, EXISTING, EXISTING_REFERENCES, fhirResults } from './fixtures';

let r4: R4;
beforeAll(async () => {
	r4 = await loadR4();
});

describe("the service's 44-entry example", () => {
	const example = serviceFhirExample();
	const record = built(fhirResults(example));
	const bundle = record.bundle as { type: string; entry: unknown[] };

	test('the fixture has the shape and the defects of the published example', () => {
		expect(example.type).toBe('batch');
		expect(entriesOf(example)).toHaveLength(44);
		const counts: Record<string, number> = {};
		for (const resource of resourcesOf(example))
			counts[String(resource.resourceType)] = (counts[String(resource.resourceType)] ?? 0) + 1;
		expect(counts).toEqual({
			Observation: 13,
			CarePlan: 12,
			ServiceRequest: 7,
			Condition: 6,
			MedicationRequest: 3,
			AllergyIntolerance: 1,
			Appointment: 1,
			Composition: 1,
		});
		const references = resourcesOf(example).flatMap((resource) =>
			referencesIn(resource).map((found) => found.reference),
		);
		expect(
			references.filter((reference) => reference === 'Patient/dummy_patient_oid'),
		).toHaveLength(44);
		expect(references.filter((reference) => reference === 'Practitioner/')).toHaveLength(40);
		expect(references.filter((reference) => reference === 'Practitioner/None')).toHaveLength(3);
		expect(references.filter((reference) => reference.startsWith('Encounter/'))).toHaveLength(41);
		expect(referenceProblems(example).length).toBeGreaterThan(100);
	});

	test('repaired: a transaction, every entry with a fullUrl, and not one reference that resolves to nothing', () => {
		expect(bundle.type).toBe('transaction');
		expect(referenceProblems(bundle, EXISTING_REFERENCES)).toEqual([]);
		const references = resourcesOf(bundle).flatMap((resource) =>
			referencesIn(resource).map((found) => found.reference),
		);
		expect(
			references.filter((reference) => /dummy|Practitioner\/(None)?$/.test(reference)),
		).toEqual([]);
		// Every clinical resource names the chosen patient and the visit's own encounter.
		const encounter = resourcesOf(bundle, 'Encounter')[0];
		for (const resource of resourcesOf(bundle).filter(
			(r) => !['Encounter', 'Composition', 'Appointment'].includes(String(r.resourceType)),
		)) {
			expect([resource.resourceType, resource.subject ?? resource.patient]).toEqual([
				resource.resourceType,
				{ reference: 'Patient/p-42' },
			]);
			expect([resource.resourceType, resource.encounter]).toEqual([
				resource.resourceType,
				{ reference: `urn:uuid:${String(encounter.id)}` },
			]);
		}
	});

	test("its 43 clinical resources, the visit's Encounter and a Composition listing every one of them by section", () => {
		expect(record.entry_count).toBe(45);
		expect(record.resource_counts).toEqual({
			Encounter: 1,
			AllergyIntolerance: 1,
			Appointment: 1,
			Condition: 6,
			CarePlan: 12,
			ServiceRequest: 7,
			Observation: 13,
			MedicationRequest: 3,
			Composition: 1,
		});
		const composition = resourcesOf(bundle, 'Composition')[0] as {
			section: Array<{ title: string; entry: unknown[] }>;
			status: string;
		};
		expect(composition.section.map((section) => [section.title, section.entry.length])).toEqual([
			['Symptoms', 6],
			['Vital signs', 4],
			['Examinations', 3],
			['Diagnoses', 3],
			['Medical history', 3],
			['Allergies', 1],
			['Medications', 3],
			['Lab tests', 4],
			['Imaging', 2],
			['Procedures', 1],
			['Advice', 11],
			['Notes', 1],
			['Follow-up', 1],
		]);
		expect(composition.section.flatMap((section) => section.entry)).toHaveLength(43);
	});

	test('verification statuses move to their own system; "suspected", which R4 does not know, becomes "unconfirmed"', () => {
		const conditions = resourcesOf(bundle, 'Condition') as Array<{
			verificationStatus: { coding: Array<{ system: string; code: string; display: string }> };
		}>;
		expect(conditions.map((condition) => condition.verificationStatus.coding)).toEqual(
			['unconfirmed', 'unconfirmed', 'unconfirmed', 'confirmed', 'confirmed', 'refuted'].map(
				(code) => [
					{
						system: 'http://terminology.hl7.org/CodeSystem/condition-ver-status',
						code,
						display: code.charAt(0).toUpperCase() + code.slice(1),
					},
				],
			),
		);
		expect(record.adjustments).toEqual(
			expect.arrayContaining([
				'Condition.verificationStatus "suspected" of http://terminology.hl7.org/CodeSystem/condition-clinical → "unconfirmed" of http://terminology.hl7.org/CodeSystem/condition-ver-status (×3)',
				'references to "Patient/dummy_patient_oid" now point at the visit\'s patient (×43)',
				"the service's Composition (1) replaced by the visit's own",
			]),
		);
	});

	test('Hindi text of the notes is kept as the service wrote it', () => {
		const texts = JSON.stringify(bundle);
		for (const hindi of ['त्वचा पर चकत्ते', 'रोज़ सुबह गुनगुना पानी पिएं', 'सुबह के समय'])
			expect(texts).toContain(hindi);
	});

	test('valid R4: structure and the codes of every required binding', () => {
		expect(r4.validate(bundle)).toEqual([]);
		expect(
			resourcesOf(bundle).flatMap((resource) =>
				r4.validate(resource).map((issue) => `${String(resource.resourceType)} ${issue}`),
			),
		).toEqual([]);
		expect(r4.requiredCodeProblems(bundle)).toEqual([]);
	});

	test('the same visit gives the same bundle; another visit or another patient other ids', () => {
		expect(built(fhirResults(serviceFhirExample()))).toEqual(record);
		const ids = (other: typeof record) =>
			resourcesOf(other.bundle)
				.map((resource) => resource.id)
				.filter(Boolean);
		const otherVisit = built(fhirResults(serviceFhirExample(), { sessionId: 'visit-0043' }));
		const otherPatient = built(fhirResults(serviceFhirExample()), {
			...EXISTING,
			patient: { kind: 'ehrPatient', id: 'p-43' },
		});
		for (const other of [otherVisit, otherPatient])
			expect(ids(other).filter((id) => ids(record).includes(id))).toEqual([]);
		expect(ids(record).every((id) => /^[A-Za-z0-9\-.]{1,64}$/.test(String(id)))).toBe(true);
	});
});

describe('what the repair does with what an EHR would refuse', () => {
	const condition = (
		verification: Record<string, unknown>,
		extra: Record<string, unknown> = {},
	) => ({
		resource: {
			resourceType: 'Condition',
			id: 'c1',
			code: { text: 'Dengue' },
			subject: { reference: 'Patient/dummy' },
			verificationStatus: verification,
			...extra,
		},
	});

	test('a verification status no table maps is not sent as a code: removed, its words kept as a note', () => {
		const record = built(
			fhirResults({
				resourceType: 'Bundle',
				type: 'batch',
				entry: [
					condition({
						coding: [
							{
								system: 'http://terminology.hl7.org/CodeSystem/condition-clinical',
								code: 'probable',
								display: 'Probable',
							},
						],
					}),
				],
			}),
		);
		const [repaired] = resourcesOf(record.bundle, 'Condition');
		expect(repaired.verificationStatus).toBeUndefined();
		expect(repaired.note).toEqual([{ text: 'Condition.verificationStatus: Probable' }]);
		expect(record.adjustments).toContain(
			'Condition.verificationStatus "Probable" is no FHIR code: removed, kept as a note',
		);
	});

	test('a resource whose required status is no FHIR code is left out, and the item says so', () => {
		const record = built(
			fhirResults({
				resourceType: 'Bundle',
				type: 'batch',
				entry: [
					{
						resource: {
							resourceType: 'Observation',
							id: 'o1',
							status: 'done',
							code: { text: 'Cough' },
						},
					},
					condition({ coding: [{ code: 'confirmed' }] }),
				],
			}),
		);
		expect(record.resource_counts).toEqual({ Encounter: 1, Condition: 1, Composition: 1 });
		expect(record.adjustments).toContain(
			'Observation left out: its required Observation.status is no FHIR code',
		);
	});

	test('references between its entries follow the new fullUrls; one to something absent is removed', () => {
		const record = built(
			fhirResults({
				resourceType: 'Bundle',
				type: 'collection',
				entry: [
					{
						fullUrl: 'urn:uuid:11111111-1111-4111-8111-111111111111',
						resource: {
							resourceType: 'ServiceRequest',
							status: 'active',
							intent: 'order',
							code: { text: 'CBC' },
							subject: { reference: 'Patient/x' },
						},
					},
					{
						resource: {
							resourceType: 'Observation',
							id: 'o1',
							status: 'final',
							code: { text: 'Haemoglobin' },
							basedOn: [
								{ reference: 'urn:uuid:11111111-1111-4111-8111-111111111111' },
								{ reference: 'ServiceRequest/not-in-bundle' },
							],
							hasMember: [{ reference: 'Observation/gone' }],
						},
					},
				],
			}),
		);
		const [order] = resourcesOf(record.bundle, 'ServiceRequest');
		const [observation] = resourcesOf(record.bundle, 'Observation');
		expect(observation.basedOn).toEqual([{ reference: `urn:uuid:${String(order.id)}` }]);
		expect(observation.hasMember).toBeUndefined();
		expect(observation.subject).toEqual({ reference: 'Patient/p-42' });
		expect(referenceProblems(record.bundle, EXISTING_REFERENCES)).toEqual([]);
		expect(record.adjustments).toEqual(
			expect.arrayContaining([
				'Observation.basedOn: reference "ServiceRequest/not-in-bundle" names nothing in the bundle, removed',
				'Observation.hasMember: reference "Observation/gone" names nothing in the bundle, removed',
			]),
		);
	});

	test("the fake API's legacy FHIR output (data.output.fhir) is repaired the same way", () => {
		const record = built(fhirResults(JSON.parse(JSON.stringify(FHIR_BUNDLE))));
		expect(record.source).toBe('service_fhir');
		expect(record.resource_counts).toEqual({
			Encounter: 1,
			Condition: 1,
			Observation: 1,
			MedicationRequest: 1,
			Composition: 1,
		});
		expect(referenceProblems(record.bundle, EXISTING_REFERENCES)).toEqual([]);
		expect(r4.requiredCodeProblems(record.bundle)).toEqual([]);
		expect(JSON.stringify(record.bundle)).toContain('तीन दिन से बुखार और सूखी खांसी');
	});
});
