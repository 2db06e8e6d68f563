/**
 * Authentication: the two API variants and the environments, the credentials' fields read once
 * (`readCredentialSettings`), the headers a call carries, and the Clinic Scribe API credential's
 * token exchange. Knows no node context: the credentials use it (n8n runs their hooks without one).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
} from 'n8n-workflow';

import {
	API_CREDENTIAL_TYPE,
	SIGN_IN_CREDENTIAL_TYPE,
	type ClinicCredentialType,
} from '../shared/credentialChoice';
import { CREDENTIALS_PAGE, whereToGet, type SourcedField } from '../shared/credentialSources';
import { asRecord, trimmedString } from '../shared/values';
import {
	describeNetworkFailure,
	readErrorFields,
	redirectTargetHost,
	scrubSecrets,
	TokenExchangeError,
} from './errors';
import { mayRetry, PRODUCTION_POLICY, withRetries } from './retryPolicy';

// ─── The API variants and environments ───────────────────────────────────────────────────────────

/**
 * The one place where [IFD] and the public service spell things differently: the token exchange
 * ([IFD §4.5] vs [EKA-AUTH] login), the upload action and the EMR template id ([IFD §2.5] vs
 * [EKA-V2]). Everything else is the same in both (docs/api-sources.md, "The API variant").
 */
type ApiVariant = 'document' | 'public';

interface ApiVariantSettings {
	/** How a client id and secret become an access token. */
	tokenExchange: 'documentTokenEndpoint' | 'publicLogin';
	exchangePath: string;
	/** The `action` value of an upload. */
	uploadAction: string;
	/** The template id of the EMR-compatible format. */
	emrTemplateId: string;
	/** The public SDKs send the client id with every call ([EKA-PYSDK] client.py, [EKA-MCP] base_client.py). */
	sendsClientIdHeader: boolean;
}

const API_VARIANTS: Record<ApiVariant, ApiVariantSettings> = {
	document: {
		tokenExchange: 'documentTokenEndpoint',
		exchangePath: '/api/v1/auth/token',
		uploadAction: 'scribe-v2',
		emrTemplateId: 'svc_emr_template',
		sendsClientIdHeader: false,
	},
	public: {
		tokenExchange: 'publicLogin',
		exchangePath: '/connect-auth/v1/account/login',
		uploadAction: 'ekascribe-v2',
		emrTemplateId: 'eka_emr_template',
		sendsClientIdHeader: true,
	},
};

/** [IFD]'s {base_url} and {sandbox_base_url}, as the publishing service names them ([EKA-V2] servers). */
export const ENVIRONMENT_BASE_URLS = {
	production: 'https://api.eka.care',
	sandbox: 'https://api.dev.eka.care',
} as const;

const SESSION_RENEWAL_PATH = '/connect-auth/v1/account/refresh-token';

function apiVariantSettings(variant: unknown): ApiVariantSettings {
	return variant === 'public' ? API_VARIANTS.public : API_VARIANTS.document;
}

/**
 * The API Variant option of both credentials, named by what the admin was given (which documents
 * they follow), not by how the variants differ on the wire: that is in docs/credentials.md.
 */
export const API_VARIANT_OPTIONS: Record<ApiVariant, { name: string; description: string }> = {
	public: {
		name: 'Eka Care Developer Docs (developer.eka.care)',
		description: `You follow Eka Care's public documentation at developer.eka.care and made your client in ${CREDENTIALS_PAGE}`,
	},
	document: {
		name: 'Interface Document From Your API Provider',
		description:
			'You were given the interface document ("Clinic Directory, Patient Search and Audio Transcription Interface") and an API key for your workspace',
	},
};

/** The option name of a variant, quoted as the credential shows it. */
function apiVariantLabel(variant: ApiVariant): string {
	return `"${API_VARIANT_OPTIONS[variant].name}"`;
}

function otherApiVariant(variant: ApiVariant): ApiVariant {
	return variant === 'public' ? 'document' : 'public';
}

/**
 * For an upload action the API refused: the API Variant option it belongs to and the one to choose
 * instead, quoted as the credential shows them; undefined when it is neither variant's action.
 */
