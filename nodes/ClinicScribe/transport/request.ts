import {
	NodeApiError,
	NodeOperationError,
	sleep,
	type ICredentialDataDecryptedObject,
	type ICredentialsDecrypted,
	type IDataObject,
	type IExecuteFunctions,
	type IHookFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
	type IWebhookFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { oAuth2HeadersFor } from './authHeaders';
import {
	CREDENTIAL_TYPE,
	SIGN_IN_CREDENTIAL_TYPE,
	readCredentialSettings,
	type ClinicCredentialType,
	type ClinicScribeSettings,
} from './credentialSettings';
import { chosenCredentialType } from '../shared/credentialChoice';
import { RETRYABLE_STATUSES, retryDelayMs, transportPolicyOf } from './retryPolicy';
import { notConnectedError, signInRenewalFailureOf, signInTokenRejectedAdvice, type TokenProblem } from './signInFailures';
import type { TokenFailureKind } from './tokenExchange';
import {
	describeNetworkFailure,
	isNetworkFailure,
	readErrorFields,
	redactionsFor,
	scrubErrorInPlace,
	scrubSecrets,
	scrubValue,
	type ErrorFields,
	type Redaction,
} from './errorBodies';
import { adviceFor } from './errorAdvice';

export type ClinicApiContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions;

export interface ClinicApiRequest {
	method: IHttpRequestMethods;
	/** Path below the base URL; callers put every id in it through `pathSegment`. */
	path: string;
	qs?: IDataObject;
	body?: IDataObject | IDataObject[];
	/**
	 * A body sent as raw bytes instead of JSON (a session's audio upload): opened afresh for every
	 * attempt (a stream is used up by one), sent with its exact Content-Length. n8n does not repeat
	 * such a request after renewing the token on a 401, so this transport repeats it once itself.
	 */
	rawBody?: RawRequestBody;
	/** Safe to send again after a network error (reads, and writes the API deduplicates). */
	idempotent: boolean;
	/**
	 * A call that is not idempotent but whose repeat after a 5xx the API makes harmless (the caller
	 * says why where it sets this). Without it such a call is repeated only after 408/429, answers
	 * that say the request was not taken: a 5xx may come after the work was done (a second paid
	 * document, a second template).
	 */
	repeatAfterServerError?: boolean;
	/** Statuses the caller handles itself (returned, not thrown). */
	acceptStatuses?: number[];
	timeoutMs?: number;
	/** What the user asked for, in words, for error messages ("the doctor's services"). */
	purpose: string;
	itemIndex?: number;
	/** Values the caller sent that must not come back in an error (patient data, a signing key). */
	redact?: string[];
	/** Ends the call and its retries at once; default: the execution's cancel signal (Stop). */
	abortSignal?: AbortSignal;
	/**
	 * Told before each repeat why the last attempt failed (its status, or none when no answer came),
	 * for a caller whose call is not safe to repeat blindly (transaction init).
	 */
	onRetry?: (failure: { statusCode?: number }) => void;
}

export interface RawRequestBody {
	open(): Promise<unknown>;
	contentLength: number;
	contentType?: string;
}

export interface ClinicApiResponse<T = unknown> {
	statusCode: number;
	body: T;
	headers: Record<string, string | string[] | undefined>;
}

export async function getClinicSettings(ctx: ClinicApiContext): Promise<ClinicScribeSettings> {
	const credential = await credentialOfRun(ctx);
	return readCredentialSettings(credential.data, credential.type);
}

/**
 * The credential type the node's Authentication field chose: the OAuth2 credential, or the Clinic
 * Scribe API credential (also for every node saved before the field existed).
 */
export function credentialTypeOf(ctx: ClinicApiContext): ClinicCredentialType {
	return chosenCredentialType(ctx.getNode().parameters ?? {});
}

/**
 * The credential of one node run, read and decrypted by n8n once. It is handed to n8n's
 * authenticated helper on every call (`credentialsDecrypted`), which assigns a renewed token into
 * `data` after persisting it, so later calls of the run use that token and the next execution
 * reads it from n8n's database.
 */
interface RunCredential {
	type: ClinicCredentialType;
	data: ICredentialDataDecryptedObject;
	decrypted: ICredentialsDecrypted;
	/** The call that is getting the run's first token; others wait for it instead of exchanging too. */
	gettingToken?: Promise<unknown>;
}

// Keyed by the context object: n8n makes one per node run (or hook, webhook, list search), and a
// context has one credential, so nothing is shared across runs, executions or credentials.
const runCredentials = new WeakMap<ClinicApiContext, Promise<RunCredential>>();

async function credentialOfRun(ctx: ClinicApiContext): Promise<RunCredential> {
	let pending = runCredentials.get(ctx);
	if (!pending) {
		pending = readRunCredential(ctx);
		runCredentials.set(ctx, pending);
		// A failed read (no credential chosen) is not remembered: the next call reports it again.
		pending.catch(() => runCredentials.delete(ctx));
	}
	return await pending;
}

async function readRunCredential(ctx: ClinicApiContext): Promise<RunCredential> {
	const type = credentialTypeOf(ctx);
	const data = await ctx.getCredentials(type);
	const chosen = ctx.getNode().credentials?.[type];
	return {
		type,
		data,
		decrypted: { id: chosen?.id ?? '', name: chosen?.name ?? '', type, data },
	};
}

/**
 * Why an id cannot be one segment of a URL path, or undefined when it can. URL parsers resolve a
 * segment of dots (also written %2E%2E) as "this folder" or "the parent", so such an id would
 * address another path of the API; an empty one would address the collection itself.
 */
export function pathIdProblem(value: string): string | undefined {
	const trimmed = value.trim();
	if (trimmed === '') return 'is empty';
	if (/^\.+$/.test(trimmed)) return `is "${trimmed}": an ID made only of dots would address another path of the API`;
	return undefined;
}

/**
 * The one way an id enters a URL path: refused (before any request) when it is empty or only dots,
 * else encoded as exactly one segment ("a/../b" stays one segment).
 */
export function pathSegment(ctx: ClinicApiContext, value: string, field: string, itemIndex?: number): string {
	const problem = pathIdProblem(value);
	if (problem) {
		const item = itemIndex === undefined ? '' : ` of item ${itemIndex}`;
		throw new NodeOperationError(ctx.getNode(), `The ${field}${item} ${problem}`, {
			description: `Enter the ${field} as the clinic API gave it (letters, digits and the like); nothing was sent.`,
			itemIndex,
		});
	}
	return encodeSegment(value);
}

/** Kept for callers not yet moved to `pathSegment`: the same refusal, without the node's context. */
export function encodePathSegment(value: string): string {
	const problem = pathIdProblem(value);
	if (problem) throw new Error(`The ID ${problem}; nothing was sent.`);
	return encodeSegment(value);
}

function encodeSegment(value: string): string {
	return encodeURIComponent(value).replace(/\./g, '%2E');
}

/**
 * The one way the nodes call the clinic API: authenticated by the credential (which renews the
 * token on a 401 and retries once), retried with bounded back-off on 408/429 and, for calls safe to
 * repeat, on 5xx and network errors; every failure becomes a NodeApiError that says what to do. Redirects are
 * never followed (the credential's headers would go with them), and every error and every error
 * answer handed back is scrubbed of the credential's secrets.
 */
export async function clinicApiRequest<T = unknown>(
	ctx: ClinicApiContext,
	request: ClinicApiRequest,
): Promise<ClinicApiResponse<T>> {
	const credential = await credentialOfRun(ctx);
	const settings = readCredentialSettings(credential.data, credential.type);
	try {
		if (credential.type === SIGN_IN_CREDENTIAL_TYPE && settings.sessionToken === '') {
			throw notConnectedError(ctx.getNode(), credential.decrypted.name, request);
		}
		const response = await sendWithRetries<T>(ctx, credential, settings, request);
		if (response.statusCode >= 200 && response.statusCode < 300) return response;
		// An error answer the caller handles: cleaned here, so no message built from it leaks.
		return { ...response, body: scrubValue(response.body, await secretsOf(ctx, credential, settings, request)) };
	} catch (error) {
		scrubErrorInPlace(error, await secretsOf(ctx, credential, settings, request));
		// Our errors are NodeApiErrors already (handed back as they are); anything else is wrapped.
		throw new NodeApiError(ctx.getNode(), error as JsonObject);
	}
}

async function sendWithRetries<T>(
	ctx: ClinicApiContext,
	credential: RunCredential,
	settings: ClinicScribeSettings,
	request: ClinicApiRequest,
): Promise<ClinicApiResponse<T>> {
	const signal = request.abortSignal ?? executionCancelSignal(ctx);
	const policy = transportPolicyOf(ctx);
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${settings.baseUrl}${request.path}`,
		qs: request.qs,
		body: request.body,
		json: true,
		// n8n would re-send the token (and keep auth, client-id) to wherever a redirect points.
		disableFollowRedirect: true,
		headers: { Accept: 'application/json' },
		returnFullResponse: true,
		// 401 must stay an error: it is what makes n8n renew the token and retry once.
		ignoreHttpStatusErrors: { ignore: true, except: [401] },
		timeout: request.timeoutMs ?? policy.timeouts.apiCallMs,
		// n8n 2.41's authenticated helper puts the execution's signal here itself; ours also ends the
		// retries and their pauses, and carries a caller's deadline (Wait for Completion).
		abortSignal: signal,
	};

	let renewedForRawBody = false;
	for (let attempt = 1; ; attempt++) {
		if (request.rawBody) await withRawBody(options, request.rawBody);
		const outcome = await sendOnce(ctx, credential, options);
		// Stopped: whatever the call answered or failed with, it is not retried.
		if (signal?.aborted) throw requestStoppedError(ctx, request);
		const lastAttempt = attempt >= policy.retry.attempts;
		if (outcome.kind === 'response') {
			const { response } = outcome;
			if (isRedirect(response.statusCode)) {
				throw redirectRefusedError(ctx, request, response.statusCode, response.headers.location, options.url);
			}
			if ((response.statusCode >= 200 && response.statusCode < 300) || request.acceptStatuses?.includes(response.statusCode)) {
				return response as ClinicApiResponse<T>;
			}
			if (RETRYABLE_STATUSES.has(response.statusCode) && !lastAttempt && mayRepeatAfter(request, response.statusCode)) {
				request.onRetry?.({ statusCode: response.statusCode });
				await pause(ctx, request, signal, retryDelayMs(attempt, response.headers['retry-after'], policy.retry));
				continue;
			}
			throw withNotRepeatedNote(request, clinicApiError(ctx, request, response.statusCode, response.body, attempt), response.statusCode);
		}
		if (outcome.unauthorized && request.rawBody && !renewedForRawBody) {
			// n8n renewed the token but did not resend the used-up stream: once more, freshly opened.
			renewedForRawBody = true;
			continue;
		}
		if (outcome.unauthorized) {
			const rejected = clinicApiError(ctx, request, 401, outcome.body, attempt);
			if (credential.type === SIGN_IN_CREDENTIAL_TYPE) rejected.description = signInTokenRejectedAdvice(credential.decrypted.name, attempt);
			throw rejected;
		}
		const tokenProblem =
			outcome.tokenProblem ?? (credential.type === SIGN_IN_CREDENTIAL_TYPE ? signInRenewalFailureOf(outcome.error, credential.decrypted.name) : undefined);
		if (tokenProblem) {
			throw new NodeApiError(ctx.getNode(), { message: tokenProblem.message } as JsonObject, {
				message: tokenProblem.message,
				description: tokenProblem.description ?? TOKEN_PROBLEM_ADVICE[tokenProblem.kind],
				itemIndex: request.itemIndex,
			});
		}
		if (request.idempotent && outcome.network && !lastAttempt) {
			request.onRetry?.({});
			await pause(ctx, request, signal, retryDelayMs(attempt, undefined, policy.retry));
			continue;
		}
		const unreachable = new NodeApiError(ctx.getNode(), { message: outcome.description } as JsonObject, {
			message: `Could not reach the clinic API for ${request.purpose}: ${outcome.description}`,
			description:
				attempt > 1
					? `Tried ${attempt} times. Check that the credential's Base URL is right and the API is reachable from n8n, then run again.`
					: "Check that the credential's Base URL is right and the API is reachable from n8n, then run again.",
			itemIndex: request.itemIndex,
		});
		throw withNotRepeatedNote(request, unreachable);
	}
}

