/**
 * The one way the nodes call the clinic API (`clinicApiRequest`), and the one way an id enters a
 * URL path (`pathSegment`). One attempt is authenticatedAttempt.ts, the run's credential
 * runCredential.ts, the retries retry.ts, the errors requestErrors.ts.
 */
import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type IHookFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
	type IWebhookFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { sendAuthenticated, withRawBody, type AttemptOutcome } from './authenticatedAttempt';
import { SIGN_IN_CREDENTIAL_TYPE } from '../shared/credentialChoice';
import { readCredentialSettings, type ClinicScribeSettings } from './credentialSettings';
import { scrubErrorInPlace, scrubValue } from './errorBodies';
import {
	clinicApiError,
	redirectRefusedError,
	requestStoppedError,
	tokenProblemError,
	unreachableError,
	withNotRepeatedNote,
	type CallLabel,
} from './requestErrors';
import { mayRepeat, outcomeUnknown, withRetries, type AttemptResult, type RepeatSafety } from './retry';
import { PRODUCTION_POLICY, RETRYABLE_STATUSES } from './retryPolicy';
import { callSecrets, credentialOfRun, type RunCredential } from './runCredential';
import { notConnectedError, signInTokenRejectedAdvice } from './signInFailures';

export type ClinicApiContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions;

export interface ClinicApiRequest extends CallLabel, RepeatSafety {
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
	timeoutMs?: number;
	/** Ends the call and its retries at once; default: the execution's cancel signal (Stop). */
	abortSignal?: AbortSignal;
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
	if (/^\.+$/.test(trimmed)) return `is "${trimmed}": an ID made only of dots would address another path of the API`;
	return undefined;
}

/**
 * The one way an id enters a URL path: refused (before any request) when it is empty or only dots,
 * else percent-encoded as exactly one segment: "/" is encoded, so "a/../b" stays one segment, and a
 * dot inside a segment stays a dot as RFC 3986 asks (a strict gateway may refuse `%2E`).
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
	return encodeURIComponent(value);
}

/** Errors of calls that were sent again after an attempt whose answer was lost (see answerWasLost). */
const errorsAfterLostAnswer = new WeakSet<object>();

/**
 * Whether the call that threw this error had an attempt without a clear answer (none, or a 5xx):
 * the service may have carried it out, even though the call failed.
 */
export function answerWasLost(error: unknown): boolean {
	return typeof error === 'object' && error !== null && errorsAfterLostAnswer.has(error);
}

/**
 * The one way the nodes call the clinic API: authenticated by the credential (which renews the
 * token on a 401 and retries once), repeated with bounded back-off where that is safe (retry.ts:
 * `mayRepeat`); every failure becomes a NodeApiError that says what to do. Redirects are never
 * followed (the credential's headers would go with them), and every error and every error answer
 * handed back is scrubbed of the credential's secrets.
 */
export async function clinicApiRequest<T = unknown>(ctx: ClinicApiContext, request: ClinicApiRequest): Promise<ClinicApiResponse<T>> {
	const credential = await credentialOfRun(ctx);
	const settings = readCredentialSettings(credential.data, credential.type);
	const lost = { answer: false };
	try {
		if (credential.type === SIGN_IN_CREDENTIAL_TYPE && settings.sessionToken === '') {
			throw notConnectedError(ctx.getNode(), credential.name, request);
		}
		const response = { ...(await sendWithRetries<T>(ctx, credential, settings, request, lost)), afterLostAnswer: lost.answer };
		if (response.statusCode >= 200 && response.statusCode < 300) return response;
		// An error answer the caller handles: cleaned here, so no message built from it leaks.
		return { ...response, body: scrubValue(response.body, await callSecrets(ctx, credential, settings, request.redact)) };
	} catch (error) {
		scrubErrorInPlace(error, await callSecrets(ctx, credential, settings, request.redact));
		// Our errors are NodeApiErrors already (handed back as they are); anything else is wrapped.
		const failure = new NodeApiError(ctx.getNode(), error as JsonObject);
		if (lost.answer) errorsAfterLostAnswer.add(failure);
		throw failure;
	}
}

