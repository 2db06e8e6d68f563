/**
 * The call: the one way the nodes call the clinic API (`clinicApiRequest`) and the one way an id
 * enters a URL path (`pathSegment`). A call is one loop of attempts (retryPolicy.ts), each sent
 * through n8n's authenticated helper with the credential type alone (the documented form every n8n
 * line supports: n8n reads the stored credential, gets a token when there is none and stores it), the
 * same on n8n 1.x and 2.x. The run's credential is read once at its first call, for its settings and
 * the secrets every error of the run is cleaned of (runCredential.ts); its token is had and renewed
 * once for the run's calls (tokenRenewal.ts).
 */
import {
	NodeApiError,
	NodeOperationError,
	type IAdditionalCredentialOptions,
	type IDataObject,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
	type JsonObject,
} from 'n8n-workflow';

import { SIGN_IN_CREDENTIAL_TYPE } from '../shared/fields/credentialChoice';
import type { ClinicApiContext, ClinicApiResponse } from './apiCall';
import { thrownOutcome, type AttemptOutcome, type HelperAnswer } from './attemptOutcome';
import {
	oAuth2HeadersFor,
	readCredentialSettings,
	type ClinicScribeSettings,
} from './authentication';
import {
	clinicApiError,
	describeNetworkFailure,
	redirectRefusedError,
	requestStoppedError,
	unreachableError,
	type CallLabel,
} from './errors';
import {
	isTransientNetworkFailure,
	mayRetry,
	outcomeUnknown,
	PRODUCTION_POLICY,
	withRetries,
	type AttemptResult,
	type RepeatSafety,
} from './retryPolicy';
import { callSecrets, credentialOfRun, type RunCredential } from './runCredential';
import { scrubErrorInPlace, scrubSecrets } from './secretScrubbing';
import { notConnectedError, signInTokenRejectedAdvice } from './tokenErrors';
import {
	outcomeAfterRenewal,
	renewsFirst,
	sendRenewing,
	turnToSend,
	withRawBody,
	type RawRequestBody,
	type Renewed,
} from './tokenRenewal';

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
 * token once for the run: tokenRenewal.ts), repeated with bounded back-off where that is safe
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
					const first: Renewed = renewsFirst(credential)
						? await sendRenewing(ctx, credential, sent, credential.data)
						: {
								answer: (await ctx.helpers.httpRequestWithAuthentication.call(
									ctx,
									credential.type,
									sent,
									extra,
								)) as HelperAnswer,
							};
					outcome = await outcomeAfterRenewal(ctx, credential, first, sent, extra, request);
				} catch (error) {
					outcome = thrownOutcome(ctx, request, error, credential, sent.url);
				}
				release(outcome.kind === 'answer' && outcome.response.statusCode !== 401);
				// Stopped: whatever the call answered or failed with, it is not retried.
				if (signal?.aborted) throw requestStoppedError(ctx, request);
				return attemptVerdict<T>(ctx, request, credential, outcome, attempt, options.url, () => {
					lostAnswer = true;
				});
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
 * What an attempt's outcome means for the call: its answer (done), another try where that is safe
 * (retry), or the error the call ends with (thrown). An attempt that got no clear answer (none, or a
 * 5xx) is told to `noteLostAnswer`: the service may have carried it out.
 */
function attemptVerdict<T>(
	ctx: ClinicApiContext,
	request: ClinicApiRequest,
	credential: RunCredential,
	outcome: AttemptOutcome,
	attempt: number,
	url: string,
	noteLostAnswer: () => void,
): AttemptResult<ClinicApiResponse<T>> {
	if (outcome.kind === 'answer') {
		const { response } = outcome;
		const status = response.statusCode;
		if (status >= 300 && status < 400)
			throw redirectRefusedError(ctx, request, status, response.headers.location, url);
		const retryAfter = response.headers['retry-after'];
		if ((status >= 200 && status < 300) || request.acceptStatuses?.includes(status)) {
			const passing = request.retryAnswer?.(response, attempt);
			return passing
				? { kind: 'retry', error: passing, retryAfter }
				: { kind: 'done', value: response as ClinicApiResponse<T> };
		}
		if (outcomeUnknown(status)) noteLostAnswer();
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
		noteLostAnswer();
		if (mayRetry({ noAnswer: outcome.error }, request))
			return { kind: 'retry', error: unreachable };
	}
	throw withNotRepeatedNote(request, unreachable);
}

/**
 * The options and credential options of n8n's helper. Every status comes back as an answer (its
 * body read for the error message), a 401 too for the API credential: the run renews its token once
 * for all its calls (renewedAnswer, tokenRenewal.ts). The OAuth2 credential's 401 stays an error on
 * n8n 2.x, which then refreshes the token itself, once for the calls refused together (under its
 * refresh lock), and sends the call again: one refusal per expiry. n8n 1.x takes any such object for
 * `true` and hands the 401 back, which renewedAnswer then renews; so does a raw body, which n8n 2.x
 * would not send again.
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