async function withRawBody(options: IHttpRequestOptions, raw: RawRequestBody): Promise<void> {
	options.body = (await raw.open()) as IHttpRequestOptions['body'];
	options.json = false;
	options.headers = {
		...options.headers,
		'Content-Type': raw.contentType ?? 'application/octet-stream',
		'Content-Length': String(raw.contentLength),
	};
}

/** 408 and 429 say the request was not taken: any call may be sent again after them. */
const NOT_TAKEN_STATUSES: ReadonlySet<number> = new Set([408, 429]);

function mayRepeatAfter(request: ClinicApiRequest, statusCode: number): boolean {
	return request.idempotent || request.repeatAfterServerError === true || NOT_TAKEN_STATUSES.has(statusCode);
}

/**
 * A call that is not safe to repeat failed without a clear "not taken" (a 5xx, no answer): the
 * service may have done the work, so the user is told to check before running it again.
 */
function withNotRepeatedNote(request: ClinicApiRequest, error: NodeApiError, statusCode?: number): NodeApiError {
	if (request.idempotent || request.repeatAfterServerError === true) return error;
	if (statusCode !== undefined && (statusCode < 500 || NOT_TAKEN_STATUSES.has(statusCode))) return error;
	error.description = `${error.description ?? ''} This request was not repeated automatically: the service may have carried it out before failing, so check (for example list the templates, or Get Results for the session) before running it again.`.trim();
	return error;
}

