import { startFakeClinicApi } from '../../fake-api/server';
import { FIXTURE_IDS } from '../../fake-api/fixtures';
import type { FakeClinicApi } from '../../fake-api/server';
import { decodeJwtPayload } from '../../fake-api/tokens';
import {
	accessToken,
	call,
	documentExchange,
	expectAuthError,
	expectEnvelope,
	getWithToken,
	postJson,
	publicLogin,
	rawRequest,
} from './helpers';

const ENTITIES = '/dr/v1/business/entities';

let api: FakeClinicApi;
beforeAll(async () => {
	api = await startFakeClinicApi();
});
afterAll(() => api.close());
beforeEach(() => api.reset());

describe('document token flow (4.5): POST /api/v1/auth/token', () => {
	test('valid exchange answers exactly {access_token, refresh_token, expires_in} with a JWT-shaped token', async () => {
		const res = await documentExchange(api);
		expect(res.status).toBe(200);
		expect(Object.keys(res.json).sort()).toEqual(['access_token', 'expires_in', 'refresh_token']);
		expect(res.json.expires_in).toBe(3600);
		expect(res.headers.get('cache-control')).toBe('no-store');
		expect(res.json.access_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
		const payload = decodeJwtPayload(res.json.access_token);
		expect(payload).toEqual(
			expect.objectContaining({
				b_id: 'b-71523946',
				iat: expect.any(Number),
				exp: expect.any(Number),
			}),
		);
		expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
		expect(api.counters.tokenExchanges).toBe(1);
		expect((await getWithToken(api, ENTITIES, res.json.access_token)).status).toBe(200);
	});

	test('every exchange issues different random tokens', async () => {
		const a = await accessToken(api);
		const b = await accessToken(api);
		expect(a.access).not.toBe(b.access);
		expect(a.refresh).not.toBe(b.refresh);
		expect(api.counters.tokenExchanges).toBe(2);
	});

	test('missing or wrong X-API-KEY is 403 invalid_api_key, before anything else is looked at', async () => {
		expectAuthError(await documentExchange(api, undefined, {}), 403, 'invalid_api_key');
		expectAuthError(
			await documentExchange(api, undefined, { 'x-api-key': 'nope' }),
			403,
			'invalid_api_key',
		);
		expectAuthError(
			await documentExchange(api, { nonsense: true }, { 'x-api-key': 'nope' }),
			403,
			'invalid_api_key',
		);
		// the key in the body instead of the header does not count
		const c = api.validCredentials;
		const inBody = {
			client_id: c.clientId,
			client_secret: c.clientSecret,
			grant_type: 'client_credentials',
			api_key: c.apiKey,
		};
		expectAuthError(await documentExchange(api, inBody, {}), 403, 'invalid_api_key');
		expect(api.counters.tokenExchanges).toBe(0);
	});

	test('unknown client_id is 401 invalid_client_id; wrong secret is 401 invalid_client_secret; nothing is echoed', async () => {
		const c = api.validCredentials;
		const unknownId = await documentExchange(api, {
			client_id: 'someone-else',
			client_secret: c.clientSecret,
			grant_type: 'client_credentials',
		});
		expectAuthError(unknownId, 401, 'invalid_client_id');
		expect(unknownId.text).not.toContain('someone-else');
		expect(unknownId.text).not.toContain(c.clientSecret);

		const wrongSecret = await documentExchange(api, {
			client_id: c.clientId,
			client_secret: 'guess-1234',
			grant_type: 'client_credentials',
		});
		expectAuthError(wrongSecret, 401, 'invalid_client_secret');
		expect(wrongSecret.text).not.toContain('guess-1234');
		expect(wrongSecret.text).not.toContain(c.clientSecret);
		expect(wrongSecret.text).not.toContain(c.apiKey);
	});

	test.each([
		[
			'missing grant_type',
			(c: Creds) => ({ client_id: c.clientId, client_secret: c.clientSecret }),
			'invalid_request',
		],
		[
			'grant_type password',
			(c: Creds) => ({
				client_id: c.clientId,
				client_secret: c.clientSecret,
				grant_type: 'password',
			}),
			'unsupported_grant_type',
		],
		[
			'an extra field',
			(c: Creds) => ({
				client_id: c.clientId,
				client_secret: c.clientSecret,
				grant_type: 'client_credentials',
				scope: 'all',
			}),
			'invalid_request',
		],
		[
			'a number client_id',
			(c: Creds) => ({
				client_id: 42,
				client_secret: c.clientSecret,
				grant_type: 'client_credentials',
			}),
			'invalid_request',
		],
		[
			'an empty client_secret',
			(c: Creds) => ({
				client_id: c.clientId,
				client_secret: '',
				grant_type: 'client_credentials',
			}),
			'invalid_request',
		],
		[
			'camelCase field names',
			(c: Creds) => ({
				clientId: c.clientId,
				clientSecret: c.clientSecret,
				grantType: 'client_credentials',
			}),
			'invalid_request',
		],
		['an array body', () => [1, 2], 'invalid_request'],
		['invalid JSON', () => '{"client_id": ', 'invalid_request'],
	])('%s is 400 %s', async (_name, body, code) => {
		expectAuthError(await documentExchange(api, body(api.validCredentials)), 400, code);
	});

	test('a body that is not declared as JSON is rejected (415), even when it holds valid JSON', async () => {
		const c = api.validCredentials;
		const json = JSON.stringify({
			client_id: c.clientId,
			client_secret: c.clientSecret,
			grant_type: 'client_credentials',
		});
		const asText = await call(api, '/api/v1/auth/token', {
			method: 'POST',
			headers: { 'x-api-key': c.apiKey, 'content-type': 'text/plain' },
			body: json,
		});
		expectAuthError(asText, 415, 'unsupported_media_type');
		const form = new URLSearchParams({
			client_id: c.clientId,
			client_secret: c.clientSecret,
			grant_type: 'client_credentials',
		});
		expectAuthError(
			await call(api, '/api/v1/auth/token', {
				method: 'POST',
				headers: { 'x-api-key': c.apiKey },
				body: form,
			}),
			415,
			'unsupported_media_type',
		);
		const noType = await rawRequest(api, {
			method: 'POST',
			path: '/api/v1/auth/token',
			headers: { 'x-api-key': c.apiKey },
			body: json,
		});
		expect(noType.status).toBe(415);
		const latin1 = await call(api, '/api/v1/auth/token', {
			method: 'POST',
			headers: { 'x-api-key': c.apiKey, 'content-type': 'application/json; charset=iso-8859-1' },
			body: json,
		});
		expect(latin1.status).toBe(415);
		// and JSON with a UTF-8 charset parameter is fine
		const utf8 = await documentExchange(api, json, {
			'x-api-key': c.apiKey,
			'content-type': 'application/json; charset=utf-8',
		});
		expect(utf8.status).toBe(200);
	});

	test('an empty body is 400', async () => {
		expectAuthError(await documentExchange(api, ''), 400, 'invalid_request');
	});

	test('GET on the token path is 405 with Allow: POST, in the auth error shape', async () => {
		const res = await call(api, '/api/v1/auth/token');
		expectAuthError(res, 405, 'method_not_allowed');
		expect(res.headers.get('allow')).toBe('POST');
	});

	test('a JSON body over 1 MiB is 413, with or without Content-Length', async () => {
		const big = JSON.stringify({
			client_id: 'x'.repeat(1024 * 1024),
			client_secret: 's',
			grant_type: 'client_credentials',
		});
		const withLength = await documentExchange(api, big);
		expectAuthError(withLength, 413, 'payload_too_large');
		const chunks = (function* () {
			for (let i = 0; i < 20; i++) yield Buffer.alloc(64 * 1024, 0x20);
		})();
		const chunked = await rawRequest(api, {
			method: 'POST',
			path: '/api/v1/auth/token',
			headers: { 'content-type': 'application/json', 'x-api-key': api.validCredentials.apiKey },
			body: chunks,
		});
		expect(chunked.status).toBe(413);
		const record = api.requestsTo('/api/v1/auth/token').at(-1)!;
		expect(record.bodyLength).toBeGreaterThan(1024 * 1024);
		expect(record.headers['transfer-encoding']).toBe('chunked');
	});
});

type Creds = FakeClinicApi['validCredentials'];

describe('public token flow: POST /connect-auth/v1/account/login', () => {
	test('answers {access_token, expires_in: 1800, refresh_token, refresh_expires_in} without any X-API-KEY header', async () => {
		const res = await publicLogin(api);
		expect(res.status).toBe(200);
		expect(Object.keys(res.json).sort()).toEqual([
			'access_token',
			'expires_in',
			'refresh_expires_in',
			'refresh_token',
		]);
		expect(res.json.expires_in).toBe(1800);
		expect(res.json.refresh_expires_in).toBeGreaterThan(1800);
		expect(decodeJwtPayload(res.json.access_token).b_id).toBe('b-71523946');
		expect((await getWithToken(api, ENTITIES, res.json.access_token)).status).toBe(200);
		expect(api.requestsTo('/connect-auth/v1/account/login', 'POST')).toHaveLength(1);
		expect(api.requestsTo('/api/v1/auth/token')).toHaveLength(0);
	});

	test('the workspace key may come as api_key or sharing_key; a wrong one is 403 invalid_api_key', async () => {
		const c = api.validCredentials;
		expect(
			(
				await publicLogin(api, {
					client_id: c.clientId,
					client_secret: c.clientSecret,
					api_key: c.apiKey,
				})
			).status,
		).toBe(200);
		expect(
			(
				await publicLogin(api, {
					client_id: c.clientId,
					client_secret: c.clientSecret,
					sharing_key: c.apiKey,
				})
			).status,
		).toBe(200);
		expectAuthError(
			await publicLogin(api, {
				client_id: c.clientId,
				client_secret: c.clientSecret,
				api_key: 'wrong',
			}),
			403,
			'invalid_api_key',
		);
		expectAuthError(
			await publicLogin(api, {
				client_id: c.clientId,
				client_secret: c.clientSecret,
				sharing_key: '',
			}),
			403,
			'invalid_api_key',
		);
		expectAuthError(
			await publicLogin(api, {
				client_id: c.clientId,
				client_secret: c.clientSecret,
				api_key: null,
			}),
			400,
			'invalid_request',
		);
	});

	test('same client errors as the document flow; document-only fields are rejected', async () => {
		const c = api.validCredentials;
		expectAuthError(
			await publicLogin(api, { client_id: 'nobody', client_secret: c.clientSecret }),
			401,
			'invalid_client_id',
		);
		expectAuthError(
			await publicLogin(api, { client_id: c.clientId, client_secret: 'nope' }),
			401,
			'invalid_client_secret',
		);
		expectAuthError(
			await publicLogin(api, {
				client_id: c.clientId,
				client_secret: c.clientSecret,
				grant_type: 'client_credentials',
			}),
			400,
			'invalid_request',
		);
		expectAuthError(await publicLogin(api, { client_id: c.clientId }), 400, 'invalid_request');
	});

	test('accessTokenLifetimeSeconds overrides both flows', async () => {
		api.setOptions({ accessTokenLifetimeSeconds: 120 });
		expect((await publicLogin(api)).json.expires_in).toBe(120);
		expect((await documentExchange(api)).json.expires_in).toBe(120);
	});

	test('rejectOtherTokenFlow makes the other variant’s token endpoint 404', async () => {
		api.setOptions({ rejectOtherTokenFlow: true });
		expectEnvelope(await publicLogin(api), 404, 'NOT_FOUND');
		expect((await documentExchange(api)).status).toBe(200);
		api.setOptions({ variant: 'public' });
		expectEnvelope(await documentExchange(api), 404, 'NOT_FOUND');
		expect((await publicLogin(api)).status).toBe(200);
		expect(api.counters.tokenExchanges).toBe(2);
	});
});

describe('refresh: POST /connect-auth/v1/account/refresh-token', () => {
	test('a refresh token gives a new working pair, also after every access token expired', async () => {
		const first = await accessToken(api);
		api.expireAccessTokens();
		expectEnvelope(await getWithToken(api, ENTITIES, first.access), 401, 'UNAUTHORIZED');

		const res = await postJson(api, '/connect-auth/v1/account/refresh-token', {
			refresh_token: first.refresh,
			access_token: first.access,
		});
		expect(res.status).toBe(200);
		expect(Object.keys(res.json).sort()).toEqual([
			'access_token',
			'expires_in',
			'refresh_expires_in',
			'refresh_token',
		]);
		expect(res.json.expires_in).toBe(3600); // keeps the lifetime of the flow that issued the pair
		expect(res.json.access_token).not.toBe(first.access);
		expect((await getWithToken(api, ENTITIES, res.json.access_token)).status).toBe(200);
		expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 1 });
		// the old access token stays dead
		expect((await getWithToken(api, ENTITIES, first.access)).status).toBe(401);
	});

	test('refresh_token alone is enough; refresh tokens are reusable unless rotation is on', async () => {
		const { refresh } = await accessToken(api);
		expect(
			(await postJson(api, '/connect-auth/v1/account/refresh-token', { refresh_token: refresh }))
				.status,
		).toBe(200);
		expect(
			(await postJson(api, '/connect-auth/v1/account/refresh-token', { refresh_token: refresh }))
				.status,
		).toBe(200);
		api.setOptions({ rotateRefreshTokens: true });
		const rotated = await postJson(api, '/connect-auth/v1/account/refresh-token', {
			refresh_token: refresh,
		});
		expect(rotated.status).toBe(200);
		expectAuthError(
			await postJson(api, '/connect-auth/v1/account/refresh-token', { refresh_token: refresh }),
			401,
			'invalid_refresh_token',
		);
		expect(
			(
				await postJson(api, '/connect-auth/v1/account/refresh-token', {
					refresh_token: rotated.json.refresh_token,
				})
			).status,
		).toBe(200);
	});

	test('unknown or expired refresh tokens are 401 invalid_refresh_token; bad bodies 400/415', async () => {
		const { refresh } = await accessToken(api);
		expectAuthError(
			await postJson(api, '/connect-auth/v1/account/refresh-token', {
				refresh_token: 'rt.made-up',
			}),
			401,
			'invalid_refresh_token',
		);
		expectAuthError(
			await postJson(api, '/connect-auth/v1/account/refresh-token', {}),
			400,
			'invalid_request',
		);
		expectAuthError(
			await postJson(api, '/connect-auth/v1/account/refresh-token', {
				refresh_token: refresh,
				grant_type: 'refresh_token',
			}),
			400,
			'invalid_request',
		);
		expectAuthError(
			await call(api, '/connect-auth/v1/account/refresh-token', {
				method: 'POST',
				body: JSON.stringify({ refresh_token: refresh }),
			}),
			415,
			'unsupported_media_type',
		);
		api.expireRefreshTokens();
		expectAuthError(
			await postJson(api, '/connect-auth/v1/account/refresh-token', { refresh_token: refresh }),
			401,
			'invalid_refresh_token',
		);
		expect(api.counters.tokenRefreshes).toBe(0);
	});
});

