/**
 * Shorter retry pauses and timeouts for the contexts the test support builds. The production policy
 * is frozen; a test file says what it wants once (`useTestTransportPolicy`), and every context built
 * afterwards in that file (jest gives each file its own modules) carries it.
 */
import {
	PRODUCTION_POLICY,
	useTransportPolicy,
	type RequestTimeouts,
	type RetryPolicy,
	type TransportPolicy,
} from '../../nodes/ClinicScribe/transport/retryPolicy';

export interface PolicyChanges {
	retry?: Partial<RetryPolicy>;
	timeouts?: Partial<RequestTimeouts>;
	storageRetry?: Partial<RetryPolicy>;
	uploadConcurrency?: number;
}

/** The production policy with these changes. */
export function transportPolicy(changes: PolicyChanges, base: TransportPolicy = PRODUCTION_POLICY): TransportPolicy {
	return {
		retry: { ...base.retry, ...changes.retry },
		timeouts: { ...base.timeouts, ...changes.timeouts },
		storageRetry: { ...base.storageRetry, ...changes.storageRetry },
		uploadConcurrency: changes.uploadConcurrency ?? base.uploadConcurrency,
	};
}

let current: TransportPolicy = PRODUCTION_POLICY;

/**
 * Contexts built from now on in this test file follow the current policy with these changes.
 * Returns a function that puts the previous policy back (for a change within one test).
 */
export function useTestTransportPolicy(changes: PolicyChanges): () => void {
	const previous = current;
	current = transportPolicy(changes, previous);
	return () => {
		current = previous;
	};
}

/** Called by the context builders (nodeContext, triggerContext) for every context they make. */
export function applyTestTransportPolicy<T extends object>(ctx: T): T {
	if (current !== PRODUCTION_POLICY) useTransportPolicy(ctx, current);
	return ctx;
}