const TOKEN_PROBLEM_ADVICE: Record<TokenFailureKind, string> = {
	rejected: 'Open the Clinic Scribe API credential, correct it and run its test, then run the workflow again.',
	unavailable:
		'The credential was not rejected: the token service did not answer. Run the workflow again later; if it persists, check that the API is reachable from n8n.',
	redirected:
		"Check the credential's Environment / Base URL: it must be the API's own address (for example https:// and no path), not one that redirects elsewhere.",
};

/**
 * Every value of the credential before the call and as it is now (n8n assigns a token renewed
 * meanwhile into the run's credential), and the call's own.
 */
async function secretsOf(
	ctx: ClinicApiContext,
	credential: RunCredential,
	before: ClinicScribeSettings,
	request: ClinicApiRequest,
): Promise<Redaction[]> {
	const values = [...credentialSecrets(before), ...(await currentCredentialSecrets(ctx, credential))];
	return [...values, ...redactionsFor(request.redact ?? [])];
}

/**
 * The credential's secrets as they are now. n8n renews an OAuth2 token in its database only (the
 * run's copy keeps the old one), so for that credential this reads the stored one afresh.
 */
async function currentCredentialSecrets(ctx: ClinicApiContext, credential: RunCredential): Promise<string[]> {
	const now = credentialSecrets(readCredentialSettings(credential.data, credential.type));
	if (credential.type !== SIGN_IN_CREDENTIAL_TYPE) return now;
	try {
		return [...now, ...credentialSecrets(readCredentialSettings(await ctx.getCredentials(credential.type), credential.type))];
	} catch {
		return now;
	}
}

