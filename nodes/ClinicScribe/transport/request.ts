import {
	NodeApiError,
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type IHookFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
	type IWebhookFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE, readCredentialSettings, type ClinicScribeSettings } from './credentialSettings';
import { describeNetworkFailure, isNetworkFailure, readErrorFields, scrubSecrets, type ErrorFields } from './errorBodies';
import { adviceFor } from './errorAdvice';

export type ClinicApiContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions;

export interface ClinicApiRequest {
	method: IHttpRequestMethods;
	/** Path below the base URL; callers encode path segments with `encodePathSegment`. */
	path: string;
	qs?: IDataObject;
	body?: IDataObject | IDataObject[];
	/** Safe to send again after a network error (reads, and writes the API deduplicates). */
	idempotent: boolean;
	/** Statuses the caller handles itself (returned, not thrown). */
	acceptStatuses?: number[];
	timeoutMs?: number;
	/** What the user asked for, in words, for error messages ("the doctor's services"). */
	purpose: string;
	itemIndex?: number;
	/** Values the caller sent that must not come back in an error message (patient data). */
	redact?: string[];
	/** Ends the call and its retries at once; default: the execution's cancel signal (Stop). */
	abortSignal?: AbortSignal;
	/**
	 * Told before each repeat why the last attempt failed (its status, or none when no answer came),
	 * for a caller whose call is not safe to repeat blindly (transaction init).
	 */
	onRetry?: (failure: { statusCode?: number }) => void;
}

export interface ClinicApiResponse<T = unknown> {
	statusCode: number;
	body: T;
	headers: Record<string, string | string[] | undefined>;
}

/** Attempts in all (first try + retries) for retryable failures, and the back-off bounds. */
export const RETRY_POLICY = { attempts: 4, baseDelayMs: 500, maxDelayMs: 8_000 };
const DEFAULT_TIMEOUT_MS = 60_000;
const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

export async function getClinicSettings(ctx: ClinicApiContext): Promise<ClinicScribeSettings> {
	return readCredentialSettings(await ctx.getCredentials(CREDENTIAL_TYPE));
}

/** Encodes one path segment so an id can never reach another path ("a/../b" stays one segment). */
export function encodePathSegment(value: string): string {
	return encodeURIComponent(value).replace(/\./g, '%2E');
}

/**
 * The one way the nodes call the clinic API: authenticated by the credential (which renews the
 * token on a 401 and retries once), retried with bounded back-off on 5xx/408/429 and, for idempotent
 * calls, on network errors; every failure becomes a NodeApiError that says what to do.
 */
