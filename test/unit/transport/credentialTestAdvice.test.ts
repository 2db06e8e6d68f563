/**
 * What the Clinic Scribe API credential's test tells the admin to change, one case per advice: the
 * token exchange refused, then the other API variant's token request tried once at the same address
 * (accepted, refused the same way, or only that one there), and the rules of the test call.
 */
import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

import { ClinicScribeApi } from '../../../credentials/ClinicScribeApi.credentials';
import {
	API_VARIANT_OPTIONS,
	readCredentialSettings,
} from '../../../nodes/ClinicScribe/transport/authentication';
import { TokenExchangeError } from '../../../nodes/ClinicScribe/transport/tokenErrors';
import { obtainAccessToken } from '../../../nodes/ClinicScribe/transport/tokenExchange';
import { API_VARIANTS } from '../../fake-api/fixtures';
import { useTestTransportPolicy } from '../../support/transportPolicy';

const BASE = 'https://gw.example.com';
const SECRET = 'very-secret-value';
const KEY = 'key-value-123';

const credential = (overrides: ICredentialDataDecryptedObject = {}) =>
	readCredentialSettings({
		apiVariant: 'document',
		environment: 'custom',
		baseUrl: `${BASE}/`,
		authMethod: 'clientCredentials',
		clientId: 'client-1',
		clientSecret: SECRET,
		apiKey: KEY,
		...overrides,
	});

// The token requests' documented paths ([IFD §4.5], [EKA-AUTH] login), as the fake API serves them.
const DOCUMENT_PATH = API_VARIANTS.document.tokenPath;
const PUBLIC_PATH = API_VARIANTS.public.tokenPath;
const DOCUMENT = `"${API_VARIANT_OPTIONS.document.name}"`;
const PUBLIC = `"${API_VARIANT_OPTIONS.public.name}"`;

type Answer = { statusCode: number; body?: unknown; headers?: Record<string, string> } | Error;

/** A token service answering each path as given (404 for any other), recording every request. */
function service(answers: Record<string, Answer>) {
	const requests: IHttpRequestOptions[] = [];
	const send = jest.fn(async (options: IHttpRequestOptions) => {
		requests.push(options);
		const answer = answers[new URL(options.url).pathname] ?? {
			statusCode: 404,
			body: { code: 'not_found', error: 'Not Found' },
		};
		if (answer instanceof Error) throw answer;
		return { headers: {}, ...answer };
	});
	return { send, requests };
}

const TOKENS = { statusCode: 200, body: { access_token: 'eyJ.other.variant', refresh_token: 'r' } };

async function refusal(settings: ReturnType<typeof credential>, answers: Record<string, Answer>) {
	const { send, requests } = service(answers);
	const error = await obtainAccessToken(send, settings).then(
		() => undefined,
		(thrown: unknown) => thrown,
	);
	expect(error).toBeInstanceOf(TokenExchangeError);
	const message = (error as TokenExchangeError).message;
	for (const secret of [SECRET, KEY, 'eyJ.other.variant']) expect(message).not.toContain(secret);
	return { message, kind: (error as TokenExchangeError).kind, requests };
}