/** Removes the credential's secrets from an error made anywhere (in place), before it is shown or stored. */
export async function scrubCredentialSecrets(ctx: ClinicApiContext, error: unknown): Promise<void> {
	try {
		scrubErrorInPlace(error, await currentCredentialSecrets(ctx, await credentialOfRun(ctx)));
	} catch {
		// No readable credential: nothing of it can be in the error either.
	}
}

/** The credential's secret values (never the client id or URLs, which help to diagnose). */
export function credentialSecrets(settings: ClinicScribeSettings): string[] {
	return [
		settings.clientSecret,
		settings.apiKey,
		settings.staticAccessToken,
		settings.sessionToken,
		settings.refreshToken,
		settings.idToken,
		settings.signingKey,
	].filter((value) => value !== '');
}

function isRedirect(statusCode: number): boolean {
	return statusCode >= 300 && statusCode < 400;
}

/** The host a Location header points at (relative locations stay on the API's host). */
export function redirectTargetHost(location: string | string[] | undefined, requestUrl: string | undefined): string {
	const value = Array.isArray(location) ? location[0] : location;
	if (!value) return 'an address it did not give (no Location header)';
	try {
		return new URL(value, requestUrl).host;
	} catch {
		return 'an address that is not a valid URL';
	}
}

function redirectRefusedError(
	ctx: ClinicApiContext,
	request: Pick<ClinicApiRequest, 'purpose' | 'itemIndex'>,
	statusCode: number,
	location: string | string[] | undefined,
	requestUrl: string | undefined,
): NodeApiError {
	const host = redirectTargetHost(location, requestUrl);
	return new NodeApiError(ctx.getNode(), { status_code: statusCode } as JsonObject, {
		message: `The clinic API answered ${request.purpose} with a redirect (HTTP ${statusCode}) to ${host}, which was not followed`,
		description:
			"Clinic Scribe never follows a redirect, so the credential's token and keys cannot reach another host. Check the credential's Environment / Base URL: it must be the API's own address (for example https:// and no path).",
		httpCode: String(statusCode),
		itemIndex: request.itemIndex,
	});
}

