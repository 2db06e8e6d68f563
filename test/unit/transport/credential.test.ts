import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

import { ClinicScribeApi } from '../../../credentials/ClinicScribeApi.credentials';
import type { ClinicApiContext } from '../../../nodes/ClinicScribe/transport/apiCall';
import {
	authHeadersFor,
	exchangeFingerprint,
	readCredentialSettings,
	renewalCredentialData,
	sessionTokenFitsSettings,
} from '../../../nodes/ClinicScribe/transport/authentication';
import { readErrorFields } from '../../../nodes/ClinicScribe/transport/errors';
import { pathSegment } from '../../../nodes/ClinicScribe/transport/request';
import { scrubSecrets } from '../../../nodes/ClinicScribe/transport/secretScrubbing';
import { obtainAccessToken } from '../../../nodes/ClinicScribe/transport/tokenExchange';

const typed: ICredentialDataDecryptedObject = {
	apiVariant: 'document',
	environment: 'custom',
	baseUrl: 'https://gw.example.com/',
	authMethod: 'clientCredentials',
	clientId: 'client-1',
	clientSecret: 'very-secret-value',
	apiKey: 'key-value-123',
	accessToken: '',
	sessionToken: 'tok',
	refreshToken: '',
};
/** The credential as n8n stores it after an exchange with the values typed: the token's fingerprint beside it. */
const base: ICredentialDataDecryptedObject = {
	...typed,
	sessionTokenFor: exchangeFingerprint(readCredentialSettings(typed)),
};

describe('authHeadersFor', () => {
	const settings = readCredentialSettings(base);
	it('sends the token raw in `auth` to /dr and as Bearer elsewhere', () => {
		expect(authHeadersFor('https://gw.example.com/dr/v1/business/entities', 't', settings)).toEqual(
			{ auth: 't' },
		);
		expect(authHeadersFor('/dr/v1/doctor/service/x', 't', settings)).toEqual({ auth: 't' });
		expect(authHeadersFor('https://gw.example.com/voice/api/v3/status/x', 't', settings)).toEqual({
			Authorization: 'Bearer t',
		});
		expect(authHeadersFor('https://gw.example.com/drive/x', 't', settings)).toEqual({
			Authorization: 'Bearer t',
		});
	});
	it('adds the client id for the public variant', () => {
		const publicSettings = readCredentialSettings({ ...base, apiVariant: 'public' });
		expect(authHeadersFor('/dr/v1/x', 't', publicSettings)).toEqual({
			auth: 't',
			'client-id': 'client-1',
		});
	});
	it("gives no headers for a host other than the API's", () => {
		expect(authHeadersFor('https://GW.example.com/x', 't', settings)).toEqual({
			Authorization: 'Bearer t',
		});
		expect(authHeadersFor('/relative', 't', settings)).toEqual({ Authorization: 'Bearer t' });
		expect(authHeadersFor('https://bucket.s3.amazonaws.com/dr/x', 't', settings)).toBeUndefined();
		expect(authHeadersFor('https://gw.example.com.evil.com/x', 't', settings)).toBeUndefined();
		expect(authHeadersFor('http://gw.example.com/x', 't', settings)).toBeUndefined();
	});
});

describe('the base URL', () => {
	const resolveBaseUrl = (environment: string, baseUrl: string) =>
		readCredentialSettings({ ...base, environment, baseUrl }).baseUrl;
	it('maps environments and trims a trailing slash', () => {
		expect(resolveBaseUrl('production', '')).toBe('https://api.eka.care');
		expect(resolveBaseUrl('sandbox', '')).toBe('https://api.dev.eka.care');
		expect(resolveBaseUrl('custom', 'http://127.0.0.1:9/')).toBe('http://127.0.0.1:9');
	});
});

describe('ClinicScribeApi.authenticate', () => {
	const credential = new ClinicScribeApi();
	it('puts the session token on API calls and fills the base URL of relative ones', async () => {
		const result = await credential.authenticate(base, {
			url: '/dr/v1/business/entities',
		} as IHttpRequestOptions);
		expect(result.baseURL).toBe('https://gw.example.com');
		expect(result.headers).toEqual({ auth: 'tok' });
	});
	it('never sends a token to another host', async () => {
		const request = {
			url: 'https://bucket.example.org/upload',
			headers: { a: '1' },
		} as IHttpRequestOptions;
		expect(await credential.authenticate(base, request)).toEqual(request);
	});
	it('uses the ready access token in that mode', async () => {
		const result = await credential.authenticate(
			{ ...base, authMethod: 'accessToken', accessToken: 'console-token' },
			{ url: 'https://gw.example.com/voice/api/v3/status/1' } as IHttpRequestOptions,
		);
		expect(result.headers).toEqual({ Authorization: 'Bearer console-token' });
	});
});

