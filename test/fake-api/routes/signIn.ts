/**
 * The service's sign-in (OIDC) provider, as its developer docs describe it ([EKA-OIDC]),
 * strict like the rest of the fake. One registered client and one clinic account (fixtures SIGN_IN);
 * the redirect URIs the client may use are registered by the test (or `npm start`).
 *
 *   GET  /oauth2/authorize   checks the request, then 307 to the login page (as the service does)
 *   GET  /oauth2/login       the login page: a form with a user name and a password
 *   POST /oauth2/login       right login → 303 to redirect_uri?code&state&scope; wrong → the form again (401)
 *   POST /oauth2/token       grants authorization_code (with code_verifier) and refresh_token
 *
 * Authorize (first failure wins): client_id known, then redirect_uri registered for it exactly (both
 * answered with a 400 page, never redirected to); then, as ?error=…&state=… at redirect_uri:
 * response_type code → state of 8 characters or more → scope exactly the fixed set → PKCE, which
 * the service makes optional: a code_challenge (base64url of a SHA-256) with method S256, or
 * neither (a method without a challenge, or another method, is refused).
 *
 * Token (first failure wins): a form body (400 invalid_request) → no Authorization header, client
 * authentication goes in the body (401 invalid_client) → only known fields (400 invalid_request) →
 * client_id and client_secret right (401 invalid_client) → grant_type:
 *   authorization_code: the code known, unused, unexpired and this client's; redirect_uri equal to
 *   the authorization's; with PKCE, base64url(SHA-256(code_verifier)) equal to the challenge, and
 *   without it no code_verifier (each 400 invalid_grant; a code is used up by its first exchange,
 *   good or bad);
 *   refresh_token: a live refresh token of this client, rotated: the one sent dies, so a reused
 *   one gets 400 invalid_grant;
 *   anything else: 400 unsupported_grant_type.
 * Answers {access_token, token_type: "bearer", expires_in, scope, refresh_token, id_token}, errors
 * {error, error_description}, both with Cache-Control: no-store. Its access tokens go into the API's
 * token table, so the API's routes accept them (subject: the sign-in client, the fixture business).
 *
 * Control (in-process through `fakeSignIn(api)`, or over HTTP under /__admin/sign-in…):
 *   GET  /__admin/sign-in                     client, account, redirect URIs, counters, refusals
 *   POST /__admin/sign-in/redirect-uris       {uri} registers a redirect URI for the client
 *   POST /__admin/sign-in/use-refresh-tokens  renews every live refresh token once, as another holder
 *                                             of them would: the ones n8n keeps are then reused ones
 *   (in-process only) holdRefreshGrants()      refresh grants wait until released
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';

import { BUSINESS, SIGN_IN } from '../fixtures';
import type {
	AdminDefinition,
	FakeClinicApi,
	FakeClinicState,
	RouteContext,
	RouteDefinition,
} from '../types';
import type { IssuedTokenPair } from '../tokens';

export const SIGN_IN_ROUTES = {
	authorize: '/oauth2/authorize',
	login: '/oauth2/login',
	token: '/oauth2/token',
} as const;

const MAX_FORM_BYTES = 16 * 1024;
/** Codes and login pages expire, as the service's do; long enough for any test on a busy machine. */
const CODE_LIFETIME_MS = 10 * 60_000;
const LOGIN_LIFETIME_MS = 30 * 60_000;
const REFRESH_LIFETIME_SECONDS = 30 * 24 * 3600;
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

interface PendingLogin {
	clientId: string;
	redirectUri: string;
	state: string;
	scope: string;
	/** Absent when the authorization was made without PKCE. */
	codeChallenge?: string;
	nonce?: string;
	createdAt: number;
}

interface IssuedCode extends PendingLogin {
	used: boolean;
	issuedAt: number;
}

