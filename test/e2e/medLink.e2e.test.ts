/**
 * MedLink → Link Terms inside a real n8n 2.41.1: the packed package installed as a community package,
 * a credential pointing at the fake clinic API, one workflow run by `n8n execute`
 * (test/e2e/workflows/medlink-link-terms.json): terms typed in the node (English and Hindi) coded in
 * SNOMED CT, then a term from an expression coded in ICD-10-CM, each with its registry version.
 */
import { join } from 'node:path';

import { MEDLINK_BATCH_ROUTE, MEDLINK_REGISTRY_ROUTE } from '../fake-api/routes/medLink';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { packedPackageForTests } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { nodeJson, nodeOutput, type ExecutionResult } from '../support/n8n/results';
import { CREDENTIAL_TYPE, readWorkflowFile } from '../support/n8n/workflows';

// jest 29 ignores testTimeout inside a project's config; every n8n run takes seconds.
jest.setTimeout(5 * 60_000);

const CREDENTIAL = { id: 'clinicScribeE2E01', name: 'Clinic Scribe (e2e fake API)' };

let api: FakeClinicApi;
let n8n: N8nInstance;
let result: ExecutionResult;

beforeAll(async () => {
	api = await startFakeClinicApi();
	n8n = await N8nInstance.create({ packageTarball: await packedPackageForTests() });
	await n8n.importCredentials([
		{ ...CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
	]);
	const [id] = await n8n.importWorkflows([
		readWorkflowFile(join(__dirname, 'workflows', 'medlink-link-terms.json')),
	]);
	result = await n8n.execute(id);
});

afterAll(async () => {
	await n8n?.dispose();
	await api?.close();
});

describe('MedLink → Link Terms in n8n', () => {
	it('runs the workflow to success', () => {
		expect(result.error).toBeUndefined();
		expect(result.status).toBe('success');
	});

	it('codes the typed terms in SNOMED CT, Hindi included, one item paired to the input', () => {
		const [item] = nodeOutput(result, 'Link Symptoms');
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(item.json.codes).toEqual([
			expect.objectContaining({
				term: 'fever',
				system: 'http://snomed.info/sct',
				version: '20250401_extended',
				code: '386661006',
				linked: true,
			}),
			expect.objectContaining({ term: 'बुखार', code: '386661006', linked: true }),
			expect.objectContaining({ term: 'hypertension', code: '38341003' }),
		]);
	});

	it("codes the expression's term in ICD-10-CM", () => {
		expect(nodeJson(result, 'Link Diagnosis')).toEqual([
			{
				codes: [
					expect.objectContaining({
						term: 'type 2 diabetes',
						system: 'http://hl7.org/fhir/sid/icd-10-cm',
						code: 'E11',
					}),
				],
			},
		]);
	});

	it('asked each node its terms in one batch with the Bearer token, and read the registry per node run', () => {
		const batches = api.requestsTo(MEDLINK_BATCH_ROUTE, 'POST');
		const asked = batches.map((call) => call.body as { ontology: string; queries: string[] });
		expect(asked.map((body) => [body.ontology, body.queries])).toEqual([
			['snomed', ['fever', 'बुखार', 'hypertension']],
			['icd-10-cm', ['type 2 diabetes']],
		]);
		expect(batches.every((call) => /^Bearer /.test(String(call.headers.authorization)))).toBe(true);
		expect(api.requestsTo(MEDLINK_REGISTRY_ROUTE, 'GET')).toHaveLength(2);
	});
});
