/**
 * Authentication: the two API variants and the environments, the credentials' fields read once
 * (`readCredentialSettings`), the headers a call carries; the Clinic Scribe API credential's token
 * exchange is tokenExchange.ts. Knows no node context: the credentials use it (n8n runs their hooks
 * without one).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import {
	API_CREDENTIAL_TYPE,
	SIGN_IN_CREDENTIAL_TYPE,
	type ClinicCredentialType,
} from '../shared/fields/credentialChoice';
import { CREDENTIALS_PAGE } from '../shared/fields/credentialSources';
import { asRecord, trimmedString } from '../shared/values';

// ─── The API variants and environments ───────────────────────────────────────────────────────────

/**
 * The one place where [IFD] and the public service spell things differently: the token exchange
 * ([IFD §4.5] vs [EKA-AUTH] login), the upload action and the EMR template id ([IFD §2.5] vs
 * [EKA-V2]). Everything else is the same in both (docs/api-sources.md, "The API variant").
 */
export type ApiVariant = 'document' | 'public';

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

export const SESSION_RENEWAL_PATH = '/connect-auth/v1/account/refresh-token';

export function apiVariantSettings(variant: unknown): ApiVariantSettings {
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
export function apiVariantLabel(variant: ApiVariant): string {
	return `"${API_VARIANT_OPTIONS[variant].name}"`;
}

export function otherApiVariant(variant: ApiVariant): ApiVariant {
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
const RENEWING_TOKEN_FIELD = 'renewingSessionToken';

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