type SendOutcome =
	| { kind: 'response'; response: ClinicApiResponse }
	| {
			kind: 'failure';
			unauthorized: boolean;
			network: boolean;
			body: unknown;
			description: string;
			tokenProblem?: TokenProblem;
			error: unknown;
	  };

async function sendOnce(ctx: ClinicApiContext, credential: RunCredential, options: IHttpRequestOptions): Promise<SendOutcome> {
	try {
		const raw = (await sendAuthenticated(ctx, credential, options)) as {
			statusCode: number;
			body: unknown;
			headers?: Record<string, string | string[] | undefined>;
		};
		return { kind: 'response', response: { statusCode: raw.statusCode, body: raw.body, headers: raw.headers ?? {} } };
	} catch (error) {
		const cause = causeOf(error);
		// n8n wraps a failed call in a NodeApiError; its OAuth2 helper throws the HTTP error itself.
		const response = cause.response ?? (error as { response?: { status?: number; data?: unknown } }).response;
		const httpCode = (error as { httpCode?: unknown }).httpCode;
		// httpCode may hold a network error code ("ECONNRESET") rather than a status.
		const status = Number(response?.status ?? (/^\d{3}$/.test(String(httpCode)) ? httpCode : 0));
		return {
			kind: 'failure',
			unauthorized: status === 401,
			network: status === 0 && isNetworkFailure(error),
			body: response?.data,
			description: describeNetworkFailure(error),
			tokenProblem: tokenFailureOf(error),
			error,
		};
	}
}

/**
 * n8n's authenticated helper with the run's credential: no read from the database, no decryption;
 * n8n still gets a token when there is none, renews it after a 401 and retries once, persisting it.
 * While the run has no token yet, one call gets it and the others (uploads run several at a time)
 * wait for that call, so one run makes one token exchange.
 */
async function sendAuthenticated(ctx: ClinicApiContext, credential: RunCredential, options: IHttpRequestOptions): Promise<unknown> {
	if (credential.type === SIGN_IN_CREDENTIAL_TYPE) return await sendWithOAuth2(ctx, credential, options);
	while (credential.gettingToken && !hasSessionToken(credential.data)) {
		await credential.gettingToken.then(ignore, ignore);
	}
	const call = ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, { ...options }, {
		credentialsDecrypted: credential.decrypted,
	});
	if (!hasSessionToken(credential.data)) {
		credential.gettingToken = call;
		const done = (): void => {
			if (credential.gettingToken === call) credential.gettingToken = undefined;
		};
		call.then(done, done);
	}
	return await call;
}

/**
 * n8n's OAuth2 helper: it reads the stored credential for each call (so a token renewed by one item
 * serves the next), sends it as Bearer and, after a 401, renews it once under its refresh lock
 * (concurrent calls share that renewal, so a refresh token is never sent twice) and repeats the call,
 * except a stream body (see `rawBody`). The `/dr` endpoints get the token in `auth` too.
 */
