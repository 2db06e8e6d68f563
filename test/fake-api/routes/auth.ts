/**
 * Token endpoints: the client-credential exchange of [IFD §4.5], the public service's login, and
 * refresh ([IFD §4.6]; its path from [EKA-AUTH]). Error bodies are {code, error} ([EKA-AUTH]) and
 * never echo what the caller sent.
 *
 * Check order (first failure wins):
 *   document: X-API-KEY (403) → Content-Type (415) → JSON (400) → exact body keys (400)
 *             → grant_type (400) → client_id (401) → client_secret (401)
 *   public:   Content-Type (415) → JSON (400) → body keys (400) → api_key / sharing_key (403)
 *             → client_id (401) → client_secret (401)
 *   refresh:  Content-Type (415) → JSON (400) → body keys (400) → refresh token (401)
 *
 * In-process only: holdTokenRefreshes(api) makes refreshes wait (unanswered) until released.
 *
 * Also the token check the /dr directory endpoints share (doctor.ts, business.ts,
 * patient/mobileSearch.ts): the token raw in header `auth` ([IFD §5]).
 */
import { API_VARIANTS, BUSINESS, REFRESH_PATH } from '../fixtures';
import type { TokenSubject } from '../tokens';
import type { ApiVariant, FakeClinicState, RouteContext, RouteDefinition } from '../types';

export const authRoutes: readonly RouteDefinition[] = [
	{
		method: 'POST',
		pattern: API_VARIANTS.document.tokenPath,
		body: 'json',
		errorStyle: 'auth',
		handler: documentTokenExchange,
	},
	{
		method: 'POST',
		pattern: API_VARIANTS.public.tokenPath,
		body: 'json',
		errorStyle: 'auth',
		handler: publicLogin,
	},
	{
		method: 'POST',
		pattern: REFRESH_PATH,
		body: 'json',
		errorStyle: 'auth',
		handler: refreshTokens,
	},
];

function documentTokenExchange(ctx: RouteContext): void {
	if (otherFlowRejected(ctx, 'document')) return;
	const { credentials } = ctx.state;
	const apiKey = ctx.req.headers['x-api-key'];
	if (apiKey === undefined)
		return ctx.sendAuthError(403, 'invalid_api_key', 'Missing X-API-KEY header');
	if (apiKey !== credentials.apiKey)
		return ctx.sendAuthError(403, 'invalid_api_key', 'Invalid API key');

	const body = jsonObjectBody(ctx);
	if (!body) return;
	if (!hasExactStringFields(ctx, body, ['client_id', 'client_secret', 'grant_type'], [])) return;
	if (body.grant_type !== 'client_credentials')
		return ctx.sendAuthError(
			400,
			'unsupported_grant_type',
			'grant_type must be client_credentials',
		);
	if (!clientCredentialsValid(ctx, body)) return;

	const pair = issue(ctx, 'document');
	ctx.sendJson(
		200,
		{
			access_token: pair.accessToken,
			refresh_token: pair.refreshToken,
			expires_in: pair.expiresIn,
		},
		NO_STORE,
	);
}

function publicLogin(ctx: RouteContext): void {
	if (otherFlowRejected(ctx, 'public')) return;
	const body = jsonObjectBody(ctx);
	if (!body) return;
	if (!hasExactStringFields(ctx, body, ['client_id', 'client_secret'], ['api_key', 'sharing_key']))
		return;
	for (const field of ['api_key', 'sharing_key'] as const) {
		if (body[field] !== undefined && body[field] !== ctx.state.credentials.apiKey)
			return ctx.sendAuthError(403, 'invalid_api_key', 'Invalid API key');
	}
	if (!clientCredentialsValid(ctx, body)) return;

	const pair = issue(ctx, 'public');
	ctx.sendJson(200, pairBody(pair), NO_STORE);
}

/** While set for a fake API, its token refreshes wait for it before they are looked at. */
const refreshHolds = new WeakMap<FakeClinicState, Promise<void>>();

/**
 * Token refreshes wait (unanswered) until release() is called: lets a test make calls that are all
 * refused before a renewal can answer (calls in flight together when a token expires).
 */
export function holdTokenRefreshes(api: { state: FakeClinicState }): { release(): void } {
	let release = () => {};
	refreshHolds.set(
		api.state,
		new Promise<void>((resolveHold) => {
			release = () => {
				refreshHolds.delete(api.state);
				resolveHold();
			};
		}),
	);
	return { release: () => release() };
}

