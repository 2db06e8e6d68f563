import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { asRecord } from '../shared/values';
import { whereToGet, type SourcedField } from '../shared/credentialSources';
import { apiVariantLabel, apiVariantSettings, otherApiVariant, SESSION_RENEWAL_PATH, type ApiVariant } from './apiVariants';
import type { ClinicScribeSettings } from './credentialSettings';
import { describeNetworkFailure, isNetworkFailure, readErrorFields, redirectTargetHost, scrubSecrets } from './errorBodies';
import { withRetries } from './retry';
import { PRODUCTION_POLICY, RETRYABLE_STATUSES } from './retryPolicy';

/** What the credential keeps between executions. */
export interface StoredTokens {
	sessionToken: string;
	refreshToken: string;
}

export type PlainHttpRequest = (options: IHttpRequestOptions) => Promise<unknown>;

interface FullResponse {
	statusCode: number;
	body: unknown;
	headers?: Record<string, string | string[] | undefined>;
}

/**
 * rejected: the API said no to the credential (or it is incomplete), so the user must fix it;
 * unavailable: the token service did not answer usefully (5xx, 429, network) even after retries;
 * redirected: the token endpoint pointed elsewhere, which is never followed.
 */
export type TokenFailureKind = 'rejected' | 'unavailable' | 'redirected';

/**
 * Raised when no token could be had; its message says why, and `kind` what the user can do. Its
 * `errorCode` names the kind too: n8n 1.x wraps it in a NodeApiError that keeps no cause, only that
 * code (as httpCode) and the message (first of its messages). Not `code`: n8n's credential test
 * shows a cause's `code` instead of its message.
 */
export class TokenExchangeError extends Error {
	readonly errorCode: string;

	constructor(
		message: string,
		readonly kind: TokenFailureKind = 'rejected',
	) {
		super(message);
		this.name = 'TokenExchangeError';
		this.errorCode = `${TOKEN_FAILURE_CODE_PREFIX}${kind.toUpperCase()}`;
	}
}

const TOKEN_FAILURE_CODE_PREFIX = 'CLINIC_SCRIBE_TOKEN_';

/** The kind a TokenExchangeError's code names, or undefined for any other code. */
export function tokenFailureKindOfCode(code: unknown): TokenFailureKind | undefined {
	if (typeof code !== 'string' || !code.startsWith(TOKEN_FAILURE_CODE_PREFIX)) return undefined;
	const kind = code.slice(TOKEN_FAILURE_CODE_PREFIX.length).toLowerCase();
	return kind === 'rejected' || kind === 'unavailable' || kind === 'redirected' ? kind : undefined;
}

/**
 * Gets a token for the credential: the ready token as it is, or a refresh when an earlier token
 * (and its refresh token) exist, falling back to a full client-credentials exchange.
 */
export async function obtainAccessToken(
	httpRequest: PlainHttpRequest,
	settings: ClinicScribeSettings,
): Promise<StoredTokens> {
	if (settings.authMethod === 'accessToken') {
		if (!settings.staticAccessToken) {
			throw new TokenExchangeError(
				'The Access Token field of the Clinic Scribe API credential is empty: paste a token from the developer console, or switch Authentication to Client Credentials.',
			);
		}
		return { sessionToken: settings.staticAccessToken, refreshToken: '' };
	}
	if (settings.sessionToken && settings.refreshToken) {
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
	const response = await postWithRetries(httpRequest, settings, exchangeRequest(settings, settings.variant));
	if (response.statusCode < 200 || response.statusCode >= 300) {
		const otherVariant = await probeOtherVariant(httpRequest, settings);
		throw new TokenExchangeError(describeExchangeRejection(response, settings, otherVariant));
	}
	return readTokens(response.body, 'token exchange');
}

/** The token request of a variant, with the credential's client ID, secret and workspace key. */
function exchangeRequest(settings: ClinicScribeSettings, variant: ApiVariant): IHttpRequestOptions {
	const variantSettings = apiVariantSettings(variant);
	const document = variantSettings.tokenExchange === 'documentTokenEndpoint';
	const body: IDataObject = document
		? { client_id: settings.clientId, client_secret: settings.clientSecret, grant_type: 'client_credentials' }
		: { client_id: settings.clientId, client_secret: settings.clientSecret };
	if (!document && settings.apiKey) body.api_key = settings.apiKey;
	const headers: IDataObject = { 'Content-Type': 'application/json', Accept: 'application/json' };
	if (document && settings.apiKey) headers['X-API-KEY'] = settings.apiKey;
	return { method: 'POST', url: `${settings.baseUrl}${variantSettings.exchangePath}`, headers, body };
}

/**
 * What the other API variant's token request says to the same client, after the chosen one was
 * refused: accepted (the admin picked the wrong variant), refused (its answer), or nothing to go by
 * (no answer, 5xx, 429 or a redirect, which is never followed). One request, to the same Base URL
 * (the keys never go to another host), without retries, within the token timeout.
 */
export type OtherVariantProbe =
	| { outcome: 'accepted'; variant: ApiVariant }
	| { outcome: 'refused'; variant: ApiVariant; response: FullResponse }
	| { outcome: 'unknown'; variant: ApiVariant };

async function probeOtherVariant(httpRequest: PlainHttpRequest, settings: ClinicScribeSettings): Promise<OtherVariantProbe> {
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
		return typeof token === 'string' && token !== '' ? { outcome: 'accepted', variant } : { outcome: 'unknown', variant };
	}
	if (RETRYABLE_STATUSES.has(response.statusCode)) return { outcome: 'unknown', variant };
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
		return readTokens(response.body, 'token refresh');
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
			`The Clinic Scribe API credential is missing ${missing.join(', ')}: fill ${missing.length > 1 ? 'them' : 'it'} in from your developer console.`,
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
			if (isNetworkFailure(outcome.failure)) return { kind: 'retry', error: unreachable };
			throw unreachable;
		}
		const { response } = outcome;
		if (!RETRYABLE_STATUSES.has(response.statusCode)) return { kind: 'done', value: response };
		const unavailable = new TokenExchangeError(describeUnavailable(response, settings, attempt), 'unavailable');
		return { kind: 'retry', error: unavailable, retryAfter: response.headers?.['retry-after'] };
	});
}

