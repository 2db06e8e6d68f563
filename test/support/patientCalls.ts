/** Shared set-up of the Patient directory tests: one fake API per file, real HTTP, strict routes. */
import { fakePatientDirectory } from '../fake-api/routes/patient';
import type { FakeClinicApi } from '../fake-api/server';
import {
	extendRuns,
	useNodeRuns,
	type NodeRuns,
	type Parameters,
	type RunOptions,
} from './nodeRuns';

export interface PatientCalls extends NodeRuns {
	/** As NodeRuns' failure, with `all`: everything the error holds, to prove what it leaves out. */
	failure(
		parameters: Parameters,
		options?: RunOptions,
	): Promise<{ message: string; description: string; all: string }>;
}

/** Registers beforeAll/afterAll/beforeEach in the calling file and gives its helpers. */
export function usePatientDirectory(): PatientCalls {
	const runs = useNodeRuns({ reset: (api) => fakePatientDirectory(api).reset() });
	return extendRuns<Pick<PatientCalls, 'failure'>>(runs, {
		failure: async (parameters, options) => {
			const error = await runs.thrown(parameters, options);
			const { message, description = '' } = error;
			return { message, description, all: JSON.stringify(error) + message + description };
		},
	});
}

/** Checks every directory call carried the Bearer token and the credential's client id. */
export function expectDirectoryHeaders(api: FakeClinicApi): void {
	const calls = api.requestsTo(/^\/profiles\//);
	expect(calls.length).toBeGreaterThan(0);
	for (const call of calls) {
		expect(call.headers.authorization).toMatch(/^Bearer eyJ/);
		expect(call.headers['client-id']).toBe(api.validCredentials.clientId);
		expect(call.headers.auth).toBeUndefined();
	}
}
