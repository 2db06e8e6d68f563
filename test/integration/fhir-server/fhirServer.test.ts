/**
 * The local EHR (test/fhir-server), over real HTTP, as its own process under the cached Node 24
 * (started by test/support/fhirServer.ts as `npm start` will): it stores a visit's transaction and
 * finds it by search, takes the same visit twice without a duplicate, and refuses, storing
 * nothing, a transaction with a reference that resolves to nothing, a code outside a required value
 * set, an unknown property, and a bundle in the shapes of the service's published example.
 */
import type {
	Bundle,
	Condition,
	Encounter,
	Observation,
	OperationOutcome,
	Patient,
} from '@medplum/fhirtypes';

import { startFhirServer, type RunningFhirServer } from '../../support/fhirServer';
import { accepts, externalAddresses, listeningAddresses } from '../../support/listeners';
import { REPO_ROOT } from '../../support/n8n/install';
import { freePort, groupAlive, isPortFree, runProcess } from '../../support/n8n/processes';
import { cachedNode24, describeWithNode24, ensureNode24 } from '../../support/node24';
import {
	PATIENT_SYSTEM,
	SERVICE_PATIENT,
	entryOf,
	repairedServiceBundle,
	serviceShapedBundle,
	uuidFor,
	visitTransaction,
	type Visit,
} from '../../support/fhirBundles';

const describeLocalEhr = describeWithNode24('fhirServer.test.ts');

let ehr: RunningFhirServer;
let visits = 0;
/** A visit of its own for each test (ids and identifiers no other test uses). */
const newVisit = (): Visit => ({
	id: `visit-${++visits}`,
	patientIdentifier: `P-${visits}`,
	doctorIdentifier: `D-${visits}`,
});

const issuesOf = (body: unknown) =>
	((body as OperationOutcome).issue ?? []).map((i) => ({
		text: i.details?.text ?? '',
		expression: i.expression ?? [],
	}));