type TokenEndpointOutcome = { kind: 'answer'; response: FullResponse } | { kind: 'network'; failure: unknown };

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
	const full = response as { statusCode?: number; body?: unknown; headers?: Record<string, string | string[] | undefined> };
	const result: FullResponse = { statusCode: Number(full.statusCode ?? 0), body: full.body, headers: full.headers ?? {} };
	if (result.statusCode >= 300 && result.statusCode < 400) {
		throw new TokenExchangeError(describeRedirect(result, options.url), 'redirected');
	}
	return { kind: 'answer', response: result };
}

function describeRedirect(response: FullResponse, requestUrl: string | undefined): string {
	const host = redirectTargetHost(response.headers?.location, requestUrl);
	return `The clinic API answered the token request with a redirect (HTTP ${response.statusCode}) to ${host}, which was not followed: the credential's keys never go to another address. Check the credential's Environment / Base URL.`;
}

function describeUnavailable(response: FullResponse, settings: ClinicScribeSettings, attempts: number): string {
	const fields = readErrorFields(response.body);
	const detail = scrubSecrets([fields.code, fields.message].filter(Boolean).join(': '), exchangeSecrets(settings));
	const said = detail ? ` The API said: ${detail}.` : '';
	const what = response.statusCode === 429 ? 'is rate limiting token requests' : 'is unavailable';
	return `The clinic API's token service ${what} (HTTP ${response.statusCode}, tried ${attempts} times). The credential was not rejected: run the workflow again later.${said}`;
}

function exchangeSecrets(settings: ClinicScribeSettings): string[] {
	return [settings.clientSecret, settings.apiKey, settings.sessionToken, settings.refreshToken, settings.staticAccessToken];
}

function readTokens(body: unknown, step: string): StoredTokens {
	const data = (typeof body === 'object' && body !== null ? body : {}) as IDataObject;
	const nested = (typeof data.data === 'object' && data.data !== null ? data.data : {}) as IDataObject;
	const accessToken = data.access_token ?? nested.access_token;
	const refreshToken = data.refresh_token ?? nested.refresh_token;
	if (typeof accessToken !== 'string' || accessToken === '') {
		// Not a refusal of the credential: a truncated answer, or another service at the Base URL.
		throw new TokenExchangeError(
			`The clinic API answered the ${step} without an access token. Check that the credential's Base URL points at the clinic API and not at another service.`,
			'unavailable',
		);
	}
	return { sessionToken: accessToken, refreshToken: typeof refreshToken === 'string' ? refreshToken : '' };
}

/** The field a refusal of the token request names, from the status and whatever error text it sent. */
export function rejectedField(response: FullResponse): SourcedField | undefined {
	const fields = readErrorFields(response.body);
	const said = `${fields.code ?? ''} ${fields.message ?? ''}`.toLowerCase();
	if (/api[_ -]?key|sharing[_ -]?key|workspace/.test(said) || (response.statusCode === 403 && !/secret|client/.test(said))) {
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
export function describeExchangeRejection(
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
	if (probe?.outcome === 'refused' && isMissingEndpoint(response) && !isMissingEndpoint(probe.response)) {
		const other = apiVariantLabel(probe.variant);
		const otherField = rejectedField(probe.response);
		const then = otherField
			? ` With ${other} it then rejected the ${otherField} (HTTP ${probe.response.statusCode}): ${fieldAdvice(otherField, settings, probe.variant)}`
			: '';
		return `The clinic API has no token request for API Variant ${chosen} (HTTP ${response.statusCode}), but it answers the one of ${other}: set API Variant to ${other} in the Clinic Scribe API credential, then test it again.${then}`;
	}
	if (probe?.outcome === 'refused' && field && rejectedField(probe.response) === field) {
		return `${refusal}, and API Variant ${apiVariantLabel(probe.variant)} rejected it too, so API Variant is not the cause: ${fieldAdvice(field, settings, settings.variant)} Check also that Environment is the one the client was made in: production and sandbox have separate clients.${said}`;
	}
	return `${refusal}. Check ${rejected} in the Clinic Scribe API credential, and that it belongs to the chosen Environment and to API Variant ${chosen}.${said}`;
}

/** What to do about a rejected field, as a clause: where to copy it again (or, for a missing key, fill it in). */
function fieldAdvice(field: SourcedField, settings: ClinicScribeSettings, variant: ApiVariant): string {
	if (field === 'Workspace API Key' && !settings.apiKey) {
		const required = variant === 'document' ? ` (${apiVariantLabel(variant)} requires it)` : '';
		return `fill in the Workspace API Key${required}, from ${whereToGet(field)}.`;
	}
	return `copy the ${field} again from ${whereToGet(field)}.`;
}

/** The API's own words, without any secret. */
function apiSaid(response: FullResponse, settings: ClinicScribeSettings): string {
	const fields = readErrorFields(response.body);
	const detail = scrubSecrets([fields.code, fields.message].filter(Boolean).join(': '), exchangeSecrets(settings));
	return detail ? ` The API said: ${detail}.` : '';
}