async function sendWithOAuth2(ctx: ClinicApiContext, credential: RunCredential, options: IHttpRequestOptions): Promise<unknown> {
	const { headers, tokenHeader } = oAuth2HeadersFor(options.url, readCredentialSettings(credential.data, credential.type));
	return await ctx.helpers.httpRequestWithAuthentication.call(
		ctx,
		SIGN_IN_CREDENTIAL_TYPE,
		{ ...options, headers: { ...options.headers, ...headers } },
		tokenHeader ? { oauth2: { keyToIncludeInAccessTokenHeader: tokenHeader } } : undefined,
	);
}

function hasSessionToken(data: ICredentialDataDecryptedObject): boolean {
	return typeof data.sessionToken === 'string' && data.sessionToken !== '';
}

function ignore(): void {}

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
	return undefined;
}

function causeOf(error: unknown): { response?: { status?: number; data?: unknown }; name?: string; message?: string } {
	const record = (typeof error === 'object' && error !== null ? error : {}) as { cause?: unknown };
	const cause = typeof record.cause === 'object' && record.cause !== null ? record.cause : error;
	return (typeof cause === 'object' && cause !== null ? cause : {}) as {
		response?: { status?: number; data?: unknown };
	};
}

/** The error for an HTTP answer the caller cannot use: status, API code and message, and advice. */
export function clinicApiError(
	ctx: ClinicApiContext,
	request: Pick<ClinicApiRequest, 'purpose' | 'itemIndex' | 'redact'>,
	statusCode: number,
	body: unknown,
	attempts = 1,
): NodeApiError {
	const fields = redactFields(readErrorFields(body), request.redact ?? []);
	const advice = adviceFor(statusCode, fields.code);
	const label = fields.code ? `${statusCode} ${fields.code}` : `${statusCode}`;
	const apiSaid = fields.message ? `: ${fields.message}` : '';
	const retried = attempts > 1 ? ` (tried ${attempts} times)` : '';
	return new NodeApiError(
		ctx.getNode(),
		{ status_code: statusCode, code: fields.code ?? null, message: fields.message ?? null } as JsonObject,
		{
			message: `The clinic API refused ${request.purpose} (HTTP ${label})${apiSaid}`,
			description: `${advice}${retried}`,
			httpCode: String(statusCode),
			itemIndex: request.itemIndex,
		},
	);
}

function redactFields(fields: ErrorFields, values: string[]): ErrorFields {
	if (values.length === 0) return fields;
	return {
		code: fields.code,
		message: fields.message === undefined ? undefined : scrubSecrets(fields.message, redactionsFor(values)),
	};
}

async function pause(ctx: ClinicApiContext, request: ClinicApiRequest, signal: AbortSignal | undefined, ms: number): Promise<void> {
	try {
		await sleep(ms, signal);
	} catch {
		throw requestStoppedError(ctx, request);
	}
}

/** The execution's cancel signal (n8n aborts it when the execution is stopped), where the context has one. */
export function executionCancelSignal(ctx: ClinicApiContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
}

/** The call was abandoned because its signal fired (Stop, or a caller's deadline). */
export function requestStoppedError(ctx: ClinicApiContext, request: Pick<ClinicApiRequest, 'purpose' | 'itemIndex'>): NodeApiError {
	return new NodeApiError(ctx.getNode(), { message: 'stopped' } as JsonObject, {
		message: `Stopped the request for ${request.purpose} because the execution was stopped`,
		itemIndex: request.itemIndex,
	});
}

/** The answer had a success status but not the documented JSON (a proxy page, a truncated body). */
export function unexpectedBodyError(
	ctx: ClinicApiContext,
	request: Pick<ClinicApiRequest, 'purpose' | 'itemIndex'>,
	statusCode: number,
): NodeApiError {
	return new NodeApiError(ctx.getNode(), { status_code: statusCode } as JsonObject, {
		message: `The clinic API answered ${request.purpose} with a body that is not the documented JSON (HTTP ${statusCode})`,
		description:
			"Run again; if it persists, check that the credential's Base URL points at the clinic API itself and not at a proxy or web page.",
		httpCode: String(statusCode),
		itemIndex: request.itemIndex,
	});
}
