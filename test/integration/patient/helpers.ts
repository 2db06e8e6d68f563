/** Shared set-up of the Patient directory tests: one fake API per file, real HTTP, strict routes. */
import type { ICredentialDataDecryptedObject, INodeExecutionData } from 'n8n-workflow';

import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { fakePatientDirectory } from '../../fake-api/routes/patientDirectory';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import {
	createExecuteContext,
	fakeApiCredentials,
	type CredentialStore,
} from '../../support/nodeContext';
import { useTestTransportPolicy } from '../../support/transportPolicy';

export type Parameters = Record<string, unknown | ((itemIndex: number) => unknown)>;

export interface RunOptions {
	store?: CredentialStore;
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	asTool?: boolean;
}

export interface PatientHarness {
	readonly api: FakeClinicApi;
	credentials(extra?: ICredentialDataDecryptedObject): CredentialStore;
	run(parameters: Parameters, options?: RunOptions): Promise<INodeExecutionData[]>;
	failure(
		parameters: Parameters,
		options?: RunOptions,
	): Promise<{ message: string; description: string; all: string }>;
}

/** Registers beforeAll/afterAll/beforeEach in the calling file and gives its helpers. */
export function usePatientDirectory(): PatientHarness {
	const node = new ClinicScribe();
	let api: FakeClinicApi | undefined;
	beforeAll(async () => {
		api = await startFakeClinicApi();
		useTestTransportPolicy({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
	});
	afterAll(async () => await api?.close());
	beforeEach(() => {
		api?.reset();
		if (api) fakePatientDirectory(api).reset();
	});
	const harness: PatientHarness = {
		get api() {
			if (!api) throw new Error('fake API not started');
			return api;
		},
		credentials: (extra = {}) =>
			fakeApiCredentials(harness.api.url, harness.api.validCredentials, extra),
		run: async (parameters, options = {}) => {
			const { context } = createExecuteContext({
				credentials: options.store ?? harness.credentials(),
				parameters,
				items: options.items,
				continueOnFail: options.continueOnFail,
			});
			if (options.asTool)
				(context as unknown as { isToolExecution: () => boolean }).isToolExecution = () => true;
			const [output] = await node.execute.call(context);
			return output;
		},
		failure: async (parameters, options = {}) => {
			try {
				await harness.run(parameters, options);
			} catch (error) {
				const { message, description } = error as { message: string; description?: string };
				return {
					message,
					description: description ?? '',
					all: JSON.stringify(error) + String(message) + String(description ?? ''),
				};
			}
			throw new Error('expected the node to fail');
		},
	};
	return harness;
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
