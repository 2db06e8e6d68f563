import { startFakeClinicApi } from '../../fake-api/server';
import type { FakeClinicApi, RecordedRequest, RouteDefinition } from '../../fake-api/server';
import {
	accessToken,
	call,
	documentExchange,
	expectEnvelope,
	getWithToken,
	rawRequest,
} from './helpers';

const MiB = 1024 * 1024;

/** A 'raw' route as the later storage module will have: it streams the body, never buffers it. */
const chunksSeen: number[] = [];
const streamingUpload: RouteDefinition = {
	method: 'POST',
	pattern: '/test-storage/:bucket',
	body: 'raw',
	errorStyle: 'envelope',
	handler: async (ctx) => {
		let total = 0;
		let largestChunk = 0;
		for await (const chunk of ctx.rawBody()) {
			total += (chunk as Buffer).length;
			largestChunk = Math.max(largestChunk, (chunk as Buffer).length);
		}
		chunksSeen.push(largestChunk);
		ctx.sendJson(201, { bucket: ctx.params.bucket, received: total });
	},
};

const failing: RouteDefinition = {
	method: 'GET',
	pattern: '/test-throws',
	body: 'none',
	errorStyle: 'envelope',
	handler: () => {
		throw new Error('boom');
	},
};

let api: FakeClinicApi;
beforeAll(async () => {
	api = await startFakeClinicApi({ extraRoutes: [streamingUpload, failing] });
});
afterAll(() => api.close());
beforeEach(() => api.reset());

describe('request recording', () => {
	test('records method, raw and decoded path, query, lower-case headers, JSON body, time and status', async () => {
		const before = Date.now();
		await documentExchange(api);
		await call(api, '/dr/v1/doctor/service/x%2Fy?a=1&b=%20&a=2', {
			headers: { Auth: 'T', 'X-Custom': 'v' },
		});
		const [exchange, services] = api.requests;
		expect(exchange).toEqual(
			expect.objectContaining({
				id: expect.any(Number),
				method: 'POST',
				path: '/api/v1/auth/token',
				pathname: '/api/v1/auth/token',
				query: {},
				body: {
					client_id: api.validCredentials.clientId,
					client_secret: api.validCredentials.clientSecret,
					grant_type: 'client_credentials',
				},
				status: 200,
				route: '/api/v1/auth/token',
			}),
		);
		expect(exchange.headers['x-api-key']).toBe(api.validCredentials.apiKey);
		expect(exchange.headers['content-type']).toBe('application/json');
		const sentBody = {
			client_id: api.validCredentials.clientId,
			client_secret: api.validCredentials.clientSecret,
			grant_type: 'client_credentials',
		};
		expect(exchange.bodyLength).toBe(Buffer.byteLength(JSON.stringify(sentBody)));
		expect(exchange.time).toBeGreaterThanOrEqual(before);
		expect(services.url).toBe('/dr/v1/doctor/service/x%2Fy?a=1&b=%20&a=2');
		expect(services.path).toBe('/dr/v1/doctor/service/x%2Fy');
		expect(services.pathname).toBe('/dr/v1/doctor/service/x/y');
		expect(services.query).toEqual({ a: ['1', '2'], b: ' ' });
		expect(services.headers.auth).toBe('T');
		expect(services.headers['x-custom']).toBe('v');
		expect(services.body).toBeUndefined();
		expect(services.status).toBe(401);
		expect(services.id).toBe(exchange.id + 1);
	});

	test('the response carries x-request-id = the record id', async () => {
		const res = await call(api, '/nowhere');
		expect(res.headers.get('x-request-id')).toBe(String(api.requests[0].id));
	});

	test('a non-JSON body is recorded as its byte length', async () => {
		await call(api, '/api/v1/auth/token', {
			method: 'POST',
			headers: { 'content-type': 'text/plain' },
			body: 'hello',
		});
		await call(api, '/api/v1/auth/token', {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{broken',
		});
		// (Node's client frames a GET body only with an explicit Content-Length)
		await rawRequest(api, {
			method: 'GET',
			path: '/dr/v1/business/entities',
			headers: { 'content-length': '3' },
			body: 'abc',
		});
		expect(api.requests.map((r) => [r.body, r.bodyLength])).toEqual([
			[5, 5],
			[7, 7],
			[3, 3],
		]);
	});

	test('requestsTo filters by pathname prefix or RegExp, and method', async () => {
		const { access } = await accessToken(api);
		await getWithToken(api, '/dr/v1/business/entities', access);
		await getWithToken(api, '/dr/v1/doctor/service/a%20b', access);
		await call(api, '/dr/v1/business/entities', { method: 'DELETE' });
		expect(api.requestsTo('/dr/')).toHaveLength(3);
		expect(api.requestsTo('/dr/', 'get')).toHaveLength(2);
		expect(api.requestsTo('/dr/v1/doctor/service/a b')).toHaveLength(1);
		expect(api.requestsTo(/entities$/, 'DELETE')).toHaveLength(1);
		expect(api.requestsTo('/api/v1/auth/token', 'POST')).toHaveLength(1);
	});

	test('the oldest records are dropped beyond maxRecordedRequests', async () => {
		const small = await startFakeClinicApi({ maxRecordedRequests: 3 });
		try {
			for (let i = 0; i < 5; i++) await call(small, `/n${i}`);
			expect(small.requests.map((r) => r.path)).toEqual(['/n2', '/n3', '/n4']);
		} finally {
			await small.close();
		}
	});

	test('onRequestDone sees each finished request', async () => {
		const seen: RecordedRequest[] = [];
		const other = await startFakeClinicApi({ onRequestDone: (r) => seen.push(r) });
		try {
			await call(other, '/x');
			await new Promise((r) => setTimeout(r, 20));
			expect(seen.map((r) => [r.path, r.status])).toEqual([['/x', 404]]);
		} finally {
			await other.close();
		}
	});
});

describe('bodies', () => {
	test("a 'raw' route streams a body far larger than the JSON bound, chunk by chunk, and records its length", async () => {
		const size = 24 * MiB;
		const chunk = Buffer.alloc(256 * 1024, 0x61);
		const chunks = (function* () {
			for (let sent = 0; sent < size; sent += chunk.length) yield chunk;
		})();
		const res = await rawRequest(api, {
			method: 'POST',
			path: '/test-storage/b%201',
			headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) },
			body: chunks,
		});
		expect(res.status).toBe(201);
		expect(JSON.parse(res.text)).toEqual({ bucket: 'b 1', received: size });
		expect(chunksSeen.at(-1)).toBeLessThanOrEqual(1 * MiB); // never handed over as one buffer
		const [record] = api.requestsTo('/test-storage/');
		expect(record.body).toBe(size);
		expect(record.bodyLength).toBe(size);
	});

	test("a 'status' fault on a 'raw' route answers at once and discards the body unread", async () => {
		api.injectFault({
			path: '/test-storage/',
			fault: { kind: 'status', status: 403, body: '<Error>policy expired</Error>' },
		});
		const res = await rawRequest(api, {
			method: 'POST',
			path: '/test-storage/b',
			body: Buffer.alloc(3 * MiB),
		});
		expect(res.status).toBe(403);
		expect(res.text).toBe('<Error>policy expired</Error>');
	});

	test('a handler that throws gives a 500 SERVER_ERROR envelope and the server keeps serving', async () => {
		const res = await call(api, '/test-throws');
		expect(res.status).toBe(500);
		expect(res.json.error).toEqual({
			code: 'SERVER_ERROR',
			message: expect.stringContaining('boom'),
		});
		expect((await call(api, '/nowhere')).status).toBe(404);
	});
});

