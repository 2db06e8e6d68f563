/**
 * One attempt of a clinic API call through n8n's authenticated helper, the same on n8n 1.x and 2.x:
 * every status comes back as an answer, and a 401 is renewed once for the whole run (the other
 * calls wait for that renewal and use its token), by sending the call once more with status errors
 * on, which makes n8n renew the token and send it again itself. Also: a raw body opened afresh for
 * every send, the run's first call sent alone, and whatever the helper threw read as an outcome (an
 * answer, a 401, a token problem, no answer).
 */
import type { IHttpRequestOptions } from 'n8n-workflow';

import { oAuth2HeadersFor } from './authHeaders';
import { API_CREDENTIAL_TYPE, SIGN_IN_CREDENTIAL_TYPE } from '../shared/credentialChoice';
import { readCredentialSettings } from './credentialSettings';
import { describeNetworkFailure, isNetworkFailure } from './errorBodies';
import type { ClinicApiContext, ClinicApiRequest, ClinicApiResponse, RawRequestBody } from './request';
import type { RunCredential } from './runCredential';
import { signInRenewalFailureOf, type TokenProblem } from './signInFailures';
import { tokenFailureKindOfCode, type TokenFailureKind } from './tokenExchange';

export type AttemptOutcome =
	| { kind: 'response'; response: ClinicApiResponse }
	| {
			kind: 'failure';
			unauthorized: boolean;
			/** No answer came, for a reason worth another try (reset, timeout; see isNetworkFailure). */
			network: boolean;
			body: unknown;
			description: string;
			tokenProblem?: TokenProblem;
	  };

/** Sends the call once (renewing the token once when the API refuses it, see renewedAnswer). */
export async function sendAuthenticated(
	ctx: ClinicApiContext,
	credential: RunCredential,
	options: IHttpRequestOptions,
	request: ClinicApiRequest,
): Promise<AttemptOutcome> {
	try {
		const gate = credential.type === SIGN_IN_CREDENTIAL_TYPE ? sendNow : firstCallAlone;
		const raw = await gate(credential, async () => {
			// A renewal under way: its token is the one to send (the stored one was refused).
			await settledRenewal(credential);
			const answer = await authenticatedCall(ctx, credential, options);
			if (answer.statusCode !== 401 || request.acceptStatuses?.includes(401)) return answer;
			return await renewedAnswer(ctx, credential, options, request);
		});
		return { kind: 'response', response: { statusCode: raw.statusCode, body: raw.body, headers: raw.headers ?? {} } };
	} catch (error) {
		const response = responseOf(error);
		const status = httpStatusOf(error);
		// A renewal that failed is the token endpoint's answer, not the API's, whatever its status; an
		// HTTP error of the call's own address is the API's answer (thrown while n8n renews).
		const tokenProblem: TokenProblem | undefined = answeredAt(error, options.url)
			? undefined
			: (tokenFailureOf(error) ?? (credential.type === SIGN_IN_CREDENTIAL_TYPE ? signInRenewalFailureOf(error, credential.name) : undefined));
		// An HTTP answer that came as an error (every status does while n8n renews): an answer all the
		// same. n8n 1.x keeps no cause, only the status and a JSON body's object.
		if (status !== 0 && status !== 401 && !tokenProblem) {
			return {
				kind: 'response',
				response: { statusCode: status, body: response?.data ?? contextDataOf(error), headers: response?.headers ?? {} },
			};
		}
		return {
			kind: 'failure',
			unauthorized: status === 401,
			network: status === 0 && isNetworkFailure(error),
			body: response?.data ?? contextDataOf(error),
			description: describeNetworkFailure(error),
			tokenProblem,
		};
	}
}

