/**
 * Shorter retry pauses and timeouts for tests. Shipped code has one frozen PRODUCTION_POLICY and no
 * way to change it; for the unit and integration tests jest replaces that module instead
 * (test/support/jestSetup.ts, run before each test file), with a PRODUCTION_POLICY that reads the
 * policy set here. A test file says what it wants once (`useTestTransportPolicy`); jest gives each
 * test file its own modules, so the change stays in that file.
 */
import type { PRODUCTION_POLICY } from '../../nodes/ClinicScribe/transport/retryPolicy';

type TransportPolicy = typeof PRODUCTION_POLICY;
type RetryPolicy = TransportPolicy['retry'];
type RequestTimeouts = TransportPolicy['timeouts'];

const shipped: TransportPolicy = (
	jest.requireActual('../../nodes/ClinicScribe/transport/retryPolicy') as {
		PRODUCTION_POLICY: TransportPolicy;
	}
).PRODUCTION_POLICY;

export interface PolicyChanges {
	retry?: Partial<RetryPolicy>;
	timeouts?: Partial<RequestTimeouts>;
	storageRetry?: Partial<RetryPolicy>;
	uploadConcurrency?: number;
	readConcurrency?: number;
}

/** The shipped policy (or `base`) with these changes. */
export function transportPolicy(
	changes: PolicyChanges,
	base: TransportPolicy = shipped,
): TransportPolicy {
	return {
		retry: { ...base.retry, ...changes.retry },
		timeouts: { ...base.timeouts, ...changes.timeouts },
		storageRetry: { ...base.storageRetry, ...changes.storageRetry },
		uploadConcurrency: changes.uploadConcurrency ?? base.uploadConcurrency,
		readConcurrency: changes.readConcurrency ?? base.readConcurrency,
	};
}

let current: TransportPolicy = shipped;

/**
 * Calls made from now on in this test file follow the current policy with these changes. Returns a
 * function that puts the previous policy back (for a change within one test).
 */
export function useTestTransportPolicy(changes: PolicyChanges): () => void {
	const previous = current;
	current = transportPolicy(changes, previous);
	return () => {
		current = previous;
	};
}

/** The policy the package's code sees in this test file (read by jestSetup.ts's replacement module). */
export function currentTestTransportPolicy(): TransportPolicy {
	return current;
}