describe('options and reset', () => {
	test('setOptions validates; reset restores start options, clears requests, faults and counters, keeps tokens', async () => {
		const other = await startFakeClinicApi({ patientsForm: 'patients' });
		try {
			expect(() => other.setOptions({ servicesForm: 'list' as never })).toThrow(/servicesForm/);
			expect(() => other.setOptions({ nope: 1 } as never)).toThrow(/unknown option nope/);
			expect(other.setOptions({ servicesForm: 'object', patientsForm: 'profiles' })).toEqual(
				expect.objectContaining({
					servicesForm: 'object',
					patientsForm: 'profiles',
					variant: 'document',
				}),
			);
			const { access } = await accessToken(other);
			other.injectFault({ path: '/', fault: { kind: 'drop' } });
			const requests = other.requests;
			const counters = other.counters;
			other.reset();
			expect(requests).toHaveLength(0); // the same arrays/objects, cleared in place
			expect(counters).toEqual({ tokenExchanges: 0, tokenRefreshes: 0 });
			expect(other.pendingFaults()).toEqual([]);
			expect(other.options).toEqual(
				expect.objectContaining({ servicesForm: 'array', patientsForm: 'patients' }),
			);
			expect((await getWithToken(other, '/dr/v1/business/entities', access)).status).toBe(200);
		} finally {
			await other.close();
		}
	});

	test('invalid start options are refused', async () => {
		await expect(startFakeClinicApi({ variant: 'other' as never })).rejects.toThrow(/variant/);
	});

	test('close() is idempotent and ends keep-alive connections', async () => {
		const other = await startFakeClinicApi();
		await call(other, '/x'); // fetch keeps the connection alive
		await other.close();
		await other.close();
		await expect(call(other, '/x')).rejects.toThrow();
	});
});

describe('routing', () => {
	let token: string;
	beforeEach(async () => {
		token = (await accessToken(api)).access;
		api.reset(); // the requests recorded start with the test's own
	});

	test('unknown paths are 404 and wrong methods 405 with Allow', async () => {
		expectEnvelope(await call(api, '/dr/v2/business/entities'), 404, 'NOT_FOUND');
		expectEnvelope(await call(api, '/'), 404, 'NOT_FOUND');
		const post = await call(api, '/dr/v1/business/entities', {
			method: 'POST',
			headers: { auth: token },
			body: '{}',
		});
		expectEnvelope(post, 405, 'METHOD_NOT_ALLOWED');
		expect(post.headers.get('allow')).toBe('GET');
		const head = await rawRequest(api, {
			method: 'HEAD',
			path: '/dr/v1/business/entities',
			headers: { auth: token },
		});
		expect(head.status).toBe(405);
		expect(api.requests.map((r) => r.status)).toEqual([404, 404, 405, 405]);
	});

	test('paths are case-sensitive', async () => {
		expectEnvelope(await getWithToken(api, '/DR/v1/business/entities', token), 404, 'NOT_FOUND');
	});
});
