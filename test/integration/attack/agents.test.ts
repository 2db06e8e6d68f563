/**
 * Patient data and AI agents: as an agent's tool, Patient Search, the patient directory's reads,
 * Prescription → Get and Get Results return patient data
 * that goes to the agent's model provider. With "Share Patient Data With the AI Agent" off, the tool
 * refuses before any request; on (the default) it works as in a workflow; outside a tool run the
 * option plays no part.
 */
import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { PATIENTS_BY_MOBILE } from '../../fake-api/fixtures';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { recordAttack } from '../../support/attackLedger';
import { createExecuteContext, fakeApiCredentials } from '../../support/nodeContext';
import { caught } from './helpers';

let api: FakeClinicApi;
const node = new ClinicScribe();
const MOBILE = Object.keys(PATIENTS_BY_MOBILE)[0];

beforeAll(async () => {
	api = await startFakeClinicApi();
});
afterAll(async () => await api.close());
beforeEach(() => api.reset());

const OPERATIONS = {
	'patient search': {
		resource: 'patient',
		operation: 'searchByMobile',
		mobile: MOBILE,
		returnAll: true,
		simplify: false,
		options: {},
	},
	'get results': {
		resource: 'transcription',
		operation: 'getResults',
		sessionId: 'visit-agent',
		waitForCompletion: false,
		resultsOutput: 'session',
	},
	'patient-find-by-mobile': {
		resource: 'patient',
		operation: 'findByMobile',
		mobile: MOBILE,
		options: {},
	},
	'patient-directory-search': {
		resource: 'patient',
		operation: 'search',
		prefix: 'ravi',
		limit: 10,
		options: {},
	},
	'patient-get': { resource: 'patient', operation: 'get', patientId: '175074536120088' },
	'patient-get-many': { resource: 'patient', operation: 'getAll', returnAll: true, options: {} },
	'prescription-get': {
		resource: 'prescription',
		operation: 'get',
		prescriptionId: 'P-DW-1730717340935-0001',
		downloadPdf: false,
	},
};

function run(parameters: Record<string, unknown>, asTool: boolean) {
	const { context } = createExecuteContext({
		credentials: fakeApiCredentials(api.url, api.validCredentials),
		parameters,
	});
	(context as unknown as { isToolExecution: () => boolean }).isToolExecution = () => asTool;
	return node.execute.call(context);
}

describe.each(Object.entries(OPERATIONS))('%s as an AI agent tool', (name, parameters) => {
	it('with sharing off refuses before any request', async () => {
		const error = await caught(run({ ...parameters, shareWithAiAgent: false }, true));
		expect(error.message).toContain('is not shared with AI agents in this node');
		expect(api.requests).toHaveLength(0);
		recordAttack(
			`agent-sharing-off-${name.replace(' ', '-')}`,
			'tool refuses, no request, no patient data to the model',
			{ requestsForBadInput: api.requests.length },
		);
	});

	it('with sharing on (the default) calls the API', async () => {
		await run(parameters, true).catch(() => undefined);
		expect(api.requests.length).toBeGreaterThan(0);
	});

	it('outside a tool run ignores the option', async () => {
		await run({ ...parameters, shareWithAiAgent: false }, false).catch(() => undefined);
		expect(api.requests.length).toBeGreaterThan(0);
	});
});
