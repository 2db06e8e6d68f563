/**
 * The run's token, coordinated across the calls of one run (a node run, hook, webhook or list
 * search; runCredential.ts): a token is had and renewed once for all of them, not once per call.
 * Until a call has had an answer, the API credential's calls go one at a time, so the first gets
 * the token and n8n stores it for the others (turnToSend). A 401 renews the token once for the calls
 * refused together, the others wait for that renewal and are sent again with its token
 * (renewedAnswer): with the API credential through its exchange hook without a second refused call
 * (sendRenewing), with the OAuth2 credential on n8n 1.x by letting n8n refresh (renewingCall). Why:
 * uploads and reads of many items run several calls at once, and a renewal each would exchange (or
 * refresh) as many tokens, each replacing the one the others hold.
 */
import type {
	IAdditionalCredentialOptions,
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { SIGN_IN_CREDENTIAL_TYPE } from '../shared/fields/credentialChoice';
import type { ClinicApiContext } from './apiCall';
import { thrownOutcome, type AttemptOutcome, type HelperAnswer } from './attemptOutcome';
import {
	readCredentialSettings,
	renewalCredentialData,
	sessionTokenFitsSettings,
} from './authentication';
import type { CallLabel } from './errors';
import type { RunCredential } from './runCredential';

/** What the renewal reads of a call: its label, its raw body (sent again), the statuses it takes. */
interface RenewalCall extends CallLabel {
	rawBody?: RawRequestBody;
	acceptStatuses?: number[];
}

export interface RawRequestBody {
	open(): Promise<unknown>;
	contentLength: number;
	contentType?: string;
}

/**
 * What an attempt came to, from the first send's result: a 401 the call does not take is answered by
 * renewedAnswer (one renewal for the run's calls refused together); refused with the renewed token
 * too, the API does not take this credential.
 */
export async function outcomeAfterRenewal(
	ctx: ClinicApiContext,
	credential: RunCredential,
	first: Renewed,
	sent: IHttpRequestOptions,
	extra: IAdditionalCredentialOptions | undefined,
	request: RenewalCall,
): Promise<AttemptOutcome> {
	let result = first;
	let renewed = false;
	if (
		'answer' in result &&
		result.answer.statusCode === 401 &&
		!request.acceptStatuses?.includes(401)
	) {
		result = await renewedAnswer(ctx, credential, sent, extra, request);
		renewed = true;
	}
	if ('error' in result) return thrownOutcome(ctx, request, result.error, credential, sent.url);
	if (renewed && result.answer.statusCode === 401)
		return { kind: 'unauthorized', body: result.answer.body };
	return {
		kind: 'answer',
		response: {
			statusCode: result.answer.statusCode,
			body: result.answer.body,
			headers: result.answer.headers ?? {},
		},
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
	request: RenewalCall,
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
	request: RenewalCall,
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
export async function sendRenewing(
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

/**
 * True when the API credential's stored token was made from other values than it holds now (it was
 * edited): such a token is not sent, the call renews first (sendRenewing), so it uses what was typed.
 */
export function renewsFirst(credential: RunCredential): boolean {
	if (credential.type === SIGN_IN_CREDENTIAL_TYPE) return false;
	const settings = readCredentialSettings(credential.data);
	return settings.sessionToken !== '' && !sessionTokenFitsSettings(settings);
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
	request: RenewalCall,
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
export type Renewed = { answer: HelperAnswer } | { error: unknown };

/**
 * Waits until this call may go, and returns what to call once it has its answer. Until a call of the
 * run has had an answer other than 401, the API credential's calls go one at a time (uploads run
 * several at once): when it holds no token yet, or an expired one, the first call gets one and n8n
 * stores it, and the calls waiting here then use it instead of each exchanging one. Every call waits
 * for a renewal under way: its token is the one to send (the stored one was refused).
 */
export async function turnToSend(credential: RunCredential): Promise<(answered: boolean) => void> {
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
export async function withRawBody(
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
