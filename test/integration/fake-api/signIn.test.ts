/**
 * The fake sign-in (OIDC) provider on its own, over real HTTP: the whole code flow with its login
 * page, each check it makes (client, exact redirect URI, state, scope, PKCE when a challenge was
 * sent, one use per code,
 * client authentication in the body only), rotating refresh tokens, and its tokens on the API.
 */
import { createHash, randomBytes } from 'node:crypto';

import { SIGN_IN } from '../../fake-api/fixtures';
import { fakeSignIn, SIGN_IN_ROUTES } from '../../fake-api/routes/signIn';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { call, getWithToken, type HttpResult } from './helpers';

const REDIRECT_URI = 'http://127.0.0.1:5999/rest/oauth2-credential/callback';
const ENTITIES = '/dr/v1/business/entities';
const SUBSCRIPTIONS = '/notification/v1/connect/webhook/subscriptions';

let api: FakeClinicApi;
beforeAll(async () => {
	api = await startFakeClinicApi();
	fakeSignIn(api).registerRedirectUri(REDIRECT_URI);
});
afterAll(() => api.close());
beforeEach(() => api.reset());

interface Authorization {
	verifier: string;
	state: string;
	query: Record<string, string>;
}

function newAuthorization(overrides: Record<string, string | undefined> = {}): Authorization {
	const verifier = randomBytes(32).toString('base64url');
	const state = randomBytes(12).toString('base64url');
	const query: Record<string, string> = {};
	const all: Record<string, string | undefined> = {
		client_id: SIGN_IN.clientId,
		redirect_uri: REDIRECT_URI,
		response_type: 'code',
		state,
		scope: SIGN_IN.scope,
		code_challenge: createHash('sha256').update(verifier).digest('base64url'),
		code_challenge_method: 'S256',
		...overrides,
	};
	for (const [key, value] of Object.entries(all)) if (value !== undefined) query[key] = value;
	return { verifier, state, query };
}

function authorizeUrl(authorization: Authorization): string {
	return `${SIGN_IN_ROUTES.authorize}?${new URLSearchParams(authorization.query).toString()}`;
}

const noFollow = { redirect: 'manual' } as const;

/** Authorize → login page → sign in: the redirect back to the client (its Location). */
async function signIn(
	authorization: Authorization,
	password: string = SIGN_IN.user.password,
): Promise<URL> {
	const start = await call(api, authorizeUrl(authorization), noFollow);
	expect(start.status).toBe(307);
	const page = await call(api, String(start.headers.get('location')));
	expect(page.status).toBe(200);
	const challenge = /name="login_challenge" value="([^"]+)"/.exec(page.text)?.[1];
	const answer = await postForm(SIGN_IN_ROUTES.login, {
		login_challenge: String(challenge),
		username: SIGN_IN.user.username,
		password,
	});
	expect(answer.status).toBe(303);
	return new URL(String(answer.headers.get('location')));
}

function postForm(
	path: string,
	fields: Record<string, string>,
	headers: Record<string, string> = {},
): Promise<HttpResult> {
	return call(api, path, {
		method: 'POST',
		headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
		body: new URLSearchParams(fields).toString(),
		...noFollow,
	});
}

function codeGrant(
	code: string,
	verifier: string,
	overrides: Record<string, string | undefined> = {},
	headers: Record<string, string> = {},
) {
	const fields: Record<string, string> = {};
	const all: Record<string, string | undefined> = {
		grant_type: 'authorization_code',
		code,
		redirect_uri: REDIRECT_URI,
		code_verifier: verifier,
		client_id: SIGN_IN.clientId,
		client_secret: SIGN_IN.clientSecret,
		...overrides,
	};
	for (const [key, value] of Object.entries(all)) if (value !== undefined) fields[key] = value;
	return postForm(SIGN_IN_ROUTES.token, fields, headers);
}

function refreshGrant(refreshToken: string, overrides: Record<string, string> = {}) {
	return postForm(SIGN_IN_ROUTES.token, {
		grant_type: 'refresh_token',
		refresh_token: refreshToken,
		client_id: SIGN_IN.clientId,
		client_secret: SIGN_IN.clientSecret,
		...overrides,
	});
}