export interface SignInCounters {
	/** Authorize requests that reached the login page. */
	authorizations: number;
	loginsAccepted: number;
	loginsRefused: number;
	/** Successful authorization_code exchanges. */
	codeGrants: number;
	/** Successful refresh_token grants. */
	refreshGrants: number;
}

/** Why the provider said no, for tests to read (the answer itself says less). */
export interface SignInRefusal {
	endpoint: 'authorize' | 'login' | 'token';
	grant?: string;
	error: string;
	reason: string;
}

interface SignInStore {
	redirectUris: Set<string>;
	logins: Map<string, PendingLogin>;
	codes: Map<string, IssuedCode>;
	counters: SignInCounters;
	refusals: SignInRefusal[];
	/** Refresh tokens issued by this provider, so "renew every one" can find them. */
	refreshTokens: Set<string>;
	/** While set, refresh grants wait for it before they are looked at (holdRefreshGrants). */
	refreshHold?: Promise<void>;
}

const stores = new WeakMap<FakeClinicState, SignInStore>();

function storeOf(state: FakeClinicState): SignInStore {
	let store = stores.get(state);
	if (!store) {
		store = {
			redirectUris: new Set(),
			logins: new Map(),
			codes: new Map(),
			counters: {
				authorizations: 0,
				loginsAccepted: 0,
				loginsRefused: 0,
				codeGrants: 0,
				refreshGrants: 0,
			},
			refusals: [],
			refreshTokens: new Set(),
		};
		stores.set(state, store);
	}
	return store;
}

export const signInRoutes: readonly RouteDefinition[] = [
	{
		method: 'GET',
		pattern: SIGN_IN_ROUTES.authorize,
		body: 'none',
		errorStyle: 'auth',
		handler: authorize,
	},
	{
		method: 'GET',
		pattern: SIGN_IN_ROUTES.login,
		body: 'none',
		errorStyle: 'auth',
		handler: loginPage,
	},
	{
		method: 'POST',
		pattern: SIGN_IN_ROUTES.login,
		body: 'raw',
		errorStyle: 'auth',
		handler: login,
	},
	{
		method: 'POST',
		pattern: SIGN_IN_ROUTES.token,
		body: 'raw',
		errorStyle: 'auth',
		handler: token,
	},
];

// ---------------------------------------------------------------------------------------------
// Authorize and login
// ---------------------------------------------------------------------------------------------

function authorize(ctx: RouteContext): void {
	const store = storeOf(ctx.state);
	const query = ctx.query;
	const single = (name: string): string | undefined =>
		query.getAll(name).length === 1 ? (query.get(name) ?? undefined) : undefined;
	const clientId = single('client_id');
	if (clientId !== SIGN_IN.clientId) return refusePage(ctx, store, 'unknown client_id');
	const redirectUri = single('redirect_uri');
	if (redirectUri === undefined || !store.redirectUris.has(redirectUri)) {
		return refusePage(
			ctx,
			store,
			'redirect_uri is not registered for this client (it must match exactly)',
		);
	}
	const state = single('state');
	const toClient = (error: string, reason: string) => {
		store.refusals.push({ endpoint: 'authorize', error, reason });
		const target = new URL(redirectUri);
		target.searchParams.set('error', error);
		target.searchParams.set('error_description', reason);
		if (state !== undefined) target.searchParams.set('state', state);
		redirect(ctx, 303, target.toString());
	};
	if (single('response_type') !== 'code')
		return toClient('unsupported_response_type', 'response_type must be code');
	if (state === undefined || state.length < 8)
		return toClient('invalid_request', 'state is required, at least 8 characters');
	const scope = single('scope') ?? '';
	if (!sameScopes(scope, SIGN_IN.scope))
		return toClient('invalid_scope', `scope must be "${SIGN_IN.scope}"`);
	const codeChallenge = query.has('code_challenge') ? single('code_challenge') : undefined;
	const challengeMethod = query.has('code_challenge_method')
		? single('code_challenge_method')
		: undefined;
	if (query.has('code_challenge') || query.has('code_challenge_method')) {
		if (!codeChallenge || !/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) {
			return toClient(
				'invalid_request',
				'with PKCE, a code_challenge (base64url of a SHA-256) is required',
			);
		}
		if (challengeMethod !== 'S256')
			return toClient('invalid_request', 'code_challenge_method must be S256');
	}

	const loginChallenge = randomBytes(16).toString('hex');
	store.logins.set(loginChallenge, {
		clientId,
		redirectUri,
		state,
		scope,
		codeChallenge,
		nonce: single('nonce'),
		createdAt: Date.now(),
	});
	store.counters.authorizations += 1;
	redirect(ctx, 307, `${SIGN_IN_ROUTES.login}?login_challenge=${loginChallenge}`);
}

