/**
 * The OAuth2 credential's failures in words. The errors are shaped as n8n 2.41 and its OAuth2
 * client (@n8n/client-oauth2) throw them (read from their code); a real n8n throws them in
 * test/e2e/oauth2.e2e.test.ts.
 */
import {
	notConnectedError,
	signInTokenRejectedAdvice,
	tokenProblemError,
} from '../../../nodes/ClinicScribe/transport/tokenErrors';
import { clinicScribeNode } from '../../support/nodeContext';

const NAME = 'Clinic Sign-in';
const node = clinicScribeNode();

/** The error a call of the OAuth2 credential NAME ends with when n8n threw `error`, if it is a token problem. */
const tokenProblemOf = (error: unknown) =>
	tokenProblemError({ getNode: () => node }, { purpose: 'the call', itemIndex: 1 }, error, NAME);
/** client-oauth2's AuthError: the provider's OAuth error body, code EAUTH. */
const authError = (error: string) =>
	Object.assign(new Error('Client authentication failed (e.g., unknown client, …)'), {
		code: 'EAUTH',
		body: { error, error_description: 'x' },
	});

describe('a renewal n8n could not make', () => {
	test('invalid_grant, as n8n 2.41 reports it (its own "needs to be reconnected" error) or as older n8n passes it on: reconnect, naming the credential', () => {
		const n8n241 = Object.assign(new Error(`The credential "${NAME}" needs to be reconnected.`), {
			level: 'warning',
			failure: { cause: 'credential-invalid' },
		});
		for (const error of [
			n8n241,
			authError('invalid_grant'),
			new Error(
				'OAuth access token expired and no refresh token is available. Please reconnect the credentials.',
			),
		]) {
			expect(tokenProblemOf(error)).toMatchObject({
				message: `The Clinic Scribe OAuth2 credential "${NAME}" needs to be reconnected: the sign-in provider no longer accepts its refresh token`,
				description: expect.stringContaining('sign in with the clinic account again'),
				context: { itemIndex: 1 },
			});
		}
	});

	test('invalid_client: names the Client ID or Client Secret, wrapped or not', () => {
		const expected = {
			message: `The sign-in provider rejected the Client ID or Client Secret of the Clinic Scribe OAuth2 credential "${NAME}" when n8n renewed the token (invalid_client)`,
			description: expect.stringContaining('Correct the Client ID and Client Secret'),
		};
		expect(tokenProblemOf(authError('invalid_client'))).toMatchObject(expected);
		expect(
			tokenProblemOf(Object.assign(new Error('wrapped'), { cause: authError('invalid_client') })),
		).toMatchObject(expected);
	});

	test('another OAuth error: names it, says to sign in again', () => {
		expect(tokenProblemOf(authError('invalid_scope'))).toMatchObject({
			message: expect.stringContaining('(invalid_scope)'),
			description: expect.stringContaining('sign in with the clinic account again'),
		});
	});

	test('the token endpoint answering without an OAuth error (ResponseError) or with a 5xx (axios): its status; a 5xx or 429 is not a rejection', () => {
		const responseError = (status: number) =>
			Object.assign(new Error(`HTTP status ${status}`), { status, code: 'ESTATUS', body: '{}' });
		const axios5xx = Object.assign(new Error('Request failed with status code 503'), {
			code: 'ERR_BAD_RESPONSE',
			response: { status: 503, data: 'down' },
		});
		expect(tokenProblemOf(responseError(400))).toMatchObject({
			message: `The sign-in provider did not renew the token of the Clinic Scribe OAuth2 credential "${NAME}" (HTTP 400)`,
			description: expect.stringContaining('then reconnect the account'),
		});
		expect(tokenProblemOf(responseError(401))).toMatchObject({
			message: expect.stringContaining('(HTTP 401)'),
			description: expect.stringContaining('then reconnect the account'),
		});
		expect(tokenProblemOf(responseError(429))).toMatchObject({
			description: expect.stringContaining('was not rejected'),
		});
		expect(tokenProblemOf(axios5xx)).toMatchObject({
			message: expect.stringContaining('(HTTP 503)'),
			description: expect.stringContaining('was not rejected'),
		});
	});

	test("not a renewal failure: the API's own 401 (handled as a rejected token), a network error, anything else", () => {
		expect(
			tokenProblemOf(
				Object.assign(new Error('Request failed with status code 401'), {
					response: { status: 401 },
				}),
			),
		).toBeUndefined();
		expect(
			tokenProblemOf(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })),
		).toBeUndefined();
		expect(tokenProblemOf('text')).toBeUndefined();
		expect(tokenProblemOf(undefined)).toBeUndefined();
	});
});

test('not connected: names the credential and what was not sent; a credential without a name still reads well', () => {
	const error = notConnectedError(node, NAME, {
		purpose: "the business's clinics and doctors",
		itemIndex: 2,
	});
	expect(error.message).toBe(
		`The Clinic Scribe OAuth2 credential "${NAME}" is not connected to a clinic account, so nothing was sent for the business's clinics and doctors`,
	);
	expect(error.description).toContain('click Connect');
	expect(notConnectedError(node, '', { purpose: 'x' }).message).toMatch(
		/^The Clinic Scribe OAuth2 credential is not connected/,
	);
	expect(signInTokenRejectedAdvice(NAME, 1)).toContain(`"${NAME}"`);
	expect(signInTokenRejectedAdvice(NAME, 2)).toMatch(/\(tried 2 times\)$/);
});
