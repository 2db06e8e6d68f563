/**
 * MedLink → Link Terms inside a real n8n 2.41.1: the packed package installed as a community package,
 * a credential pointing at the fake clinic API, one workflow run by `n8n execute`
 * (test/e2e/workflows/medlink-link-terms.json): terms typed in the node (English and Hindi) coded in
 * SNOMED CT, then a term from an expression coded in ICD-10-CM, each with its registry version.
 */
import { MEDLINK_BATCH_ROUTE, MEDLINK_REGISTRY_ROUTE } from '../fake-api/routes/medLink';
import { nodeJson, nodeOutput } from '../support/n8n/results';
import { useWorkflowRun } from '../support/n8n/workflowRun';

// jest 29 ignores testTimeout inside a project's config; every n8n run takes seconds.
jest.setTimeout(5 * 60_000);

const run = useWorkflowRun('medlink-link-terms');

describe('MedLink → Link Terms in n8n', () => {
	it('runs the workflow to success', () => {
		expect(run.result.error).toBeUndefined();
		expect(run.result.status).toBe('success');
	});

	it('codes the typed terms in SNOMED CT, Hindi included, one item paired to the input', () => {
		const [item] = nodeOutput(run.result, 'Link Symptoms');
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
		expect(nodeJson(run.result, 'Link Diagnosis')).toEqual([
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
		const batches = run.api.requestsTo(MEDLINK_BATCH_ROUTE, 'POST');
		const asked = batches.map((call) => call.body as { ontology: string; queries: string[] });
		expect(asked.map((body) => [body.ontology, body.queries])).toEqual([
			['snomed', ['fever', 'बुखार', 'hypertension']],
			['icd-10-cm', ['type 2 diabetes']],
		]);
		expect(batches.every((call) => /^Bearer /.test(String(call.headers.authorization)))).toBe(true);
		expect(run.api.requestsTo(MEDLINK_REGISTRY_ROUTE, 'GET')).toHaveLength(2);
	});
});
