/**
 * The errors a clinic API call ends with, in words a user can act on: refused (status, the API's
 * code and message, advice), unreachable, redirected, stopped, an unexpected body, a token that
 * could not be had, a file that changed size. Every message names what the user asked for
 * (`purpose`) and never a value the call was told to keep out (`redact`).
 */
import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';

import { capitalised } from '../shared/values';
import { adviceFor } from './errorAdvice';
import { readErrorFields, redactionsFor, redirectTargetHost, scrubSecrets, type ErrorFields } from './errorBodies';
import { outcomeUnknown, type RepeatSafety } from './retry';
import type { TokenProblem } from './signInFailures';
import type { TokenFailureKind } from './tokenExchange';

/** Whatever can name the node in an error (every n8n function context). */
export interface NodeOwner {
	getNode(): INode;
}

/** What a call was for, for its messages. */
export interface CallLabel {
	/** What the user asked for, in words ("the doctor's services"). */
	purpose: string;
	itemIndex?: number;
	/** Values the caller sent that must not come back in an error (patient data, a signing key). */
	redact?: string[];
}

/** The error for an HTTP answer the caller cannot use: status, API code and message, and advice. */
export function clinicApiError(ctx: NodeOwner, call: CallLabel, statusCode: number, body: unknown, attempts = 1): NodeApiError {
	const fields = redactFields(readErrorFields(body), call.redact ?? []);
	const advice = adviceFor(statusCode, fields.code);
	const label = fields.code ? `${statusCode} ${fields.code}` : `${statusCode}`;
	const apiSaid = fields.message ? `: ${fields.message}` : '';
	const retried = attempts > 1 ? ` (tried ${attempts} times)` : '';
	return new NodeApiError(
		ctx.getNode(),
		{ status_code: statusCode, code: fields.code ?? null, message: fields.message ?? null } as JsonObject,
		{
			message: `The clinic API refused ${call.purpose} (HTTP ${label})${apiSaid}`,
			description: `${advice}${retried}`,
			httpCode: String(statusCode),
			itemIndex: call.itemIndex,
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

/** No HTTP answer came (`description` says why: refused, reset, timed out, SSRF protection). */
export function unreachableError(ctx: NodeOwner, call: CallLabel, description: string, attempts: number): NodeApiError {
	const advice = "Check that the credential's Base URL is right and the API is reachable from n8n, then run again.";
	return new NodeApiError(ctx.getNode(), { message: description } as JsonObject, {
		message: `Could not reach the clinic API for ${call.purpose}: ${description}`,
		description: attempts > 1 ? `Tried ${attempts} times. ${advice}` : advice,
		itemIndex: call.itemIndex,
	});
}

export function redirectRefusedError(
	ctx: NodeOwner,
	call: CallLabel,
	statusCode: number,
	location: string | string[] | undefined,
	requestUrl: string | undefined,
): NodeApiError {
	const host = redirectTargetHost(location, requestUrl);
	return new NodeApiError(ctx.getNode(), { status_code: statusCode } as JsonObject, {
		message: `The clinic API answered ${call.purpose} with a redirect (HTTP ${statusCode}) to ${host}, which was not followed`,
		description:
			"Clinic Scribe never follows a redirect, so the credential's token and keys cannot reach another host. Check the credential's Environment / Base URL: it must be the API's own address (for example https:// and no path).",
		httpCode: String(statusCode),
		itemIndex: call.itemIndex,
	});
}

/** The call was abandoned because its signal fired (Stop, or a caller's deadline). */
export function requestStoppedError(ctx: NodeOwner, call: CallLabel): NodeApiError {
	return new NodeApiError(ctx.getNode(), { message: 'stopped' } as JsonObject, {
		message: `Stopped the request for ${call.purpose} because the execution was stopped`,
		itemIndex: call.itemIndex,
	});
}

/** The answer had a success status but not the documented JSON (a proxy page, a truncated body). */
export function unexpectedBodyError(ctx: NodeOwner, call: CallLabel, statusCode: number): NodeApiError {
	return new NodeApiError(ctx.getNode(), { status_code: statusCode } as JsonObject, {
		message: `The clinic API answered ${call.purpose} with a body that is not the documented JSON (HTTP ${statusCode})`,
		description:
			"Run again; if it persists, check that the credential's Base URL points at the clinic API itself and not at a proxy or web page.",
		httpCode: String(statusCode),
		itemIndex: call.itemIndex,
	});
}

const TOKEN_PROBLEM_ADVICE: Record<TokenFailureKind, string> = {
	rejected: 'Open the Clinic Scribe API credential, correct it and run its test, then run the workflow again.',
	unavailable:
		'The credential was not rejected: the token service did not answer. Run the workflow again later; if it persists, check that the API is reachable from n8n.',
	redirected:
		"Check the credential's Environment / Base URL: it must be the API's own address (for example https:// and no path), not one that redirects elsewhere.",
};

/** No token could be had or renewed for the call: the problem's message, and what to do. */
export function tokenProblemError(ctx: NodeOwner, call: CallLabel, problem: TokenProblem): NodeApiError {
	return new NodeApiError(ctx.getNode(), { message: problem.message } as JsonObject, {
		message: problem.message,
		description: problem.description ?? TOKEN_PROBLEM_ADVICE[problem.kind],
		itemIndex: call.itemIndex,
	});
}

/**
 * A call that is not safe to repeat failed without a clear "not taken" (a 5xx, no answer): the
 * service may have done the work, so the user is told to check before running it again.
 */
export function withNotRepeatedNote(call: RepeatSafety, error: NodeApiError, statusCode?: number): NodeApiError {
	if (call.idempotent || call.repeatAfterServerError === true || !outcomeUnknown(statusCode)) return error;
	error.description = `${error.description ?? ''} This request was not repeated automatically: the service may have carried it out before failing, so check (for example list the templates, or Get Results for the session) before running it again.`.trim();
	return error;
}

/** A file whose bytes were not the size it was announced with (the upload stopped before more went). */
export function fileSizeChangedError(ctx: NodeOwner, fileLabel: string, itemIndex: number): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `${capitalised(fileLabel)} changed size while it was uploaded`, {
		description: 'The binary data was announced with one size but had another. Run the workflow again.',
		itemIndex,
	});
}
