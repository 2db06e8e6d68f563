/**
 * MedLink → Link Terms over real HTTP against the fake's MedLink (test/fake-api/routes/medLink.ts):
 * the registry read once, distinct terms asked once in batches of at most 5, retries of a 429, an
 * outage, Continue On Fail and paired items.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { MEDLINK_BATCH_ROUTE, MEDLINK_REGISTRY_ROUTE } from '../../fake-api/routes/medLink';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { createExecuteContext, fakeApiCredentials } from '../../support/nodeContext';
import { useTestTransportPolicy } from '../../support/transportPolicy';

let api: FakeClinicApi;
const node = new ClinicScribe();

beforeAll(async () => {
	api = await startFakeClinicApi();
	useTestTransportPolicy({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
});
afterAll(async () => await api.close());
beforeEach(() => api.reset());

async function run(
	termsOfItem: Array<unknown>,
	options: {
		ontology?: string | ((i: number) => string);
		continueOnFail?: boolean;
		asTool?: boolean;
	} = {},
): Promise<INodeExecutionData[]> {
	const items = termsOfItem.map((terms) => ({ json: { terms } as never }));
	const { ontology = 'snomed' } = options;
	const { context } = createExecuteContext({
		credentials: fakeApiCredentials(api.url, api.validCredentials),
		parameters: {
			resource: 'medLink',
			operation: 'linkTerms',
			terms: (i: number) => termsOfItem[i],
			ontology: typeof ontology === 'function' ? ontology : () => ontology,
		},
		items,
		continueOnFail: options.continueOnFail,
	});
	if (options.asTool)
		(context as unknown as { isToolExecution: () => boolean }).isToolExecution = () => true;
	const [output] = await node.execute.call(context);
	return output;
}

async function failure(...args: Parameters<typeof run>) {
	try {
		await run(...args);
	} catch (error) {
		const { message, description } = error as { message: string; description?: string };
		return { message, description: description ?? '' };
	}
	throw new Error('expected the node to fail');
}

const codesOf = (item: INodeExecutionData) => item.json.codes as Array<Record<string, unknown>>;
const batchCalls = () => api.requestsTo(MEDLINK_BATCH_ROUTE, 'POST');

describe('MedLink → Link Terms', () => {
	it('codes English and Hindi terms as SNOMED CT with the registry version, Bearer token', async () => {
		const [item] = await run(['fever, बुखार\nhypertension']);
		expect(codesOf(item)).toEqual([
			{
				term: 'fever',
				ontology: 'snomed',
				system: 'http://snomed.info/sct',
				version: '20250401_extended',
				code: '386661006',
				display: 'Fever',
				score: 0.97,
				linked: true,
			},
			expect.objectContaining({ term: 'बुखार', code: '386661006', score: 0.93, linked: true }),
			expect.objectContaining({ term: 'hypertension', code: '38341003' }),
		]);
		const [call] = batchCalls();
		expect(call.headers.authorization).toMatch(/^Bearer /);
		expect(call.body).toEqual({
			queries: ['fever', 'बुखार', 'hypertension'],
			ontology: 'snomed',
			version: '20250401_extended',
			top_k: 3,
		});
		expect(api.requestsTo(MEDLINK_REGISTRY_ROUTE, 'GET')).toHaveLength(1);
	});

	it('works as an AI agent tool', async () => {
		const [item] = await run(['type 2 diabetes'], { ontology: 'icd-10-cm', asTool: true });
		expect(codesOf(item)).toEqual([
			expect.objectContaining({ code: 'E11', system: 'http://hl7.org/fhir/sid/icd-10-cm' }),
		]);
	});

	it('gives LOINC its unit and code system, and medication the package-own URI', async () => {
		const [lab] = await run([['HbA1c', 'haemoglobin']], { ontology: 'loinc' });
		expect(codesOf(lab).map((c) => [c.code, c.unit, c.system])).toEqual([
			['4548-4', '%', 'http://loinc.org'],
			['718-7', 'g/dl', 'http://loinc.org'],
		]);
		const [medicine] = await run(['paracetamol 500 mg, amoxicillin'], { ontology: 'medication' });
		expect(codesOf(medicine).map((c) => [c.code, c.score, c.linked, c.system])).toEqual([
			['b-1000000001', null, true, 'urn:n8n-nodes-clinic-scribe:code-system:eka-medication'],
			['b-1000000002', null, true, 'urn:n8n-nodes-clinic-scribe:code-system:eka-medication'],
		]);
	});

	it('says when a term is not linked, has a low score, or has no candidate (no code made up)', async () => {
		const [item] = await run(['general weakness, feeling off, zzz unknown'], {});
		expect(codesOf(item).map((c) => [c.code, c.score, c.linked])).toEqual([
			['13791008', 0.41, false],
			['367391008', 0.32, true],
			[null, null, false],
		]);
	});

	it('asks 12 distinct terms in 3 calls of at most 5, and the registry once', async () => {
		const twelve = [
			'fever, cough, hypertension, type 2 diabetes',
			'penicillin allergy, headache, chest pain, vomiting',
			'diarrhoea, abdominal pain, breathlessness, back pain',
		];
		const output = await run(twelve);
		expect(output.map((o) => codesOf(o).length)).toEqual([4, 4, 4]);
		expect(batchCalls().map((c) => (c.body as { queries: string[] }).queries.length)).toEqual([
			5, 5, 2,
		]);
		expect(api.requestsTo(MEDLINK_REGISTRY_ROUTE, 'GET')).toHaveLength(1);
	});

	it('asks a term repeated across items (in any case) once, per code system', async () => {
		const output = await run(['fever, cough', 'Fever', 'fever'], {
			ontology: (i) => (i === 2 ? 'icd-10-cm' : 'snomed'),
		});
		expect(batchCalls().map((c) => c.body)).toEqual([
			expect.objectContaining({ queries: ['fever', 'cough'], ontology: 'snomed' }),
			expect.objectContaining({ queries: ['fever'], ontology: 'icd-10-cm' }),
		]);
		expect(codesOf(output[1])).toEqual([
			expect.objectContaining({ term: 'Fever', code: '386661006' }),
		]);
		expect(codesOf(output[2])[0].code).toBe('R50.9');
	});

	it('waits out a 429 with Retry-After, then codes the terms', async () => {
		api.injectFault({
			method: 'POST',
			path: MEDLINK_BATCH_ROUTE,
			fault: { kind: 'status', status: 429, headers: { 'Retry-After': '0' } },
		});
		const [item] = await run(['cough']);
		expect(codesOf(item)[0].code).toBe('49727002');
		expect(batchCalls().map((c) => c.status)).toEqual([429, 200]);
	});

	it('fails with a clear error when MedLink stays unreachable', async () => {
		api.injectFault({
			method: 'POST',
			path: MEDLINK_BATCH_ROUTE,
			times: Infinity,
			fault: { kind: 'drop' },
		});
		const { message, description } = await failure(['fever']);
		expect(message).toContain('the MedLink codes of the terms');
		expect(description).toMatch(/Tried \d+ times/);
		expect(message).not.toContain('fever');
	});

	it('an outage of the registry fails the run before any term is sent', async () => {
		api.injectFault({
			method: 'GET',
			path: MEDLINK_REGISTRY_ROUTE,
			times: Infinity,
			fault: { kind: 'status', status: 503 },
		});
		const { message, description } = await failure(['fever', 'cough']);
		expect(message).toContain("MedLink's registry of ontologies");
		expect(message).toContain('503');
		expect(description).toMatch(/tried \d+ times/i);
		expect(api.requestsTo(MEDLINK_REGISTRY_ROUTE, 'GET').length).toBeGreaterThan(1);
		expect(batchCalls()).toHaveLength(0);
	});

	it('under Continue On Fail reports bad items and a refused batch per item, paired', async () => {
		api.injectFault({
			method: 'POST',
			path: MEDLINK_BATCH_ROUTE,
			times: Infinity,
			fault: { kind: 'status', status: 503 },
		});
		const output = await run(['', 'fever'], { continueOnFail: true });
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(output[0].json.error).toBe('The Terms of item 0 is empty');
		expect(String(output[1].json.error)).toContain('503');
	});

	it('the fake refuses a 6-term batch as documented, and a call without the Bearer token', async () => {
		const post = async (token: string) =>
			await fetch(`${api.url}${MEDLINK_BATCH_ROUTE}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
				body: JSON.stringify({
					queries: ['a', 'b', 'c', 'd', 'e', 'f'],
					ontology: 'snomed',
					version: '20250401_extended',
				}),
			});
		expect((await post('not-the-token')).status).toBe(401);
		const response = await post(api.validCredentials.staticToken);
		expect(response.status).toBe(422);
		expect(await response.json()).toEqual({
			detail: [
				{
					loc: ['body', 'queries'],
					msg: 'List should have at most 5 items after validation, not 6',
					type: 'too_long',
				},
			],
		});
	});

	it.each([
		['empty terms', [' , \n'], 'snomed', 'The Terms of item 0 is empty'],
		[
			'a term too long',
			['x'.repeat(201)],
			'snomed',
			'The Terms of item 0 has a term (number 1) longer than 200 characters',
		],
		[
			'an unknown code system',
			['fever'],
			'rxnorm',
			'The Code System of item 0 is "rxnorm", which MedLink does not offer',
		],
	])('refuses %s with nothing sent', async (_label, terms, ontology, expected) => {
		const { message } = await failure(terms, { ontology });
		expect(message).toBe(expected);
		expect(api.requests).toHaveLength(0);
	});
});