describe('access token validity', () => {
	test('tokens expire by time', async () => {
		api.setOptions({ accessTokenLifetimeSeconds: 1 });
		const { access, refresh } = await accessToken(api);
		expect((await getWithToken(api, ENTITIES, access)).status).toBe(200);
		await new Promise((r) => setTimeout(r, 1100));
		expectEnvelope(await getWithToken(api, ENTITIES, access), 401, 'UNAUTHORIZED');
		expect(
			(await postJson(api, '/connect-auth/v1/account/refresh-token', { refresh_token: refresh }))
				.status,
		).toBe(200);
	});

	test('the static console token is always valid, also after expireAccessTokens', async () => {
		api.expireAccessTokens();
		expect((await getWithToken(api, ENTITIES, api.validCredentials.staticToken)).status).toBe(200);
	});

	test('a forged JWT-shaped token with a future exp is rejected: tokens are tracked server-side', async () => {
		const { access } = await accessToken(api);
		const [header, , signature] = access.split('.');
		const payload = Buffer.from(
			JSON.stringify({ sub: 'x', b_id: 'b-71523946', iat: 1, exp: 4102444800 }),
		).toString('base64url');
		expectEnvelope(
			await getWithToken(api, ENTITIES, `${header}.${payload}.${signature}`),
			401,
			'UNAUTHORIZED',
		);
	});

	test('credentials can be overridden at start', async () => {
		const other = await startFakeClinicApi({
			credentials: { clientId: 'c2', clientSecret: 's2', apiKey: 'k2', staticToken: 'static-2' },
		});
		try {
			expect(other.validCredentials).toEqual({
				clientId: 'c2',
				clientSecret: 's2',
				apiKey: 'k2',
				staticToken: 'static-2',
			});
			expect((await documentExchange(other)).status).toBe(200);
			expect((await getWithToken(other, ENTITIES, 'static-2')).status).toBe(200);
			expect((await getWithToken(other, ENTITIES, api.validCredentials.staticToken)).status).toBe(
				401,
			);
		} finally {
			await other.close();
		}
	});
});

