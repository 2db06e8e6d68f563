/** Shared set-up of the Patient directory tests: one fake API per file, real HTTP, strict routes. */
import { fakePatientDirectory } from '../fake-api/routes/patientDirectory';
import type { FakeClinicApi } from '../fake-api/server';
import { useNodeRuns, type NodeRuns } from './nodeRuns';

/** Registers beforeAll/afterAll/beforeEach in the calling file and gives its helpers. */
export function usePatientDirectory(): NodeRuns {
	return useNodeRuns({ reset: (api) => fakePatientDirectory(api).reset() });
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
