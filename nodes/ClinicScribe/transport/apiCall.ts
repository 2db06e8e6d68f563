/**
 * What a call of the clinic API is to its callers: the n8n contexts it runs in (one credential and
 * one run each: runCredential.ts) and what it answers. A leaf: request.ts and the modules of its
 * call (tokenRenewal.ts, attemptOutcome.ts, runCredential.ts) all read these, and import nothing
 * of each other in a circle.
 */
import type {
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

export type ClinicApiContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

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
