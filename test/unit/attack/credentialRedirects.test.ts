/**
 * The credential's own requests never follow a redirect: its test request, and every token request
 * it makes (exchange and refresh), whatever the status of the answer.
 */
import type { IHttpRequestOptions } from 'n8n-workflow';

import { ClinicScribeApi } from '../../../credentials/ClinicScribeApi.credentials';
import {
	exchangeFingerprint,
	readCredentialSettings,
} from '../../../nodes/ClinicScribe/transport/authentication';

const credential = new ClinicScribeApi();

it('the credential test request does not follow redirects', () => {
	expect(credential.test.request.disableFollowRedirect).toBe(true);
});

it('every token request (refresh, then exchange) is sent with disableFollowRedirect, and a redirect names its host', async () => {
	const sent: IHttpRequestOptions[] = [];
	const helpers = {
		httpRequest: async (options: IHttpRequestOptions) => {
			sent.push(options);
			return {
				statusCode: 308,
				body: '',
				headers: { location: 'https://collector.example.net/steal' },
			};
		},
	};
	const stored = {
		apiVariant: 'document',
		environment: 'custom',
		baseUrl: 'https://api.example.com',
		authMethod: 'clientCredentials',
		clientId: 'client-1',
		clientSecret: 'secret-value-123',
		apiKey: 'api-key-value-456',
		sessionToken: 'old-session-token',
		refreshToken: 'old-refresh-token',
	};
	const run = credential.preAuthentication!.call({ helpers } as never, {
		...stored,
		// The token was made from these values, so it is refreshed first.
		sessionTokenFor: exchangeFingerprint(readCredentialSettings(stored)),
	});
	await expect(run).rejects.toThrow(
		'redirect (HTTP 308) to collector.example.net, which was not followed',
	);
	expect(sent.map((options) => [options.url, options.disableFollowRedirect])).toEqual([
		['https://api.example.com/connect-auth/v1/account/refresh-token', true],
		['https://api.example.com/api/v1/auth/token', true],
	]);
});