describe('the token exchange is refused: the other API variant is tried once, at the same address', () => {
	it('the other variant accepts the client: "set API Variant to …" names the option to pick', async () => {
		const { message, kind, requests } = await refusal(credential(), { [PUBLIC_PATH]: TOKENS });
		expect(message).toBe(
			`The clinic API has no token request for API Variant ${DOCUMENT} (HTTP 404), but it accepts this client with ${PUBLIC}: set API Variant to ${PUBLIC} in the Clinic Scribe API credential, then test it again.`,
		);
		expect(kind).toBe('rejected');
		// One request each: the chosen variant's, then the other's, both to the credential's own host.
		expect(requests.map((r) => r.url)).toEqual([
			`${BASE}${DOCUMENT_PATH}`,
			`${BASE}${PUBLIC_PATH}`,
		]);
		expect(requests[1]).toMatchObject({
			disableFollowRedirect: true,
			body: { client_id: 'client-1', client_secret: SECRET, api_key: KEY },
		});
		expect(requests[1].headers).not.toHaveProperty('X-API-KEY');
	});

	it("the same, the other way round, when this variant's request exists but refuses the client", async () => {
		const unknownClient = {
			statusCode: 401,
			body: { code: 'invalid_client_id', error: 'Unknown client id' },
		};
		const { message, requests } = await refusal(credential({ apiVariant: 'public' }), {
			[PUBLIC_PATH]: unknownClient,
			[DOCUMENT_PATH]: TOKENS,
		});
		expect(message).toBe(
			`The clinic API rejected the Client ID (HTTP 401) while issuing an access token with API Variant ${PUBLIC}, but it accepts this client with ${DOCUMENT}: set API Variant to ${DOCUMENT} in the Clinic Scribe API credential, then test it again. The API said: invalid_client_id: Unknown client id.`,
		);
		expect(requests[1]).toMatchObject({
			url: `${BASE}${DOCUMENT_PATH}`,
			headers: { 'X-API-KEY': KEY },
			body: { grant_type: 'client_credentials' },
		});
	});

	it("only the other variant's token request exists, and it wants the Workspace API Key the admin left empty", async () => {
		const { message } = await refusal(credential({ apiVariant: 'public', apiKey: '' }), {
			[DOCUMENT_PATH]: {
				statusCode: 403,
				body: { code: 'invalid_api_key', error: 'Missing X-API-KEY header' },
			},
		});
		expect(message).toBe(
			`The clinic API has no token request for API Variant ${PUBLIC} (HTTP 404), but it answers the one of ${DOCUMENT}: set API Variant to ${DOCUMENT} in the Clinic Scribe API credential, then test it again. With ${DOCUMENT} it then rejected the Workspace API Key (HTTP 403): fill in the Workspace API Key (${DOCUMENT} requires it), from the workspace owner's hub.eka.care → API Token → Create (or your API provider, with the interface document).`,
		);
	});

	it('both variants refuse the Client Secret: the variant is not the cause; copy the secret again from the console', async () => {
		const wrongSecret = {
			statusCode: 401,
			body: { code: 'invalid_client_secret', error: 'Invalid client secret' },
		};
		const { message } = await refusal(credential(), {
			[DOCUMENT_PATH]: wrongSecret,
			[PUBLIC_PATH]: wrongSecret,
		});
		expect(message).toBe(
			`The clinic API rejected the Client Secret (HTTP 401) while issuing an access token, and API Variant ${PUBLIC} rejected it too, so API Variant is not the cause: copy the Client Secret again from the Eka Developer Console → Manage API Credentials (Client IDs and Secrets). Check also that the Base URL (${BASE}) is the address of the environment the client was made in: production and sandbox have separate clients. The API said: invalid_client_secret: Invalid client secret.`,
		);
	});

	it('both refuse the Workspace API Key: where the key comes from', async () => {
		const wrongKey = {
			statusCode: 403,
			body: { code: 'invalid_api_key', error: 'Invalid API key' },
		};
		const { message } = await refusal(credential(), {
			[DOCUMENT_PATH]: wrongKey,
			[PUBLIC_PATH]: wrongKey,
		});
		expect(message).toContain(
			"so API Variant is not the cause: copy the Workspace API Key again from the workspace owner's hub.eka.care → API Token → Create",
		);
	});

	it.each([
		['gives no answer', new Error('socket hang up')],
		['is unavailable', { statusCode: 503, body: {} }],
		[
			'answers with a redirect (never followed)',
			{ statusCode: 307, headers: { location: 'https://elsewhere.example.org/login' } },
		],
		['answers 200 without a token', { statusCode: 200, body: { ok: true } }],
	] as const)(
		'the other variant %s: nothing to go by, so the plain advice',
		async (_case, answer) => {
			const wrongSecret = {
				statusCode: 401,
				body: { code: 'invalid_client_secret', error: 'Invalid client secret' },
			};
			const { message, requests } = await refusal(credential(), {
				[DOCUMENT_PATH]: wrongSecret,
				[PUBLIC_PATH]: answer,
			});
			expect(message).toBe(
				`The clinic API rejected the Client Secret (HTTP 401) while issuing an access token. Check the Client Secret in the Clinic Scribe API credential, and that it belongs to the address in Base URL (${BASE}) and to API Variant ${DOCUMENT}. The API said: invalid_client_secret: Invalid client secret.`,
			);
			// No retry of the probe, no request to the redirect's target.
			expect(requests.map((r) => r.url)).toEqual([
				`${BASE}${DOCUMENT_PATH}`,
				`${BASE}${PUBLIC_PATH}`,
			]);
		},
	);

	it('nothing is sent, and nothing probed, when a field is missing', async () => {
		const { send } = service({ [PUBLIC_PATH]: TOKENS });
		await expect(obtainAccessToken(send, credential({ clientSecret: '' }))).rejects.toThrow(
			'missing Client Secret',
		);
		expect(send).not.toHaveBeenCalled();
	});

	it('no probe when the token service is unavailable: the credential was not refused', async () => {
		useTestTransportPolicy({ retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 } });
		const { send, requests } = service({
			[DOCUMENT_PATH]: { statusCode: 503, body: {} },
			[PUBLIC_PATH]: TOKENS,
		});
		const error = (await obtainAccessToken(send, credential()).catch(
			(thrown: unknown) => thrown,
		)) as TokenExchangeError;
		expect([error.kind, error.message]).toEqual([
			'unavailable',
			expect.stringContaining('The credential was not rejected'),
		]);
		expect(requests.map((r) => new URL(r.url).pathname)).toEqual([DOCUMENT_PATH, DOCUMENT_PATH]);
	});

	it('an access token is used as it is: no exchange, nothing probed', async () => {
		const { send } = service({});
		expect(
			await obtainAccessToken(
				send,
				credential({ authMethod: 'accessToken', accessToken: 'console-token' }),
			),
		).toEqual({ sessionToken: 'console-token', refreshToken: '', sessionTokenFor: '' });
		expect(send).not.toHaveBeenCalled();
	});
});

describe("the test call's rules: what a refusal after the token means", () => {
	const rules = new ClinicScribeApi().test.rules ?? [];
	const ruleFor = (status: number) =>
		rules.find(
			(rule) =>
				rule.type === 'responseCode' && (rule.properties as { value: number }).value === status,
		)?.properties as { message: string } | undefined;

	it('401: the access token was refused; where to make a new one, and the Environment', () => {
		expect(ruleFor(401)?.message).toContain(
			'make a new one at the Eka Developer Console → Manage API Credentials → ⋮ (More options) → Create Long Live Token',
		);
		expect(ruleFor(401)?.message).toContain(
			'check that Environment (with Custom Base URL: the Base URL) is the one the client was made in',
		);
	});

	it('403: the workspace owner must give the client access', () => {
		expect(ruleFor(403)?.message).toContain(
			'ask the workspace owner to give the client access to the workspace',
		);
	});

	it('404: the address is not the clinic API', () => {
		expect(ruleFor(404)?.message).toContain('check Environment, and for Custom Base URL');
	});
});
