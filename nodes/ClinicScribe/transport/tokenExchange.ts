/**
 * The Clinic Scribe API credential's token exchange (its preAuthentication hook): the ready token as
 * it is, a refresh of a token made from the values as they are now, else a client-credentials
 * exchange in the credential's API variant (and a probe of the other variant when it is refused),
 * each refusal said in words that name the field to fix. Knows no node context: n8n runs the hook
 * without one.
 */
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { whereToGet, type SourcedField } from '../shared/fields/credentialSources';
import { asRecord } from '../shared/values';
import {
	apiVariantLabel,
	apiVariantSettings,
	credentialSecrets,
	exchangeFingerprint,
	otherApiVariant,
	SESSION_RENEWAL_PATH,
	sessionTokenFitsSettings,
	type ApiVariant,
	type ClinicScribeSettings,
} from './authentication';
import { describeNetworkFailure, readErrorFields, redirectTargetHost } from './errors';
import { mayRetry, PRODUCTION_POLICY, withRetries } from './retryPolicy';
import { scrubSecrets } from './secretScrubbing';
import { TokenExchangeError } from './tokenErrors';

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
