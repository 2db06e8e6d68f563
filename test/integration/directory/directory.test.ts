/**
 * The directory operations (document 4.1–4.3) and the credential (4.5, 4.6, §5), over real HTTP
 * against the project's fake clinic API.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { PRODUCTION_POLICY } from '../../../nodes/ClinicScribe/transport/retryPolicy';
import { useTestTransportPolicy } from '../../support/transportPolicy';
import { FIXTURE_IDS } from '../../fake-api/fixtures';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import {
	createExecuteContext,
	fakeApiCredentials,
	type CredentialStore,
} from '../../support/nodeContext';

let api: FakeClinicApi;
const node = new ClinicScribe();

beforeAll(async () => {
	api = await startFakeClinicApi();
	// Keep retry back-off short so the retry tests stay quick; the policy itself is unit-tested.
	useTestTransportPolicy({ retry: { baseDelayMs: 20, maxDelayMs: 200 } });
});
afterAll(async () => await api.close());
beforeEach(() => api.reset());

function credentials(extra = {}): CredentialStore {
	return fakeApiCredentials(api.url, api.validCredentials, extra);
}

async function run(
	parameters: Record<string, unknown>,
	options: { store?: CredentialStore; items?: INodeExecutionData[]; continueOnFail?: boolean } = {},
): Promise<INodeExecutionData[]> {
	const { context } = createExecuteContext({
		credentials: options.store ?? credentials(),
		parameters,
		items: options.items,
		continueOnFail: options.continueOnFail,
	});
	const [output] = await node.execute.call(context);
	return output;
}

const doctorServices = (doctorId: unknown, extra: Record<string, unknown> = {}) => ({
	resource: 'doctor',
	operation: 'getServices',
	doctorId: { __rl: true, mode: 'id', value: doctorId },
	returnAll: true,
	options: {},
	...extra,
});
const patientSearch = (mobile: unknown, extra: Record<string, unknown> = {}) => ({
	resource: 'patient',
	operation: 'searchByMobile',
	mobile,
	returnAll: true,
	simplify: false,
	options: {},
	...extra,
});
const entities = (output: string) => ({ resource: 'business', operation: 'getEntities', output });

describe('Doctor → Get Services', () => {
	it('returns one item per service, with the token in the auth header', async () => {
		const output = await run(doctorServices(FIXTURE_IDS.doctorWithServices));
		expect(output).toHaveLength(4);
		expect(output.map((item) => item.json.service_name)).toContain('General Consultation');
		expect(output.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
		const [call] = api.requestsTo('/dr/v1/doctor/service/');
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
		api.setOptions({ servicesForm: 'object' });
		const output = await run(doctorServices(FIXTURE_IDS.doctorWithOneService));
		expect(output).toHaveLength(1);
		expect(typeof output[0].json.service_name).toBe('string');
	});

	it('sends an odd doctor id as one encoded path segment', async () => {
		const output = await run(doctorServices(FIXTURE_IDS.doctorIdNeedingEncoding));
		expect(output).toHaveLength(1);
		expect(api.requestsTo('/dr/v1/doctor/service/')[0].path).toBe(
			'/dr/v1/doctor/service/a%20b%2Fc',
		);
		await run(doctorServices('../../business/entities'), { continueOnFail: true });
		const last = api.requestsTo('/dr/v1/doctor/service/').at(-1);
		expect(last?.path).toBe('/dr/v1/doctor/service/..%2F..%2Fbusiness%2Fentities');
		expect(api.requestsTo('/dr/v1/business/entities')).toHaveLength(0);
	});

	it('refuses an empty doctor before sending anything', async () => {
		await expect(run(doctorServices('  '))).rejects.toThrow('The Doctor field is empty');
		expect(api.requestsTo('/dr/')).toHaveLength(0);
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
		expect(api.requestsTo(`/dr/v1/doctor/service/${FIXTURE_IDS.doctorWithServices}`)).toHaveLength(
			together - 1,
		);
		expect(
			api.requestsTo(`/dr/v1/doctor/service/${FIXTURE_IDS.doctorWithTwoServices}`),
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

describe('Patient → Search by Mobile', () => {
	it('tolerates formatting and returns one item per profile', async () => {
		const output = await run(patientSearch('98765-43 210'));
		expect(output).toHaveLength(2);
		expect(api.requestsTo('/dr/v1/business/patients/search')[0].query.mobile).toBe(
			FIXTURE_IDS.mobileWithTwoProfiles,
		);
		expect(output[0].json).toEqual(
			expect.objectContaining({
				name: expect.any(String),
				patient_profile: expect.objectContaining({ gender: expect.any(String) }),
			}),
		);
	});

	it('gives both documented response forms one shape', async () => {
		const fromProfiles = await run(patientSearch(FIXTURE_IDS.mobileWithTwoProfiles));
		api.setOptions({ patientsForm: 'patients' });
		const fromPatients = await run(patientSearch(FIXTURE_IDS.mobileWithTwoProfiles));
		const keys = (items: INodeExecutionData[]) =>
			items.map((item) => [
				Object.keys(item.json).sort(),
				Object.keys(item.json.patient_profile as object).sort(),
			]);
		expect(keys(fromPatients)).toEqual(keys(fromProfiles));
		expect(
			fromPatients.map((item) => (item.json.patient_profile as { gender: unknown }).gender),
		).toEqual(
			fromProfiles.map((item) => (item.json.patient_profile as { gender: unknown }).gender),
		);
		expect(
			fromPatients.map((item) => (item.json.patient_profile as { gender: unknown }).gender),
		).not.toContain(null);
	});

	it('simplifies to a flat record when asked', async () => {
		const output = await run(patientSearch(FIXTURE_IDS.mobileWithGenderO, { simplify: true }));
		expect(output[0].json).toEqual(
			expect.objectContaining({ gender: 'O', mobile: expect.any(String) }),
		);
		expect(output[0].json.patient_profile).toBeUndefined();
	});

	it.each([
		['12345', 'has 5 digits'],
		['+91 98765 43210', 'country code'],
		['98765abc10', 'characters other than digits'],
		['', 'is empty'],
	])('refuses %p before any request', async (mobile, problem) => {
		const error = await run(patientSearch(mobile)).catch((caught: Error) => caught);
		expect((error as Error).message).toContain(problem);
		expect((error as Error).message).toContain('Mobile Number');
		expect(api.requestsTo('/dr/')).toHaveLength(0);
	});

	it('treats PATIENTS_NOT_FOUND as no items, or as an error when asked', async () => {
		expect(await run(patientSearch(FIXTURE_IDS.unknownMobile))).toEqual([]);
		const error = (await run(
			patientSearch(FIXTURE_IDS.unknownMobile, { options: { failWhenNotFound: true } }),
		).catch((caught: Error) => caught)) as Error & { httpCode?: string };
		expect(error.message).toContain('404 PATIENTS_NOT_FOUND');
		expect(error.httpCode).toBe('404');
		expect(error.message).not.toContain(FIXTURE_IDS.unknownMobile);
	});

	it('explains UNAUTHORIZED_ACCESS', async () => {
		api.injectFault({
			path: '/dr/v1/business/patients/search',
			fault: { kind: 'status', status: 403 },
		});
		const error = (await run(patientSearch(FIXTURE_IDS.mobileWithTwoProfiles)).catch(
			(caught: Error) => caught,
		)) as Error & {
			description?: string;
		};
		expect(error.message).toContain('403 UNAUTHORIZED_ACCESS');
		expect(error.description).toContain('permission');
	});

	it('never repeats the searched number, even when the API echoes it in its error', async () => {
		const mobile = FIXTURE_IDS.mobileWithTwoProfiles;
		const body = {
			status_code: 403,
			success: false,
			data: {},
			error: { code: 'UNAUTHORIZED_ACCESS', message: `caller may not search ${mobile}` },
		};
		api.injectFault({
			path: '/dr/v1/business/patients/search',
			fault: { kind: 'status', status: 403, body },
		});
		const error = (await run(patientSearch(mobile)).catch((caught: Error) => caught)) as Error & {
			description?: string;
		};
		expect(error.message).toContain('caller may not search [redacted]');
		expect(`${error.message} ${error.description} ${JSON.stringify(error)}`).not.toContain(mobile);
	});

	it('with Continue On Fail, gives a failing item its error and the others their results', async () => {
		const items = [
			{ json: { mobile: FIXTURE_IDS.mobileWithTwoProfiles } },
			{ json: { mobile: '123' } },
			{ json: { mobile: FIXTURE_IDS.mobileWithGenderO } },
		];
		const output = await run(
			patientSearch((index: number) => items[index].json.mobile),
			{ items, continueOnFail: true },
		);
		expect(output.map((item) => (item.pairedItem as { item: number }).item)).toEqual([0, 0, 1, 2]);
		expect(output[2].json.error).toContain('has 3 digits');
		expect(output[3].json.patient_profile).toEqual(expect.objectContaining({ gender: 'O' }));
	});
});

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
		api.injectFault({ path: '/dr/v1/business/entities', fault: { kind: 'status', status: 404 } });
		await expect(run(entities('entities'))).rejects.toThrow('404 BUSINESS_NOT_FOUND');
		api.injectFault({ path: '/dr/v1/business/entities', fault: { kind: 'status', status: 403 } });
		await expect(run(entities('entities'))).rejects.toThrow('403 UNAUTHORIZED_ACCESS');
	});

	it('retries a 500 and succeeds; gives up with SERVER_ERROR after the bounded attempts', async () => {
		api.injectFault({ path: '/dr/v1/business/entities', fault: { kind: 'status', status: 500 } });
		expect(await run(entities('doctors'))).toHaveLength(4);
		expect(api.requestsTo('/dr/v1/business/entities')).toHaveLength(2);

		api.reset();
		api.injectFault({
			path: '/dr/v1/business/entities',
			times: Infinity,
			fault: { kind: 'status', status: 500 },
		});
		const error = (await run(entities('doctors')).catch((caught: Error) => caught)) as Error & {
			description?: string;
		};
		expect(error.message).toContain('500 SERVER_ERROR');
		expect(error.description).toContain(`tried ${PRODUCTION_POLICY.retry.attempts} times`);
		expect(api.requestsTo('/dr/v1/business/entities')).toHaveLength(
			PRODUCTION_POLICY.retry.attempts,
		);
	});

	it('honours Retry-After on 429, and retries dropped connections', async () => {
		api.injectFault({
			path: '/dr/v1/business/entities',
			fault: { kind: 'status', status: 429, headers: { 'Retry-After': '0' } },
		});
		api.injectFault({ path: '/dr/v1/business/entities', fault: { kind: 'drop' } });
		expect(await run(entities('clinics'))).toHaveLength(2);
		expect(api.requestsTo('/dr/v1/business/entities')).toHaveLength(3);
	});

	it('says so when the body is not JSON', async () => {
		api.injectFault({ path: '/dr/v1/business/entities', fault: { kind: 'malformed' } });
		await expect(run(entities('clinics'))).rejects.toThrow('not the documented JSON');
	});
});

describe('credential', () => {
	it('exchanges once for many items and several executions', async () => {
		const store = credentials();
		const items = Array.from({ length: 25 }, () => ({ json: {} }));
		await run(entities('entities'), { store, items });
		await run(entities('doctors'), { store });
		expect(api.counters.tokenExchanges).toBe(1);
		expect(api.requestsTo('/dr/v1/business/entities')).toHaveLength(26);
		const [exchange] = api.requestsTo('/api/v1/auth/token');
		expect(exchange.headers['x-api-key']).toBe(api.validCredentials.apiKey);
		expect(exchange.body).toEqual({
			client_id: api.validCredentials.clientId,
			client_secret: api.validCredentials.clientSecret,
			grant_type: 'client_credentials',
		});
	});

	it('renews an expired token with the refresh token, then by exchange when that fails too', async () => {
		const store = credentials();
		await run(entities('entities'), { store });
		api.expireAccessTokens();
		expect(await run(entities('clinics'), { store })).toHaveLength(2);
		expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 1 });

		api.expireAccessTokens();
		api.expireRefreshTokens();
		expect(await run(entities('clinics'), { store })).toHaveLength(2);
		expect(api.counters).toEqual({ tokenExchanges: 2, tokenRefreshes: 1 });
	});

	it.each([
		['clientSecret', 'wrong-secret-value', 'the Client Secret'],
		['clientId', 'nobody', 'the Client ID'],
		['apiKey', 'wrong-api-key-value', 'the Workspace API Key'],
	])('names the rejected %s without echoing any secret', async (field, value, named) => {
		const store = credentials({ [field]: value });
		const error = (await run(entities('entities'), { store }).catch(
			(caught: Error) => caught,
		)) as Error;
		expect(error.message).toContain(`rejected ${named}`);
		for (const secret of [
			'wrong-secret-value',
			'wrong-api-key-value',
			api.validCredentials.clientSecret,
			api.validCredentials.apiKey,
		]) {
			expect(error.message).not.toContain(secret);
		}
		expect(api.requestsTo('/dr/')).toHaveLength(0);
	});

	it('uses the public login flow and sends the client id on calls', async () => {
		const store = credentials({ apiVariant: 'public' });
		await run(entities('entities'), { store });
		const [login] = api.requestsTo('/connect-auth/v1/account/login');
		expect(login.body).toEqual({
			client_id: api.validCredentials.clientId,
			client_secret: api.validCredentials.clientSecret,
			api_key: api.validCredentials.apiKey,
		});
		expect(login.headers['x-api-key']).toBeUndefined();
		expect(api.requestsTo('/dr/v1/business/entities')[0].headers['client-id']).toBe(
			api.validCredentials.clientId,
		);
	});

	it('uses a ready access token as it is, with no exchange', async () => {
		const store = credentials({
			authMethod: 'accessToken',
			accessToken: api.validCredentials.staticToken,
		});
		expect(await run(entities('doctors'), { store })).toHaveLength(4);
		expect(api.counters.tokenExchanges).toBe(0);
		expect(api.requestsTo('/dr/v1/business/entities')[0].headers.auth).toBe(
			api.validCredentials.staticToken,
		);
	});

	it('lists doctors for the Doctor picker, filtered by name', async () => {
		const { context } = createExecuteContext({ credentials: credentials(), parameters: {} });
		const all = await node.methods.listSearch.searchDoctors.call(context as never);
		expect(all.results).toHaveLength(4);
		const filtered = await node.methods.listSearch.searchDoctors.call(context as never, 'neha');
		expect(filtered.results).toEqual([{ name: 'Dr. Neha Iyer', value: 'do1003' }]);
	});

	it('finds a doctor by an ID with capitals, whatever the case of the search text', async () => {
		const entities = {
			clinics: [],
			doctors: [
				{ name: 'Dr. Asha Rao', doctor_id: 'DR-Asha-01' },
				{ name: 'Dr. Vikram Mehta', doctor_id: 'DR-Vikram-02' },
			],
		};
		api.injectFault({
			method: 'GET',
			path: '/dr/v1/business/entities',
			times: Infinity,
			fault: {
				kind: 'status',
				status: 200,
				body: { status_code: 200, success: true, data: entities },
			},
		});
		const { context } = createExecuteContext({ credentials: credentials(), parameters: {} });
		for (const search of ['dr-asha', 'DR-ASHA-01', 'Asha-01']) {
			expect(
				(await node.methods.listSearch.searchDoctors.call(context as never, search)).results,
			).toEqual([{ name: 'Dr. Asha Rao', value: 'DR-Asha-01' }]);
		}
	});
});