async function refreshTokens(ctx: RouteContext): Promise<void> {
	await refreshHolds.get(ctx.state);
	const body = jsonObjectBody(ctx);
	if (!body) return;
	if (!hasExactStringFields(ctx, body, ['refresh_token'], ['access_token'])) return;
	// The sign-in provider's refresh tokens are renewed at its own token endpoint only.
	if (ctx.state.tokens.refreshTokenSubject(body.refresh_token as string)?.flow === 'signIn')
		return ctx.sendAuthError(401, 'invalid_refresh_token', 'Refresh token is invalid or expired');
	const pair = ctx.state.tokens.refreshPair(
		body.refresh_token as string,
		ctx.state.options.rotateRefreshTokens,
	);
	if (!pair)
		return ctx.sendAuthError(401, 'invalid_refresh_token', 'Refresh token is invalid or expired');
	ctx.state.counters.tokenRefreshes += 1;
	ctx.sendJson(200, pairBody(pair), NO_STORE);
}

// ---------------------------------------------------------------------------------------------

const NO_STORE = { 'cache-control': 'no-store' };

function pairBody(pair: {
	accessToken: string;
	refreshToken: string;
	expiresIn: number;
	refreshExpiresIn: number;
}) {
	return {
		access_token: pair.accessToken,
		expires_in: pair.expiresIn,
		refresh_token: pair.refreshToken,
		refresh_expires_in: pair.refreshExpiresIn,
	};
}

function issue(ctx: RouteContext, flow: ApiVariant) {
	const { options, credentials, tokens, counters } = ctx.state;
	const accessSeconds =
		options.accessTokenLifetimeSeconds ?? API_VARIANTS[flow].defaultAccessTokenLifetimeSeconds;
	const pair = tokens.issue(
		{ clientId: credentials.clientId, businessId: BUSINESS.business_id, flow },
		accessSeconds,
		options.refreshTokenLifetimeSeconds,
	);
	counters.tokenExchanges += 1;
	return pair;
}

function otherFlowRejected(ctx: RouteContext, flow: ApiVariant): boolean {
	if (!ctx.state.options.rejectOtherTokenFlow || ctx.state.options.variant === flow) return false;
	ctx.sendRouteNotFound();
	return true;
}

/** The parsed JSON object body, or undefined after answering 415/400. */
function jsonObjectBody(ctx: RouteContext): Record<string, unknown> | undefined {
	const body = ctx.body;
	if (!body || !body.isJsonMediaType) {
		ctx.sendAuthError(415, 'unsupported_media_type', 'Content-Type must be application/json');
		return undefined;
	}
	if (body.length === 0) {
		ctx.sendAuthError(400, 'invalid_request', 'Request body is empty');
		return undefined;
	}
	if (body.parseError !== undefined) {
		ctx.sendAuthError(400, 'invalid_request', 'Request body is not valid JSON');
		return undefined;
	}
	const value = body.value;
	if (typeof value !== 'object' || value === null || Array.isArray(value)) {
		ctx.sendAuthError(400, 'invalid_request', 'Request body must be a JSON object');
		return undefined;
	}
	return value as Record<string, unknown>;
}

/**
 * Required fields must be non-empty strings; optional ones strings when present; any other key is
 * rejected. Answers 400 naming the field (never its value) and returns false on failure.
 */
function hasExactStringFields(
	ctx: RouteContext,
	body: Record<string, unknown>,
	required: readonly string[],
	optional: readonly string[],
): boolean {
	for (const key of Object.keys(body)) {
		if (!required.includes(key) && !optional.includes(key)) {
			ctx.sendAuthError(400, 'invalid_request', `Unexpected field ${key}`);
			return false;
		}
	}
	for (const key of required) {
		if (typeof body[key] !== 'string' || body[key] === '') {
			ctx.sendAuthError(
				400,
				'invalid_request',
				`Field ${key} is required and must be a non-empty string`,
			);
			return false;
		}
	}
	for (const key of optional) {
		if (key in body && typeof body[key] !== 'string') {
			ctx.sendAuthError(400, 'invalid_request', `Field ${key} must be a string`);
			return false;
		}
	}
	return true;
}

function clientCredentialsValid(ctx: RouteContext, body: Record<string, unknown>): boolean {
	const { credentials } = ctx.state;
	if (body.client_id !== credentials.clientId) {
		ctx.sendAuthError(401, 'invalid_client_id', 'Unknown client id');
		return false;
	}
	if (body.client_secret !== credentials.clientSecret) {
		ctx.sendAuthError(401, 'invalid_client_secret', 'Invalid client secret');
		return false;
	}
	return true;
}

/** The subject of the token raw in header `auth` ([IFD §5]), or undefined after answering 401. */
export function authHeaderSubject(ctx: RouteContext): TokenSubject | 'static' | undefined {
	const header = ctx.req.headers.auth;
	const check = ctx.state.tokens.checkAccess(typeof header === 'string' ? header : undefined);
	if (check.valid) return check.subject;
	ctx.sendEnvelopeError(401, 'UNAUTHORIZED', 'token expired or invalid');
	return undefined;
}
