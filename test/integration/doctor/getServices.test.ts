/**
 * Doctor → Get Services (document 4.1) over real HTTP against the project's fake clinic API; reads of many items
 * (several at once, the output in item order) with it.
 */
import { PRODUCTION_POLICY } from '../../../nodes/ClinicScribe/transport/retryPolicy';
import { FIXTURE_IDS } from '../../fake-api/fixtures';
import { startFakeClinicApi } from '../../fake-api/server';
import { fakeApiCredentials } from '../../support/nodeContext';
import { useNodeRuns } from '../../support/nodeRuns';

// Retry back-off short, so the retry tests stay quick; the policy itself is unit-tested.
const t = useNodeRuns({ retry: { baseDelayMs: 20, maxDelayMs: 200 } });
const { run } = t;

const doctorServices = (doctorId: unknown, extra: Record<string, unknown> = {}) => ({
	resource: 'doctor',
	operation: 'getServices',
	doctorId: { __rl: true, mode: 'id', value: doctorId },
	returnAll: true,
	options: {},
	...extra,
});

describe('Doctor → Get Services', () => {
	it('returns one item per service, with the token in the auth header', async () => {
		const output = await run(doctorServices(FIXTURE_IDS.doctorWithServices));
		expect(output).toHaveLength(4);
		expect(output.map((item) => item.json.service_name)).toContain('General Consultation');
		expect(output.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
		const [call] = t.api.requestsTo('/dr/v1/doctor/service/');
		expect(call.headers.auth).toMatch(/^eyJ/);
		expect(call.headers.authorization).toBeUndefined();
	});

	it('leaves out archived services when asked, and honours the limit', async () => {
		const active = await run(
			doctorServices(FIXTURE_IDS.doctorWithServices, { options: { excludeArchived: true } }),
		);
		expect(active).toHaveLength(3);
		expect(active.every((item) => item.json.archive === false)).toBe(true);
		const limited = await run(
			doctorServices(FIXTURE_IDS.doctorWithServices, { returnAll: false, limit: 2 }),
		);
		expect(limited).toHaveLength(2);
	});

	it('normalises the single-object sample form to a list', async () => {
		t.api.setOptions({ servicesForm: 'object' });
		const output = await run(doctorServices(FIXTURE_IDS.doctorWithOneService));
		expect(output).toHaveLength(1);
		expect(typeof output[0].json.service_name).toBe('string');
	});

	it('sends an odd doctor id as one encoded path segment', async () => {
		const output = await run(doctorServices(FIXTURE_IDS.doctorIdNeedingEncoding));
		expect(output).toHaveLength(1);
		expect(t.api.requestsTo('/dr/v1/doctor/service/')[0].path).toBe(
			'/dr/v1/doctor/service/a%20b%2Fc',
		);
		await run(doctorServices('../../business/entities'), { continueOnFail: true });
		const last = t.api.requestsTo('/dr/v1/doctor/service/').at(-1);
		expect(last?.path).toBe('/dr/v1/doctor/service/..%2F..%2Fbusiness%2Fentities');
		expect(t.api.requestsTo('/dr/v1/business/entities')).toHaveLength(0);
	});

	it('refuses an empty doctor before sending anything', async () => {
		await expect(run(doctorServices('  '))).rejects.toThrow('The Doctor field is empty');
		expect(t.api.requestsTo('/dr/')).toHaveLength(0);
	});
});

describe('reads of many items: several at once, the output as one item after another gives it', () => {
	const doctorItems = (ids: string[]) => ids.map((doctorId) => ({ json: { doctorId } }));
	const byItem = {
		...doctorServices('={{ $json.doctorId }}'),
		doctorId: (itemIndex: number) => ({ __rl: true, mode: 'id', value: ids[itemIndex] }),
	};
	let ids: string[] = [];

	it("sends several calls at once, never more than the policy allows, and outputs every item's records in item order", async () => {
		const answered = new Map<number, number>();
		const timed = await startFakeClinicApi({
			onRequestDone: (record) => answered.set(record.id, Date.now()),
		});
		// More items than the bound, so that the bound is what stops more calls opening.
		const items = PRODUCTION_POLICY.readConcurrency * 2 + 3;
		try {
			ids = Array.from({ length: items }, () => FIXTURE_IDS.doctorWithServices);
			// Answers a little late, so that calls sent together are open together.
			timed.injectFault({
				path: '/dr/v1/doctor/service/',
				times: Infinity,
				fault: { kind: 'delay', ms: 50 },
			});
			const output = await run(byItem, {
				items: doctorItems(ids),
				store: fakeApiCredentials(timed.url, timed.validCredentials),
			});

			expect(output).toHaveLength(items * 4);
			expect(output.map((item) => (item.pairedItem as { item: number }).item)).toEqual(
				ids.flatMap((_, itemIndex) => Array(4).fill(itemIndex)),
			);
			const calls = timed
				.requestsTo('/dr/v1/doctor/service/')
				.map((call) => ({ opened: call.time, closed: answered.get(call.id) ?? Infinity }));
			expect(calls).toHaveLength(items);
			const open = maxOpenAtOnce(calls);
			expect(open).toBeGreaterThan(1);
			expect(open).toBeLessThanOrEqual(PRODUCTION_POLICY.readConcurrency);
		} finally {
			await timed.close();
		}
	});

	it('without Continue On Fail: the error of the first failed item, and no item after it is started once it failed', async () => {
		// The first readConcurrency items start together (item 2 fails before sending); the next 7
		// (another doctor) would come after them.
		const together = PRODUCTION_POLICY.readConcurrency;
		ids = [
			...Array(together).fill(FIXTURE_IDS.doctorWithServices),
			...Array(7).fill(FIXTURE_IDS.doctorWithTwoServices),
		];
		ids[2] = '';
		const error = (await run(byItem, { items: doctorItems(ids) }).catch(
			(e: unknown) => e,
		)) as Error & { context?: { itemIndex?: number } };

		expect(error.message).toContain('The Doctor field is empty');
		expect(error.context?.itemIndex).toBe(2);
		// The reads started with it went out (they only read); none of the items after them.
		expect(
			t.api.requestsTo(`/dr/v1/doctor/service/${FIXTURE_IDS.doctorWithServices}`),
		).toHaveLength(together - 1);
		expect(
			t.api.requestsTo(`/dr/v1/doctor/service/${FIXTURE_IDS.doctorWithTwoServices}`),
		).toHaveLength(0);
	});

	it('with Continue On Fail: each failed item its error in its place, the others their records', async () => {
		ids = [FIXTURE_IDS.doctorWithServices, '', FIXTURE_IDS.doctorWithServices, '..'];
		const output = await run(byItem, { items: doctorItems(ids), continueOnFail: true });

		expect(
			output.map((item) => [
				(item.pairedItem as { item: number }).item,
				item.json.error === undefined ? 'records' : String(item.json.error),
			]),
		).toEqual([
			...Array(4).fill([0, 'records']),
			[1, expect.stringContaining('The Doctor field is empty')],
			...Array(4).fill([2, 'records']),
			[3, expect.stringContaining('only of dots')],
		]);
	});
});

/** The most calls the fake had open at one time (each from its arrival until its answer was done). */
function maxOpenAtOnce(calls: Array<{ opened: number; closed: number }>): number {
	return Math.max(
		...calls.map(
			(call) =>
				calls.filter((other) => other.opened <= call.opened && other.closed > call.opened).length,
		),
	);
}