export function apiVariantSwitchFor(
	uploadAction: string,
): { from: string; to: string } | undefined {
	const variant = (Object.keys(API_VARIANTS) as ApiVariant[]).find(
		(candidate) => API_VARIANTS[candidate].uploadAction === uploadAction,
	);
	return variant
		? { from: apiVariantLabel(variant), to: apiVariantLabel(otherApiVariant(variant)) }
		: undefined;
}

// ─── The credentials' fields ─────────────────────────────────────────────────────────────────────

/** The credential's fields, read once and typed, so no other code reads raw credential data. */
export interface ClinicScribeSettings {
	variant: ApiVariant;
	variantSettings: ApiVariantSettings;
	/** Which field gave the base URL: a named environment, or the Base URL typed in (custom). */
	environment: 'production' | 'sandbox' | 'custom';
	baseUrl: string;
	/** oAuth2: the Clinic Scribe OAuth2 API credential, whose tokens n8n got when the user connected it. */
	authMethod: 'clientCredentials' | 'accessToken' | 'oAuth2';
	clientId: string;
	clientSecret: string;
	apiKey: string;
	staticAccessToken: string;
	sessionToken: string;
	refreshToken: string;
	/**
	 * Which values the session token was made from (`exchangeFingerprint`): empty for a token stored
	 * before fingerprints existed, and for the other authentications.
	 */
	sessionTokenFor: string;
	/** The OAuth2 credential's ID token (the signed-in user's identity); empty otherwise. */
	idToken: string;
	/** The Clinic Scribe Trigger's webhook signing key, when the user chose one. */
	signingKey: string;
}

/**
 * Either credential's fields. The OAuth2 credential has the same API settings (environment,
 * variant, client id for the client-id header, signing key) and the tokens n8n keeps in
 * `oauthTokenData` (empty until connected).
 */
export function readCredentialSettings(
	credentials: ICredentialDataDecryptedObject,
	type: ClinicCredentialType = API_CREDENTIAL_TYPE,
): ClinicScribeSettings {
	const variant: ApiVariant = credentials.apiVariant === 'public' ? 'public' : 'document';
	const common = {
		variant,
		variantSettings: apiVariantSettings(variant),
		environment: environmentOf(credentials.environment),
		baseUrl: resolveBaseUrl(credentials.environment, credentials.baseUrl),
		clientId: trimmedString(credentials.clientId),
		clientSecret: trimmedString(credentials.clientSecret),
		signingKey: trimmedString(credentials.webhookSigningSecret),
	};
	if (type === SIGN_IN_CREDENTIAL_TYPE) {
		const tokens = asRecord(credentials.oauthTokenData) ?? {};
		return {
			...common,
			authMethod: 'oAuth2',
			apiKey: '',
			staticAccessToken: '',
			sessionToken: trimmedString(tokens.access_token),
			refreshToken: trimmedString(tokens.refresh_token),
			sessionTokenFor: '',
			idToken: trimmedString(tokens.id_token),
		};
	}
	return {
		...common,
		authMethod: credentials.authMethod === 'accessToken' ? 'accessToken' : 'clientCredentials',
		apiKey: trimmedString(credentials.apiKey),
		staticAccessToken: trimmedString(credentials.accessToken),
		// A token the transport hands back for renewal (see RENEWING_TOKEN_FIELD) stands in for the
		// session token n8n needs empty to run the exchange hook.
		sessionToken:
			trimmedString(credentials.sessionToken) || trimmedString(credentials[RENEWING_TOKEN_FIELD]),
		refreshToken: trimmedString(credentials.refreshToken),
		sessionTokenFor: trimmedString(credentials.sessionTokenFor),
		idToken: '',
	};
}

function environmentOf(value: unknown): ClinicScribeSettings['environment'] {
	return value === 'custom' || value === 'sandbox' ? value : 'production';
}

function resolveBaseUrl(environment: unknown, customBaseUrl: unknown): string {
	const chosen =
		environment === 'sandbox'
			? ENVIRONMENT_BASE_URLS.sandbox
			: environment === 'custom'
				? trimmedString(customBaseUrl)
				: ENVIRONMENT_BASE_URLS.production;
	return chosen.replace(/\/+$/, '');
}

