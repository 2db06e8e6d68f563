import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { SESSION_RENEWAL_PATH } from './apiVariants';
import type { ClinicScribeSettings } from './credentialSettings';
import { describeNetworkFailure, readErrorFields, scrubSecrets } from './errorBodies';

/** What the credential keeps between executions. */
export interface StoredTokens {
	sessionToken: string;
	refreshToken: string;
}

export type PlainHttpRequest = (options: IHttpRequestOptions) => Promise<unknown>;

interface FullResponse {
	statusCode: number;
	body: unknown;
}

/** Raised when the API refuses to give a token; its message names the rejected field. */
export class TokenExchangeError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'TokenExchangeError';
	}
}

const TOKEN_TIMEOUT_MS = 30_000;

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

export async function exchangeClientCredentials(
	httpRequest: PlainHttpRequest,
	settings: ClinicScribeSettings,
): Promise<StoredTokens> {
	assertExchangeFieldsPresent(settings);
	const document = settings.variantSettings.tokenExchange === 'documentTokenEndpoint';
	const body: IDataObject = document
		? { client_id: settings.clientId, client_secret: settings.clientSecret, grant_type: 'client_credentials' }
		: { client_id: settings.clientId, client_secret: settings.clientSecret };
	if (!document && settings.apiKey) body.api_key = settings.apiKey;
	const headers: IDataObject = { 'Content-Type': 'application/json', Accept: 'application/json' };
	if (document) headers['X-API-KEY'] = settings.apiKey;

	const response = await send(httpRequest, settings, {
		method: 'POST',
		url: `${settings.baseUrl}${settings.variantSettings.exchangePath}`,
		headers,
		body,
	});
	if (response.statusCode < 200 || response.statusCode >= 300) {
		throw new TokenExchangeError(describeExchangeRejection(response, settings));
	}
	return readTokens(response.body, 'token exchange');
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
	let response: FullResponse;
	try {
		response = await send(httpRequest, settings, {
			method: 'POST',
			url: `${settings.baseUrl}${SESSION_RENEWAL_PATH}`,
			headers,
			body: { refresh_token: settings.refreshToken, access_token: settings.sessionToken },
		});
	} catch {
		// An unreachable refresh endpoint is no reason to give up: the full exchange may still work.
		return undefined;
	}
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

async function send(
	httpRequest: PlainHttpRequest,
	settings: ClinicScribeSettings,
	options: IHttpRequestOptions,
): Promise<FullResponse> {
	let response: unknown;
	let failure: unknown;
	try {
		response = await httpRequest({
			...options,
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: TOKEN_TIMEOUT_MS,
		});
	} catch (error) {
		failure = error;
	}
	if (failure !== undefined) {
		throw new TokenExchangeError(
			`Could not reach the clinic API at ${settings.baseUrl} to get an access token (${describeNetworkFailure(failure)}). Check the credential's Environment / Base URL and that the API is reachable from n8n.`,
		);
	}
	const full = response as { statusCode?: number; body?: unknown };
	return { statusCode: Number(full.statusCode ?? 0), body: full.body };
}

function readTokens(body: unknown, step: string): StoredTokens {
	const data = (typeof body === 'object' && body !== null ? body : {}) as IDataObject;
	const nested = (typeof data.data === 'object' && data.data !== null ? data.data : {}) as IDataObject;
	const accessToken = data.access_token ?? nested.access_token;
	const refreshToken = data.refresh_token ?? nested.refresh_token;
	if (typeof accessToken !== 'string' || accessToken === '') {
		throw new TokenExchangeError(
			`The clinic API answered the ${step} without an access token. Check that the credential's Base URL points at the clinic API and not at another service.`,
		);
	}
	return { sessionToken: accessToken, refreshToken: typeof refreshToken === 'string' ? refreshToken : '' };
}

/** Names the field the API rejected, from the status and whatever error text it sent. */
export function describeExchangeRejection(response: FullResponse, settings: ClinicScribeSettings): string {
	const fields = readErrorFields(response.body);
	const said = `${fields.code ?? ''} ${fields.message ?? ''}`.toLowerCase();
	let rejected: string;
	if (/api[_ -]?key|sharing[_ -]?key|workspace/.test(said) || (response.statusCode === 403 && !/secret|client/.test(said))) {
		rejected = 'the Workspace API Key';
	} else if (/secret/.test(said)) {
		rejected = 'the Client Secret';
	} else if (/client[_ -]?id|client not found|unknown client/.test(said)) {
		rejected = 'the Client ID';
	} else if (response.statusCode === 401) {
		rejected = 'the Client ID or Client Secret';
	} else {
		rejected = 'the credential';
	}
	const detail = scrubSecrets(
		[fields.code, fields.message].filter(Boolean).join(': '),
		[settings.clientSecret, settings.apiKey, settings.sessionToken, settings.refreshToken],
	);
	const suffix = detail ? ` The API said: ${detail}.` : '';
	return `The clinic API rejected ${rejected} (HTTP ${response.statusCode}) while issuing an access token. Check ${rejected} in the Clinic Scribe API credential, and that it belongs to the chosen environment and API variant.${suffix}`;
}