export async function clinicApiRequest<T = unknown>(
	ctx: ClinicApiContext,
	request: ClinicApiRequest,
): Promise<ClinicApiResponse<T>> {
	const settings = await getClinicSettings(ctx);
	const signal = request.abortSignal ?? executionCancelSignal(ctx);
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${settings.baseUrl}${request.path}`,
		qs: request.qs,
		body: request.body,
		json: true,
		headers: { Accept: 'application/json' },
		returnFullResponse: true,
		// 401 must stay an error: it is what makes n8n renew the token and retry once.
		ignoreHttpStatusErrors: { ignore: true, except: [401] },
		timeout: request.timeoutMs ?? DEFAULT_TIMEOUT_MS,
		// n8n 2.41's authenticated helper puts the execution's signal here itself; ours also ends the
		// retries and their pauses, and carries a caller's deadline (Wait for Completion).
		abortSignal: signal,
	};

	for (let attempt = 1; ; attempt++) {
		const outcome = await sendOnce(ctx, options);
		// Stopped: whatever the call answered or failed with, it is not retried.
		if (signal?.aborted) throw requestStoppedError(ctx, request);
		const lastAttempt = attempt >= RETRY_POLICY.attempts;
		if (outcome.kind === 'response') {
			const { response } = outcome;
			if ((response.statusCode >= 200 && response.statusCode < 300) || request.acceptStatuses?.includes(response.statusCode)) {
				return response as ClinicApiResponse<T>;
			}
			if (RETRYABLE_STATUSES.has(response.statusCode) && !lastAttempt) {
				request.onRetry?.({ statusCode: response.statusCode });
				await pause(ctx, request, signal, retryDelayMs(attempt, response.headers['retry-after']));
				continue;
			}
			throw clinicApiError(ctx, request, response.statusCode, response.body, attempt);
		}
		if (outcome.unauthorized) {
			throw clinicApiError(ctx, request, 401, outcome.body, attempt);
		}
		if (outcome.tokenProblem) {
			throw new NodeApiError(ctx.getNode(), { message: outcome.tokenProblem } as JsonObject, {
				message: outcome.tokenProblem,
				description: 'Open the Clinic Scribe API credential, correct it and run its test, then run the workflow again.',
				itemIndex: request.itemIndex,
			});
		}
		if (request.idempotent && outcome.network && !lastAttempt) {
			request.onRetry?.({});
			await pause(ctx, request, signal, retryDelayMs(attempt, undefined));
			continue;
		}
		throw new NodeApiError(ctx.getNode(), { message: outcome.description } as JsonObject, {
			message: `Could not reach the clinic API for ${request.purpose}: ${outcome.description}`,
			description:
				attempt > 1
					? `Tried ${attempt} times. Check that the credential's Base URL is right and the API is reachable from n8n, then run again.`
					: "Check that the credential's Base URL is right and the API is reachable from n8n, then run again.",
			itemIndex: request.itemIndex,
		});
	}
}

type SendOutcome =
	| { kind: 'response'; response: ClinicApiResponse }
	| {
			kind: 'failure';
			unauthorized: boolean;
			network: boolean;
			body: unknown;
			description: string;
			tokenProblem?: string;
	  };

async function sendOnce(ctx: ClinicApiContext, options: IHttpRequestOptions): Promise<SendOutcome> {
	try {
		const raw = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, { ...options })) as {
			statusCode: number;
			body: unknown;
			headers?: Record<string, string | string[] | undefined>;
		};
		return { kind: 'response', response: { statusCode: raw.statusCode, body: raw.body, headers: raw.headers ?? {} } };
	} catch (error) {
		const cause = causeOf(error);
		const httpCode = (error as { httpCode?: unknown }).httpCode;
		// httpCode may hold a network error code ("ECONNRESET") rather than a status.
		const status = Number(cause.response?.status ?? (/^\d{3}$/.test(String(httpCode)) ? httpCode : 0));
		return {
			kind: 'failure',
			unauthorized: status === 401,
			network: status === 0 && isNetworkFailure(error),
			body: cause.response?.data,
			description: describeNetworkFailure(error),
			tokenProblem: tokenFailureText(error),
		};
	}
}

/** A failed token exchange reaches us wrapped; its message is already written for the user. */
function tokenFailureText(error: unknown): string | undefined {
	const cause = causeOf(error) as { name?: string; message?: string };
	if (cause.name === 'TokenExchangeError' && cause.message) return cause.message;
	const own = error as { name?: string; message?: string };
	if (own.name === 'TokenExchangeError' && own.message) return own.message;
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
		message: fields.message === undefined ? undefined : scrubSecrets(fields.message, values),
	};
}

export function retryDelayMs(attempt: number, retryAfter: string | string[] | undefined): number {
	const header = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
	if (header !== undefined) {
		const seconds = Number(header);
		if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, RETRY_POLICY.maxDelayMs);
		const date = Date.parse(header);
		if (!Number.isNaN(date)) return Math.min(Math.max(date - Date.now(), 0), RETRY_POLICY.maxDelayMs);
	}
	return Math.min(RETRY_POLICY.baseDelayMs * 2 ** (attempt - 1), RETRY_POLICY.maxDelayMs);
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