/** The credential's secret values (never the client id or URLs, which help to diagnose). */
export function credentialSecrets(settings: ClinicScribeSettings): string[] {
	return [
		settings.clientSecret,
		settings.apiKey,
		settings.staticAccessToken,
		settings.sessionToken,
		settings.refreshToken,
		settings.signingKey,
		settings.idToken,
	].filter((value) => value !== '');
}

/**
 * A key of the credential data the transport hands n8n's helper (never stored): the refused session
 * token, while `sessionToken` itself is empty so that n8n runs the exchange hook without a second
 * refused call. The hook renews that token with its refresh token (see renewalCredentialData).
 */
export const RENEWING_TOKEN_FIELD = 'renewingSessionToken';

// ─── Which values a token was made from ──────────────────────────────────────────────────────────

const FINGERPRINT_VERSION = 'v1';

/**
 * A fingerprint of the values a client-credentials token is exchanged with (API variant, Base URL,
 * client ID, secret, workspace key): an HMAC keyed with a random salt, kept beside the token so
 * that an edit of any of them makes the next test or call exchange again. It cannot be turned back
 * into the secret; the salt makes two credentials with the same secret look unrelated.
 */
export function exchangeFingerprint(
	settings: ClinicScribeSettings,
	salt: string = randomBytes(16).toString('hex'),
): string {
	return `${FINGERPRINT_VERSION}:${salt}:${exchangeDigest(settings, salt)}`;
}

function exchangeDigest(settings: ClinicScribeSettings, salt: string): string {
	const values = [
		settings.variant,
		settings.baseUrl,
		settings.clientId,
		settings.clientSecret,
		settings.apiKey,
	];
	return createHmac('sha256', salt).update(JSON.stringify(values)).digest('hex');
}

/**
 * True when the stored session token may be used with the credential's values as they are now:
 * always for a pasted access token and the OAuth2 credential (n8n keeps those), and for an exchanged
 * token only when it was made from exactly these values.
 */
export function sessionTokenFitsSettings(settings: ClinicScribeSettings): boolean {
	if (settings.authMethod !== 'clientCredentials') return true;
	const [version, salt, digest] = settings.sessionTokenFor.split(':');
	if (version !== FINGERPRINT_VERSION || !salt || !digest) return false;
	const expected = Buffer.from(exchangeDigest(settings, salt), 'hex');
	const stored = Buffer.from(digest, 'hex');
	return stored.length === expected.length && timingSafeEqual(stored, expected);
}

/**
 * The credential data that makes n8n's helper run the exchange hook before it sends a call (n8n runs
 * it when the session token is empty): the stored data with the session token moved aside, so the
 * hook can renew it with the refresh token when it still fits the values, or exchange afresh.
 */
export function renewalCredentialData(
	data: ICredentialDataDecryptedObject,
): ICredentialDataDecryptedObject {
	return { ...data, sessionToken: '', [RENEWING_TOKEN_FIELD]: data.sessionToken ?? '' };
}

// ─── Headers ─────────────────────────────────────────────────────────────────────────────────────

type HeaderSettings = Pick<ClinicScribeSettings, 'variantSettings' | 'clientId'>;

/**
 * The headers that carry the token to `url`, or undefined when `url` is not on the API's own host:
 * the token goes nowhere else (never, say, to a storage upload URL). The `/dr/...` directory
 * endpoints take it raw in a header named `auth` ([IFD §5], [EKA-DT]); every other call takes
 * `Authorization: Bearer`. The public service's SDKs also send the client id ([EKA-PYSDK], [EKA-MCP]).
 */
export function authHeadersFor(
	url: string,
	token: string,
	settings: HeaderSettings & Pick<ClinicScribeSettings, 'baseUrl'>,
): Record<string, string> | undefined {
	if (!isApiUrl(url, settings.baseUrl)) return undefined;
	// No token (none that fits the credential's values): no token header; the API refuses the call.
	const tokenHeaders: Record<string, string> =
		token === ''
			? {}
			: isDirectoryPath(pathOf(url))
				? { auth: token }
				: { Authorization: `Bearer ${token}` };
	return { ...tokenHeaders, ...clientIdHeaders(url, settings) };
}

/**
 * The same headers for the OAuth2 credential, whose token n8n adds itself as `Authorization: Bearer`:
 * the client-id header, and the one other header that must carry the token (`auth` on `/dr`).
 */