describeLocalEhr('the local FHIR server (Medplum engine, Node 24)', () => {
	beforeAll(async () => {
		ehr = await startFhirServer();
	}, 180_000);
	afterAll(async () => await ehr?.stop());
	beforeEach(async () => await ehr.reset());

	test('listens on 127.0.0.1 only and describes itself (CapabilityStatement, R4)', async () => {
		expect(new URL(ehr.fhirBaseUrl).hostname).toBe('127.0.0.1');
		const listening = listeningAddresses(ehr.port);
		if (listening) expect(listening).toEqual(['127.0.0.1']);
		for (const address of externalAddresses())
			expect({ address, accepted: await accepts(address, ehr.port) }).toEqual({
				address,
				accepted: false,
			});
		const answer = await ehr.request('GET', 'metadata');
		expect(answer.status).toBe(200);
		expect(answer.body).toMatchObject({
			resourceType: 'CapabilityStatement',
			fhirVersion: '4.0.1',
		});
		expect(answer.headers.get('content-type')).toMatch(/^application\/fhir\+json/);
	});

	test('stores a visit transaction and finds it: Patient by identifier, Condition and Composition by subject, _id, _count', async () => {
		const visit = newVisit();
		const answer = await ehr.transaction(visitTransaction(visit));
		expect(answer.status).toBe(200);
		const response = answer.body as Bundle;
		expect(response.type).toBe('transaction-response');
		expect(response.entry?.map((e) => e.response?.status)).toEqual(Array(7).fill('201 Created'));
		expect(response.entry?.[2].response?.location).toMatch(
			new RegExp(`^Encounter/${visit.id}/_history/`),
		);

		const patients = await ehr.search<Patient>('Patient', {
			identifier: `${PATIENT_SYSTEM}|${visit.patientIdentifier}`,
		});
		expect(patients).toHaveLength(1);
		const patientRef = `Patient/${patients[0].id}`;

		const conditions = await ehr.search<Condition>('Condition', { subject: patientRef });
		expect(conditions.map((c) => c.id)).toEqual([`${visit.id}-dx-1`]);
		// the urn:uuid references now name the stored resources
		expect(conditions[0].subject?.reference).toBe(patientRef);
		expect(conditions[0].encounter?.reference).toBe(`Encounter/${visit.id}`);
		expect(conditions[0].code?.text).toBe('बुखार (fever)');
		expect((await ehr.search('Composition', { subject: patientRef })).map((c) => c.id)).toEqual([
			`${visit.id}-note`,
		]);
		expect(await ehr.search('Observation', { _id: `${visit.id}-vital-1` })).toHaveLength(1);
		expect(await ehr.search('Condition', { patient: patients[0].id as string })).toHaveLength(1);

		await ehr.transaction(visitTransaction(newVisit()));
		expect(await ehr.search('Encounter')).toHaveLength(2);
		expect(await ehr.search('Encounter', { _count: '1' })).toHaveLength(1);
		expect((await ehr.read<Encounter>('Encounter', visit.id))?.subject?.reference).toBe(patientRef);
	});

	test('the same transaction twice leaves the counts unchanged (PUT ids, ifNoneExist for Patient and Practitioner)', async () => {
		const visit = newVisit();
		expect((await ehr.transaction(visitTransaction(visit))).status).toBe(200);
		const first = await ehr.counts();
		expect(first).toEqual({
			Patient: 1,
			Practitioner: 1,
			Encounter: 1,
			Condition: 1,
			Observation: 1,
			MedicationRequest: 1,
			Composition: 1,
		});
		const again = await ehr.transaction(visitTransaction(visit));
		expect(again.status).toBe(200);
		expect((again.body as Bundle).entry?.map((e) => e.response?.status)).toEqual(
			Array(7).fill('200 OK'),
		);
		expect(await ehr.counts()).toEqual(first);
	});

	describe('the validator bites: the whole transaction is refused with an OperationOutcome, nothing stored', () => {
		async function expectRefused(
			bundle: Bundle,
		): Promise<Array<{ text: string; expression: string[] }>> {
			const answer = await ehr.transaction(bundle);
			expect(answer.status).toBe(400);
			expect((answer.body as OperationOutcome).resourceType).toBe('OperationOutcome');
			expect(await ehr.counts()).toEqual({});
			return issuesOf(answer.body);
		}

		test('a reference that resolves to nothing (a literal Type/id, and a urn:uuid no entry carries)', async () => {
			const bundle = visitTransaction(newVisit());
			const observation = entryOf(bundle, 'Observation');
			(observation.entry.resource as { subject: { reference: string } }).subject.reference =
				'Patient/nobody';
			const medication = entryOf(bundle, 'MedicationRequest');
			(medication.entry.resource as { encounter: { reference: string } }).encounter.reference =
				`urn:uuid:${uuidFor(999)}`;
			const issues = await expectRefused(bundle);
			expect(issues).toEqual(
				expect.arrayContaining([
					{
						text: expect.stringContaining('Patient/nobody, which resolves to nothing'),
						expression: [`Bundle.entry[${observation.index}].resource.subject`],
					},
					{
						text: expect.stringContaining(`urn:uuid:${uuidFor(999)}`),
						expression: [`Bundle.entry[${medication.index}].resource.encounter`],
					},
				]),
			);
			expect(issues).toHaveLength(2);
			// Entries processed before the check (the Encounter, the Patient) were rolled back.
			expect(await ehr.search('Patient')).toEqual([]);
		});

		test('a code outside its required value set: Observation.status "done", Condition.clinicalStatus "suspected"', async () => {
			const bundle = visitTransaction(newVisit());
			const observation = entryOf(bundle, 'Observation');
			(observation.entry.resource as { status: string }).status = 'done';
			const condition = entryOf(bundle, 'Condition');
			(condition.entry.resource as Condition).clinicalStatus = {
				coding: [
					{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'suspected' },
				],
			};
			const issues = await expectRefused(bundle);
			// Each found twice: by the R4 value sets beside Medplum's engine, and by FHIR.js.
			expect(issues).toEqual([
				{
					text: expect.stringMatching(
						/code "suspected" .*not in the value set http:\/\/hl7.org\/fhir\/ValueSet\/condition-clinical/,
					),
					expression: [`Bundle.entry[${condition.index}].resource.clinicalStatus`],
				},
				{
					text: expect.stringContaining('FHIR.js (R4): Code "suspected"'),
					expression: [`Bundle.entry[${condition.index}].resource.clinicalStatus`],
				},
				{
					text: expect.stringMatching(
						/"done": not in the value set http:\/\/hl7.org\/fhir\/ValueSet\/observation-status,.*allowed: registered, preliminary, final/,
					),
					expression: [`Bundle.entry[${observation.index}].resource.status`],
				},
				{
					text: expect.stringContaining('FHIR.js (R4): Code "done" not found in value set'),
					expression: [`Bundle.entry[${observation.index}].resource.status`],
				},
			]);
		});

		test('an unknown property', async () => {
			const bundle = visitTransaction(newVisit());
			const composition = entryOf(bundle, 'Composition');
			(composition.entry.resource as unknown as Record<string, unknown>).summary =
				'not an R4 element';
			expect(await expectRefused(bundle)).toEqual([
				{
					text: expect.stringContaining('Invalid additional property "summary"'),
					expression: [`Bundle.entry[${composition.index}].resource.summary`],
				},
				{
					text: expect.stringContaining('FHIR.js (R4): Unexpected property'),
					expression: [`Bundle.entry[${composition.index}].resource.summary`],
				},
			]);
		});

		test('a second engine judges as well: a Composition without status is refused by FHIR.js and by Medplum, each in its own words', async () => {
			const bundle = visitTransaction(newVisit());
			const composition = entryOf(bundle, 'Composition');
			delete (composition.entry.resource as { status?: string }).status;
			const issues = await expectRefused(bundle);
			const at = `Bundle.entry[${composition.index}].resource.status`;
			expect(issues).toEqual(
				expect.arrayContaining([
					{ text: expect.stringContaining('FHIR.js (R4): Missing property'), expression: [at] },
				]),
			);
			// Medplum's engine finds it too, in its own words: two readings, not one.
			expect(
				issues.filter((i) => !i.text.includes('FHIR.js') && i.expression.includes(at)),
			).toHaveLength(1);
		});

		test('a coding whose system is not a URI is refused (Medplum reads the uri type; FHIR.js does not check it)', async () => {
			const bundle = visitTransaction(newVisit());
			const condition = entryOf(bundle, 'Condition');
			(condition.entry.resource as Condition).code = {
				coding: [{ system: 'ICD 10', code: 'R50.9', display: 'Fever, unspecified' }],
			};
			const issues = await expectRefused(bundle);
			expect(issues).toEqual([
				{
					text: expect.stringContaining('Invalid uri'),
					expression: [`Bundle.entry[${condition.index}].resource.code.coding[0].system`],
				},
			]);
		});

		test('a later entry failing undoes the earlier ones (all or nothing): new resources gone, updated ones as they were', async () => {
			const visit = newVisit();
			expect((await ehr.transaction(visitTransaction(visit))).status).toBe(200);
			const before = await ehr.counts();
			const storedObservation = await ehr.read<Observation>('Observation', `${visit.id}-vital-1`);
			// The same visit again, with a new patient identifier, a changed temperature, and a bad
			// Composition status: creates and updates run before the Composition fails.
			const changed = visitTransaction({ ...visit, patientIdentifier: 'P-new' });
			(entryOf(changed, 'Observation').entry.resource as Observation).valueQuantity = {
				value: 40.1,
				unit: 'Cel',
				system: 'http://unitsofmeasure.org',
				code: 'Cel',
			};
			(entryOf(changed, 'Composition').entry.resource as { status: string }).status = 'draft';
			const answer = await ehr.transaction(changed);
			expect(answer.status).toBe(400);
			const compositionStatus = `Bundle.entry[${entryOf(changed, 'Composition').index}].resource.status`;
			expect(issuesOf(answer.body)).toEqual([
				expect.objectContaining({ expression: [compositionStatus] }),
				{
					text: expect.stringContaining('FHIR.js (R4): Code "draft" not found in value set'),
					expression: [compositionStatus],
				},
			]);
			expect(await ehr.counts()).toEqual(before);
			expect(await ehr.search('Patient', { identifier: `${PATIENT_SYSTEM}|P-new` })).toEqual([]);
			expect(await ehr.read<Observation>('Observation', `${visit.id}-vital-1`)).toEqual(
				storedObservation,
			);
		});

		test('a bundle in the shapes of the service example, sent as a transaction as it is: every entry refused for its references', async () => {
			const bundle = { ...serviceShapedBundle(), type: 'transaction' as const };
			expect(bundle.entry).toHaveLength(44);
			const issues = await expectRefused(bundle);
			const texts = issues.map((i) => i.text);
			expect(texts).toEqual(
				expect.arrayContaining([
					expect.stringContaining(`"${SERVICE_PATIENT}", which has an id that is not a FHIR id`),
				]),
			);
			expect(texts).toEqual(
				expect.arrayContaining([
					expect.stringMatching(/refers to Encounter\/\S+, which resolves to nothing/),
				]),
			);
			expect(texts).toEqual(
				expect.arrayContaining([
					expect.stringContaining('"Practitioner/", which has no id after the resource type'),
				]),
			);
			expect(texts).toEqual(
				expect.arrayContaining([
					expect.stringContaining('Practitioner/None, which resolves to nothing'),
				]),
			);
			expect(texts).toEqual(
				expect.arrayContaining([
					expect.stringMatching(
						/code "suspected" of .*condition-clinical: not in the value set http:\/\/hl7.org\/fhir\/ValueSet\/condition-ver-status/,
					),
				]),
			);
			// Each of the 44 entries is named with at least one reason.
			const named = new Set(
				issues.flatMap((i) =>
					i.expression.map((e) => Number(/^Bundle\.entry\[(\d+)\]/.exec(e)?.[1])),
				),
			);
			expect([...named].sort((a, b) => a - b)).toEqual([...Array(44).keys()]);
		});
	});

	test('the same bundle mended (Patient, Practitioner, Encounter resolved; R4 verification codes) is stored: 47 entries, 43 updates', async () => {
		// Medplum's own transaction mode refuses > 50 updates, or a conditional create among > 8 entries; this server does not.
		const visit = newVisit();
		const answer = await ehr.transaction(repairedServiceBundle(visit));
		expect(issuesOf(answer.body)).toEqual([]);
		expect(answer.status).toBe(200);
		expect((answer.body as Bundle).entry).toHaveLength(47);
		const counts = await ehr.counts();
		expect(counts).toEqual({
			Patient: 1,
			Practitioner: 1,
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
		const [patient] = await ehr.search<Patient>('Patient', {
			identifier: `${PATIENT_SYSTEM}|${visit.patientIdentifier}`,
		});
		expect(await ehr.search('Condition', { subject: `Patient/${patient.id}` })).toHaveLength(6);
		// The patient's page reads every type, CarePlan's author (one Reference, not a list) included.
		const page = await fetch(ehr.patientPageUrl(patient.id as string));
		expect(page.status).toBe(200);
		const html = await page.text();
		expect(html).toContain('CarePlan (12)');
		expect(html).toContain('Advice 1: rest and fluids');
	});

	test('a single create or update is checked as well: dangling reference, bad code, unknown property refused; a new PUT id answers 201', async () => {
		const visit = newVisit();
		await ehr.transaction(visitTransaction(visit));
		const [patient] = await ehr.search<Patient>('Patient');
		const observation = {
			resourceType: 'Observation',
			status: 'final',
			code: { text: 'Pulse' },
			subject: { reference: `Patient/${patient.id}` },
			valueQuantity: { value: 72, unit: '/min' },
		};

		const dangling = await ehr.request('POST', 'Observation', {
			...observation,
			subject: { reference: 'Patient/ghost' },
		});
		expect(dangling.status).toBe(400);
		expect(issuesOf(dangling.body)).toEqual([
			{
				text: expect.stringContaining('Patient/ghost, which resolves to nothing'),
				expression: ['Observation.subject'],
			},
		]);
		const badCode = await ehr.request('PUT', 'Observation/pulse-1', {
			...observation,
			id: 'pulse-1',
			status: 'done',
		});
		expect(badCode.status).toBe(400);
		const unknown = await ehr.request('PUT', 'Observation/pulse-1', {
			...observation,
			id: 'pulse-1',
			colour: 'red',
		});
		expect(issuesOf(unknown.body)).toEqual([
			{ text: 'Invalid additional property "colour"', expression: ['Observation.colour'] },
			{ text: 'FHIR.js (R4): Unexpected property', expression: ['Observation.colour'] },
		]);
		expect(await ehr.read('Observation', 'pulse-1')).toBeUndefined();

		const created = await ehr.request('PUT', 'Observation/pulse-1', {
			...observation,
			id: 'pulse-1',
		});
		expect(created.status).toBe(201);
		expect(created.headers.get('location')).toMatch(
			new RegExp(`^${ehr.fhirBaseUrl}/Observation/pulse-1/_history/`),
		);
		expect(
			(
				await ehr.request('PUT', 'Observation/pulse-1', {
					...observation,
					id: 'pulse-1',
					status: 'amended',
				})
			).status,
		).toBe(200);
		expect((await ehr.read<Observation>('Observation', 'pulse-1'))?.status).toBe('amended');
	});

	test('a batch keeps its good entries and answers each refused one with its reasons', async () => {
		const answer = await ehr.request<Bundle>('POST', '', {
			resourceType: 'Bundle',
			type: 'batch',
			entry: [
				{
					resource: { resourceType: 'Patient', id: 'batch-1', gender: 'other' },
					request: { method: 'PUT', url: 'Patient/batch-1' },
				},
				{
					resource: {
						resourceType: 'Observation',
						id: 'batch-2',
						status: 'final',
						code: { text: 'Pulse' },
						subject: { reference: 'Patient/nobody' },
					},
					request: { method: 'PUT', url: 'Observation/batch-2' },
				},
			],
		});
		expect(answer.status).toBe(200);
		const entries = (answer.body as Bundle).entry ?? [];
		expect((answer.body as Bundle).type).toBe('batch-response');
		expect(entries.map((e) => e.response?.status)).toEqual(['201 Created', '400 Bad Request']);
		expect(issuesOf(entries[1].response?.outcome)).toEqual([
			{
				text: expect.stringContaining('Patient/nobody, which resolves to nothing'),
				expression: ['Observation.subject'],
			},
		]);
		expect(await ehr.counts()).toEqual({ Patient: 1 });
	});

	test('a resource others refer to cannot be deleted (409, naming them)', async () => {
		await ehr.transaction(visitTransaction(newVisit()));
		const [patient] = await ehr.search<Patient>('Patient');
		const answer = await ehr.request('DELETE', `Patient/${patient.id}`);
		expect(answer.status).toBe(409);
		expect(issuesOf(answer.body)[0].text).toMatch(
			/cannot be deleted: 5 reference\(s\) to it would resolve to nothing: Encounter\/visit-\d+ \(Encounter.subject\)/,
		);
		expect(await ehr.read('Patient', patient.id as string)).toBeDefined();
	});

	test('an unknown search parameter is refused rather than matching nothing', async () => {
		const answer = await ehr.request('GET', 'Condition?subjekt=Patient/x');
		expect(answer.status).toBe(400);
		expect(issuesOf(answer.body)[0].text).toMatch(
			/^Unknown search parameter "subjekt" for Condition/,
		);
	});

	test('a person can read what the EHR holds: the index page and the patient page', async () => {
		const visit = newVisit();
		await ehr.transaction(visitTransaction(visit));
		const [patient] = await ehr.search<Patient>('Patient');
		const index = await fetch(ehr.pageUrl);
		expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
		const indexHtml = await index.text();
		expect(indexHtml).toContain(`href="/view/Patient/${patient.id}">Asha Verma</a>`);
		const page = await (await fetch(ehr.patientPageUrl(patient.id as string))).text();
		for (const text of [
			'Consultation note',
			'बुखार (fever)',
			'Body temperature',
			'38.5 Cel',
			'Paracetamol 500 mg',
			'1 tablet every 6 hours for 3 days',
			'Dr. Ravi Kumar',
		])
			expect(page).toContain(text);
		expect(page).toContain(`${ehr.fhirBaseUrl}/Condition?subject=Patient/${patient.id}`);
		expect((await fetch(ehr.patientPageUrl('nobody'))).status).toBe(404);
	});

	test('runs on a port the caller chooses; stop() ends its process group and frees the port; a bad argument says how to call it', async () => {
		const port = await freePort();
		const second = await startFhirServer({ port });
		expect(second.fhirBaseUrl).toBe(`http://127.0.0.1:${port}/fhir`);
		expect(second.definitionsLoadedInMs).toBeGreaterThan(0);
		await second.stop();
		expect(groupAlive(second.pid)).toBe(false);
		expect(await isPortFree(port)).toBe(true);

		const node = cachedNode24() ?? (await ensureNode24());
		const wrong = await runProcess(
			node,
			['--import', 'tsx', 'test/fhir-server/cli.ts', '--colour'],
			{ cwd: REPO_ROOT, timeoutMs: 60_000, what: 'cli.ts --colour' },
		);
		expect(wrong.code).toBe(2);
		expect(wrong.stderr).toContain('unknown argument --colour\nusage: cli.ts [--port <n>] [--log]');
	}, 180_000);
});
