/**
 * FHIR Options → Add Codes over real HTTP: Get Results asks the fake's MedLink for the visit's terms
 * (the registry once, each distinct term once per code system and run, batches of at most 5), adds
 * the codes the service links, survives a 429, makes the bundle uncoded (or fails the item, when
 * chosen) when MedLink is down, and the local EHR finds the diagnosis by its SNOMED CT code.
 */
import type { Bundle, Condition } from '@medplum/fhirtypes';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { MEDLINK_BATCH_ROUTE, MEDLINK_REGISTRY_ROUTE } from '../../fake-api/routes/medLink';
import { resourcesOf } from '../../support/fhirR4';
import { outcomeText, startFhirServer, type RunningFhirServer } from '../../support/fhirServer';
import { describeWithNode24 } from '../../support/node24';
import { useTestTransportPolicy } from '../../support/transportPolicy';
import {
	item,
	resultsParameters,
	TranscriptionRig,
	uploadParameters,
} from '../../support/transcriptionRig';

const rig = new TranscriptionRig();

beforeAll(async () => {
	await rig.start();
	useTestTransportPolicy({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
});
afterAll(async () => await rig.stop());
beforeEach(async () => {
	rig.reset();
	await startVisit('visit-codes-1');
	// What each test counts starts after the upload.
	rig.api.requests.length = 0;
});

const DOCTOR = { _id: 'do1001', profile: { personal: { name: { f: 'Asha', l: 'Rao' } } } };

/** A finished visit whose notes hold the EMR document (fever and cough, partly in Hindi). */
async function startVisit(txnId: string): Promise<void> {
	rig.fake.script(txnId, { processingPolls: 0, outcome: 'success' });
	await rig.run(
		uploadParameters({
			transactionId: txnId,
			outputTemplates: {
				templates: [{ template: 'emr', customTemplateId: '', codificationNeeded: true }],
			},
			options: {
				additionalData: JSON.stringify({ patient: { oid: '175074536120088' }, doctor: DOCTOR }),
			},
		}),
		{ items: [item({ data: rig.storedBinary(rig.audioFile('visit.wav', 2000)) })] },
	);
}

function parameters(fhirOptions: IDataObject): Record<string, unknown> {
	return resultsParameters('visit-codes-1', {
		resultsOutput: 'fhirBundle',
		fhirPatient: 'identifier',
		fhirPatientIdentifierSystem: 'https://clinic.example/mrn',
		fhirPatientIdentifierValue: 'MRN-CODES-1',
		fhirDoctor: 'sessionDoctor',
		fhirOptions,
	});
}

const ADD_CODES = { addCodes: true };
const batchCalls = () => rig.api.requestsTo(MEDLINK_BATCH_ROUTE, 'POST');
const asked = () =>
	batchCalls().flatMap((call) => {
		const body = call.body as { ontology: string; queries: string[] };
		return body.queries.map((query) => `${body.ontology}:${query}`);
	});

/** The codings of the concept (code, or a medication's) whose text is `text`. */
function codings(json: IDataObject, type: string, text: string): Array<Record<string, unknown>> {
	for (const resource of resourcesOf(json.bundle, type)) {
		const concept = (resource.code ?? resource.medicationCodeableConcept) as
			| { text?: string; coding?: Array<Record<string, unknown>> }
			| undefined;
		if (concept?.text === text) return concept.coding ?? [];
	}
	throw new Error(`no ${type} "${text}"`);
}

function only(output: INodeExecutionData[]): IDataObject {
	expect(output).toHaveLength(1);
	return output[0].json;
}

describe('Add Codes', () => {
	test('the codes MedLink links are added beside the text; the registry once, each term once, batches of at most 5', async () => {
		const json = only(await rig.run(parameters(ADD_CODES)));
		expect(codings(json, 'Condition', 'Acute upper respiratory tract infection')).toEqual([
			expect.objectContaining({ system: 'http://hl7.org/fhir/sid/icd-10', code: 'J06.9' }),
			{
				system: 'http://snomed.info/sct',
				version: '20250401_extended',
				code: '54150009',
				display: 'Upper respiratory infection',
			},
			expect.objectContaining({ system: 'http://hl7.org/fhir/sid/icd-10-cm', code: 'J06.9' }),
		]);
		expect(codings(json, 'Observation', 'Dry cough')).toEqual([
			expect.objectContaining({ system: 'http://snomed.info/sct', code: '11833005' }),
		]);
		expect(codings(json, 'ServiceRequest', 'Complete blood count (CBC)')).toEqual([
			expect.objectContaining({ system: 'http://loinc.org', code: '58410-2' }),
		]);
		expect(codings(json, 'MedicationRequest', 'Paracetamol 650 mg Tablet')).toEqual([
			expect.objectContaining({ code: 'b-1020304050', version: 'v5.0' }),
		]);
		// "Viral fever" has no candidate in either system: named, not coded.
		expect(codings(json, 'Condition', 'Viral fever')).toEqual([]);
		expect(json.adjustments).toEqual(
			expect.arrayContaining([
				'"Viral fever" not coded in SNOMED CT: MedLink found no candidate',
				'"Viral fever" not coded in ICD-10-CM: MedLink found no candidate',
			]),
		);
		expect(json.coding).toMatchObject({ min_score: 0.8 });
		expect((json.coding as IDataObject).codes_added).toBeGreaterThanOrEqual(10);

		expect(rig.api.requestsTo(MEDLINK_REGISTRY_ROUTE, 'GET')).toHaveLength(1);
		const terms = asked();
		expect(new Set(terms).size).toBe(terms.length);
		expect(terms).toEqual(
			expect.arrayContaining([
				'snomed:Fever',
				'icd-10-cm:Type 2 diabetes',
				'loinc:Complete blood count (CBC)',
			]),
		);
		for (const call of batchCalls())
			expect((call.body as { queries: string[] }).queries.length).toBeLessThanOrEqual(5);
		expect(batchCalls().map((call) => call.status)).toEqual(batchCalls().map(() => 200));
	});

	test('two items of the same visit in one run: each term is still asked once', async () => {
		await rig.run(parameters(ADD_CODES));
		const oneItem = asked().sort();
		rig.api.requests.length = 0;
		const output = await rig.run(parameters(ADD_CODES), { items: [{ json: {} }, { json: {} }] });
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(asked().sort()).toEqual(oneItem);
		expect(rig.api.requestsTo(MEDLINK_REGISTRY_ROUTE, 'GET')).toHaveLength(1);
		expect(output[1].json.bundle).toEqual(output[0].json.bundle);
	});

	test('without Add Codes, MedLink is not called and the bundle is the text alone', async () => {
		const json = only(await rig.run(parameters({})));
		expect(rig.api.requestsTo(/^\/med-link\//)).toHaveLength(0);
		expect(codings(json, 'Observation', 'Dry cough')).toEqual([]);
		expect(json.coding).toBeUndefined();
	});

	test('a 429 with Retry-After is waited out, and the terms are coded', async () => {
		rig.api.injectFault({
			method: 'POST',
			path: MEDLINK_BATCH_ROUTE,
			fault: { kind: 'status', status: 429, headers: { 'Retry-After': '0' } },
		});
		const json = only(await rig.run(parameters(ADD_CODES)));
		expect(batchCalls().map((call) => call.status)).toContain(429);
		expect(codings(json, 'Observation', 'Dry cough')).toEqual([
			expect.objectContaining({ code: '11833005' }),
		]);
	});

	test('MedLink down: the bundle is still made, uncoded, and adjustments say which terms and why', async () => {
		rig.api.injectFault({
			method: 'POST',
			path: MEDLINK_BATCH_ROUTE,
			times: Infinity,
			fault: { kind: 'status', status: 503 },
		});
		const json = only(await rig.run(parameters(ADD_CODES)));
		expect(json.bundle).toBeDefined();
		expect(codings(json, 'Observation', 'Dry cough')).toEqual([]);
		const said = (json.adjustments as string[]).filter((a) =>
			a.startsWith('not coded, MedLink could not be asked'),
		);
		expect(said.length).toBeGreaterThan(0);
		expect(said.join('\n')).toContain('503');
		expect(said.join('\n')).toContain('"Dry cough"');
		expect(json.coding).toMatchObject({ codes_added: 0 });
	});

	test('MedLink down with When Coding Fails = Fail the Item: no bundle, the error names MedLink; Continue On Fail keeps the item', async () => {
		rig.api.injectFault({
			method: 'GET',
			path: MEDLINK_REGISTRY_ROUTE,
			times: Infinity,
			fault: { kind: 'drop' },
		});
		const output = await rig.run(parameters({ ...ADD_CODES, codingFailure: 'fail' }), {
			continueOnFail: true,
		});
		const json = only(output);
		expect(json.bundle).toBeUndefined();
		expect(JSON.stringify(json.error)).toContain("MedLink could not code the notes' terms");
		expect(JSON.stringify(json)).not.toContain('Dry cough');
		expect(batchCalls()).toHaveLength(0);
	});

	test('bad settings fail before anything is sent', async () => {
		const output = await rig.run(parameters({ ...ADD_CODES, minCodeScore: 7 }), {
			continueOnFail: true,
		});
		expect(JSON.stringify(only(output).error)).toContain(
			'FHIR Options → Minimum Code Score is not a number from 0 to 1',
		);
		expect(rig.api.requests).toHaveLength(0);
	});
});

const describeLocalEhr = describeWithNode24('getResults.fhirCodes.test.ts');
let ehr: RunningFhirServer;

describeLocalEhr('the coded bundle in the local EHR', () => {
	beforeAll(async () => {
		ehr = await startFhirServer();
	}, 180_000);
	afterAll(async () => await ehr?.stop());

	test('it is stored, and Condition?code=http://snomed.info/sct|54150009 finds the diagnosis', async () => {
		const json = only(await rig.run(parameters(ADD_CODES)));
		const stored = await ehr.transaction(json.bundle as unknown as Bundle);
		expect([stored.status, outcomeText(stored.body)]).toEqual([200, expect.any(String)]);
		const found = await ehr.search<Condition>('Condition', {
			code: 'http://snomed.info/sct|54150009',
		});
		expect(found.map((condition) => condition.code?.text)).toEqual([
			'Acute upper respiratory tract infection',
		]);
		const byIcd = await ehr.search<Condition>('Condition', {
			code: 'http://hl7.org/fhir/sid/icd-10-cm|E11',
		});
		expect(byIcd.map((condition) => condition.code?.text)).toEqual(['Type 2 diabetes']);
	});
});