export function oAuth2HeadersFor(
	url: string,
	settings: HeaderSettings,
): { headers: Record<string, string>; tokenHeader?: 'auth' } {
	return {
		headers: clientIdHeaders(url, settings),
		tokenHeader: isDirectoryPath(pathOf(url)) ? 'auth' : undefined,
	};
}

/** The patient directory (`/profiles`) requires client-id on every call, whichever variant ([EKA-PD]). */
function clientIdHeaders(url: string, settings: HeaderSettings): Record<string, string> {
	const path = pathOf(url);
	const patientDirectory = path === '/profiles' || path.startsWith('/profiles/');
	if (settings.clientId && (settings.variantSettings.sendsClientIdHeader || patientDirectory))
		return { 'client-id': settings.clientId };
	return {};
}

function isDirectoryPath(path: string): boolean {
	return path === '/dr' || path.startsWith('/dr/');
}

/** True when `url` (absolute, or relative to the API) addresses the API's own host. */
function isApiUrl(url: string, baseUrl: string): boolean {
	if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return true;
	return originOf(url) === originOf(baseUrl);
}

function pathOf(url: string): string {
	const withoutOrigin = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
	const path = withoutOrigin.split(/[?#]/)[0];
	return path.startsWith('/') ? path : `/${path}`;
}

function originOf(url: string): string {
	const match = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)/i.exec(url);
	return (match ? match[1] : '').toLowerCase();
}

// ─── The API credential's token exchange ─────────────────────────────────────────────────────────

/** What the credential keeps between executions. */
interface StoredTokens {
	sessionToken: string;
	refreshToken: string;
	/** exchangeFingerprint of the values the token was made from (empty for a pasted token). */
	sessionTokenFor: string;
}

type PlainHttpRequest = (options: IHttpRequestOptions) => Promise<unknown>;

interface FullResponse {
	statusCode: number;
	body: unknown;
	headers?: Record<string, string | string[] | undefined>;
}

/**
 * Gets a token for the credential: the ready token as it is, or a refresh when an earlier token (and
 * its refresh token) exist and were made from the credential's values as they are now, else a full
 * client-credentials exchange, which proves the values as typed (an edited secret, key, client,
 * variant or address is never vouched for by a token made from the old ones).
 */
export async function obtainAccessToken(
	httpRequest: PlainHttpRequest,
	settings: ClinicScribeSettings,
): Promise<StoredTokens> {
	if (settings.authMethod === 'accessToken') {
		if (!settings.staticAccessToken) {
			throw new TokenExchangeError(
				`The Access Token field of the Clinic Scribe API credential is empty: paste a token from ${whereToGet('Access Token')}, or switch Authentication to Client Credentials.`,
			);
		}
		return { sessionToken: settings.staticAccessToken, refreshToken: '', sessionTokenFor: '' };
	}
	if (settings.sessionToken && settings.refreshToken && sessionTokenFitsSettings(settings)) {
		const refreshed = await tryRefresh(httpRequest, settings);
		if (refreshed) return refreshed;
	}
	return await exchangeClientCredentials(httpRequest, settings);
}

async function exchangeClientCredentials(
	httpRequest: PlainHttpRequest,
	settings: ClinicScribeSettings,
): Promise<StoredTokens> {
	assertExchangeFieldsPresent(settings);
	// Asking for a token again is harmless (each answer is a fresh pair), so failures that say
	// "not now" are retried like any other call.
	const response = await postWithRetries(
		httpRequest,
		settings,
		exchangeRequest(settings, settings.variant),
	);
	if (response.statusCode < 200 || response.statusCode >= 300) {
		const otherVariant = await probeOtherVariant(httpRequest, settings);
		throw new TokenExchangeError(describeExchangeRejection(response, settings, otherVariant));
	}
	return readTokens(response.body, 'token exchange', settings);
}

/** The token request of a variant, with the credential's client ID, secret and workspace key. */
function exchangeRequest(settings: ClinicScribeSettings, variant: ApiVariant): IHttpRequestOptions {
	const variantSettings = apiVariantSettings(variant);
	const document = variantSettings.tokenExchange === 'documentTokenEndpoint';
	const body: IDataObject = document
		? {
				client_id: settings.clientId,
				client_secret: settings.clientSecret,
				grant_type: 'client_credentials',
			}
		: { client_id: settings.clientId, client_secret: settings.clientSecret };
	if (!document && settings.apiKey) body.api_key = settings.apiKey;
	const headers: IDataObject = { 'Content-Type': 'application/json', Accept: 'application/json' };
	if (document && settings.apiKey) headers['X-API-KEY'] = settings.apiKey;
	return {
		method: 'POST',
		url: `${settings.baseUrl}${variantSettings.exchangePath}`,
		headers,
		body,
	};
}

/**
 * What the other API variant's token request says to the same client, after the chosen one was
 * refused: accepted (the admin picked the wrong variant), refused (its answer), or nothing to go by
 * (no answer, 5xx, 429 or a redirect, which is never followed). One request, to the same Base URL
 * (the keys never go to another host), without retries, within the token timeout.
 */
type OtherVariantProbe =
	| { outcome: 'accepted'; variant: ApiVariant }
	| { outcome: 'refused'; variant: ApiVariant; response: FullResponse }
	| { outcome: 'unknown'; variant: ApiVariant };

async function probeOtherVariant(
	httpRequest: PlainHttpRequest,
	settings: ClinicScribeSettings,
): Promise<OtherVariantProbe> {
	const variant = otherApiVariant(settings.variant);
	let outcome: TokenEndpointOutcome;
	try {
		outcome = await postToTokenEndpoint(httpRequest, exchangeRequest(settings, variant));
	} catch {
		return { outcome: 'unknown', variant };
	}
	if (outcome.kind === 'network') return { outcome: 'unknown', variant };
	const { response } = outcome;
	if (response.statusCode >= 200 && response.statusCode < 300) {
		const body = asRecord(response.body);
		const token = body?.access_token ?? asRecord(body?.data)?.access_token;
		return typeof token === 'string' && token !== ''
			? { outcome: 'accepted', variant }
			: { outcome: 'unknown', variant };
	}
	// "Not now" says nothing about the client.
	if (mayRetry({ status: response.statusCode })) return { outcome: 'unknown', variant };
	return { outcome: 'refused', variant, response };
}

async function tryRefresh(
	httpRequest: PlainHttpRequest,
	settings: ClinicScribeSettings,
): Promise<StoredTokens | undefined> {
	const headers: IDataObject = {
		'Content-Type': 'application/json',
		Accept: 'application/json',
		Authorization: `Bearer ${settings.sessionToken}`,
	};
	if (settings.clientId) headers['client-id'] = settings.clientId;
	let outcome: TokenEndpointOutcome;
	try {
		outcome = await postToTokenEndpoint(httpRequest, {
			method: 'POST',
			url: `${settings.baseUrl}${SESSION_RENEWAL_PATH}`,
			headers,
			body: { refresh_token: settings.refreshToken, access_token: settings.sessionToken },
		});
	} catch {
		// A redirecting refresh endpoint is not followed; the full exchange says what is wrong.
		return undefined;
	}
	// An unreachable refresh endpoint is no reason to give up: the full exchange may still work.
	if (outcome.kind === 'network') return undefined;
	const { response } = outcome;
	if (response.statusCode < 200 || response.statusCode >= 300) return undefined;
	try {
		return readTokens(response.body, 'token refresh', settings);
	} catch {
		return undefined;
	}
}

function assertExchangeFieldsPresent(settings: ClinicScribeSettings): void {
	const missing: string[] = [];
	if (!settings.clientId) missing.push('Client ID');
	if (!settings.clientSecret) missing.push('Client Secret');
	if (settings.variantSettings.tokenExchange === 'documentTokenEndpoint' && !settings.apiKey) {
		missing.push('Workspace API Key');
	}
	if (!settings.baseUrl) missing.push('Base URL');
	if (missing.length > 0) {
		throw new TokenExchangeError(
			`The Clinic Scribe API credential is missing ${missing.join(', ')}: fill ${missing.length > 1 ? 'them' : 'it'} in (each field's help says where its value comes from).`,
		);
	}
}

/** Posts to a token endpoint until it answers something other than "not now" (5xx, 429, no answer). */
async function postWithRetries(
	httpRequest: PlainHttpRequest,
	settings: ClinicScribeSettings,
	options: IHttpRequestOptions,
): Promise<FullResponse> {
	return await withRetries(PRODUCTION_POLICY.retry, async (attempt) => {
		const outcome = await postToTokenEndpoint(httpRequest, options);
		if (outcome.kind === 'network') {
			const tried = attempt > 1 ? ` Tried ${attempt} times.` : '';
			const unreachable = new TokenExchangeError(
				`Could not reach the clinic API at ${settings.baseUrl} to get an access token (${describeNetworkFailure(outcome.failure)}). The credential was not rejected: check the credential's Environment / Base URL and that the API is reachable from n8n.${tried}`,
				'unavailable',
			);
			if (mayRetry({ noAnswer: outcome.failure })) return { kind: 'retry', error: unreachable };
			throw unreachable;
		}
		const { response } = outcome;
		if (!mayRetry({ status: response.statusCode })) return { kind: 'done', value: response };
		const what = response.statusCode === 429 ? 'is rate limiting token requests' : 'is unavailable';
		const unavailable = new TokenExchangeError(
			`The clinic API's token service ${what} (HTTP ${response.statusCode}, tried ${attempt} times). The credential was not rejected: run the workflow again later.${apiSaid(response, settings)}`,
			'unavailable',
		);
		return { kind: 'retry', error: unavailable, retryAfter: response.headers?.['retry-after'] };
	});
}

type TokenEndpointOutcome =
	| { kind: 'answer'; response: FullResponse }
	| { kind: 'network'; failure: unknown };

/**
 * One request to a token endpoint. Redirects are never followed: n8n would carry the API key, the
 * client secret (a 307/308 re-sends the body) or the refresh token to wherever they point.
 */
async function postToTokenEndpoint(
	httpRequest: PlainHttpRequest,
	options: IHttpRequestOptions,
): Promise<TokenEndpointOutcome> {
	let response: unknown;
	try {
		response = await httpRequest({
			...options,
			json: true,
			disableFollowRedirect: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: PRODUCTION_POLICY.timeouts.tokenMs,
		});
	} catch (error) {
		return { kind: 'network', failure: error };
	}
	const full = response as {
		statusCode?: number;
		body?: unknown;
		headers?: Record<string, string | string[] | undefined>;
	};
	const result: FullResponse = {
		statusCode: Number(full.statusCode ?? 0),
		body: full.body,
		headers: full.headers ?? {},
	};
	if (result.statusCode >= 300 && result.statusCode < 400) {
		const host = redirectTargetHost(result.headers?.location, options.url);
		throw new TokenExchangeError(
			`The clinic API answered the token request with a redirect (HTTP ${result.statusCode}) to ${host}, which was not followed: the credential's keys never go to another address. Check the credential's Environment / Base URL.`,
			'redirected',
		);
	}
	return { kind: 'answer', response: result };
}

function readTokens(body: unknown, step: string, settings: ClinicScribeSettings): StoredTokens {
	const data = asRecord(body) ?? {};
	const nested = asRecord(data.data) ?? {};
	const accessToken = data.access_token ?? nested.access_token;
	const refreshToken = data.refresh_token ?? nested.refresh_token;
	if (typeof accessToken !== 'string' || accessToken === '') {
		// Not a refusal of the credential: a truncated answer, or another service at the Base URL.
		throw new TokenExchangeError(
			`The clinic API answered the ${step} without an access token. Check that the credential's Base URL points at the clinic API and not at another service.`,
			'unavailable',
		);
	}
	return {
		sessionToken: accessToken,
		refreshToken: typeof refreshToken === 'string' ? refreshToken : '',
		sessionTokenFor: exchangeFingerprint(settings),
	};
}

/** The field a refusal of the token request names, from the status and whatever error text it sent. */
function rejectedField(response: FullResponse): SourcedField | undefined {
	const fields = readErrorFields(response.body);
	const said = `${fields.code ?? ''} ${fields.message ?? ''}`.toLowerCase();
	if (
		/api[_ -]?key|sharing[_ -]?key|workspace/.test(said) ||
		(response.statusCode === 403 && !/secret|client/.test(said))
	) {
		return 'Workspace API Key';
	}
	if (/secret/.test(said)) return 'Client Secret';
	if (/client[_ -]?id|client not found|unknown client/.test(said)) return 'Client ID';
	if (response.statusCode === 401) return 'Client ID or Client Secret';
	return undefined;
}

/** No token endpoint of that variant here: the path is unknown, or takes no POST. */
function isMissingEndpoint(response: FullResponse): boolean {
	return response.statusCode === 404 || response.statusCode === 405;
}

/**
 * Says what the API rejected and what to change. With the other variant's answer (`probe`) it can
 * say more: that the other API Variant accepts this client, that only the other variant's token
 * request exists here, or that both refused the same client, so the variant is not the cause.
 */
function describeExchangeRejection(
	response: FullResponse,
	settings: ClinicScribeSettings,
	probe?: OtherVariantProbe,
): string {
	const field = rejectedField(response);
	const rejected = field ? `the ${field}` : 'the credential';
	const chosen = apiVariantLabel(settings.variant);
	const said = apiSaid(response, settings);
	const refusal = `The clinic API rejected ${rejected} (HTTP ${response.statusCode}) while issuing an access token`;

	if (probe?.outcome === 'accepted') {
		const other = apiVariantLabel(probe.variant);
		const switchTo = `set API Variant to ${other} in the Clinic Scribe API credential, then test it again.`;
		if (isMissingEndpoint(response)) {
			return `The clinic API has no token request for API Variant ${chosen} (HTTP ${response.statusCode}), but it accepts this client with ${other}: ${switchTo}`;
		}
		return `${refusal} with API Variant ${chosen}, but it accepts this client with ${other}: ${switchTo}${said}`;
	}
	if (
		probe?.outcome === 'refused' &&
		isMissingEndpoint(response) &&
		!isMissingEndpoint(probe.response)
	) {
		const other = apiVariantLabel(probe.variant);
		const otherField = rejectedField(probe.response);
		const then = otherField
			? ` With ${other} it then rejected the ${otherField} (HTTP ${probe.response.statusCode}): ${fieldAdvice(otherField, settings, probe.variant)}`
			: '';
		return `The clinic API has no token request for API Variant ${chosen} (HTTP ${response.statusCode}), but it answers the one of ${other}: set API Variant to ${other} in the Clinic Scribe API credential, then test it again.${then}`;
	}
	if (probe?.outcome === 'refused' && field && rejectedField(probe.response) === field) {
		return `${refusal}, and API Variant ${apiVariantLabel(probe.variant)} rejected it too, so API Variant is not the cause: ${fieldAdvice(field, settings, settings.variant)} Check also that ${whereTheClientLives(settings)}: production and sandbox have separate clients.${said}`;
	}
	return `${refusal}. Check ${rejected} in the Clinic Scribe API credential, and that it belongs to ${settings.environment === 'custom' ? `the address in Base URL (${settings.baseUrl})` : 'the chosen Environment'} and to API Variant ${chosen}.${said}`;
}

/** Where the client must have been made, said of the field the admin set: Environment, or the Base URL. */
function whereTheClientLives(settings: ClinicScribeSettings): string {
	return settings.environment === 'custom'
		? `the Base URL (${settings.baseUrl}) is the address of the environment the client was made in`
		: 'Environment is the one the client was made in';
}

/** What to do about a rejected field, as a clause: where to copy it again (or, for a missing key, fill it in). */
function fieldAdvice(
	field: SourcedField,
	settings: ClinicScribeSettings,
	variant: ApiVariant,
): string {
	if (field === 'Workspace API Key' && !settings.apiKey) {
		const required = variant === 'document' ? ` (${apiVariantLabel(variant)} requires it)` : '';
		return `fill in the Workspace API Key${required}, from ${whereToGet(field)}.`;
	}
	return `copy the ${field} again from ${whereToGet(field)}.`;
}

/** The API's own words, without any secret. */
function apiSaid(response: FullResponse, settings: ClinicScribeSettings): string {
	const fields = readErrorFields(response.body);
	const detail = scrubSecrets(
		[fields.code, fields.message].filter(Boolean).join(': '),
		credentialSecrets(settings),
	);
	return detail ? ` The API said: ${detail}.` : '';
}
