/**
 * The Clinic Scribe OAuth2 API credential's own failures, in words: not connected, the token
 * rejected even after a renewal, and a renewal n8n could not make (its sign-in provider's answers).
 */
import { NodeApiError, type INode, type JsonObject } from 'n8n-workflow';

import { capitalised } from '../shared/values';
import type { TokenFailureKind } from './tokenExchange';

/** A token that could not be had or renewed: what to say, and (when not the kind's) what to do. */
export interface TokenProblem {
	message: string;
	kind: TokenFailureKind;
	description?: string;
}

function credentialLabel(name: string): string {
	return name ? `the Clinic Scribe OAuth2 credential "${name}"` : 'the Clinic Scribe OAuth2 credential';
}

/** The credential has no token: nobody connected it (or connecting failed). Nothing was sent. */
export function notConnectedError(node: INode, credentialName: string, request: { purpose: string; itemIndex?: number }): NodeApiError {
	const message = `${capitalised(credentialLabel(credentialName))} is not connected to a clinic account, so nothing was sent for ${request.purpose}`;
	return new NodeApiError(node, { message } as JsonObject, {
		message,
		description: 'Open the credential, click Connect ("Connect my account" in older n8n versions) and sign in with the clinic account, then run again.',
		itemIndex: request.itemIndex,
	});
}

/** What to do when the API answered 401 to the renewed token too. */
export function signInTokenRejectedAdvice(credentialName: string, attempts: number): string {
	const tried = attempts > 1 ? ` (tried ${attempts} times)` : '';
	return `The API rejected the clinic account's token even after n8n renewed it. Open ${credentialLabel(credentialName)} and sign in with the clinic account again (its Switch account or Connect button); check that its Environment is the one the account and client belong to.${tried}`;
}

/**
 * Why n8n could not renew the OAuth2 token after a 401, in words, or undefined when the failure was
 * something else. The sign-in provider answers OAuth errors ([RFC6749 §5.2], [EKA-OIDC]); n8n 2.41 turns
 * invalid_grant into a "needs to be reconnected" error of its own, older versions pass it through.
 */
export function signInRenewalFailureOf(error: unknown, credentialName: string): TokenProblem | undefined {
	const label = credentialLabel(credentialName);
	const reconnect = `Open ${label} and sign in with the clinic account again (its Switch account or Connect button), then run again.`;
	for (const candidate of errorChain(error)) {
		const failureCause = (candidate.failure as { cause?: unknown } | undefined)?.cause;
		const body = (typeof candidate.body === 'object' && candidate.body !== null ? candidate.body : {}) as Record<string, unknown>;
		const oauthError = typeof body.error === 'string' ? body.error : undefined;
		if (failureCause === 'credential-invalid' || oauthError === 'invalid_grant' || /no refresh token is available/i.test(String(candidate.message))) {
			return {
				message: `${capitalised(label)} needs to be reconnected: the sign-in provider no longer accepts its refresh token`,
				kind: 'rejected',
				description: `The clinic account's sign-in expired, was revoked, or its refresh token was already used elsewhere (the provider answered invalid_grant). ${reconnect}`,
			};
		}
		if (oauthError === 'invalid_client' || oauthError === 'unauthorized_client') {
			return {
				message: `The sign-in provider rejected the Client ID or Client Secret of ${label} when n8n renewed the token (${oauthError})`,
				kind: 'rejected',
				description: 'Correct the Client ID and Client Secret in the credential (the secret may have been rotated in the console), then run again.',
			};
		}
		if (oauthError !== undefined) {
			return {
				message: `The sign-in provider refused to renew the token of ${label} (${oauthError})`,
				kind: 'rejected',
				description: reconnect,
			};
		}
		// The token endpoint's answer without an OAuth error (client-oauth2's ResponseError), or its 5xx.
		// The API's own answers other than 401 are returned, not thrown: a thrown 5xx is the token endpoint's.
		const fromTokenEndpoint = candidate.code === 'ESTATUS';
		const status = Number(fromTokenEndpoint ? candidate.status : (candidate.response as { status?: unknown } | undefined)?.status);
		if (Number.isInteger(status) && status >= 400 && (fromTokenEndpoint || status !== 401)) {
			return {
				message: `The sign-in provider did not renew the token of ${label} (HTTP ${status})`,
				kind: status >= 500 || status === 429 ? 'unavailable' : 'rejected',
				description:
					status >= 500 || status === 429
						? 'The credential was not rejected: the sign-in provider did not answer. Run the workflow again later.'
						: `Check the credential's Environment (or its Access Token URL), then reconnect the account. ${reconnect}`,
			};
		}
	}
	return undefined;
}

/** The error and the causes it wraps, as plain records. */
function errorChain(error: unknown): Array<Record<string, unknown>> {
	const chain: Array<Record<string, unknown>> = [];
	let current: unknown = error;
	while (typeof current === 'object' && current !== null && chain.length < 4 && !chain.includes(current as Record<string, unknown>)) {
		chain.push(current as Record<string, unknown>);
		current = (current as { cause?: unknown }).cause;
	}
	return chain;
}
