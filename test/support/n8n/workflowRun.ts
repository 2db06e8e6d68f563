/**
 * One workflow of test/e2e/workflows run once by `n8n execute` in a real n8n: the packed package
 * installed as a community package, a credential pointing at a fresh fake clinic API. The set-up
 * the e2e files that check one run share (a test file calls it once, at its top).
 */
import { join } from 'node:path';

import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { fakeApiCredentialData } from '../fakeApiCredential';
import { packedPackageForTests } from './install';
import { N8nInstance } from './instance';
import type { ExecutionResult } from './results';
import { CREDENTIAL_TYPE, readWorkflowFile } from './workflows';

/** The credential the workflow files name. */
const CREDENTIAL = { id: 'clinicScribeE2E01', name: 'Clinic Scribe (e2e fake API)' };

export interface WorkflowRun {
	readonly api: FakeClinicApi;
	/** The n8n that ran it, for tests that go on with it (its editor's REST API). */
	readonly n8n: N8nInstance;
	readonly result: ExecutionResult;
}

/** Registers beforeAll/afterAll in the calling file: `workflow` is a file name without `.json`. */
export function useWorkflowRun(workflow: string): WorkflowRun {
	let api: FakeClinicApi | undefined;
	let n8n: N8nInstance | undefined;
	let result: ExecutionResult | undefined;
	beforeAll(async () => {
		api = await startFakeClinicApi();
		n8n = await N8nInstance.create({ packageTarball: await packedPackageForTests() });
		await n8n.importCredentials([
			{ ...CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
		]);
		const [id] = await n8n.importWorkflows([
			readWorkflowFile(join(__dirname, '..', '..', 'e2e', 'workflows', `${workflow}.json`)),
		]);
		result = await n8n.execute(id);
	});
	afterAll(async () => {
		await n8n?.dispose();
		await api?.close();
	});
	const started = <T>(value: T | undefined, what: string): T => {
		if (value === undefined) throw new Error(`${what}: the workflow run has not been set up`);
		return value;
	};
	return {
		get api() {
			return started(api, 'api');
		},
		get n8n() {
			return started(n8n, 'n8n');
		},
		get result() {
			return started(result, 'result');
		},
	};
}