async function connectedTokens(): Promise<{
	access_token: string;
	refresh_token: string;
	id_token: string;
}> {
	const authorization = newAuthorization();
	const back = await signIn(authorization);
	const answer = await codeGrant(String(back.searchParams.get('code')), authorization.verifier);
	expect(answer.status).toBe(200);
	return answer.json;
}

/** The provider's counters from now on (they live as long as the server). */
function countersFrom(): () => Record<string, number> {
	const before = { ...fakeSignIn(api).counters };
	return () => {
		const now = fakeSignIn(api).counters as unknown as Record<string, number>;
		return Object.fromEntries(
			Object.entries(before).map(([key, value]) => [key, now[key] - value]),
		);
	};
}

function expectOAuthError(res: HttpResult, status: number, error: string): void {
	expect([res.status, res.json?.error]).toEqual([status, error]);
	expect(res.json.error_description).toEqual(expect.any(String));
}

describe('the code flow, with the login page', () => {
	test('authorize leads to a login form; a wrong password shows the form again; the right one returns code, state and scope', async () => {
		const counted = countersFrom();
		const authorization = newAuthorization();
		const start = await call(api, authorizeUrl(authorization), noFollow);
		expect(start.status).toBe(307);
		expect(start.headers.get('location')).toMatch(
			/^\/oauth2\/login\?login_challenge=[0-9a-f]{32}$/,
		);

		const page = await call(api, String(start.headers.get('location')));
		expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
		expect(page.text).toContain('<form method="post" action="/oauth2/login">');
		expect(page.text).toContain('name="username"');
		expect(page.text).toContain('name="password" type="password"');
		const challenge = String(/name="login_challenge" value="([^"]+)"/.exec(page.text)?.[1]);

		const wrong = await postForm(SIGN_IN_ROUTES.login, {
			login_challenge: challenge,
			username: SIGN_IN.user.username,
			password: 'not-it',
		});
		expect(wrong.status).toBe(401);
		expect(wrong.text).toContain('Wrong user name or password.');
		expect(wrong.text).toContain(challenge);

		const right = await postForm(SIGN_IN_ROUTES.login, {
			login_challenge: challenge,
			username: SIGN_IN.user.username,
			password: SIGN_IN.user.password,
		});
		expect(right.status).toBe(303);
		const back = new URL(String(right.headers.get('location')));
		expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
		expect(back.searchParams.get('state')).toBe(authorization.state);
		expect(back.searchParams.get('scope')).toBe(SIGN_IN.scope);
		expect(back.searchParams.get('code')).toMatch(/^ac_/);
		expect(counted()).toEqual(
			expect.objectContaining({ authorizations: 1, loginsAccepted: 1, loginsRefused: 1 }),
		);

		// The login challenge is used up.
		expect(
			(
				await postForm(SIGN_IN_ROUTES.login, {
					login_challenge: challenge,
					username: SIGN_IN.user.username,
					password: SIGN_IN.user.password,
				})
			).status,
		).toBe(400);
	});

	test('the code with its verifier, client authentication in the body: bearer tokens, a refresh token and an ID token the API accepts', async () => {
		const counted = countersFrom();
		const authorization = newAuthorization({ nonce: 'n-0S6_WzA2Mj' });
		const back = await signIn(authorization);
		const answer = await codeGrant(String(back.searchParams.get('code')), authorization.verifier);
		expect(answer.status).toBe(200);
		expect(answer.headers.get('cache-control')).toContain('no-store');
		expect(Object.keys(answer.json).sort()).toEqual([
			'access_token',
			'expires_in',
			'id_token',
			'refresh_token',
			'scope',
			'token_type',
		]);
		expect(answer.json).toEqual(
			expect.objectContaining({ token_type: 'bearer', expires_in: 3600, scope: SIGN_IN.scope }),
		);
		const idToken = JSON.parse(
			Buffer.from(String(answer.json.id_token).split('.')[1], 'base64url').toString('utf8'),
		);
		expect(idToken).toEqual(
			expect.objectContaining({
				aud: SIGN_IN.clientId,
				sub: SIGN_IN.user.sub,
				email: SIGN_IN.user.email,
				nonce: 'n-0S6_WzA2Mj',
			}),
		);

		// What the token endpoint received is recorded, client_secret in the body, no Authorization header.
		const [exchange] = api.requestsTo(SIGN_IN_ROUTES.token);
		expect(exchange.body).toEqual(
			expect.objectContaining({
				grant_type: 'authorization_code',
				client_secret: SIGN_IN.clientSecret,
				code_verifier: authorization.verifier,
			}),
		);
		expect(exchange.headers.authorization).toBeUndefined();

		// The API's routes accept the access token: `auth` on /dr, Bearer elsewhere.
		expect((await getWithToken(api, ENTITIES, answer.json.access_token)).status).toBe(200);
		expect(
			(
				await call(api, SUBSCRIPTIONS, {
					headers: { authorization: `Bearer ${answer.json.access_token}` },
				})
			).status,
		).toBe(200);
		expect(counted().codeGrants).toBe(1);
	});

	test('without PKCE (the service makes it optional): the code without a verifier, client authentication in the body; a verifier sent anyway is refused', async () => {
		const counted = countersFrom();
		const plain = newAuthorization({ code_challenge: undefined, code_challenge_method: undefined });
		const back = await signIn(plain);
		const answer = await codeGrant(String(back.searchParams.get('code')), plain.verifier, {
			code_verifier: undefined,
		});
		expect(answer.status).toBe(200);
		expect((await getWithToken(api, ENTITIES, answer.json.access_token)).status).toBe(200);

		const another = newAuthorization({
			code_challenge: undefined,
			code_challenge_method: undefined,
		});
		const code = String((await signIn(another)).searchParams.get('code'));
		expectOAuthError(await codeGrant(code, another.verifier), 400, 'invalid_grant');
		// Used up by that try, like any code.
		expectOAuthError(
			await codeGrant(code, another.verifier, { code_verifier: undefined }),
			400,
			'invalid_grant',
		);
		expect(counted().codeGrants).toBe(1);
		expect(fakeSignIn(api).refusals.map((r) => r.reason)).toContain(
			'a code_verifier was sent but no PKCE was used',
		);
	});
});

