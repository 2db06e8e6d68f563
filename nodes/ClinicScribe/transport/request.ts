/**
 * The call: the one way the nodes call the clinic API (`clinicApiRequest`) and the one way an id
 * enters a URL path (`pathSegment`). A call is one loop of attempts (retryPolicy.ts), each sent
 * through n8n's authenticated helper with the credential type alone (the documented form every n8n
 * line supports: n8n reads the stored credential, gets a token when there is none and stores it), the
 * same on n8n 1.x and 2.x. The run's credential is read once at its first call, for its settings and
 * the secrets every error of the run is cleaned of.
 */
import {
	NodeApiError,
	NodeOperationError,
	type IAdditionalCredentialOptions,
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

import {
	chosenCredentialType,
	SIGN_IN_CREDENTIAL_TYPE,
	type ClinicCredentialType,
} from '../shared/credentialChoice';
import {
	credentialSecrets,
	oAuth2HeadersFor,
	readCredentialSettings,
	renewalCredentialData,
	sessionTokenFitsSettings,
	type ClinicScribeSettings,
} from './authentication';
import {
	clinicApiError,
	describeNetworkFailure,
	errorChain,
	notConnectedError,
	redirectRefusedError,
	requestStoppedError,
	scrubErrorInPlace,
	scrubSecrets,
	signInTokenRejectedAdvice,
	tokenProblemError,
	unreachableError,
	type CallLabel,
} from './errors';
import {
	isTransientNetworkFailure,
	mayRetry,
	outcomeUnknown,
	PRODUCTION_POLICY,
	withRetries,
	type RepeatSafety,
} from './retryPolicy';

export type ClinicApiContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

interface ClinicApiRequest extends CallLabel, RepeatSafety {
	method: IHttpRequestMethods;
	/** Path below the base URL; callers put every id in it through `pathSegment`. */
	path: string;
	qs?: IDataObject;
	body?: IDataObject | IDataObject[];
	/**
	 * A body sent as raw bytes instead of JSON (a session's audio upload): opened afresh for every
	 * attempt (a stream is used up by one), sent with its exact Content-Length; as one buffer when a
	 * 401 makes n8n renew the token and send it again.
	 */
	rawBody?: RawRequestBody;
	/** Statuses the caller handles itself (returned, not thrown). */
	acceptStatuses?: number[];
	/**
	 * The call's own rule for answers it takes that are passing failures all the same (the status
	 * call's 500 without per-template failures, a truncated body): the error to end with should no
	 * attempt be left. Such an answer is sent again as a 5xx is.
	 */
	retryAnswer?: (response: ClinicApiResponse, attempt: number) => Error | undefined;
	/**
	 * The error to end with instead, when the call failed after an attempt got no clear answer (none,
	 * or a 5xx): the service may have carried that attempt out.
	 */
	failedAfterLostAnswer?: (error: NodeApiError) => Error;
	timeoutMs?: number;
	/** Ends the call and its retries at once; default: the execution's cancel signal (Stop). */
	abortSignal?: AbortSignal;
}

interface RawRequestBody {
	open(): Promise<unknown>;
	contentLength: number;
	contentType?: string;
}

export interface ClinicApiResponse<T = unknown> {
	statusCode: number;
	body: T;
	headers: Record<string, string | string[] | undefined>;
	/**
	 * An earlier attempt of this call got no clear answer (none, or a 5xx) and it was sent again:
	 * the service may have carried out that attempt, so an "exists" or "already done" answer may be
	 * about it (see `outcomeUnknown`).
	 */
	afterLostAnswer?: boolean;
}

/**
 * Why an id cannot be one segment of a URL path, or undefined when it can. URL parsers resolve a
 * segment of dots (also written %2E%2E) as "this folder" or "the parent", so such an id would
 * address another path of the API; an empty one would address the collection itself.
 */
export function pathIdProblem(value: string): string | undefined {
	const trimmed = value.trim();
	if (trimmed === '') return 'is empty';
	if (/^\.+$/.test(trimmed))
		return `is "${trimmed}": an ID made only of dots would address another path of the API`;
	return undefined;
}

/**
 * The one way an id enters a URL path: refused (before any request) when it is empty or only dots,
 * else percent-encoded as exactly one segment: "/" is encoded, so "a/../b" stays one segment, and a
 * dot inside a segment stays a dot as RFC 3986 asks (a strict gateway may refuse `%2E`).
 */
export function pathSegment(
	ctx: ClinicApiContext,
	value: string,
	field: string,
	itemIndex?: number,
): string {
	const problem = pathIdProblem(value);
	if (problem) {
		const item = itemIndex === undefined ? '' : ` of item ${itemIndex}`;
		throw new NodeOperationError(ctx.getNode(), `The ${field}${item} ${problem}`, {
			description: `Enter the ${field} as the clinic API gave it (letters, digits and the like); nothing was sent.`,
			itemIndex,
		});
	}
	return encodeURIComponent(value);
}

/** The execution's cancel signal (n8n aborts it when the execution is stopped), where the context has one. */
export function executionCancelSignal(ctx: ClinicApiContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
}

/**
 * The one way the nodes call the clinic API: authenticated by the credential (a 401 renews the
 * token once for the run, see renewedAnswer), repeated with bounded back-off where that is safe
 * (`mayRetry`); every failure becomes a NodeApiError that says what to do. Redirects are never
 * followed (the credential's headers would go with them), and every error and every error answer
 * handed back is scrubbed of the credential's secrets.
 */
export async function clinicApiRequest<T = unknown>(
	ctx: ClinicApiContext,
	request: ClinicApiRequest,
): Promise<ClinicApiResponse<T>> {
	const credential = await credentialOfRun(ctx);
	const settings = readCredentialSettings(credential.data, credential.type);
	let lostAnswer = false;
	try {
		if (credential.type === SIGN_IN_CREDENTIAL_TYPE && settings.sessionToken === '') {
			throw notConnectedError(ctx.getNode(), credential.name, request);
		}
		const signal = request.abortSignal ?? executionCancelSignal(ctx);
		const { options, extra } = helperArguments(credential, settings, request, signal);
		const response = await withRetries(
			PRODUCTION_POLICY.retry,
			async (attempt) => {
				const sent = { ...options };
				if (request.rawBody) await withRawBody(sent, request.rawBody);
				const release = await turnToSend(credential);
				let outcome: AttemptOutcome;
				try {
					// A stored token made from other values than the API credential holds now (it was
					// edited) is not sent: the call renews first, so it uses what was typed.
					let result: Renewed =
						credential.type !== SIGN_IN_CREDENTIAL_TYPE && !tokenFits(credential.data)
							? await sendRenewing(ctx, credential, sent, credential.data)
							: {
									answer: (await ctx.helpers.httpRequestWithAuthentication.call(
										ctx,
										credential.type,
										sent,
										extra,
									)) as HelperAnswer,
								};
					let renewed = false;
					if (
						'answer' in result &&
						result.answer.statusCode === 401 &&
						!request.acceptStatuses?.includes(401)
					) {
						result = await renewedAnswer(ctx, credential, sent, extra, request);
						renewed = true;
					}
					outcome =
						'error' in result
							? thrownOutcome(ctx, request, result.error, credential, sent.url)
							: renewed && result.answer.statusCode === 401
								? // Refused with the renewed token too: the API does not take this credential.
									{ kind: 'unauthorized', body: result.answer.body }
								: {
										kind: 'answer',
										response: {
											statusCode: result.answer.statusCode,
											body: result.answer.body,
											headers: result.answer.headers ?? {},
										},
									};
				} catch (error) {
					outcome = thrownOutcome(ctx, request, error, credential, sent.url);
				}
				release(outcome.kind === 'answer' && outcome.response.statusCode !== 401);
				// Stopped: whatever the call answered or failed with, it is not retried.
				if (signal?.aborted) throw requestStoppedError(ctx, request);
				if (outcome.kind === 'answer') {
					const { response } = outcome;
					const status = response.statusCode;
					if (status >= 300 && status < 400)
						throw redirectRefusedError(
							ctx,
							request,
							status,
							response.headers.location,
							options.url,
						);
					const retryAfter = response.headers['retry-after'];
					if ((status >= 200 && status < 300) || request.acceptStatuses?.includes(status)) {
						const passing = request.retryAnswer?.(response, attempt);
						return passing
							? { kind: 'retry', error: passing, retryAfter }
							: { kind: 'done', value: response as ClinicApiResponse<T> };
					}
					if (outcomeUnknown(status)) lostAnswer = true;
					const refused = clinicApiError(ctx, request, status, response.body, attempt);
					if (mayRetry({ status }, request)) return { kind: 'retry', error: refused, retryAfter };
					throw withNotRepeatedNote(request, refused, status);
				}
				if (outcome.kind === 'unauthorized') {
					const rejected = clinicApiError(ctx, request, 401, outcome.body, attempt);
					if (credential.type === SIGN_IN_CREDENTIAL_TYPE)
						rejected.description = signInTokenRejectedAdvice(credential.name, attempt);
					throw rejected;
				}
				if (outcome.kind === 'noToken') throw outcome.error;
				const unreachable = unreachableError(
					ctx,
					request,
					describeNetworkFailure(outcome.error),
					attempt,
				);
				if (isTransientNetworkFailure(outcome.error)) {
					lostAnswer = true;
					if (mayRetry({ noAnswer: outcome.error }, request))
						return { kind: 'retry', error: unreachable };
				}
				throw withNotRepeatedNote(request, unreachable);
			},
			{ signal, stopped: () => requestStoppedError(ctx, request) },
		);
		if (response.statusCode >= 200 && response.statusCode < 300)
			return { ...response, afterLostAnswer: lostAnswer };
		// An error answer the caller handles: cleaned here, so no message built from it leaks.
		return {
			...response,
			body: scrubSecrets(
				response.body,
				await callSecrets(ctx, credential, settings),
				request.redact,
			),
			afterLostAnswer: lostAnswer,
		};
	} catch (error) {
		scrubErrorInPlace(error, await callSecrets(ctx, credential, settings), request.redact);
		// Our errors are NodeApiErrors already (handed back as they are); anything else is wrapped.
		const failure = new NodeApiError(ctx.getNode(), error as JsonObject);
		throw lostAnswer && request.failedAfterLostAnswer
			? request.failedAfterLostAnswer(failure)
			: failure;
	}
}

/**
 * The options and credential options of n8n's helper. Every status comes back as an answer (its
 * body read for the error message), a 401 too for the API credential: the run renews its token once
 * for all its calls (renewedAnswer). The OAuth2 credential's 401 stays an error on n8n 2.x, which
 * then refreshes the token itself, once for the calls refused together (under its refresh lock), and
 * sends the call again: one refusal per expiry. n8n 1.x takes any such object for `true` and hands
 * the 401 back, which renewedAnswer then renews; so does a raw body, which n8n 2.x would not send again.
 */
const ALL_BUT_401 = Object.freeze({ ignore: true as const, except: [401] });

function helperArguments(
	credential: RunCredential,
	settings: ClinicScribeSettings,
	request: ClinicApiRequest,
	signal: AbortSignal | undefined,
): { options: IHttpRequestOptions; extra?: IAdditionalCredentialOptions } {
	const url = `${settings.baseUrl}${request.path}`;
	const options: IHttpRequestOptions = {
		method: request.method,
		url,
		qs: request.qs,
		body: request.body,
		json: true,
		// n8n would re-send the token (and keep auth, client-id) to wherever a redirect points.
		disableFollowRedirect: true,
		headers: { Accept: 'application/json' },
		returnFullResponse: true,
		ignoreHttpStatusErrors:
			credential.type === SIGN_IN_CREDENTIAL_TYPE && !request.rawBody ? ALL_BUT_401 : true,
		timeout: request.timeoutMs ?? PRODUCTION_POLICY.timeouts.apiCallMs,
		// n8n 2.41's authenticated helper puts the execution's signal here itself; ours also ends the
		// retries and their pauses, and carries a caller's deadline (Wait for Completion).
		abortSignal: signal,
	};
	if (credential.type !== SIGN_IN_CREDENTIAL_TYPE) return { options };
	// n8n adds the OAuth2 token as Bearer itself; the `/dr` endpoints get it in `auth` too.
	const { headers, tokenHeader } = oAuth2HeadersFor(url, settings);
	options.headers = { ...options.headers, ...headers };
	return {
		options,
		extra: tokenHeader ? { oauth2: { keyToIncludeInAccessTokenHeader: tokenHeader } } : undefined,
	};
}

/**
 * A call of this run the API refused with 401 (the token n8n holds expired, or was replaced): the
 * answer to it. While another call of the run renews the token, this one waits for it and is sent
 * once more with the renewed token. Otherwise (or when the API refuses that token too) this call
 * renews, and the calls that fail meanwhile wait for it, so calls in flight together share one
 * renewal, on either credential and every n8n line: the API credential's through sendRenewing (no
 * second refused call), the OAuth2 credential's on n8n 1.x by renewingCall. The refused call was not
 * taken by the API, so any call may be sent again; a raw body goes as one buffer to n8n 1.x's
 * renewal, which sends it twice.
 */
async function renewedAnswer(
	ctx: ClinicApiContext,
	credential: RunCredential,
	sent: IHttpRequestOptions,
	extra: IAdditionalCredentialOptions | undefined,
	request: ClinicApiRequest,
): Promise<Renewed> {
	if (credential.renewal) {
		await settledRenewal(credential);
		const again: IHttpRequestOptions = { ...sent };
		if (request.rawBody) await withRawBody(again, request.rawBody);
		const answer = await sendWithHelper(ctx, credential, again, extra);
		if (answer.statusCode !== 401) return { answer };
	}
	const renewal =
		credential.type === SIGN_IN_CREDENTIAL_TYPE
			? renewingCall(ctx, credential, sent, extra, request)
			: exchangingCall(ctx, credential, sent, request);
	credential.renewal = renewal;
	const done = (): void => {
		if (credential.renewal === renewal) credential.renewal = undefined;
	};
	renewal.then(done, done);
	return await renewal;
}

/**
 * The API credential's renewal after a 401: the call once more through sendRenewing, with the
 * credential as n8n stores it now (the run's copy may predate the token n8n got at its first call).
 */
async function exchangingCall(
	ctx: ClinicApiContext,
	credential: RunCredential,
	sent: IHttpRequestOptions,
	request: ClinicApiRequest,
): Promise<Renewed> {
	const stored = await ctx.getCredentials(credential.type);
	const again: IHttpRequestOptions = { ...sent };
	if (request.rawBody) await withRawBody(again, request.rawBody);
	return await sendRenewing(ctx, credential, again, stored);
}

/**
 * Sends a call of the API credential with its data handed to n8n's helper with the session token
 * moved aside (renewalCredentialData): n8n then runs the credential's exchange hook before sending
 * (a refresh of that token when it fits the credential's values, else an exchange with them),
 * stores the new token for every later call and execution, and sends the call with it. No call is
 * refused on the way; the run goes on with the new token.
 */
async function sendRenewing(
	ctx: ClinicApiContext,
	credential: RunCredential,
	options: IHttpRequestOptions,
	data: ICredentialDataDecryptedObject,
): Promise<Renewed> {
	const handed = renewalCredentialData(data);
	const id = ctx.getNode().credentials?.[credential.type]?.id ?? '';
	try {
		const answer = await sendWithHelper(ctx, credential, options, {
			credentialsDecrypted: { id, name: credential.name, type: credential.type, data: handed },
		});
		return { answer };
	} catch (error) {
		return { error };
	} finally {
		// n8n put the new token into the data it was handed (and stored it there too).
		if (handed.sessionToken) {
			const { sessionToken, refreshToken, sessionTokenFor } = handed;
			credential.data = { ...data, sessionToken, refreshToken, sessionTokenFor };
		}
	}
}

/** True when the stored token may be sent with the API credential's values as they are now. */
function tokenFits(data: ICredentialDataDecryptedObject): boolean {
	const settings = readCredentialSettings(data);
	return settings.sessionToken === '' || sessionTokenFitsSettings(settings);
}

async function sendWithHelper(
	ctx: ClinicApiContext,
	credential: RunCredential,
	options: IHttpRequestOptions,
	extra?: IAdditionalCredentialOptions,
): Promise<HelperAnswer> {
	return (await ctx.helpers.httpRequestWithAuthentication.call(
		ctx,
		credential.type,
		options,
		extra,
	)) as HelperAnswer;
}

/**
 * The OAuth2 credential's renewal where n8n handed the 401 back (n8n 1.x; a raw body): the call sent
 * once more with every status an error, so n8n's helper sees the 401 (a second refusal, n8n 1.x's
 * own), refreshes the token, stores it and sends the call again itself. n8n 1.x sends that repeat
 * with the renewed token as Bearer but the refused one still in the extra token header (the `/dr`
 * endpoints' `auth`), so the API refuses it again; the renewed token is stored by then, so the call
 * is sent once more, which n8n signs with it in both headers. Refused again, the renewal's own
 * failure stands.
 */
async function renewingCall(
	ctx: ClinicApiContext,
	credential: RunCredential,
	sent: IHttpRequestOptions,
	extra: IAdditionalCredentialOptions | undefined,
	request: ClinicApiRequest,
): Promise<Renewed> {
	const renewing: IHttpRequestOptions = { ...sent, ignoreHttpStatusErrors: false };
	if (request.rawBody) await withRawBody(renewing, request.rawBody, true);
	const send = async (options: IHttpRequestOptions) =>
		await sendWithHelper(ctx, credential, options, extra);
	let failure: { error: unknown };
	try {
		return { answer: await send(renewing) };
	} catch (error) {
		failure = { error };
	}
	const tokenHeader = extra?.oauth2?.keyToIncludeInAccessTokenHeader;
	if (
		!tokenHeader ||
		thrownOutcome(ctx, request, failure.error, credential, renewing.url).kind !== 'unauthorized'
	)
		return failure;
	const again: IHttpRequestOptions = { ...renewing, ignoreHttpStatusErrors: true };
	if (request.rawBody) await withRawBody(again, request.rawBody);
	const answer = await send(again);
	return answer.statusCode === 401 ? failure : { answer };
}

/** What a renewal came to: the call's answer, or what n8n's helper threw. */
type Renewed = { answer: HelperAnswer } | { error: unknown };

/**
 * Waits until this call may go, and returns what to call once it has its answer. Until a call of the
 * run has had an answer other than 401, the API credential's calls go one at a time (uploads run
 * several at once): when it holds no token yet, or an expired one, the first call gets one and n8n
 * stores it, and the calls waiting here then use it instead of each exchanging one. Every call waits
 * for a renewal under way: its token is the one to send (the stored one was refused).
 */
async function turnToSend(credential: RunCredential): Promise<(answered: boolean) => void> {
	let release: (answered: boolean) => void = ignore;
	if (credential.type !== SIGN_IN_CREDENTIAL_TYPE) {
		while (!credential.answered && credential.firstCall) await credential.firstCall;
		if (!credential.answered) {
			let settle = (): void => undefined;
			const firstCall = new Promise<void>((resolve) => (settle = resolve));
			credential.firstCall = firstCall;
			release = (answered) => {
				if (answered) credential.answered = true;
				if (credential.firstCall === firstCall) credential.firstCall = undefined;
				settle();
			};
		}
	}
	await settledRenewal(credential);
	return release;
}

/** Waits until no renewal of the run's token is under way (whatever it came to). */
async function settledRenewal(credential: RunCredential): Promise<void> {
	while (credential.renewal) await credential.renewal.then(ignore, ignore);
}

function ignore(): void {}

/**
 * Puts a fresh copy of the raw body into the options: a stream, or (`whole`) the bytes in one
 * buffer, for the call that asks n8n to renew: n8n sends the same body again after the renewal,
 * which a stream (used up by the first send) cannot be. Only a session file (at most 10 MB) has a
 * raw body.
 */
async function withRawBody(
	options: IHttpRequestOptions,
	raw: RawRequestBody,
	whole = false,
): Promise<void> {
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

// ─── What an attempt came to ─────────────────────────────────────────────────────────────────────

interface HelperAnswer {
	statusCode: number;
	body: unknown;
	headers?: Record<string, string | string[] | undefined>;
}

type AttemptOutcome =
	| { kind: 'answer'; response: ClinicApiResponse }
	/** The API refused the token even after a renewal. */
	| { kind: 'unauthorized'; body: unknown }
	/** No token could be had or renewed. */
	| { kind: 'noToken'; error: NodeApiError }
	/** No answer came (`error` says why). */
	| { kind: 'noAnswer'; error: unknown };

type ErrorResponse = {
	status?: number;
	data?: unknown;
	headers?: Record<string, string | string[] | undefined>;
	config?: { url?: unknown };
};

/**
 * What n8n's helper threw, read as an outcome. An HTTP answer that came as an error (every status
 * does while n8n renews) is an answer all the same; n8n 1.x keeps no cause, only the status (as
 * httpCode) and a JSON body's object (context.data). A renewal that failed is the token endpoint's
 * answer, not the API's, whatever its status; an HTTP error of the call's own address is the API's.
 */
function thrownOutcome(
	ctx: ClinicApiContext,
	call: CallLabel,
	error: unknown,
	credential: RunCredential,
	url: string,
): AttemptOutcome {
	const chain = errorChain(error);
	const response = chain
		.map((record) => record.response as ErrorResponse | undefined)
		.find((found) => found !== undefined);
	const httpCode = chain[0]?.httpCode;
	// httpCode may hold a network error code ("ECONNRESET") rather than a status.
	const status = Number(response?.status ?? (/^\d{3}$/.test(String(httpCode)) ? httpCode : 0));
	const body = response?.data ?? (chain[0]?.context as { data?: unknown } | undefined)?.data;
	const answeredByApi = chain.some(
		(record) => (record.response as ErrorResponse | undefined)?.config?.url === url,
	);
	const noToken = answeredByApi
		? undefined
		: tokenProblemError(
				ctx,
				call,
				error,
				credential.type === SIGN_IN_CREDENTIAL_TYPE ? credential.name : undefined,
			);
	if (status === 401) return { kind: 'unauthorized', body };
	if (noToken) return { kind: 'noToken', error: noToken };
	if (status !== 0)
		return {
			kind: 'answer',
			response: { statusCode: status, body, headers: response?.headers ?? {} },
		};
	return { kind: 'noAnswer', error };
}

/**
 * A call that is not safe to repeat failed without a clear "not taken" (a 5xx, no answer): the
 * service may have done the work, so the user is told to check before running it again.
 */
function withNotRepeatedNote(
	call: RepeatSafety,
	error: NodeApiError,
	statusCode?: number,
): NodeApiError {
	if (call.idempotent || call.repeatAfterServerError === true || !outcomeUnknown(statusCode))
		return error;
	error.description =
		`${error.description ?? ''} This request was not repeated automatically: the service may have carried it out before failing, so check (for example list the templates, or Get Results for the session) before running it again.`.trim();
	return error;
}

// ─── The run's credential ────────────────────────────────────────────────────────────────────────

interface RunCredential {
	type: ClinicCredentialType;
	/** The credential's name in n8n, for messages that say which credential to fix. */
	name: string;
	/** As read at the run's start, with the tokens this run renewed. */
	data: ICredentialDataDecryptedObject;
	/** A call of this run has had an answer from the API: n8n holds a token by then. */
	answered: boolean;
	/** The call that goes first, while none has had an answer; the others wait for it. */
	firstCall?: Promise<void>;
	/** The call renewing the token the API refused; the run's other calls wait for it. */
	renewal?: Promise<unknown>;
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

/**
 * The credential the node's Authentication field chose: the OAuth2 credential, or the Clinic Scribe
 * API credential (also for every node saved before the field existed).
 */
async function readRunCredential(ctx: ClinicApiContext): Promise<RunCredential> {
	const type = chosenCredentialType(ctx.getNode().parameters ?? {});
	const data = await ctx.getCredentials(type);
	return { type, name: ctx.getNode().credentials?.[type]?.name ?? '', data, answered: false };
}

/** The run's credential's fields (read once per run). */
export async function getClinicSettings(ctx: ClinicApiContext): Promise<ClinicScribeSettings> {
	const credential = await credentialOfRun(ctx);
	return readCredentialSettings(credential.data, credential.type);
}

/**
 * Every value of the credential before the call and as n8n stores it now (a token renewed during
 * the call is only there: read again, on this error path only).
 */
async function callSecrets(
	ctx: ClinicApiContext,
	credential: RunCredential,
	before: ClinicScribeSettings,
): Promise<string[]> {
	return [...credentialSecrets(before), ...(await currentCredentialSecrets(ctx, credential))];
}

/**
 * The credential's secrets as the run read them and as n8n stores them now: n8n keeps a token it
 * renewed during the run only in its database (the run's copy has the old one), so it is read again.
 */
async function currentCredentialSecrets(
	ctx: ClinicApiContext,
	credential: RunCredential,
): Promise<string[]> {
	const read = credentialSecrets(readCredentialSettings(credential.data, credential.type));
	try {
		return [
			...read,
			...credentialSecrets(
				readCredentialSettings(await ctx.getCredentials(credential.type), credential.type),
			),
		];
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