describe('a stored token is used only with the values it was made from', () => {
	const credential = new ClinicScribeApi();
	const edits: Array<[string, ICredentialDataDecryptedObject]> = [
		['Client Secret', { clientSecret: 'very-secret-valuE' }],
		['Client ID', { clientId: 'client-2' }],
		['Workspace API Key', { apiKey: 'key-value-124' }],
		['API Variant', { apiVariant: 'public' }],
		['Base URL', { baseUrl: 'https://gw2.example.com' }],
		['Environment', { environment: 'sandbox' }],
	];

	it.each(edits)('an edited %s: the token is not sent, nor vouched for', async (_field, edit) => {
		const edited = { ...base, ...edit };
		expect(sessionTokenFitsSettings(readCredentialSettings(edited))).toBe(false);
		const result = await credential.authenticate(edited, {
			url: '/dr/v1/business/entities',
		} as IHttpRequestOptions);
		expect(JSON.stringify(result.headers ?? {})).not.toContain('tok');
	});

	it('unchanged values (a trailing slash, spaces around a value): the token fits', () => {
		expect(sessionTokenFitsSettings(readCredentialSettings(base))).toBe(true);
		expect(
			sessionTokenFitsSettings(
				readCredentialSettings({
					...base,
					baseUrl: 'https://gw.example.com',
					clientId: ' client-1 ',
				}),
			),
		).toBe(true);
	});

	it('a token stored before fingerprints, or with a damaged one, does not fit', () => {
		expect(sessionTokenFitsSettings(readCredentialSettings({ ...typed }))).toBe(false);
		const [version, salt] = String(base.sessionTokenFor).split(':');
		for (const damaged of [`${version}:${salt}:00`, `${version}:${salt}`, 'v0:a:b', 'garbage'])
			expect(
				sessionTokenFitsSettings(readCredentialSettings({ ...base, sessionTokenFor: damaged })),
			).toBe(false);
	});

	it('the fingerprint holds nothing of the secret, and differs for the same values', () => {
		const settings = readCredentialSettings(typed);
		const one = exchangeFingerprint(settings);
		const two = exchangeFingerprint(settings);
		expect(one).not.toBe(two);
		for (const secret of ['very-secret-value', 'key-value-123', 'client-1'])
			expect(one).not.toContain(secret);
		expect(sessionTokenFitsSettings({ ...settings, sessionToken: 't', sessionTokenFor: one })).toBe(
			true,
		);
		expect(sessionTokenFitsSettings({ ...settings, sessionToken: 't', sessionTokenFor: two })).toBe(
			true,
		);
	});

	it('an access token or the OAuth2 credential needs no fingerprint', () => {
		expect(
			sessionTokenFitsSettings(readCredentialSettings({ ...typed, authMethod: 'accessToken' })),
		).toBe(true);
	});

	it('an edited credential exchanges with the values typed, never refreshes the old token', async () => {
		const calls: Array<{ url: string; body: unknown }> = [];
		const send = jest.fn(async (options: IHttpRequestOptions) => {
			calls.push({ url: options.url, body: options.body });
			return { statusCode: 200, body: { access_token: 'new', refresh_token: 'r2' } };
		});
		const edited = readCredentialSettings({ ...base, refreshToken: 'r1', clientSecret: 'rotated' });
		const tokens = await obtainAccessToken(send, edited);
		expect(calls).toEqual([
			{
				url: 'https://gw.example.com/api/v1/auth/token',
				body: expect.objectContaining({ client_secret: 'rotated' }),
			},
		]);
		expect(sessionTokenFitsSettings({ ...edited, ...tokens })).toBe(true);
		expect(sessionTokenFitsSettings(readCredentialSettings({ ...base, ...tokens }))).toBe(false);
	});

	it('the data handed over for a renewal: the session token moved aside, read back as the token to renew', () => {
		const handed = renewalCredentialData({ ...base, refreshToken: 'r1' });
		expect(handed.sessionToken).toBe('');
		expect(readCredentialSettings(handed).sessionToken).toBe('tok');
		expect(sessionTokenFitsSettings(readCredentialSettings(handed))).toBe(true);
	});
});