function loginPage(ctx: RouteContext): void {
	const store = storeOf(ctx.state);
	const challenge = ctx.query.get('login_challenge') ?? '';
	if (!pendingLogin(store, challenge))
		return refusePage(ctx, store, 'this sign-in expired or is unknown: start again from n8n');
	sendHtml(ctx, 200, loginForm(challenge));
}

async function login(ctx: RouteContext): Promise<void> {
	const store = storeOf(ctx.state);
	const form = await readForm(ctx);
	if (!form)
		return refusePage(
			ctx,
			store,
			'the login form must be sent as application/x-www-form-urlencoded',
		);
	const challenge = form.get('login_challenge') ?? '';
	const pending = pendingLogin(store, challenge);
	if (!pending)
		return refusePage(ctx, store, 'this sign-in expired or is unknown: start again from n8n');
	if (
		form.get('username') !== SIGN_IN.user.username ||
		form.get('password') !== SIGN_IN.user.password
	) {
		store.counters.loginsRefused += 1;
		store.refusals.push({
			endpoint: 'login',
			error: 'access_denied',
			reason: 'wrong user name or password',
		});
		return sendHtml(ctx, 401, loginForm(challenge, 'Wrong user name or password.'));
	}
	store.logins.delete(challenge);
	store.counters.loginsAccepted += 1;
	const code = `ac_${randomBytes(24).toString('base64url')}`;
	store.codes.set(code, { ...pending, used: false, issuedAt: Date.now() });
	const target = new URL(pending.redirectUri);
	target.searchParams.set('code', code);
	target.searchParams.set('state', pending.state);
	target.searchParams.set('scope', pending.scope);
	redirect(ctx, 303, target.toString());
}

function pendingLogin(store: SignInStore, challenge: string): PendingLogin | undefined {
	const pending = store.logins.get(challenge);
	return pending && Date.now() - pending.createdAt < LOGIN_LIFETIME_MS ? pending : undefined;
}

