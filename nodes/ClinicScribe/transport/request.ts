import {
	NodeApiError,
	NodeOperationError,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type IExecuteFunctions,
	type IHookFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
	type IWebhookFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { abortableSleep } from '../shared/abortableSleep';
import { chosenCredentialType } from '../shared/credentialChoice';
import { oAuth2HeadersFor } from './authHeaders';
import {
	CREDENTIAL_TYPE,
	SIGN_IN_CREDENTIAL_TYPE,
	readCredentialSettings,
	type ClinicCredentialType,
	type ClinicScribeSettings,
} from './credentialSettings';
import { RETRYABLE_STATUSES, retryDelayMs, PRODUCTION_POLICY } from './retryPolicy';
import { notConnectedError, signInRenewalFailureOf, signInTokenRejectedAdvice, type TokenProblem } from './signInFailures';
import { tokenFailureKindOfCode, type TokenFailureKind } from './tokenExchange';
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
 * The credential of one node run as read at its first call (n8n's getCredentials: base URL,
 * variant, secrets to keep out of errors). Every call still goes through n8n's authenticated helper
 * with the credential type alone, the documented form that every n8n line supports: n8n reads the
 * stored credential for that call, gets a token when there is none, renews it after a 401 and
 * retries once, and stores it, so one token serves every item and execution.
 */
interface RunCredential {
	type: ClinicCredentialType;
	/** The credential's name in n8n, for messages that say which credential to fix. */
	name: string;
	data: ICredentialDataDecryptedObject;
	/** A call of this run has had an answer from the API: n8n holds a token by then. */
	answered: boolean;
	/** The call that goes first, while none has had an answer; the others wait for it. */
	firstCall?: Promise<unknown>;
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
	return { type, name: ctx.getNode().credentials?.[type]?.name ?? '', data, answered: false };
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

/**
 * Percent-encoding as RFC 3986 asks: a dot inside a segment stays a dot (a strict gateway may refuse
 * `%2E`). Only a segment made of dots means "this folder" or "the parent", and pathIdProblem refuses
 * those before this; "/" is encoded, so "a/../b" stays one segment.
 */
function encodeSegment(value: string): string {
	return encodeURIComponent(value);
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
			throw notConnectedError(ctx.getNode(), credential.name, request);
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
	const policy = PRODUCTION_POLICY;
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
		ignoreHttpStatusErrors: ALL_BUT_401,
		timeout: request.timeoutMs ?? policy.timeouts.apiCallMs,
		// n8n 2.41's authenticated helper puts the execution's signal here itself; ours also ends the
		// retries and their pauses, and carries a caller's deadline (Wait for Completion).
		abortSignal: signal,
	};

	let renewedForRawBody = false;
	for (let attempt = 1; ; attempt++) {
		if (request.rawBody) await withRawBody(options, request.rawBody);
		const outcome = await sendOnce(ctx, credential, options, request);
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
		if (outcome.unauthorized && request.rawBody && !renewedForRawBody && !outcome.sentAgainByN8n) {
			// n8n renewed the token but did not resend the used-up stream: once more, freshly opened.
			renewedForRawBody = true;
			continue;
		}
		if (outcome.unauthorized) {
			const rejected = clinicApiError(ctx, request, 401, outcome.body, attempt);
			if (credential.type === SIGN_IN_CREDENTIAL_TYPE) rejected.description = signInTokenRejectedAdvice(credential.name, attempt);
			throw rejected;
		}
		const { tokenProblem } = outcome;
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

/**
 * Every status but 401 comes back as an answer (its body read for the error message); a 401 stays an
 * error, which is what makes n8n renew the token and retry once. n8n 2.x honours the list; n8n 1.x
 * treats any object here as `true` (see the 401 answer in sendOnce).
 */
const ALL_BUT_401 = Object.freeze({ ignore: true as const, except: [401] });

/**
 * Puts a fresh copy of the raw body into the options: a stream, or (`whole`) the bytes in one
 * buffer, for the call that asks n8n 1.x to renew: that n8n sends the same body again after the
 * renewal (n8n 2.x does not resend a stream), and a stream is used up by the first send. Only a
 * session file (at most 10 MB) has a raw body.
 */
async function withRawBody(options: IHttpRequestOptions, raw: RawRequestBody, whole = false): Promise<void> {
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
 * Every value of the credential before the call and as n8n stores it now (a token renewed during
 * the call is only there: read again, on this error path only), and the call's own.
 */
async function secretsOf(
	ctx: ClinicApiContext,
	credential: RunCredential,
	before: ClinicScribeSettings,
	request: ClinicApiRequest,
): Promise<Redaction[]> {
	return [...credentialSecrets(before), ...(await currentCredentialSecrets(ctx, credential)), ...redactionsFor(request.redact ?? [])];
}

/**
 * The credential's secrets as the run read them and as n8n stores them now: n8n keeps a token it
 * renewed during the run only in its database (the run's copy has the old one), so it is read again.
 */
async function currentCredentialSecrets(ctx: ClinicApiContext, credential: RunCredential): Promise<string[]> {
	const read = credentialSecrets(readCredentialSettings(credential.data, credential.type));
	try {
		return [...read, ...credentialSecrets(readCredentialSettings(await ctx.getCredentials(credential.type), credential.type))];
	} catch {
		// Not readable now: the values read at the start of the run are removed all the same.
		return read;
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
		settings.signingKey,
		settings.idToken,
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
			/** n8n renewed the token and sent the whole body again itself (the n8n 1.x way, below). */
			sentAgainByN8n?: boolean;
	  };

async function sendOnce(
	ctx: ClinicApiContext,
	credential: RunCredential,
	options: IHttpRequestOptions,
	request: ClinicApiRequest,
): Promise<SendOutcome> {
	let sentAgain = false;
	try {
		// The OAuth2 credential needs no gate: n8n renews its token under a lock of its own, once for
		// calls that fail together (a rotating refresh token is never sent twice).
		const gate = credential.type === SIGN_IN_CREDENTIAL_TYPE ? sendNow : firstCallAlone;
		const raw = await gate(credential, async () => {
			const answer = await authenticatedCall(ctx, credential, options);
			if (answer.statusCode !== 401 || request.acceptStatuses?.includes(401)) return answer;
			// A 401 handed back as an answer: this n8n's helper knows only `ignoreHttpStatusErrors:
			// true` and took our `except: [401]` for it (n8n 1.x), so its renewal did not run. The same
			// call once more with every status an error: n8n renews the token and sends it again itself.
			// The API did not take the refused call, so any call may be sent again.
			const again: IHttpRequestOptions = { ...options, ignoreHttpStatusErrors: false };
			if (request.rawBody) await withRawBody(again, request.rawBody, true);
			sentAgain = true;
			return await authenticatedCall(ctx, credential, again);
		});
		return { kind: 'response', response: { statusCode: raw.statusCode, body: raw.body, headers: raw.headers ?? {} } };
	} catch (error) {
		const response = responseOf(error);
		const status = httpStatusOf(error);
		// A renewal that failed is the token endpoint's answer, not the API's, whatever its status.
		const tokenProblem =
			tokenFailureOf(error) ?? (credential.type === SIGN_IN_CREDENTIAL_TYPE ? signInRenewalFailureOf(error, credential.name) : undefined);
		// An HTTP answer that came as an error (every status does while asking n8n 1.x to renew): an
		// answer all the same. n8n 1.x keeps no cause, only the status and a JSON body's object.
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
			sentAgainByN8n: sentAgain,
		};
	}
}

interface HelperAnswer {
	statusCode: number;
	body: unknown;
	headers?: Record<string, string | string[] | undefined>;
}

/**
 * n8n's authenticated helper, as documented: n8n reads the stored credential, gets a token when
 * there is none (the API credential's exchange), renews it after a 401 and retries once, storing it
 * for every later call and execution. For the OAuth2 credential n8n renews under its refresh lock,
 * so concurrent calls share one renewal and a rotating refresh token is never sent twice; the `/dr`
 * endpoints get its token in `auth` too.
 */
async function authenticatedCall(ctx: ClinicApiContext, credential: RunCredential, options: IHttpRequestOptions): Promise<HelperAnswer> {
	if (credential.type !== SIGN_IN_CREDENTIAL_TYPE) {
		return (await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, { ...options })) as HelperAnswer;
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
		await abortableSleep(ms, signal);
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