/**
 * The answer to a call the API refused with 401 (the token n8n holds expired, or was replaced).
 * While another call of the run renews the token, this one waits for it and is sent once more with
 * the renewed token. Otherwise (or when the API refuses that token too) this call renews: sent once
 * more with every status an error, so n8n's helper sees the 401, renews the token (the API
 * credential's exchange, or the OAuth2 refresh; or it finds one stored meanwhile by another
 * execution), stores it for every later call and execution, and sends the call again itself. The
 * calls that fail meanwhile wait for this one, so calls in flight together share one renewal, on
 * either credential and every n8n line. The refused call was not taken by the API, so any call may
 * be sent again; a raw body goes as one buffer here, which n8n can send twice.
 */
async function renewedAnswer(
	ctx: ClinicApiContext,
	credential: RunCredential,
	options: IHttpRequestOptions,
	request: ClinicApiRequest,
): Promise<HelperAnswer> {
	if (credential.renewal) {
		await settledRenewal(credential);
		const again: IHttpRequestOptions = { ...options };
		if (request.rawBody) await withRawBody(again, request.rawBody);
		const answer = await authenticatedCall(ctx, credential, again);
		if (answer.statusCode !== 401) return answer;
	}
	const renewing: IHttpRequestOptions = { ...options, ignoreHttpStatusErrors: false };
	if (request.rawBody) await withRawBody(renewing, request.rawBody, true);
	const renewal = authenticatedCall(ctx, credential, renewing);
	credential.renewal = renewal;
	const done = (): void => {
		if (credential.renewal === renewal) credential.renewal = undefined;
	};
	renewal.then(done, done);
	return await renewal;
}

/** Waits until no renewal of the run's token is under way (whatever it came to). */
async function settledRenewal(credential: RunCredential): Promise<void> {
	while (credential.renewal) await credential.renewal.then(ignore, ignore);
}

/**
 * Puts a fresh copy of the raw body into the options: a stream, or (`whole`) the bytes in one
 * buffer, for the call that asks n8n to renew: n8n sends the same body again after the renewal,
 * which a stream (used up by the first send) cannot be. Only a session file (at most 10 MB) has a
 * raw body.
 */
export async function withRawBody(options: IHttpRequestOptions, raw: RawRequestBody, whole = false): Promise<void> {
	const opened = await raw.open();
	options.body = (whole ? await wholeBody(opened) : opened) as IHttpRequestOptions['body'];
	options.json = false;
	options.headers = {
		...options.headers,
		'Content-Type': raw.contentType ?? 'application/octet-stream',
		'Content-Length': String(raw.contentLength),
	};
}

async function wholeBody(stream: unknown): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
	return Buffer.concat(chunks);
}

interface HelperAnswer {
	statusCode: number;
	body: unknown;
	headers?: Record<string, string | string[] | undefined>;
}

/**
 * n8n's authenticated helper, as documented: n8n reads the stored credential, gets a token when
 * there is none (the API credential's exchange) and, when status errors are on, renews it after a
 * 401 and sends the call once more, storing it for every later call and execution (renewedAnswer).
 * The `/dr` endpoints get the OAuth2 credential's token in `auth` too.
 */
async function authenticatedCall(ctx: ClinicApiContext, credential: RunCredential, options: IHttpRequestOptions): Promise<HelperAnswer> {
	if (credential.type !== SIGN_IN_CREDENTIAL_TYPE) {
		return (await ctx.helpers.httpRequestWithAuthentication.call(ctx, API_CREDENTIAL_TYPE, { ...options })) as HelperAnswer;
	}
	const { headers, tokenHeader } = oAuth2HeadersFor(options.url, readCredentialSettings(credential.data, credential.type));
	return (await ctx.helpers.httpRequestWithAuthentication.call(
		ctx,
		SIGN_IN_CREDENTIAL_TYPE,
		{ ...options, headers: { ...options.headers, ...headers } },
		tokenHeader ? { oauth2: { keyToIncludeInAccessTokenHeader: tokenHeader } } : undefined,
	)) as HelperAnswer;
}

/**
 * Until a call of the run has had an answer other than 401, one call goes at a time (uploads run
 * several at once): when the credential holds no token yet, or an expired one, that call gets one
 * and n8n stores it, and the calls waiting here then use it instead of each exchanging one.
 */
