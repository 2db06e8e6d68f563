/**
 * Business → Get Entities (document 4.3) over real HTTP against the project's fake clinic API: errors, retries.
 */
import { PRODUCTION_POLICY } from '../../../nodes/ClinicScribe/transport/retryPolicy';
import { FIXTURE_IDS } from '../../fake-api/fixtures';
import { useNodeRuns } from '../../support/nodeRuns';

// Retry back-off short, so the retry tests stay quick; the policy itself is unit-tested.
const t = useNodeRuns({ retry: { baseDelayMs: 20, maxDelayMs: 200 } });
const { run } = t;

const entities = (output: string) => ({ resource: 'business', operation: 'getEntities', output });

describe('Business → Get Entities', () => {
	it('returns one item, one per clinic or one per doctor', async () => {
		const [single] = await run(entities('entities'));
		expect(single.json.business).toEqual(
			expect.objectContaining({ business_id: FIXTURE_IDS.businessId }),
		);
		expect((single.json.clinics as unknown[]).length).toBe(2);
		expect(await run(entities('clinics'))).toHaveLength(2);
		const doctors = await run(entities('doctors'));
		expect(doctors).toHaveLength(4);
		expect(doctors[0].json).toEqual(
			expect.objectContaining({ doctor_id: expect.any(String), pic: expect.any(String) }),
		);
	});

	it('explains BUSINESS_NOT_FOUND and UNAUTHORIZED_ACCESS', async () => {
		t.api.injectFault({ path: '/dr/v1/business/entities', fault: { kind: 'status', status: 404 } });
		await expect(run(entities('entities'))).rejects.toThrow('404 BUSINESS_NOT_FOUND');
		t.api.injectFault({ path: '/dr/v1/business/entities', fault: { kind: 'status', status: 403 } });
		await expect(run(entities('entities'))).rejects.toThrow('403 UNAUTHORIZED_ACCESS');
	});

	it('retries a 500 and succeeds; gives up with SERVER_ERROR after the bounded attempts', async () => {
		t.api.injectFault({ path: '/dr/v1/business/entities', fault: { kind: 'status', status: 500 } });
		expect(await run(entities('doctors'))).toHaveLength(4);
		expect(t.api.requestsTo('/dr/v1/business/entities')).toHaveLength(2);

		t.api.reset();
		t.api.injectFault({
			path: '/dr/v1/business/entities',
			times: Infinity,
			fault: { kind: 'status', status: 500 },
		});
		const error = (await run(entities('doctors')).catch((caught: Error) => caught)) as Error & {
			description?: string;
		};
		expect(error.message).toContain('500 SERVER_ERROR');
		expect(error.description).toContain(`tried ${PRODUCTION_POLICY.retry.attempts} times`);
		expect(t.api.requestsTo('/dr/v1/business/entities')).toHaveLength(
			PRODUCTION_POLICY.retry.attempts,
		);
	});

	it('honours Retry-After on 429, and retries dropped connections', async () => {
		t.api.injectFault({
			path: '/dr/v1/business/entities',
			fault: { kind: 'status', status: 429, headers: { 'Retry-After': '0' } },
		});
		t.api.injectFault({ path: '/dr/v1/business/entities', fault: { kind: 'drop' } });
		expect(await run(entities('clinics'))).toHaveLength(2);
		expect(t.api.requestsTo('/dr/v1/business/entities')).toHaveLength(3);
	});

	it('says so when the body is not JSON', async () => {
		t.api.injectFault({ path: '/dr/v1/business/entities', fault: { kind: 'malformed' } });
		await expect(run(entities('clinics'))).rejects.toThrow('not the documented JSON');
	});
});
