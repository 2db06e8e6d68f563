/**
 * What one attempt of a call came to (an answer, a refused token, no token, no answer), read from
 * what n8n's helper returned or threw: the one reading request.ts and tokenRenewal.ts share.
 */
import type { NodeApiError } from 'n8n-workflow';

import { SIGN_IN_CREDENTIAL_TYPE } from '../shared/fields/credentialChoice';
import type { ClinicApiContext, ClinicApiResponse } from './apiCall';
import { errorChain, type CallLabel } from './errors';
import type { RunCredential } from './runCredential';
import { tokenProblemError } from './tokenErrors';

export interface HelperAnswer {
	statusCode: number;
	body: unknown;
	headers?: Record<string, string | string[] | undefined>;
}

export type AttemptOutcome =
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
export function thrownOutcome(
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