async function firstCallAlone(credential: RunCredential, send: () => Promise<HelperAnswer>): Promise<HelperAnswer> {
	while (!credential.answered && credential.firstCall) {
		await credential.firstCall.then(ignore, ignore);
	}
	const call = send();
	if (!credential.answered) {
		credential.firstCall = call;
		const settled = (answered: boolean): void => {
			if (answered) credential.answered = true;
			if (credential.firstCall === call) credential.firstCall = undefined;
		};
		call.then(
			(answer) => settled(answer.statusCode !== 401),
			(error: unknown) => settled(![0, 401].includes(httpStatusOf(error)) && !tokenFailureOf(error)),
		);
	}
	return await call;
}

async function sendNow(_credential: RunCredential, send: () => Promise<HelperAnswer>): Promise<HelperAnswer> {
	return await send();
}

function ignore(): void {}

/** The HTTP status an error carries (n8n 2.x: its cause's response; n8n 1.x: httpCode only), or 0. */
function httpStatusOf(error: unknown): number {
	const httpCode = (error as { httpCode?: unknown }).httpCode;
	// httpCode may hold a network error code ("ECONNRESET") rather than a status.
	return Number(responseOf(error)?.status ?? (/^\d{3}$/.test(String(httpCode)) ? httpCode : 0));
}

/** The HTTP answer an error carries: n8n wraps a failed call (its cause has it); its OAuth2 helper throws the HTTP error itself. */
function responseOf(error: unknown): ErrorResponse | undefined {
	return causeOf(error).response ?? (error as { response?: ErrorResponse }).response;
}

/** Whether the error is the HTTP client's, for an answer from `url` (n8n 2.x keeps it as the cause). */
function answeredAt(error: unknown, url: string): boolean {
	for (const candidate of [error, causeOf(error)]) {
		const record = candidate as { response?: unknown; config?: { url?: unknown } };
		if (record.response !== undefined && record.config?.url === url) return true;
	}
	return false;
}

/** The JSON object body n8n 1.x keeps of an error answer (NodeApiError's context.data). */
function contextDataOf(error: unknown): unknown {
	const context = (error as { context?: unknown }).context;
	return typeof context === 'object' && context !== null ? (context as { data?: unknown }).data : undefined;
}

/** A failed token exchange reaches us wrapped by n8n; its message is already written for the user. */
function tokenFailureOf(error: unknown): { message: string; kind: TokenFailureKind } | undefined {
	for (const candidate of [causeOf(error), error]) {
		const record = (typeof candidate === 'object' && candidate !== null ? candidate : {}) as {
			name?: unknown;
			message?: unknown;
			kind?: unknown;
		};
		if (record.name === 'TokenExchangeError' && typeof record.message === 'string' && record.message) {
			const kind = record.kind === 'unavailable' || record.kind === 'redirected' ? record.kind : 'rejected';
			return { message: record.message, kind };
		}
	}
	// n8n 1.x: the wrapping NodeApiError keeps the token error's code as httpCode and its message
	// first among its messages (n8n may put a generic one in `message`).
	const wrapped = (typeof error === 'object' && error !== null ? error : {}) as { httpCode?: unknown; messages?: unknown; message?: unknown };
	const kind = tokenFailureKindOfCode(wrapped.httpCode);
	if (!kind) return undefined;
	const first = Array.isArray(wrapped.messages) ? wrapped.messages[0] : undefined;
	const message = typeof first === 'string' && first ? first : typeof wrapped.message === 'string' ? wrapped.message : '';
	return message ? { message, kind } : undefined;
}

type ErrorResponse = { status?: number; data?: unknown; headers?: Record<string, string | string[] | undefined> };

function causeOf(error: unknown): { response?: ErrorResponse; name?: string; message?: string } {
	const record = (typeof error === 'object' && error !== null ? error : {}) as { cause?: unknown };
	const cause = typeof record.cause === 'object' && record.cause !== null ? record.cause : error;
	return (typeof cause === 'object' && cause !== null ? cause : {}) as { response?: ErrorResponse };
}