const services = (doctorId: string) => `/dr/v1/doctor/service/${encodeURIComponent(doctorId)}`;
const search = (mobile: string) =>
	`/dr/v1/business/patients/search?mobile=${encodeURIComponent(mobile)}`;

describe('header auth on /dr (document §5): token raw in header `auth`', () => {
	// The /dr endpoints' shared check (authHeaderSubject, routes/auth.ts). A test expires every issued token.
	let token: string;
	beforeEach(async () => {
		token = (await accessToken(api)).access;
	});

	const paths = [
		services(FIXTURE_IDS.doctorWithServices),
		search(FIXTURE_IDS.mobileWithTwoProfiles),
		'/dr/v1/business/entities',
	];

	test.each(paths)(
		'%s: missing, Bearer-only, Bearer-prefixed, unknown or expired tokens are 401 "token expired or invalid"',
		async (path) => {
			const cases: Array<Record<string, string>> = [
				{},
				{ authorization: `Bearer ${token}` },
				{ auth: `Bearer ${token}` },
				{ auth: 'not-a-token' },
				{ 'x-auth': token },
			];
			for (const headers of cases) {
				const res = await call(api, path, { headers });
				expectEnvelope(res, 401, 'UNAUTHORIZED');
				expect(res.json.error.message).toBe('token expired or invalid');
			}
			const { access } = await accessToken(api);
			api.expireAccessTokens();
			expectEnvelope(await getWithToken(api, path, access), 401, 'UNAUTHORIZED');
		},
	);

	test('the token is checked before the doctor is looked up', async () => {
		expectEnvelope(await call(api, services(FIXTURE_IDS.unknownDoctor)), 401, 'UNAUTHORIZED');
	});
});