describe('token exchange', () => {
	const settings = readCredentialSettings({ ...base, sessionToken: '' });

	/** What the exchange says when the API refuses it (and the other variant's request gets no answer). */
	const describeExchangeRejection = async (response: {
		statusCode: number;
		body: unknown;
	}): Promise<string> => {
		const send = jest.fn(async () => {
			if (send.mock.calls.length === 1) return response;
			throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
		});
		const error = await obtainAccessToken(send, settings).then(
			() => undefined,
			(thrown: Error) => thrown,
		);
		expect(send).toHaveBeenCalledTimes(2);
		return error!.message;
	};

	it('names the field the API rejected', async () => {
		const say = async (statusCode: number, body: unknown) =>
			await describeExchangeRejection({ statusCode, body });
		expect(await say(403, { code: 'invalid_api_key', error: 'API key is not valid' })).toContain(
			'rejected the Workspace API Key',
		);
		expect(await say(401, { code: 'invalid_client_secret', error: 'bad' })).toContain(
			'rejected the Client Secret',
		);
		expect(await say(401, { code: 'invalid_client_id', error: 'client_id not found' })).toContain(
			'rejected the Client ID',
		);
		expect(await say(401, {})).toContain('rejected the Client ID or Client Secret');
	});

	it('never repeats a secret the server echoed', async () => {
		const message = await describeExchangeRejection({
			statusCode: 401,
			body: { code: 'invalid_client_secret', error: 'secret very-secret-value is wrong' },
		});
		expect(message).not.toContain('very-secret-value');
		expect(message).toContain('[redacted]');
	});

	it('lists every missing field before sending anything', async () => {
		const send = jest.fn();
		const empty = readCredentialSettings({
			...base,
			clientId: '',
			clientSecret: '',
			apiKey: '',
			sessionToken: '',
		});
		await expect(obtainAccessToken(send, empty)).rejects.toThrow(
			'missing Client ID, Client Secret, Workspace API Key',
		);
		expect(send).not.toHaveBeenCalled();
	});

	it('refreshes when it holds a refresh token, and falls back to the exchange when refresh fails', async () => {
		const withRefresh = readCredentialSettings({
			...base,
			sessionToken: 'old',
			refreshToken: 'r1',
		});
		const calls: string[] = [];
		const send = jest.fn(async (options: IHttpRequestOptions) => {
			calls.push(options.url);
			if (options.url.endsWith('/refresh-token'))
				return { statusCode: 401, body: { code: 'invalid_refresh_token' } };
			return { statusCode: 200, body: { access_token: 'new', refresh_token: 'r2' } };
		});
		expect(await obtainAccessToken(send, withRefresh)).toEqual({
			sessionToken: 'new',
			refreshToken: 'r2',
			sessionTokenFor: expect.stringMatching(/^v1:[0-9a-f]{32}:[0-9a-f]{64}$/),
		});
		expect(calls).toEqual([
			'https://gw.example.com/connect-auth/v1/account/refresh-token',
			'https://gw.example.com/api/v1/auth/token',
		]);
	});

	it('says so when the network fails, without echoing secrets', async () => {
		const send = jest.fn(async () => {
			throw Object.assign(new Error('connect ECONNREFUSED'), {
				code: 'ECONNREFUSED',
				config: { data: 'very-secret-value' },
			});
		});
		await expect(obtainAccessToken(send, settings)).rejects.toThrow('connection refused');
	});
});

describe('errors and retries', () => {
	it('reads every documented error body shape', () => {
		expect(
			readErrorFields({
				status_code: 403,
				success: false,
				error: { code: 'UNAUTHORIZED_ACCESS', message: 'no' },
			}),
		).toEqual({ code: 'UNAUTHORIZED_ACCESS', message: 'no' });
		expect(readErrorFields({ code: 'invalid_client_id', error: 'unknown' })).toEqual({
			code: 'invalid_client_id',
			message: 'unknown',
		});
		expect(readErrorFields({ error: { code: 'txn_limit_exceeded', msg: 'quota' } })).toEqual({
			code: 'txn_limit_exceeded',
			message: 'quota',
		});
		expect(readErrorFields('<html>bad gateway</html>')).toEqual({
			message: '<html>bad gateway</html>',
		});
	});
	it('scrubs secrets', () => {
		expect(scrubSecrets('a key-value-123 b', ['key-value-123', undefined, ''])).toBe(
			'a [redacted] b',
		);
		// An API answer: every string in it, keys included, in a copy.
		const answer = { error: { 'key-value-123': ['said key-value-123'] }, status: 400 };
		expect(scrubSecrets(answer, ['key-value-123'])).toEqual({
			error: { '[redacted]': ['said [redacted]'] },
			status: 400,
		});
		expect(answer.error).toHaveProperty('key-value-123');
	});
	it('encodes a path segment so it cannot split, and refuses one that would climb, naming the field and item', () => {
		const ctx = { getNode: () => ({ name: 'Clinic Scribe' }) } as unknown as ClinicApiContext;
		const segment = (value: string) => pathSegment(ctx, value, 'Doctor ID', 2);
		expect(segment('a b/c')).toBe('a%20b%2Fc');
		// RFC 3986: a dot inside a segment is not encoded (a strict gateway may refuse %2E); "/" is.
		expect(segment('v1.2')).toBe('v1.2');
		expect(segment('audio_0.wav')).toBe('audio_0.wav');
		expect(segment('a/../b')).toBe('a%2F..%2Fb');
		expect(segment('.hidden')).toBe('.hidden');
		expect(() => segment('..')).toThrow(
			'The Doctor ID of item 2 is "..": an ID made only of dots would address another path of the API',
		);
		expect(() => segment(' ')).toThrow('The Doctor ID of item 2 is empty');
	});
});