describe('authorize refuses', () => {
	test('an unknown client, or a redirect URI not registered exactly: a page, never a redirect', async () => {
		const counted = countersFrom();
		for (const overrides of [
			{ client_id: 'EC_0000000000' },
			{ redirect_uri: `${REDIRECT_URI}/` },
			{ redirect_uri: REDIRECT_URI.replace('127.0.0.1', 'localhost') },
			{ redirect_uri: 'https://evil.example/rest/oauth2-credential/callback' },
			{ redirect_uri: undefined },
		]) {
			const answer = await call(api, authorizeUrl(newAuthorization(overrides)), noFollow);
			expect([overrides, answer.status, answer.headers.get('location')]).toEqual([
				overrides,
				400,
				null,
			]);
		}
		expect(counted().authorizations).toBe(0);
	});

	test.each([
		[{ response_type: 'token' }, 'unsupported_response_type'],
		[{ state: undefined }, 'invalid_request'],
		[{ state: 'short' }, 'invalid_request'],
		[{ scope: 'openid profile email' }, 'invalid_scope'],
		[{ scope: `${SIGN_IN.scope} admin` }, 'invalid_scope'],
		[{ scope: SIGN_IN.scope.split(' ').join(',') }, 'invalid_scope'],
		[{ code_challenge: undefined }, 'invalid_request'],
		[{ code_challenge_method: undefined }, 'invalid_request'],
		[{ code_challenge: 'too-short' }, 'invalid_request'],
		[{ code_challenge_method: 'plain' }, 'invalid_request'],
	])('%j: an error sent back to the redirect URI with the state', async (overrides, error) => {
		const authorization = newAuthorization(overrides);
		const answer = await call(api, authorizeUrl(authorization), noFollow);
		expect(answer.status).toBe(303);
		const back = new URL(String(answer.headers.get('location')));
		expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
		expect(back.searchParams.get('error')).toBe(error);
		expect(back.searchParams.get('code')).toBeNull();
		if (authorization.query.state)
			expect(back.searchParams.get('state')).toBe(authorization.query.state);
	});

	test('scope words in another order are the same scope', async () => {
		const answer = await call(
			api,
			authorizeUrl(newAuthorization({ scope: 'offline_access email profile openid' })),
			noFollow,
		);
		expect(answer.status).toBe(307);
	});
});

