import { startFakeClinicApi } from '../../fake-api/server';
import type { FakeClinicApi, FaultSpec } from '../../fake-api/server';
import {
	accessToken,
	call,
	documentExchange,
	expectAuthError,
	expectEnvelope,
	getWithToken,
	rawRequest,
} from './helpers';

const ENTITIES = '/dr/v1/business/entities';
const SEARCH = '/dr/v1/business/patients/search?mobile=9876543210';

let api: FakeClinicApi;
let token: string;
beforeAll(async () => {
	api = await startFakeClinicApi();
	token = api.validCredentials.staticToken;
});
afterAll(() => api.close());
beforeEach(() => api.reset());

describe("'status' faults", () => {
	test('a 500 answers the SERVER_ERROR envelope once, then the endpoint works again', async () => {
		api.injectFault({ path: ENTITIES, fault: { kind: 'status', status: 500 } });
		expectEnvelope(await getWithToken(api, ENTITIES, token), 500, 'SERVER_ERROR');
		expect((await getWithToken(api, ENTITIES, token)).status).toBe(200);
		expect(api.requests.map((r) => [r.status, r.fault])).toEqual([
			[500, 'status'],
			[200, undefined],
		]);
	});

	test('a 429 carries the given Retry-After header', async () => {
		api.injectFault({
			path: '/dr/',
			fault: { kind: 'status', status: 429, headers: { 'Retry-After': '3' } },
		});
		const res = await getWithToken(api, ENTITIES, token);
		expectEnvelope(res, 429, 'TOO_MANY_REQUESTS');
		expect(res.headers.get('retry-after')).toBe('3');
	});

	test('default error codes follow the route: BUSINESS_NOT_FOUND, PATIENTS_NOT_FOUND, UNAUTHORIZED_ACCESS, DOCTOR_NOT_FOUND', async () => {
		api.injectFault({ path: ENTITIES, fault: { kind: 'status', status: 404 } });
		api.injectFault({
			path: '/dr/v1/business/patients/search',
			fault: { kind: 'status', status: 404 },
		});
		api.injectFault({
			path: '/dr/v1/business/patients/search',
			fault: { kind: 'status', status: 403 },
		});
		api.injectFault({ path: '/dr/v1/doctor/service/', fault: { kind: 'status', status: 404 } });
		expectEnvelope(await getWithToken(api, ENTITIES, token), 404, 'BUSINESS_NOT_FOUND');
		expectEnvelope(await getWithToken(api, SEARCH, token), 404, 'PATIENTS_NOT_FOUND');
		expectEnvelope(await getWithToken(api, SEARCH, token), 403, 'UNAUTHORIZED_ACCESS');
		expectEnvelope(
			await getWithToken(api, '/dr/v1/doctor/service/do1001', token),
			404,
			'DOCTOR_NOT_FOUND',
		);
	});

	test('a given body is sent as is: JSON, or text when a string', async () => {
		const body = {
			status_code: 403,
			success: false,
			data: {},
			error: { code: 'UNAUTHORIZED_ACCESS', message: 'no permission' },
			message: 'top-level',
		};
		api.injectFault({ path: ENTITIES, fault: { kind: 'status', status: 403, body } });
		api.injectFault({
			path: ENTITIES,
			fault: {
				kind: 'status',
				status: 502,
				body: '<html>Bad Gateway</html>',
				headers: { 'content-type': 'text/html' },
			},
		});
		expect((await getWithToken(api, ENTITIES, token)).json).toEqual(body);
		const html = await getWithToken(api, ENTITIES, token);
		expect(html.status).toBe(502);
		expect(html.headers.get('content-type')).toBe('text/html');
		expect(html.text).toBe('<html>Bad Gateway</html>');
	});

	test('on the auth endpoints the default body is {code, error}', async () => {
		api.injectFault({ path: '/api/v1/auth/token', fault: { kind: 'status', status: 503 } });
		expectAuthError(await documentExchange(api), 503, 'service_unavailable');
		expect(api.counters.tokenExchanges).toBe(0);
		// the faulted request's JSON body is still recorded
		expect(api.requests[0].body).toEqual(
			expect.objectContaining({ grant_type: 'client_credentials' }),
		);
	});

	test('times, method and RegExp select what a fault hits', async () => {
		api.injectFault({
			method: 'POST',
			path: ENTITIES,
			times: 5,
			fault: { kind: 'status', status: 500 },
		});
		expect((await getWithToken(api, ENTITIES, token)).status).toBe(200); // GET not hit
		api.clearFaults();

		api.injectFault({
			method: 'get',
			path: /^\/dr\/v1\/business\/(entities|patients)/g,
			times: 2,
			fault: { kind: 'status', status: 500 },
		});
		expect((await getWithToken(api, SEARCH, token)).status).toBe(500);
		expect((await getWithToken(api, ENTITIES, token)).status).toBe(500);
		expect((await getWithToken(api, ENTITIES, token)).status).toBe(200);
		expect(api.pendingFaults()).toEqual([]);

		api.injectFault({ path: ENTITIES, times: Infinity, fault: { kind: 'status', status: 500 } });
		for (let i = 0; i < 4; i++) expect((await getWithToken(api, ENTITIES, token)).status).toBe(500);
		expect(api.pendingFaults()).toHaveLength(1);
	});

	test('faults are used in the order they were added', async () => {
		api.injectFault({ path: ENTITIES, fault: { kind: 'status', status: 500 } });
		api.injectFault({ path: '/dr', fault: { kind: 'status', status: 503 } });
		expect((await getWithToken(api, ENTITIES, token)).status).toBe(500);
		expect((await getWithToken(api, ENTITIES, token)).status).toBe(503);
	});

	test('a fault can stand in for an endpoint no route serves yet', async () => {
		api.injectFault({
			path: '/voice/api/v3/status/',
			fault: { kind: 'status', status: 202, body: { data: { output: [] } } },
		});
		const res = await call(api, '/voice/api/v3/status/txn-1');
		expect(res.status).toBe(202);
		expect(res.json).toEqual({ data: { output: [] } });
	});

	test('a 204 fault has no body', async () => {
		api.injectFault({ path: ENTITIES, fault: { kind: 'status', status: 204 } });
		const res = await getWithToken(api, ENTITIES, token);
		expect(res.status).toBe(204);
		expect(res.text).toBe('');
	});
});

