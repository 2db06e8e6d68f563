import { startFakeClinicApi } from '../../fake-api/server';
import type { FakeClinicApi } from '../../fake-api/server';
import { accessToken, call, getWithToken, postJson } from './helpers';

const ENTITIES = '/dr/v1/business/entities';

let api: FakeClinicApi;
beforeAll(async () => {
	api = await startFakeClinicApi();
});
afterAll(() => api.close());
beforeEach(() => api.reset());

const admin = (path: string, init?: RequestInit) => call(api, `/__admin${path}`, init);
const adminPost = (path: string, body?: unknown) =>
	postJson(api, `/__admin${path}`, body === undefined ? '' : body);

describe('/__admin/ over HTTP', () => {
	test('GET requests lists recorded requests (never admin ones), filtered by path, regex, method, since', async () => {
		const { access } = await accessToken(api);
		await getWithToken(api, ENTITIES, access);
		await getWithToken(api, '/dr/v1/doctor/service/a%20b%2Fc', access);
		await admin('/stats');

		const all = await admin('/requests');
		expect(all.status).toBe(200);
		expect(all.json.map((r: { path: string }) => r.path)).toEqual([
			'/api/v1/auth/token',
			ENTITIES,
			'/dr/v1/doctor/service/a%20b%2Fc',
		]);
		expect(all.json[0].body.grant_type).toBe('client_credentials');
		expect((await admin('/requests?path=/dr/')).json).toHaveLength(2);
		expect(
			(await admin(`/requests?path=${encodeURIComponent('^/dr/.*SERVICE/a b')}&regex=true&flags=i`))
				.json,
		).toHaveLength(1);
		expect((await admin('/requests?method=post')).json).toHaveLength(1);
		expect(
			(await admin(`/requests?since=${all.json[1].id}`)).json.map((r: { path: string }) => r.path),
		).toEqual(['/dr/v1/doctor/service/a%20b%2Fc']);
		expect(api.requests).toHaveLength(3);
	});

	test('POST faults accepts a RegExp as string with regex:true and flags, times "Infinity"; GET and DELETE faults', async () => {
		const added = await adminPost('/faults', {
			method: 'GET',
			path: '^/DR/v1/business/ENTITIES$',
			regex: true,
			flags: 'i',
			times: 'Infinity',
			fault: { kind: 'status', status: 503, headers: { 'retry-after': '1' } },
		});
		expect(added.status).toBe(201);
		const token = api.validCredentials.staticToken;
		for (let i = 0; i < 3; i++) {
			const res = await getWithToken(api, ENTITIES, token);
			expect(res.status).toBe(503);
			expect(res.headers.get('retry-after')).toBe('1');
		}
		expect((await admin('/faults')).json).toEqual([
			// path is the RegExp's source (slashes come back escaped: same pattern)
			{
				method: 'GET',
				path: new RegExp('^/DR/v1/business/ENTITIES$').source,
				regex: true,
				flags: 'i',
				times: 'Infinity',
				fault: { kind: 'status', status: 503, headers: { 'retry-after': '1' } },
			},
		]);
		expect((await admin('/faults', { method: 'DELETE' })).status).toBe(200);
		expect((await getWithToken(api, ENTITIES, token)).status).toBe(200);

		// a list of faults at once; string path = prefix; default times 1
		await adminPost('/faults', [
			{ path: '/dr/', fault: { kind: 'drop' } },
			{ path: '/dr/', fault: { kind: 'malformed' } },
		]);
		await expect(getWithToken(api, ENTITIES, token)).rejects.toThrow();
		expect((await getWithToken(api, ENTITIES, token)).json).toBeUndefined();
		expect((await getWithToken(api, ENTITIES, token)).status).toBe(200);
	});

	test('POST faults refuses invalid faults with 400 and adds nothing', async () => {
		for (const bad of [
			{ path: '/', fault: { kind: 'status', status: 42 } },
			{ path: '(', regex: true, fault: { kind: 'drop' } },
			{ fault: { kind: 'drop' } },
			{ path: '/', times: 0, fault: { kind: 'drop' } },
			[
				{ path: '/', fault: { kind: 'drop' } },
				{ path: '/', fault: { kind: 'nope' } },
			],
		]) {
			const res = await adminPost('/faults', bad);
			expect(res.status).toBe(400);
			expect(res.json.error).toEqual(expect.any(String));
		}
		expect(api.pendingFaults()).toEqual([]);
		expect((await postJson(api, '/__admin/faults', '{not json')).status).toBe(400);
	});

	test('POST expire-tokens: access tokens by default, refresh tokens on request', async () => {
		const first = await accessToken(api);
		expect((await adminPost('/expire-tokens')).json).toEqual({
			ok: true,
			access: true,
			refresh: false,
		});
		expect((await getWithToken(api, ENTITIES, first.access)).status).toBe(401);
		const refreshed = await postJson(api, '/connect-auth/v1/account/refresh-token', {
			refresh_token: first.refresh,
		});
		expect(refreshed.status).toBe(200);
		await adminPost('/expire-tokens', { access: false, refresh: true });
		expect((await getWithToken(api, ENTITIES, refreshed.json.access_token)).status).toBe(200);
		expect(
			(
				await postJson(api, '/connect-auth/v1/account/refresh-token', {
					refresh_token: refreshed.json.refresh_token,
				})
			).status,
		).toBe(401);
		expect((await adminPost('/expire-tokens', { access: 'yes' })).status).toBe(400);
	});

	test('POST options changes response forms at run time; invalid values are 400; GET options', async () => {
		const res = await adminPost('/options', {
			patientsForm: 'patients',
			servicesForm: 'object',
			accessTokenLifetimeSeconds: 60,
		});
		expect(res.status).toBe(200);
		expect(res.json).toEqual(
			expect.objectContaining({
				patientsForm: 'patients',
				servicesForm: 'object',
				accessTokenLifetimeSeconds: 60,
			}),
		);
		expect(api.options.patientsForm).toBe('patients');
		const token = api.validCredentials.staticToken;
		expect(
			(await getWithToken(api, '/dr/v1/business/patients/search?mobile=9876543210', token)).json
				.data.patients,
		).toHaveLength(2);
		expect((await admin('/options')).json.servicesForm).toBe('object');
		expect((await adminPost('/options', { variant: 'sandbox' })).status).toBe(400);
		expect((await adminPost('/options', { port: 1 })).status).toBe(400);
		await adminPost('/options', { accessTokenLifetimeSeconds: null });
		expect(api.options.accessTokenLifetimeSeconds).toBeNull();
	});

	test('POST reset clears requests, faults and counters and restores options', async () => {
		await accessToken(api);
		api.setOptions({ servicesForm: 'object' });
		api.injectFault({ path: '/', fault: { kind: 'drop' } });
		expect((await adminPost('/reset')).json).toEqual({ ok: true });
		expect(api.requests).toHaveLength(0);
		expect(api.counters).toEqual({ tokenExchanges: 0, tokenRefreshes: 0 });
		expect(api.pendingFaults()).toEqual([]);
		expect(api.options.servicesForm).toBe('array');
	});

	test('GET stats and GET credentials', async () => {
		await accessToken(api);
		api.injectFault({ path: '/x', fault: { kind: 'drop' } });
		const stats = await admin('/stats');
		expect(stats.json).toEqual({
			counters: { tokenExchanges: 1, tokenRefreshes: 0 },
			requestCount: 1,
			pendingFaults: 1,
			options: expect.objectContaining({ variant: 'document' }),
			tokens: expect.objectContaining({ accessLive: expect.any(Number) }),
			uptimeMs: expect.any(Number),
		});
		const creds = await admin('/credentials');
		expect(creds.json.url).toBe(api.url);
		expect(creds.json.credentials).toEqual(api.validCredentials);
	});

	test('unknown admin endpoints are 404; faults never hit admin endpoints', async () => {
		expect((await admin('/nope')).status).toBe(404);
		expect((await admin('/requests', { method: 'POST' })).status).toBe(404);
		api.injectFault({ path: '/', times: Infinity, fault: { kind: 'drop' } });
		expect((await admin('/stats')).status).toBe(200);
	});
});
