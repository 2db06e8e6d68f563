/**
 * The Clinic Scribe OAuth2 API credential against the fake API's sign-in provider: its fields
 * (Environment Custom: the provider's two URLs and the API's base URL, as a user of a gateway would
 * type them), and "Connect my account" played over HTTP the way the editor's popup does it.
 */
import { SIGN_IN } from '../fake-api/fixtures';
import { SIGN_IN_ROUTES } from '../fake-api/routes/signIn';
import type { N8nInstance } from './n8n/instance';

export const SIGN_IN_CREDENTIAL_TYPE = 'clinicScribeOAuth2Api';

export function signInCredentialData(
	api: { url: string },
	overrides: Record<string, string> = {},
): Record<string, string> {
	return {
		clientId: SIGN_IN.clientId,
		clientSecret: SIGN_IN.clientSecret,
		environment: 'custom',
		customAuthUrl: `${api.url}${SIGN_IN_ROUTES.authorize}`,
		customAccessTokenUrl: `${api.url}${SIGN_IN_ROUTES.token}`,
		baseUrl: api.url,
		apiVariant: 'document',
		...overrides,
	};
}

/**
 * The service's own authorize endpoints, where a Production or a Sandbox credential must send the
 * browser ([EKA-OIDC]; written here, not taken from the package, so a wrong address in it fails).
 * The tests never contact them.
 */
export const SERVICE_AUTHORIZE_URLS = {
	production: 'https://accounts.eka.care/oauth2/authorize',
	sandbox: 'https://aortago.dev.eka.care/oauth2/authorize',
} as const;

/**
 * A Production or Sandbox credential as the editor saves it: the client, the environment, no
 * Custom addresses.
 */
export function serviceSignInCredentialData(
	environment: keyof typeof SERVICE_AUTHORIZE_URLS,
): Record<string, string> {
	return {
		clientId: SIGN_IN.clientId,
		clientSecret: SIGN_IN.clientSecret,
		environment,
		apiVariant: 'document',
	};
}

/** An authorize URL's address (without the query) and its query parameters. */
export function authorizeUrlParts(url: URL): { address: string; query: Record<string, string> } {
	return {
		address: `${url.origin}${url.pathname}`,
		query: Object.fromEntries(url.searchParams),
	};
}

/** n8n's OAuth Redirect URL: what the service must have registered for the client. */
export function oauthRedirectUrl(n8n: Pick<N8nInstance, 'baseUrl'>): string {
	return `${n8n.baseUrl}/rest/oauth2-credential/callback`;
}

export interface ConnectResult {
	/** The authorize URL n8n built (GET /rest/oauth2-credential/auth). */
	authorizeUrl: URL;
	/** Where the provider sent the browser back (n8n's callback, with code and state, or an error). */
	callbackUrl: URL;
	/** n8n's callback page. */
	callback: { status: number; text: string };
}

/**
 * Where n8n sends the browser when the logged-in editor clicks Connect (GET
 * /rest/oauth2-credential/auth): n8n builds the provider's authorize URL from the credential as it
 * resolves it, without contacting the provider.
 */
export async function n8nAuthorizeUrl(n8n: N8nInstance, credentialId: string): Promise<URL> {
	return new URL(
		await n8n.rest<string>('GET', `/oauth2-credential/auth?id=${encodeURIComponent(credentialId)}`),
	);
}

/**
 * "Connect my account": n8n's authorize URL (as the logged-in editor asks for it), the provider's
 * authorize and login page with the given account, then n8n's callback with the same session,
 * which exchanges the code and stores the tokens.
 */
export async function connectSignInCredential(
	n8n: N8nInstance,
	credentialId: string,
	account: { username: string; password: string } = SIGN_IN.user,
): Promise<ConnectResult> {
	const authorizeUrl = await n8nAuthorizeUrl(n8n, credentialId);
	const start = await fetch(authorizeUrl, { redirect: 'manual' });
	await start.arrayBuffer();
	if (start.status !== 307)
		throw new Error(
			`the sign-in provider answered the authorize URL with ${start.status}, not 307 to its login page`,
		);
	const loginPage = new URL(String(start.headers.get('location')), authorizeUrl);
	const page = await (await fetch(loginPage)).text();
	const challenge = /name="login_challenge" value="([^"]+)"/.exec(page)?.[1];
	if (!challenge) throw new Error(`no login form at ${loginPage.toString()}`);
	const login = await fetch(new URL(SIGN_IN_ROUTES.login, authorizeUrl), {
		method: 'POST',
		headers: { 'content-type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams({
			login_challenge: challenge,
			username: account.username,
			password: account.password,
		}).toString(),
		redirect: 'manual',
	});
	await login.arrayBuffer();
	if (login.status !== 303)
		throw new Error(`the login answered ${login.status}, not 303 back to n8n`);
	const callbackUrl = new URL(String(login.headers.get('location')));
	const callback = await n8n.getPage(callbackUrl.toString());
	return { authorizeUrl, callbackUrl, callback };
}

/**
 * The query of n8n's authorize URL for the fake provider's client: the fixed scope, a state, and with
 * PKCE an S256 challenge (n8n makes one per sign-in).
 */
export function authorizeQuery(
	n8n: Pick<N8nInstance, 'baseUrl'>,
	{ pkce }: { pkce: boolean },
): Record<string, unknown> {
	return {
		client_id: SIGN_IN.clientId,
		redirect_uri: oauthRedirectUrl(n8n),
		response_type: 'code',
		state: expect.stringMatching(/^.{8,}$/),
		scope: 'openid profile email offline_access',
		...(pkce && {
			code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
			code_challenge_method: 'S256',
		}),
	};
}

/**
 * Connect with Grant Type "Authorization Code" (what n8n 1.x needs), checked the same way on each
 * n8n line: no PKCE in n8n's authorize URL, one code exchange with the client in the form body and
 * no Basic header, n8n's callback page without an error, the tokens stored.
 */
export async function expectAuthorizationCodeConnect(
	n8n: N8nInstance,
	api: {
		requestsTo: (
			path: string,
			method?: string,
		) => Array<{ status?: number; headers: Record<string, unknown>; body?: unknown }>;
	},
	credentialId: string,
): Promise<void> {
	const connected = await connectSignInCredential(n8n, credentialId);
	expect(Object.fromEntries(connected.authorizeUrl.searchParams)).toEqual(
		authorizeQuery(n8n, { pkce: false }),
	);
	expect(connected.callback.status).toBe(200);
	expect(connected.callback.text).not.toMatch(/error/i);
	const exchanges = api.requestsTo(SIGN_IN_ROUTES.token, 'POST');
	expect(exchanges.map((r) => [r.status, r.headers.authorization])).toEqual([[200, undefined]]);
	expect(exchanges[0].body).toEqual({
		grant_type: 'authorization_code',
		code: connected.callbackUrl.searchParams.get('code'),
		redirect_uri: oauthRedirectUrl(n8n),
		client_id: SIGN_IN.clientId,
		client_secret: SIGN_IN.clientSecret,
	});
	const stored = await n8n.rest<{ data: Record<string, unknown> }>(
		'GET',
		`/credentials/${credentialId}?includeData=true`,
	);
	expect(stored.data.oauthTokenData).toBe(true);
}