describe('the token endpoint refuses', () => {
	async function freshCode(): Promise<{ code: string; verifier: string }> {
		const authorization = newAuthorization();
		const back = await signIn(authorization);
		return { code: String(back.searchParams.get('code')), verifier: authorization.verifier };
	}

	test('client authentication in a Basic header, even with a right secret: 401 invalid_client', async () => {
		const { code, verifier } = await freshCode();
		const basic = `Basic ${Buffer.from(`${SIGN_IN.clientId}:${SIGN_IN.clientSecret}`).toString('base64')}`;
		expectOAuthError(
			await codeGrant(code, verifier, { client_secret: undefined }, { authorization: basic }),
			401,
			'invalid_client',
		);
		expectOAuthError(
			await codeGrant(code, verifier, {}, { authorization: basic }),
			401,
			'invalid_client',
		);
	});

	test('a wrong client secret or client id: 401 invalid_client, the secret not repeated', async () => {
		const { code, verifier } = await freshCode();
		const wrong = await codeGrant(code, verifier, { client_secret: 'wrong-secret-1234' });
		expectOAuthError(wrong, 401, 'invalid_client');
		expect(wrong.text).not.toContain('wrong-secret-1234');
		expectOAuthError(
			await codeGrant(code, verifier, { client_id: 'EC_0000000000' }),
			401,
			'invalid_client',
		);
		// Client authentication failed before the code was looked at: it still works.
		expect((await codeGrant(code, verifier)).status).toBe(200);
	});

	test('a body that is not a form, or with an unexpected field: 400 invalid_request', async () => {
		const { code, verifier } = await freshCode();
		const json = await call(api, SIGN_IN_ROUTES.token, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				grant_type: 'authorization_code',
				code,
				client_id: SIGN_IN.clientId,
				client_secret: SIGN_IN.clientSecret,
			}),
		});
		expectOAuthError(json, 400, 'invalid_request');
		expectOAuthError(
			await codeGrant(code, verifier, { resource: 'https://api.example.com' }),
			400,
			'invalid_request',
		);
	});

	test('a wrong verifier, no verifier, another redirect URI: 400 invalid_grant, and the code is used up by that try', async () => {
		const counted = countersFrom();
		for (const overrides of [
			{ code_verifier: randomBytes(32).toString('base64url') },
			{ code_verifier: undefined },
			{ redirect_uri: `${REDIRECT_URI}?x=1` },
		]) {
			const { code, verifier } = await freshCode();
			expectOAuthError(await codeGrant(code, verifier, overrides), 400, 'invalid_grant');
			expectOAuthError(await codeGrant(code, verifier), 400, 'invalid_grant');
		}
		expect(counted().codeGrants).toBe(0);
	});

	test('a code used twice: the second exchange gets 400 invalid_grant', async () => {
		const { code, verifier } = await freshCode();
		expect((await codeGrant(code, verifier)).status).toBe(200);
		expectOAuthError(await codeGrant(code, verifier), 400, 'invalid_grant');
		expectOAuthError(await codeGrant('ac_never-issued', verifier), 400, 'invalid_grant');
	});

	test('another grant type: 400 unsupported_grant_type', async () => {
		expectOAuthError(
			await postForm(SIGN_IN_ROUTES.token, {
				grant_type: 'client_credentials',
				client_id: SIGN_IN.clientId,
				client_secret: SIGN_IN.clientSecret,
			}),
			400,
			'unsupported_grant_type',
		);
	});
});

