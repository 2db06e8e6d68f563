/**
 * The Clinic Scribe OAuth2 API credential's description (what n8n's OAuth2 machinery reads, what the
 * user sees), how the transport reads it, and the Authentication choice of both nodes. The flow
 * itself is proven in a real n8n (test/e2e/oauth2.e2e.test.ts, test/browser/oauth2.browser.test.ts).
 */
import type {
	ICredentialDataDecryptedObject,
	INodeProperties,
	INodeTypeDescription,
} from 'n8n-workflow';

import {
	ClinicScribeOAuth2Api,
	GRANT_TYPE_HINT,
} from '../../../credentials/ClinicScribeOAuth2Api.credentials';
import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { ClinicScribeTrigger } from '../../../nodes/ClinicScribe/ClinicScribeTrigger.node';
import { chosenCredentialType } from '../../../nodes/ClinicScribe/shared/fields/credentialChoice';
import type { ClinicApiContext } from '../../../nodes/ClinicScribe/transport/apiCall';
import {
	credentialSecrets,
	oAuth2HeadersFor,
	readCredentialSettings,
} from '../../../nodes/ClinicScribe/transport/authentication';
import { getClinicSettings } from '../../../nodes/ClinicScribe/transport/runCredential';

const credential = new ClinicScribeOAuth2Api();
const property = (name: string): INodeProperties => {
	const found = credential.properties.find((p) => p.name === name);
	if (!found) throw new Error(`no property ${name}`);
	return found;
};

/** Evaluates a `={{ … }}` credential expression with the given field values (n8n's `$self` / `$credentials`). */
function evaluate(expression: unknown, fields: Record<string, unknown>): unknown {
	const match = /^=\{\{(.*)\}\}$/s.exec(String(expression));
	if (!match) throw new Error(`not an expression: ${String(expression)}`);
	return new Function('$self', '$credentials', `return (${match[1]});`)(fields, fields);
}

const custom = {
	environment: 'custom',
	customAuthUrl: 'https://id.gw.example/oauth2/authorize',
	customAccessTokenUrl: 'https://id.gw.example/oauth2/token',
	baseUrl: 'https://gw.example',
};

