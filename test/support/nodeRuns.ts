/**
 * The node run over real HTTP against a fresh fake clinic API per test file: the set-up the
 * integration tests of the request-and-answer operations share (a test file calls it once).
 */
import type { ICredentialDataDecryptedObject, INodeExecutionData } from 'n8n-workflow';

import { ClinicScribe } from '../../nodes/ClinicScribe/ClinicScribe.node';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { createExecuteContext, fakeApiCredentials, type CredentialStore } from './nodeContext';
import { useTestTransportPolicy } from './transportPolicy';

export type Parameters = Record<string, unknown | ((itemIndex: number) => unknown)>;

export interface RunOptions {
	store?: CredentialStore;
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	asTool?: boolean;
}

export interface NodeRuns {
	readonly api: FakeClinicApi;
	credentials(extra?: ICredentialDataDecryptedObject): CredentialStore;
	run(parameters: Parameters, options?: RunOptions): Promise<INodeExecutionData[]>;
	/** The error the run failed with (the test fails when the run does not). */
	thrown(parameters: Parameters, options?: RunOptions): Promise<NodeRunError>;
	failure(
		parameters: Parameters,
		options?: RunOptions,
	): Promise<{ message: string; description: string }>;
}

export type NodeRunError = Error & { description?: string };

export interface NodeRunsSetup {
	/** Puts the fake's stores back before each test (the request log is always cleared). */
	reset?: (api: FakeClinicApi) => void;
	/** Retry back-off: short, so the retry tests stay quick (the policy itself is unit-tested). */
	retry?: { baseDelayMs: number; maxDelayMs: number };
}

/** Registers beforeAll/afterAll/beforeEach in the calling file and gives its helpers. */
export function useNodeRuns(setup: NodeRunsSetup = {}): NodeRuns {
	const node = new ClinicScribe();
	let api: FakeClinicApi | undefined;
	beforeAll(async () => {
		api = await startFakeClinicApi();
		useTestTransportPolicy({ retry: setup.retry ?? { baseDelayMs: 10, maxDelayMs: 50 } });
	});
	afterAll(async () => await api?.close());
	beforeEach(() => {
		api?.reset();
		if (api) setup.reset?.(api);
	});
	const runs: NodeRuns = {
		get api() {
			if (!api) throw new Error('fake API not started');
			return api;
		},
		credentials: (extra = {}) => fakeApiCredentials(runs.api.url, runs.api.validCredentials, extra),
		run: async (parameters, options = {}) => {
			const { context } = createExecuteContext({
				credentials: options.store ?? runs.credentials(),
				parameters,
				items: options.items,
				continueOnFail: options.continueOnFail,
			});
			if (options.asTool)
				(context as unknown as { isToolExecution: () => boolean }).isToolExecution = () => true;
			const [output] = await node.execute.call(context);
			return output;
		},
		thrown: async (parameters, options = {}) => {
			try {
				await runs.run(parameters, options);
			} catch (error) {
				return error as NodeRunError;
			}
			throw new Error('expected the node to fail');
		},
		failure: async (parameters, options = {}) => {
			const { message, description } = await runs.thrown(parameters, options);
			return { message, description: description ?? '' };
		},
	};
	return runs;
}

/**
 * `runs` with more helpers, or some replaced (`extra` wins): a resource's set-up builds on the
 * common one. `api` is still read when used, once the fake has started.
 */
export function extendRuns<Extra extends object>(
	runs: NodeRuns,
	extra: Extra,
): Omit<NodeRuns, keyof Extra> & Extra {
	const base = {
		get api() {
			return runs.api;
		},
		credentials: runs.credentials,
		run: runs.run,
		thrown: runs.thrown,
		failure: runs.failure,
	};
	return Object.assign(base, extra);
}

/** A resource locator's value given "By ID", as the editor saves it. */
export const byId = (value: unknown) => ({ __rl: true, mode: 'id', value });