async function sendWithRetries<T>(
	ctx: ClinicApiContext,
	credential: RunCredential,
	settings: ClinicScribeSettings,
	request: ClinicApiRequest,
	lost: { answer: boolean },
): Promise<ClinicApiResponse<T>> {
	const signal = request.abortSignal ?? executionCancelSignal(ctx);
	const options = requestOptions(settings, request, signal);
	const send = async (): Promise<AttemptOutcome> => {
		if (request.rawBody) await withRawBody(options, request.rawBody);
		return await sendAuthenticated(ctx, credential, options, request);
	};
	const attempt = async (attempt: number): Promise<AttemptResult<ClinicApiResponse<T>>> => {
		const outcome = await send();
		// Stopped: whatever the call answered or failed with, it is not retried.
		if (signal?.aborted) throw requestStoppedError(ctx, request);
		if (outcome.kind === 'response') {
			const { response } = outcome;
			const status = response.statusCode;
			if (status >= 300 && status < 400) throw redirectRefusedError(ctx, request, status, response.headers.location, options.url);
			if ((status >= 200 && status < 300) || request.acceptStatuses?.includes(status)) return { kind: 'done', value: response as ClinicApiResponse<T> };
			if (outcomeUnknown(status)) lost.answer = true;
			const refused = clinicApiError(ctx, request, status, response.body, attempt);
			if (RETRYABLE_STATUSES.has(status) && mayRepeat(request, status)) return { kind: 'retry', error: refused, retryAfter: response.headers['retry-after'] };
			throw withNotRepeatedNote(request, refused, status);
		}
		if (outcome.unauthorized) {
			const rejected = clinicApiError(ctx, request, 401, outcome.body, attempt);
			if (credential.type === SIGN_IN_CREDENTIAL_TYPE) rejected.description = signInTokenRejectedAdvice(credential.name, attempt);
			throw rejected;
		}
		if (outcome.tokenProblem) throw tokenProblemError(ctx, request, outcome.tokenProblem);
		const unreachable = unreachableError(ctx, request, outcome.description, attempt);
		if (!outcome.network) throw withNotRepeatedNote(request, unreachable);
		lost.answer = true;
		if (mayRepeat(request)) return { kind: 'retry', error: unreachable };
		throw withNotRepeatedNote(request, unreachable);
	};
	return await withRetries(PRODUCTION_POLICY.retry, attempt, { signal, stopped: () => requestStoppedError(ctx, request) });
}

function requestOptions(settings: ClinicScribeSettings, request: ClinicApiRequest, signal: AbortSignal | undefined): IHttpRequestOptions {
	return {
		method: request.method,
		url: `${settings.baseUrl}${request.path}`,
		qs: request.qs,
		body: request.body,
		json: true,
		// n8n would re-send the token (and keep auth, client-id) to wherever a redirect points.
		disableFollowRedirect: true,
		headers: { Accept: 'application/json' },
		returnFullResponse: true,
		// Every status comes back as an answer (its body read for the error message), a 401 too: the
		// run renews the token once for all its calls (authenticatedAttempt.ts), the same way on n8n 1.x
		// (whose helper knows only true or false here) and 2.x.
		ignoreHttpStatusErrors: true,
		timeout: request.timeoutMs ?? PRODUCTION_POLICY.timeouts.apiCallMs,
		// n8n 2.41's authenticated helper puts the execution's signal here itself; ours also ends the
		// retries and their pauses, and carries a caller's deadline (Wait for Completion).
		abortSignal: signal,
	};
}

/** The execution's cancel signal (n8n aborts it when the execution is stopped), where the context has one. */
export function executionCancelSignal(ctx: ClinicApiContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
}