function loginForm(challenge: string, error?: string): string {
	return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in to your clinic account</title></head>
<body>
<main>
<h1>Sign in to your clinic account</h1>
<p>The fake sign-in provider of n8n-nodes-clinic-scribe (for tests and npm start).</p>
${error ? `<p role="alert" id="login-error">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${SIGN_IN_ROUTES.login}">
<input type="hidden" name="login_challenge" value="${escapeHtml(challenge)}">
<p><label for="username">User name</label> <input id="username" name="username" autocomplete="username" required></p>
<p><label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password" required></p>
<p><button type="submit">Sign in</button></p>
</form>
</main>
</body>
</html>
`;
}

// ---------------------------------------------------------------------------------------------
// Token
// ---------------------------------------------------------------------------------------------

const TOKEN_FIELDS: Record<string, readonly string[]> = {
	authorization_code: [
		'grant_type',
		'code',
		'redirect_uri',
		'code_verifier',
		'client_id',
		'client_secret',
	],
	refresh_token: ['grant_type', 'refresh_token', 'client_id', 'client_secret', 'scope'],
};

async function token(ctx: RouteContext): Promise<void> {
	const store = storeOf(ctx.state);
	const form = await readForm(ctx);
	const grant = form?.get('grant_type') ?? undefined;
	const refuse = (status: number, error: string, reason: string) => {
		store.refusals.push({ endpoint: 'token', grant, error, reason });
		ctx.sendJson(status, { error, error_description: reason }, NO_STORE);
	};
	if (!form)
		return refuse(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
	ctx.record.body = Object.fromEntries(form);
	if (grant === 'refresh_token' && store.refreshHold) await store.refreshHold;
	if (ctx.req.headers.authorization !== undefined) {
		return refuse(
			401,
			'invalid_client',
			'client authentication goes in the form body (client_id, client_secret), not in an Authorization header',
		);
	}
	const allowed = grant !== undefined ? TOKEN_FIELDS[grant] : undefined;
	const keys = [...form.keys()];
	if (new Set(keys).size !== keys.length)
		return refuse(400, 'invalid_request', 'a field is repeated');
	if (allowed) {
		const unexpected = keys.find((key) => !allowed.includes(key));
		if (unexpected) return refuse(400, 'invalid_request', `unexpected field ${unexpected}`);
	}
	if (
		form.get('client_id') !== SIGN_IN.clientId ||
		form.get('client_secret') !== SIGN_IN.clientSecret
	) {
		return refuse(
			401,
			'invalid_client',
			'client authentication failed (client_id or client_secret)',
		);
	}
	if (grant === 'authorization_code') return exchangeCode(ctx, store, form, refuse);
	if (grant === 'refresh_token') return renew(ctx, store, form, refuse);
	return refuse(
		400,
		'unsupported_grant_type',
		'grant_type must be authorization_code or refresh_token',
	);
}

type Refuse = (status: number, error: string, reason: string) => void;

function exchangeCode(
	ctx: RouteContext,
	store: SignInStore,
	form: URLSearchParams,
	refuse: Refuse,
): void {
	const issued = store.codes.get(form.get('code') ?? '');
	if (!issued) return refuse(400, 'invalid_grant', 'unknown code');
	if (issued.used) return refuse(400, 'invalid_grant', 'the code was already used');
	issued.used = true;
	if (Date.now() - issued.issuedAt > CODE_LIFETIME_MS)
		return refuse(400, 'invalid_grant', 'the code expired');
	if (issued.clientId !== form.get('client_id'))
		return refuse(400, 'invalid_grant', 'the code was issued to another client');
	if (form.get('redirect_uri') !== issued.redirectUri)
		return refuse(400, 'invalid_grant', 'redirect_uri differs from the authorization request');
	const verifier = form.get('code_verifier');
	if (issued.codeChallenge === undefined) {
		if (verifier !== null)
			return refuse(400, 'invalid_grant', 'a code_verifier was sent but no PKCE was used');
	} else {
		if (!verifier) return refuse(400, 'invalid_grant', 'code_verifier is required (PKCE was used)');
		if (createHash('sha256').update(verifier).digest('base64url') !== issued.codeChallenge) {
			return refuse(400, 'invalid_grant', 'code_verifier does not match the code_challenge');
		}
	}
	const pair = ctx.state.tokens.issue(
		signInSubject(),
		accessLifetime(ctx.state),
		REFRESH_LIFETIME_SECONDS,
	);
	store.refreshTokens.add(pair.refreshToken);
	store.counters.codeGrants += 1;
	ctx.sendJson(200, tokenAnswer(ctx, pair, issued.scope, issued.nonce), NO_STORE);
}

function renew(ctx: RouteContext, store: SignInStore, form: URLSearchParams, refuse: Refuse): void {
	const refreshToken = form.get('refresh_token') ?? '';
	const requestedScope = form.get('scope');
	if (requestedScope !== null && !sameScopes(requestedScope, SIGN_IN.scope))
		return refuse(400, 'invalid_scope', 'scope must be the granted one');
	const subject = ctx.state.tokens.refreshTokenSubject(refreshToken);
	if (!subject || subject.flow !== 'signIn' || subject.clientId !== form.get('client_id')) {
		return refuse(400, 'invalid_grant', 'unknown refresh token');
	}
	const pair = ctx.state.tokens.refreshPair(refreshToken, true);
	if (!pair)
		return refuse(
			400,
			'invalid_grant',
			'the refresh token was already used or expired (they rotate on every refresh)',
		);
	store.refreshTokens.delete(refreshToken);
	store.refreshTokens.add(pair.refreshToken);
	store.counters.refreshGrants += 1;
	ctx.sendJson(200, tokenAnswer(ctx, pair, SIGN_IN.scope), NO_STORE);
}

function signInSubject() {
	return { clientId: SIGN_IN.clientId, businessId: BUSINESS.business_id, flow: 'signIn' as const };
}

function accessLifetime(state: FakeClinicState): number {
	return state.options.accessTokenLifetimeSeconds ?? SIGN_IN.accessTokenLifetimeSeconds;
}

function tokenAnswer(ctx: RouteContext, pair: IssuedTokenPair, scope: string, nonce?: string) {
	return {
		access_token: pair.accessToken,
		token_type: 'bearer',
		expires_in: pair.expiresIn,
		scope,
		refresh_token: pair.refreshToken,
		id_token: idToken(ctx, nonce),
	};
}

/** An OIDC ID token: JWT-shaped, signed with a key nobody checks (the credential does not read it). */
function idToken(ctx: RouteContext, nonce?: string): string {
	const now = Math.floor(Date.now() / 1000);
	const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
	const header = encode({ alg: 'HS256', typ: 'JWT' });
	const payload = encode({
		iss: `http://${ctx.req.headers.host ?? '127.0.0.1'}`,
		sub: SIGN_IN.user.sub,
		aud: SIGN_IN.clientId,
		iat: now,
		exp: now + SIGN_IN.accessTokenLifetimeSeconds,
		name: SIGN_IN.user.name,
		email: SIGN_IN.user.email,
		...(nonce ? { nonce } : {}),
		jti: randomBytes(8).toString('hex'),
	});
	const signature = createHmac('sha256', 'fake-sign-in')
		.update(`${header}.${payload}`)
		.digest('base64url');
	return `${header}.${payload}.${signature}`;
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** The same scope words, each once, separated by single spaces (order free, as in OAuth). */
function sameScopes(sent: string, granted: string): boolean {
	const sentWords = sent.split(' ');
	const grantedWords = new Set(granted.split(' '));
	return (
		sentWords.length === grantedWords.size &&
		new Set(sentWords).size === sentWords.length &&
		sentWords.every((w) => grantedWords.has(w))
	);
}

/** The form body, or undefined when it is not urlencoded or too large. */
async function readForm(ctx: RouteContext): Promise<URLSearchParams | undefined> {
	const chunks: Buffer[] = [];
	let length = 0;
	for await (const chunk of ctx.rawBody()) {
		length += (chunk as Buffer).length;
		if (length <= MAX_FORM_BYTES) chunks.push(chunk as Buffer);
	}
	const mediaType = (ctx.req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	if (mediaType !== 'application/x-www-form-urlencoded' || length > MAX_FORM_BYTES)
		return undefined;
	return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function refusePage(ctx: RouteContext, store: SignInStore, reason: string): void {
	store.refusals.push({ endpoint: 'authorize', error: 'invalid_request', reason });
	sendHtml(
		ctx,
		400,
		`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in error</title></head><body><h1>Sign-in error</h1><p id="sign-in-error">${escapeHtml(reason)}</p></body></html>\n`,
	);
}

function sendHtml(ctx: RouteContext, status: number, html: string): void {
	ctx.record.status = status;
	ctx.res.writeHead(status, {
		'content-type': 'text/html; charset=utf-8',
		'content-length': String(Buffer.byteLength(html)),
		...NO_STORE,
	});
	ctx.res.end(html);
}

function redirect(ctx: RouteContext, status: 303 | 307, location: string): void {
	ctx.record.status = status;
	ctx.res.writeHead(status, { location, 'content-length': '0', ...NO_STORE });
	ctx.res.end();
}

function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// ---------------------------------------------------------------------------------------------
// Control
// ---------------------------------------------------------------------------------------------

export interface FakeSignIn {
	readonly client: typeof SIGN_IN;
	/** Registers a redirect URI for the client (n8n's OAuth Redirect URL); exact match only. */
	registerRedirectUri(uri: string): void;
	readonly counters: SignInCounters;
	readonly refusals: readonly SignInRefusal[];
	/** Renews every live refresh token once, as another holder would; returns how many. */
	useRefreshTokensElsewhere(): number;
	/** Refresh tokens of this provider still live. */
	liveRefreshTokens(): string[];
	/**
	 * Refresh grants wait (unanswered) until release() is called: lets a test make calls that
	 * renew at the same time overlap for certain, whatever the machine's speed.
	 */
	holdRefreshGrants(): { release(): void };
}

export function fakeSignIn(api: Pick<FakeClinicApi, 'state'>): FakeSignIn {
	const state = api.state;
	const store = storeOf(state);
	return {
		client: SIGN_IN,
		registerRedirectUri: (uri) => {
			store.redirectUris.add(uri);
		},
		counters: store.counters,
		refusals: store.refusals,
		useRefreshTokensElsewhere: () => useRefreshTokensElsewhere(state),
		liveRefreshTokens: () => liveRefreshTokens(state),
		holdRefreshGrants: () => {
			let release = () => {};
			store.refreshHold = new Promise<void>((resolve) => {
				release = () => {
					store.refreshHold = undefined;
					resolve();
				};
			});
			return { release };
		},
	};
}

function liveRefreshTokens(state: FakeClinicState): string[] {
	return [...storeOf(state).refreshTokens].filter((token) => state.tokens.refreshTokenLive(token));
}

function useRefreshTokensElsewhere(state: FakeClinicState): number {
	const store = storeOf(state);
	let used = 0;
	for (const token of liveRefreshTokens(state)) {
		const pair = state.tokens.refreshPair(token, true);
		if (!pair) continue;
		store.refreshTokens.delete(token);
		store.refreshTokens.add(pair.refreshToken);
		used += 1;
	}
	return used;
}

export const signInAdmin: readonly AdminDefinition[] = [
	{
		method: 'GET',
		action: '/sign-in',
		handler: ({ state }) => {
			const store = storeOf(state);
			return {
				client: {
					clientId: SIGN_IN.clientId,
					clientSecret: SIGN_IN.clientSecret,
					scope: SIGN_IN.scope,
				},
				user: { username: SIGN_IN.user.username, password: SIGN_IN.user.password },
				redirectUris: [...store.redirectUris],
				counters: store.counters,
				refusals: store.refusals,
				liveRefreshTokens: liveRefreshTokens(state).length,
			};
		},
	},
	{
		method: 'POST',
		action: '/sign-in/redirect-uris',
		handler: ({ state, input }) => {
			const uri = (input as { uri?: unknown } | undefined)?.uri;
			if (typeof uri !== 'string' || !/^https?:\/\//.test(uri))
				throw new Error('uri must be an http(s) URL');
			storeOf(state).redirectUris.add(uri);
			return { redirectUris: [...storeOf(state).redirectUris] };
		},
	},
	{
		method: 'POST',
		action: '/sign-in/use-refresh-tokens',
		handler: ({ state }) => ({ used: useRefreshTokensElsewhere(state) }),
	},
];