describe('refresh tokens rotate', () => {
	test('each refresh answers a new pair; the refresh token sent dies (reused: 400 invalid_grant); the new one works', async () => {
		const first = await connectedTokens();
		const counted = countersFrom();
		const renewed = await refreshGrant(first.refresh_token);
		expect(renewed.status).toBe(200);
		expect(renewed.json.refresh_token).not.toBe(first.refresh_token);
		expect(renewed.json.access_token).not.toBe(first.access_token);
		expect(renewed.json.id_token).toEqual(expect.any(String));

		expectOAuthError(await refreshGrant(first.refresh_token), 400, 'invalid_grant');
		expect(fakeSignIn(api).refusals.at(-1)?.reason).toMatch(/already used/);
		expect((await refreshGrant(renewed.json.refresh_token)).status).toBe(200);
		expect(counted().refreshGrants).toBe(2);
	});

	test("the refresh needs the client authentication too, and is refused by the API's own refresh endpoint", async () => {
		const { refresh_token } = await connectedTokens();
		expectOAuthError(
			await refreshGrant(refresh_token, { client_secret: 'wrong-secret-1234' }),
			401,
			'invalid_client',
		);
		const apiRefresh = await call(api, '/connect-auth/v1/account/refresh-token', {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ refresh_token }),
		});
		expect(apiRefresh.status).toBe(401);
		// Neither attempt used it up.
		expect((await refreshGrant(refresh_token)).status).toBe(200);
	});

	test('an expired access token is refused by the API until refreshed', async () => {
		const tokens = await connectedTokens();
		api.expireAccessTokens();
		expect((await getWithToken(api, ENTITIES, tokens.access_token)).status).toBe(401);
		const renewed = await refreshGrant(tokens.refresh_token);
		expect((await getWithToken(api, ENTITIES, renewed.json.access_token)).status).toBe(200);
	});

	test('"used elsewhere": every live refresh token is renewed once behind the holder\'s back, so the held one is a reused one', async () => {
		const tokens = await connectedTokens();
		const live = fakeSignIn(api).liveRefreshTokens();
		expect(live).toContain(tokens.refresh_token);
		const admin = await call(api, '/__admin/sign-in/use-refresh-tokens', { method: 'POST' });
		expect(admin.json).toEqual({ used: live.length });
		expect(fakeSignIn(api).liveRefreshTokens()).not.toContain(tokens.refresh_token);
		expectOAuthError(await refreshGrant(tokens.refresh_token), 400, 'invalid_grant');
	});
});

test('holdRefreshGrants: a refresh grant is recorded at once but answered only after release', async () => {
	const { refresh_token } = await connectedTokens();
	const hold = fakeSignIn(api).holdRefreshGrants();
	let answered = false;
	const pending = refreshGrant(refresh_token).then((answer) => {
		answered = true;
		return answer;
	});
	const recorded = () =>
		api
			.requestsTo(SIGN_IN_ROUTES.token)
			.filter(
				(r) => (r.body as Record<string, string> | undefined)?.grant_type === 'refresh_token',
			);
	while (recorded().length === 0) await new Promise((resolve) => setImmediate(resolve));
	expect([answered, recorded()[0].status]).toEqual([false, undefined]);
	hold.release();
	expect((await pending).status).toBe(200);
});

test('the admin view shows the client, the account and the registered redirect URIs; another can be registered', async () => {
	const added = await call(api, '/__admin/sign-in/redirect-uris', {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ uri: 'http://127.0.0.1:6001/rest/oauth2-credential/callback' }),
	});
	expect(added.status).toBe(200);
	const view = await call(api, '/__admin/sign-in');
	expect(view.json).toEqual(
		expect.objectContaining({
			client: expect.objectContaining({ clientId: SIGN_IN.clientId }),
			user: { username: SIGN_IN.user.username, password: SIGN_IN.user.password },
			redirectUris: [REDIRECT_URI, 'http://127.0.0.1:6001/rest/oauth2-credential/callback'],
		}),
	);
});
