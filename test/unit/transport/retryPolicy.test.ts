import { PRODUCTION_POLICY as policyTheCodeSees } from '../../../nodes/ClinicScribe/transport/retryPolicy';
import { useTestTransportPolicy } from '../../support/transportPolicy';

/** The module as it ships (jest replaces it for the tests: test/support/jestSetup.ts). */
const shipped = jest.requireActual(
	'../../../nodes/ClinicScribe/transport/retryPolicy',
) as typeof import('../../../nodes/ClinicScribe/transport/retryPolicy');
const { PRODUCTION_POLICY } = shipped;

describe('transport policy (no mutable globals)', () => {
	test('the production policy cannot be changed by an importer', () => {
		expect(Object.isFrozen(PRODUCTION_POLICY)).toBe(true);
		expect(Object.isFrozen(PRODUCTION_POLICY.retry)).toBe(true);
		expect(Object.isFrozen(PRODUCTION_POLICY.timeouts)).toBe(true);
		expect(Object.isFrozen(PRODUCTION_POLICY.storageRetry)).toBe(true);
		expect(() => {
			(PRODUCTION_POLICY.retry as { baseDelayMs: number }).baseDelayMs = 1;
		}).toThrow(TypeError);
		expect(PRODUCTION_POLICY.retry).toEqual({ attempts: 4, baseDelayMs: 500, maxDelayMs: 8_000 });
		expect(PRODUCTION_POLICY.timeouts).toEqual({
			apiCallMs: 60_000,
			tokenMs: 30_000,
			statusMs: 30_000,
			presignMs: 60_000,
			initMs: 60_000,
			triggerFetchMs: 6_000,
		});
		expect(PRODUCTION_POLICY.storageRetry).toEqual({
			attempts: 3,
			baseDelayMs: 1_000,
			maxDelayMs: 8_000,
		});
		expect(PRODUCTION_POLICY.uploadConcurrency).toBe(6);
		expect(() => {
			(PRODUCTION_POLICY as { uploadConcurrency: number }).uploadConcurrency = 1;
		}).toThrow(TypeError);
	});

	test('the shipped module exports the policy, its types, the back-off, the rule of what may be sent again and the retry loop, and nothing that changes the policy', () => {
		expect(Object.keys(shipped).sort()).toEqual([
			'PRODUCTION_POLICY',
			'isTransientNetworkFailure',
			'mayRetry',
			'outcomeUnknown',
			'withRetries',
		]);
	});

	test('a test shortens the policy the code sees through the test support alone, and puts it back', () => {
		expect(policyTheCodeSees).toEqual(PRODUCTION_POLICY);
		const restore = useTestTransportPolicy({ retry: { baseDelayMs: 1 } });
		// Read again: the replaced module's PRODUCTION_POLICY is read at each use, as the package's code does.
		const { PRODUCTION_POLICY: changed } = jest.requireMock(
			'../../../nodes/ClinicScribe/transport/retryPolicy',
		) as typeof shipped;
		expect(changed.retry).toEqual({ attempts: 4, baseDelayMs: 1, maxDelayMs: 8_000 });
		restore();
		expect(
			(jest.requireMock('../../../nodes/ClinicScribe/transport/retryPolicy') as typeof shipped)
				.PRODUCTION_POLICY,
		).toBe(PRODUCTION_POLICY);
		// The shipped object itself never changed.
		expect(PRODUCTION_POLICY.retry.baseDelayMs).toBe(500);
	});
});
