import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { authHeadersFor, isApiUrl } from '../nodes/ClinicScribe/transport/authHeaders';
import { readCredentialSettings } from '../nodes/ClinicScribe/transport/credentialSettings';
import { obtainAccessToken } from '../nodes/ClinicScribe/transport/tokenExchange';

export class ClinicScribeApi implements ICredentialType {
	name = 'clinicScribeApi';

	displayName = 'Clinic Scribe API';

	icon: Icon = {
		light: 'file:../nodes/ClinicScribe/clinicScribe.svg',
		dark: 'file:../nodes/ClinicScribe/clinicScribe.dark.svg',
	};

	documentationUrl = 'https://github.com/clinic-scribe/n8n-nodes-clinic-scribe/blob/main/README.md';

	properties: INodeProperties[] = [
		{
			displayName: 'API Variant',
			name: 'apiVariant',
			type: 'options',
			options: [
				{
					name: 'Interface Document',
					value: 'document',
					description: 'Token from /api/v1/auth/token with the X-API-KEY header; action scribe-v2; EMR template svc_emr_template',
				},
				{
					name: 'Public Eka Care API',
					value: 'public',
					description: 'Token from /connect-auth/v1/account/login; action ekascribe-v2; EMR template eka_emr_template',
				},
			],
			default: 'document',
			description: 'Which spelling of the API your account uses. They differ only in the token exchange, the upload action and the EMR template ID.',
		},
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{ name: 'Production', value: 'production', description: 'https://api.eka.care' },
				{ name: 'Sandbox', value: 'sandbox', description: 'https://api.dev.eka.care' },
				{ name: 'Custom Base URL', value: 'custom', description: 'A gateway of your own, or a local test server' },
			],
			default: 'production',
			description: 'Production and sandbox have separate credentials: use one n8n credential per environment',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'https://api.example.com',
			required: true,
			displayOptions: { show: { environment: ['custom'] } },
			description: 'The address every API path is appended to, without a trailing path',
		},
		{
			displayName: 'Authentication',
			name: 'authMethod',
			type: 'options',
			options: [
				{
					name: 'Client Credentials',
					value: 'clientCredentials',
					description: 'Exchange a client ID and secret for tokens; renewed automatically',
				},
				{
					name: 'Access Token',
					value: 'accessToken',
					description: 'A long-lived token from the developer console, used as it is',
				},
			],
			default: 'clientCredentials',
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: { authMethod: ['clientCredentials'] } },
			description: 'Issued in the developer console',
		},
		// The same field for an access token: not needed for the token, but the patient directory
		// requires it as the client-id header of every call.
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			displayOptions: { show: { authMethod: ['accessToken'] } },
			description: 'The client ID the token was issued to. Needed only for the patient directory, which requires it as the client-id header.',
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			displayOptions: { show: { authMethod: ['clientCredentials'] } },
			description: 'Issued with the client ID. Rotate it every 90 days and when team members leave.',
		},
		// One field shown two ways: required by the Interface Document variant, optional for the
		// public API. Both are `apiKey`, so a saved credential keeps its key whichever variant it uses.
		{
			displayName: 'Workspace API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			displayOptions: { show: { authMethod: ['clientCredentials'], apiVariant: ['document'] } },
			description: 'Selects the workspace; sent as the X-API-KEY header of the token exchange',
		},
		{
			displayName: 'Workspace API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { authMethod: ['clientCredentials'], apiVariant: ['public'] } },
			description: 'Selects the workspace. Optional for the public API (sent as api_key in the login when given).',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			displayOptions: { show: { authMethod: ['accessToken'] } },
			description: 'A ready access token. It is not renewed: replace it when it expires.',
		},
		{
			displayName: 'Webhook Signing Key',
			name: 'webhookSigningSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Only for the Clinic Scribe Trigger: the secret the API signs webhook deliveries with. Leave empty to have the trigger generate a strong key at each activation (recommended). Kept here, encrypted by n8n, never in the workflow.',
		},
		{
			displayName: 'Session Token',
			name: 'sessionToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
		{
			displayName: 'Refresh Token',
			name: 'refreshToken',
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
	];

	/**
	 * n8n runs this when the session token is empty or a call answered 401, stores what it returns
	 * in the credential (so one token serves every item and execution) and retries the call once.
	 */
	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject): Promise<IDataObject> {
		const settings = readCredentialSettings(credentials);
		// Redirects are refused inside (disableFollowRedirect on every token request).
		const tokens = await obtainAccessToken(async (options) => await this.helpers.httpRequest(options), settings);
		return { sessionToken: tokens.sessionToken, refreshToken: tokens.refreshToken };
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const settings = readCredentialSettings(credentials);
		const url = requestOptions.url ?? '';
		const baseURL = requestOptions.baseURL ?? (url.startsWith('/') ? settings.baseUrl : undefined);
		const target = baseURL && !/^[a-z]+:\/\//i.test(url) ? `${baseURL}${url}` : url;
		if (!isApiUrl(target, settings.baseUrl)) {
			// Tokens go to the API's host only (never, say, to a storage upload URL).
			return requestOptions;
		}
		const token = settings.authMethod === 'accessToken' ? settings.staticAccessToken : settings.sessionToken;
		return {
			...requestOptions,
			baseURL,
			headers: { ...(requestOptions.headers ?? {}), ...authHeadersFor(target, token, settings) },
		};
	}

	test: ICredentialTestRequest = {
		request: {
			method: 'GET',
			url: '/dr/v1/business/entities',
			// A redirect would take the token elsewhere: the test fails instead.
			disableFollowRedirect: true,
		},
	};
}
