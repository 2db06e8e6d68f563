/**
 * The errors of a token that could not be had: the API credential's exchange refused, unreachable or
 * redirected (TokenExchangeError, read back by tokenProblemError), and the OAuth2 credential's own
 * failures (not connected, its token rejected, its renewal failed), each in words a user can act on.
 */
import { NodeApiError, type INode, type JsonObject } from 'n8n-workflow';

import { capitalised } from '../shared/values';
import { errorChain, type CallLabel, type NodeOwner } from './errors';

/**
 * rejected: the API said no to the credential (or it is incomplete), so the user must fix it;
 * unavailable: the token service did not answer usefully (5xx, 429, network) even after retries;
 * redirected: the token endpoint pointed elsewhere, which is never followed.
 */
type TokenFailureKind = 'rejected' | 'unavailable' | 'redirected';
const TOKEN_FAILURE_KINDS: TokenFailureKind[] = ['rejected', 'unavailable', 'redirected'];

const TOKEN_FAILURE_CODE_PREFIX = 'CLINIC_SCRIBE_TOKEN_';

/**
 * Raised when no token could be had; its message says why, and `kind` what the user can do. Its
 * `errorCode` names the kind too: n8n 1.x wraps it in a NodeApiError that keeps no cause, only that
 * code (as httpCode) and the message (first of its messages). Not `code`: n8n's credential test
 * shows a cause's `code` instead of its message.
 */
export class TokenExchangeError extends Error {
	readonly errorCode: string;

	constructor(
		message: string,
		readonly kind: TokenFailureKind = 'rejected',
	) {
		super(message);
		this.name = 'TokenExchangeError';
		this.errorCode = `${TOKEN_FAILURE_CODE_PREFIX}${kind.toUpperCase()}`;
	}
}

/** A token that could not be had or renewed: what to say, and (when not the kind's) what to do. */
interface TokenProblem {
	message: string;
	kind: TokenFailureKind;
	description?: string;
}

/**
 * The API credential's failed token exchange, as it reaches a call wrapped by n8n: its message is
 * already written for the user. n8n 2.x keeps it as the cause; n8n 1.x keeps only its code (as the
 * NodeApiError's httpCode) and its message, first among the messages.
 */
function tokenExchangeFailureOf(error: unknown): TokenProblem | undefined {
	for (const record of errorChain(error)) {
		if (
			record.name === 'TokenExchangeError' &&
			typeof record.message === 'string' &&
			record.message
		) {
			const kind = TOKEN_FAILURE_KINDS.find((candidate) => candidate === record.kind) ?? 'rejected';
			return { message: record.message, kind };
		}
	}
	const wrapped = errorChain(error)[0] ?? {};
	const kind = TOKEN_FAILURE_KINDS.find(
		(candidate) => wrapped.httpCode === `${TOKEN_FAILURE_CODE_PREFIX}${candidate.toUpperCase()}`,
	);
	if (!kind) return undefined;
	const first = Array.isArray(wrapped.messages) ? wrapped.messages[0] : undefined;
	const message =
		typeof first === 'string' && first
			? first
			: typeof wrapped.message === 'string'
				? wrapped.message
				: '';
	return message ? { message, kind } : undefined;
}

const TOKEN_PROBLEM_ADVICE: Record<TokenFailureKind, string> = {
	rejected:
		'Open the Clinic Scribe API credential, correct it and run its test, then run the workflow again.',
	unavailable:
		'The credential was not rejected: the token service did not answer. Run the workflow again later; if it persists, check that the API is reachable from n8n.',
	redirected:
		"Check the credential's Environment / Base URL: it must be the API's own address (for example https:// and no path), not one that redirects elsewhere.",
};

/**
 * The error for a call that got no token, from what n8n threw: the API credential's failed
 * exchange, or n8n's failed renewal of the OAuth2 credential (`signInCredential`: its name, when the
 * call uses it), with what to do; undefined for any other failure.
 */
export function tokenProblemError(
	ctx: NodeOwner,
	call: CallLabel,
	error: unknown,
	signInCredential?: string,
): NodeApiError | undefined {
	const problem =
		tokenExchangeFailureOf(error) ??
		(signInCredential === undefined ? undefined : signInRenewalFailureOf(error, signInCredential));
	if (!problem) return undefined;
	return new NodeApiError(ctx.getNode(), { message: problem.message } as JsonObject, {
		message: problem.message,
		description: problem.description ?? TOKEN_PROBLEM_ADVICE[problem.kind],
		itemIndex: call.itemIndex,
	});
}

// ─── The OAuth2 credential's own failures ────────────────────────────────────────────────────────

function signInCredentialLabel(name: string): string {
	return name
		? `the Clinic Scribe OAuth2 credential "${name}"`
		: 'the Clinic Scribe OAuth2 credential';
}

/** The credential has no token: nobody connected it (or connecting failed). Nothing was sent. */
export function notConnectedError(
	node: INode,
	credentialName: string,
	request: { purpose: string; itemIndex?: number },
): NodeApiError {
	const message = `${capitalised(signInCredentialLabel(credentialName))} is not connected to a clinic account, so nothing was sent for ${request.purpose}`;
	return new NodeApiError(node, { message } as JsonObject, {
		message,
		description:
			'Open the credential, click Connect ("Connect my account" in older n8n versions) and sign in with the clinic account, then run again.',
		itemIndex: request.itemIndex,
	});
}

/** What to do when the API answered 401 to the renewed token too. */
export function signInTokenRejectedAdvice(credentialName: string, attempts: number): string {
	const tried = attempts > 1 ? ` (tried ${attempts} times)` : '';
	return `The API rejected the clinic account's token even after n8n renewed it. Open ${signInCredentialLabel(credentialName)} and sign in with the clinic account again (its Switch account or Connect button); check that its Environment is the one the account and client belong to.${tried}`;
}

/**
 * Why n8n could not renew the OAuth2 token after a 401, in words, or undefined when the failure was
 * something else. The sign-in provider answers OAuth errors ([RFC6749 §5.2], [EKA-OIDC]); n8n 2.41 turns
 * invalid_grant into a "needs to be reconnected" error of its own, older versions pass it through.
 */
function signInRenewalFailureOf(error: unknown, credentialName: string): TokenProblem | undefined {
	const label = signInCredentialLabel(credentialName);
	const reconnect = `Open ${label} and sign in with the clinic account again (its Switch account or Connect button), then run again.`;
	for (const candidate of errorChain(error)) {
		const failureCause = (candidate.failure as { cause?: unknown } | undefined)?.cause;
		const body = (
			typeof candidate.body === 'object' && candidate.body !== null ? candidate.body : {}
		) as Record<string, unknown>;
		const oauthError = typeof body.error === 'string' ? body.error : undefined;
		if (
			failureCause === 'credential-invalid' ||
			oauthError === 'invalid_grant' ||
			/no refresh token is available/i.test(String(candidate.message))
		) {
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
				description:
					'Correct the Client ID and Client Secret in the credential (the secret may have been rotated where the client was made), then run again.',
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
		const status = Number(
			fromTokenEndpoint
				? candidate.status
				: (candidate.response as { status?: unknown } | undefined)?.status,
		);
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