describe('the credential n8n drives', () => {
	test("an OAuth2 credential by n8n's rules: extends oAuth2Api, OAuth2 in its class name, name and display name", () => {
		expect(credential.extends).toEqual(['oAuth2Api']);
		expect([ClinicScribeOAuth2Api.name, credential.name, credential.displayName]).toEqual([
			'ClinicScribeOAuth2Api',
			'clinicScribeOAuth2Api',
			'Clinic Scribe OAuth2 API',
		]);
	});

	test('every field name once: n8n keeps only the last of same-named properties of a credential that extends oAuth2Api (test/integration/compatibility/oauth2CredentialResolution.test.ts)', () => {
		const names = credential.properties.map((p) => p.name);
		expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
	});

	test('pinned in hidden fields: client authentication in the body, the fixed scope, no extra authorize parameters', () => {
		expect(
			Object.fromEntries(
				['authentication', 'scope', 'authQueryParameters', 'authUrl', 'accessTokenUrl'].map(
					(name) => [name, property(name).type],
				),
			),
		).toEqual({
			authentication: 'hidden',
			scope: 'hidden',
			authQueryParameters: 'hidden',
			authUrl: 'hidden',
			accessTokenUrl: 'hidden',
		});
		expect(property('authentication').default).toBe('body');
		expect(property('scope').default).toBe('openid profile email offline_access');
		expect(property('authQueryParameters').default).toBe('');
	});

	test("the grant is the user's choice, named grantType as n8n reads it and not hidden (n8n 2.x drops a hidden one's stored value): Authorization Code with PKCE by default, Authorization Code for n8n 1.x, with the advice which to pick", () => {
		const grantType = property('grantType');
		expect(grantType.type).toBe('options');
		expect(grantType.default).toBe('pkce');
		expect(grantType.displayOptions).toBeUndefined();
		expect(
			grantType.options?.map((o) => [(o as { name: string }).name, (o as { value: string }).value]),
		).toEqual([
			['Authorization Code', 'authorizationCode'],
			['Authorization Code with PKCE', 'pkce'],
		]);
		expect(grantType.description).toBe(GRANT_TYPE_HINT);
		expect(GRANT_TYPE_HINT).toMatch(/n8n 1\.x choose Authorization Code/);
		expect(GRANT_TYPE_HINT).toMatch(/PKCE on n8n 2\.x/);
	});

	test.each([
		[
			'production',
			'https://accounts.eka.care/oauth2/authorize',
			'https://accounts.eka.care/oauth2/token',
			'https://api.eka.care',
		],
		[
			'sandbox',
			'https://aortago.dev.eka.care/oauth2/authorize',
			'https://aortago.dev.eka.care/oauth2/token',
			'https://api.dev.eka.care',
		],
		['custom', custom.customAuthUrl, custom.customAccessTokenUrl, custom.baseUrl],
	])(
		'Environment %s: the sign-in URLs n8n uses and the API the test calls',
		(environment, authUrl, tokenUrl, apiUrl) => {
			const fields = { ...custom, environment };
			expect(evaluate(property('authUrl').default, fields)).toBe(authUrl);
			expect(evaluate(property('accessTokenUrl').default, fields)).toBe(tokenUrl);
			expect(evaluate(credential.test.request.baseURL, fields)).toBe(apiUrl);
			expect(readCredentialSettings(fields, 'clinicScribeOAuth2Api').baseUrl).toBe(apiUrl);
		},
	);

	test("the user sees only the client ID and secret, the grant, the environment (and its URLs when Custom), the API variant and the trigger's signing key, after the redirect URL help", () => {
		const visible = (environment: string) =>
			credential.properties
				.filter((p) => p.type !== 'hidden')
				.filter(
					(p) =>
						!p.displayOptions?.show?.environment ||
						p.displayOptions.show.environment.includes(environment),
				)
				.map((p) => p.name);
		expect(visible('production')).toEqual([
			'clientId',
			'clientSecret',
			'redirectUrlNotice',
			'grantType',
			'environment',
			'apiVariant',
			'webhookSigningSecret',
		]);
		expect(visible('custom')).toEqual([
			'clientId',
			'clientSecret',
			'redirectUrlNotice',
			'grantType',
			'environment',
			'customAuthUrl',
			'customAccessTokenUrl',
			'baseUrl',
			'apiVariant',
			'webhookSigningSecret',
		]);
		expect(property('redirectUrlNotice').displayName).toMatch(/OAuth Redirect URL.*exactly/);
		expect(property('clientSecret').typeOptions?.password).toBe(true);
		expect(property('webhookSigningSecret').typeOptions?.password).toBe(true);
	});

	test('the test: one read that takes Bearer, never following a redirect, naming a rejected token and a missing permission', () => {
		expect(credential.test.request).toMatchObject({
			method: 'GET',
			url: '/notification/v1/connect/webhook/subscriptions',
			disableFollowRedirect: true,
		});
		const rules = (credential.test.rules ?? []) as Array<{
			type: string;
			properties: { value: number; message: string };
		}>;
		expect(rules.map((rule) => [rule.type, rule.properties.value])).toEqual([
			['responseCode', 401],
			['responseCode', 403],
		]);
		expect(rules[0].properties.message).toContain('reconnect');
		expect(rules[1].properties.message).toContain('no permission');
	});

	test('before each signed request (n8n 2.41): a credential without tokens says it is not connected; a connected one passes unchanged', async () => {
		const preAuthentication = credential.preAuthentication!.bind({} as never);
		await expect(preAuthentication({ clientId: 'EC_1' })).rejects.toThrow(
			'No clinic account is connected',
		);
		await expect(
			preAuthentication({ clientId: 'EC_1', oauthTokenData: { access_token: '' } }),
		).rejects.toThrow('No clinic account is connected');
		await expect(
			preAuthentication({
				clientId: 'EC_1',
				oauthTokenData: { access_token: 'at-1', refresh_token: 'rt-1' },
			}),
		).resolves.toEqual({});
	});
});

