import {
	PRODUCTION_POLICY,
	retryDelayMs,
	transportPolicyOf,
	useTransportPolicy,
} from '../../../nodes/ClinicScribe/transport/retryPolicy';
import { transportPolicy } from '../../support/transportPolicy';

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
		expect(PRODUCTION_POLICY.timeouts).toEqual({ apiCallMs: 60_000, tokenMs: 30_000, statusMs: 30_000, presignMs: 60_000, initMs: 60_000, triggerFetchMs: 6_000 });
		expect(PRODUCTION_POLICY.storageRetry).toEqual({ attempts: 3, baseDelayMs: 1_000, maxDelayMs: 8_000 });
		expect(PRODUCTION_POLICY.uploadConcurrency).toBe(6);
		expect(() => {
			(PRODUCTION_POLICY as { uploadConcurrency: number }).uploadConcurrency = 1;
		}).toThrow(TypeError);
	});

	test('a policy given to one context is that context’s only; every other context gets production', () => {
		const testContext = {};
		const otherContext = {};
		const fast = transportPolicy({ retry: { baseDelayMs: 1 } });
		useTransportPolicy(testContext, fast);
		expect(transportPolicyOf(testContext)).toBe(fast);
		expect(transportPolicyOf(otherContext)).toBe(PRODUCTION_POLICY);
		expect(fast.retry).toEqual({ attempts: 4, baseDelayMs: 1, maxDelayMs: 8_000 });
	});

	test('the back-off follows the policy it is given', () => {
		const retry = { attempts: 3, baseDelayMs: 10, maxDelayMs: 25 };
		expect(retryDelayMs(1, undefined, retry)).toBe(10);
		expect(retryDelayMs(2, undefined, retry)).toBe(20);
		expect(retryDelayMs(3, undefined, retry)).toBe(25);
		expect(retryDelayMs(1, '3600', retry)).toBe(25);
	});
});