describe("'drop', 'malformed' and 'delay' faults", () => {
	test("'drop' closes the connection without any answer", async () => {
		api.injectFault({ path: ENTITIES, fault: { kind: 'drop' } });
		await expect(getWithToken(api, ENTITIES, token)).rejects.toThrow();
		await expect(
			rawRequest(api, { method: 'GET', path: ENTITIES, headers: { auth: token } }),
		).resolves.toEqual(expect.objectContaining({ status: 200 }));
		expect(api.requests.map((r) => [r.fault, r.status])).toEqual([
			['drop', undefined],
			[undefined, 200],
		]);
	});

	test("'drop' on a JSON route first records the body", async () => {
		api.injectFault({ path: '/api/v1/auth/token', fault: { kind: 'drop' } });
		await expect(documentExchange(api)).rejects.toThrow();
		expect(api.requests[0].body).toEqual(
			expect.objectContaining({ grant_type: 'client_credentials' }),
		);
	});

	test("'malformed' answers 200 with a JSON content type and a body that does not parse", async () => {
		api.injectFault({ path: ENTITIES, fault: { kind: 'malformed' } });
		const res = await fetch(`${api.url}${ENTITIES}`, { headers: { auth: token } });
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toMatch(/^application\/json/);
		await expect(res.json()).rejects.toThrow();
	});

	test("'delay' holds the request, then answers normally", async () => {
		api.injectFault({ path: ENTITIES, fault: { kind: 'delay', ms: 300 } });
		const started = Date.now();
		const res = await getWithToken(api, ENTITIES, token);
		expect(Date.now() - started).toBeGreaterThanOrEqual(290);
		expect(res.status).toBe(200);
		expect(api.requests[0].fault).toBe('delay');
		const again = Date.now();
		await getWithToken(api, ENTITIES, token);
		expect(Date.now() - again).toBeLessThan(250);
	});

	test("a 'delay' still applies the endpoint's own checks (a bad token is still 401)", async () => {
		api.injectFault({ path: ENTITIES, fault: { kind: 'delay', ms: 50 } });
		expectEnvelope(await getWithToken(api, ENTITIES, 'bad'), 401, 'UNAUTHORIZED');
	});

	test('close() does not wait for a pending delay', async () => {
		const other = await startFakeClinicApi();
		other.injectFault({ path: '/', fault: { kind: 'delay', ms: 60_000 } });
		const pending = call(other, ENTITIES).catch((e: unknown) => e);
		await new Promise((r) => setTimeout(r, 100));
		const started = Date.now();
		await other.close();
		expect(Date.now() - started).toBeLessThan(1000);
		expect(((await pending) as Error).message).toMatch(/fetch failed/); // undici's TypeError: not this realm's Error
	});
});

describe('fault validation', () => {
	test.each<[string, FaultSpec]>([
		['no kind', { path: '/', fault: {} as never }],
		['unknown kind', { path: '/', fault: { kind: 'explode' } as never }],
		['status out of range', { path: '/', fault: { kind: 'status', status: 99 } }],
		['fractional status', { path: '/', fault: { kind: 'status', status: 500.5 } }],
		['negative delay', { path: '/', fault: { kind: 'delay', ms: -1 } }],
		['times 0', { path: '/', times: 0, fault: { kind: 'drop' } }],
		[
			'non-string header',
			{ path: '/', fault: { kind: 'status', status: 500, headers: { 'retry-after': 3 as never } } },
		],
		['no path', { fault: { kind: 'drop' } } as never],
	])('%s is refused', (_name, spec) => {
		expect(() => api.injectFault(spec)).toThrow();
		expect(api.pendingFaults()).toEqual([]);
	});

	test('a fresh token is unaffected by faults on other paths', async () => {
		api.injectFault({ path: '/dr/', times: Infinity, fault: { kind: 'status', status: 500 } });
		expect((await accessToken(api)).access).toEqual(expect.any(String));
	});
});