describe('the transport reads it', () => {
	const connected: ICredentialDataDecryptedObject = {
		...custom,
		apiVariant: 'document',
		clientId: 'EC_1',
		clientSecret: 'sign-in-client-secret',
		webhookSigningSecret: 'signing-key-value',
		oauthTokenData: {
			access_token: 'access-token-value',
			refresh_token: 'refresh-token-value',
			id_token: 'id-token-value',
			token_type: 'bearer',
		},
	};

	test('the tokens n8n keeps in oauthTokenData, the client id, the signing key; nothing of the other credential', () => {
		expect(readCredentialSettings(connected, 'clinicScribeOAuth2Api')).toMatchObject({
			authMethod: 'oAuth2',
			baseUrl: 'https://gw.example',
			clientId: 'EC_1',
			sessionToken: 'access-token-value',
			refreshToken: 'refresh-token-value',
			idToken: 'id-token-value',
			signingKey: 'signing-key-value',
			apiKey: '',
			staticAccessToken: '',
			variantSettings: { uploadAction: 'scribe-v2' },
		});
		const { oauthTokenData: _tokens, ...notConnected } = connected;
		expect(readCredentialSettings(notConnected, 'clinicScribeOAuth2Api').sessionToken).toBe('');
		expect(
			readCredentialSettings({ ...connected, apiVariant: 'public' }, 'clinicScribeOAuth2Api')
				.variantSettings.uploadAction,
		).toBe('ekascribe-v2');
	});

	test('errors are scrubbed of the access, refresh and ID token, the client secret and the signing key (not of the client id)', () => {
		expect(
			credentialSecrets(readCredentialSettings(connected, 'clinicScribeOAuth2Api')).sort(),
		).toEqual(
			[
				'access-token-value',
				'id-token-value',
				'refresh-token-value',
				'sign-in-client-secret',
				'signing-key-value',
			].sort(),
		);
	});

	test('the token goes in Authorization (n8n adds it) and, on /dr, also in auth; client-id where the API asks for it', () => {
		const settings = readCredentialSettings(connected, 'clinicScribeOAuth2Api');
		expect(oAuth2HeadersFor('https://gw.example/dr/v1/business/entities', settings)).toEqual({
			headers: {},
			tokenHeader: 'auth',
		});
		expect(oAuth2HeadersFor('https://gw.example/voice/api/v3/status/x', settings)).toEqual({
			headers: {},
			tokenHeader: undefined,
		});
		expect(oAuth2HeadersFor('https://gw.example/profiles/v1/patient/1', settings)).toEqual({
			headers: { 'client-id': 'EC_1' },
			tokenHeader: undefined,
		});
		const publicSettings = readCredentialSettings(
			{ ...connected, apiVariant: 'public' },
			'clinicScribeOAuth2Api',
		);
		expect(oAuth2HeadersFor('https://gw.example/voice/api/v3/status/x', publicSettings)).toEqual({
			headers: { 'client-id': 'EC_1' },
			tokenHeader: undefined,
		});
	});
});

describe('the Authentication choice of both nodes', () => {
	const nodes: Array<[string, INodeTypeDescription]> = [
		['Clinic Scribe', new ClinicScribe().description],
		['Clinic Scribe Trigger', new ClinicScribeTrigger().description],
	];

	test.each(nodes)(
		'%s: the first field, defaulting to the Clinic Scribe API credential (so saved nodes keep it), each credential shown for its choice',
		(_name, description) => {
			const [first] = description.properties;
			expect(first).toMatchObject({
				name: 'authentication',
				type: 'options',
				default: 'clinicScribeApi',
				noDataExpression: true,
			});
			expect((first.options ?? []).map((o) => (o as { value: string }).value)).toEqual([
				'clinicScribeApi',
				'clinicScribeOAuth2Api',
			]);
			expect(first.displayOptions).toBeUndefined();
			expect(description.credentials).toEqual([
				{
					name: 'clinicScribeApi',
					required: true,
					displayOptions: { show: { authentication: ['clinicScribeApi'] } },
				},
				{
					name: 'clinicScribeOAuth2Api',
					required: true,
					displayOptions: { show: { authentication: ['clinicScribeOAuth2Api'] } },
				},
			]);
		},
	);

	test('the transport follows the node: without the field (saved before it existed) the API credential, with it the one chosen', async () => {
		/** The credential type the transport reads for a node with these parameters. */
		const credentialTypeOf = async (parameters: Record<string, unknown> | undefined) => {
			const asked: string[] = [];
			const ctx = {
				getNode: () => ({ parameters }),
				getCredentials: async (type: string) => (asked.push(type), {}),
			} as unknown as ClinicApiContext;
			await getClinicSettings(ctx);
			return asked.join();
		};
		expect(await credentialTypeOf({ resource: 'business' })).toBe('clinicScribeApi');
		expect(await credentialTypeOf(undefined)).toBe('clinicScribeApi');
		expect(await credentialTypeOf({ authentication: 'clinicScribeApi' })).toBe('clinicScribeApi');
		expect(await credentialTypeOf({ authentication: 'clinicScribeOAuth2Api' })).toBe(
			'clinicScribeOAuth2Api',
		);
		expect(chosenCredentialType({ authentication: 'somethingElse' })).toBe('clinicScribeApi');
	});
});
