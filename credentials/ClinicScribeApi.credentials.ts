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

import {
	CREDENTIALS_PAGE,
	CREDENTIALS_PAGE_ADDRESS,
	VALUE_SOURCES,
} from '../nodes/ClinicScribe/shared/fields/credentialSources';
import {
	API_VARIANT_OPTIONS,
	authHeadersFor,
	readCredentialSettings,
	sessionTokenFitsSettings,
} from '../nodes/ClinicScribe/transport/authentication';
import { obtainAccessToken } from '../nodes/ClinicScribe/transport/tokenExchange';

export class ClinicScribeApi implements ICredentialType {
	name = 'clinicScribeApi';

	displayName = 'Clinic Scribe API';

	icon: Icon = {
		light: 'file:../nodes/ClinicScribe/clinicScribe.svg',
		dark: 'file:../nodes/ClinicScribe/clinicScribe.dark.svg',
	};

	// The page that explains every field and where its value comes from (n8n opens it as it is).
	documentationUrl =
		'https://github.com/clinic-scribe/n8n-nodes-clinic-scribe/blob/main/docs/credentials.md#clinic-scribe-api';

	properties: INodeProperties[] = [
		{
			displayName: 'API Variant',
			name: 'apiVariant',
			type: 'options',
			options: [
				{ ...API_VARIANT_OPTIONS.public, value: 'public' },
				{ ...API_VARIANT_OPTIONS.document, value: 'document' },
			],
			default: 'document',
			description:
				'Which documentation you were given for the API. Not sure? Test the credential: when the other choice is the right one, the test says so.',
		},
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{ name: 'Production', value: 'production', description: 'https://api.eka.care' },
				{ name: 'Sandbox', value: 'sandbox', description: 'https://api.dev.eka.care' },
				{
					name: 'Custom Base URL',
					value: 'custom',
					description: 'A gateway of your own, or a local test server',
				},
			],
			default: 'production',
			description:
				'Production and sandbox have separate credentials: use one n8n credential per environment',
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
					description: `A long-lived token from ${CREDENTIALS_PAGE}, used as it is`,
				},
			],
			default: 'clientCredentials',
			description:
				'How n8n gets its access token: Client Credentials for automations that run unattended (recommended); Access Token to paste a long-lived token, which you replace when it expires',
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: { authMethod: ['clientCredentials'] } },
			description: `From ${VALUE_SOURCES.clientCredentials}, at ${CREDENTIALS_PAGE_ADDRESS}, or from your API provider`,
		},
		// The same field for an access token: not needed for the token, but the patient directory
		// requires it as the client-id header of every call.
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			displayOptions: { show: { authMethod: ['accessToken'] } },
			description: `The client ID the token was made for (${VALUE_SOURCES.clientCredentials}). Needed only for the patient directory, which requires it as the client-id header.`,
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			displayOptions: { show: { authMethod: ['clientCredentials'] } },
			description: `Shown once, when the client is made in ${CREDENTIALS_PAGE} (${CREDENTIALS_PAGE_ADDRESS}). Rotate it every 90 days and when team members leave; Save tests the new one.`,
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
			description: `Selects the workspace: the API key you were given with the interface document, or made at ${VALUE_SOURCES.workspaceKey}`,
		},
		{
			displayName: 'Workspace API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { authMethod: ['clientCredentials'], apiVariant: ['public'] } },
			description: `Only to work in another workspace than your own: its owner makes the key at ${VALUE_SOURCES.workspaceKey} (the docs call it a sharing key). Leave empty for your own workspace.`,
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			displayOptions: { show: { authMethod: ['accessToken'] } },
			description: `A long-lived token from ${VALUE_SOURCES.longLivedToken}. It is not renewed: replace it when it expires.`,
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
		// Which values the session token was made from (a salted fingerprint, never the values): a
		// token is used only with them, so an edited credential exchanges again at its next test or call.
		{
			displayName: 'Session Token Made From',
			name: 'sessionTokenFor',
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
	];

	/**
	 * n8n runs this when the session token is empty or a call answered 401, stores what it returns
	 * in the credential (so one token serves every item and execution) and retries the call once.
	 */
	async preAuthentication(
		this: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
	): Promise<IDataObject> {
		const settings = readCredentialSettings(credentials);
		// Redirects are refused inside (disableFollowRedirect on every token request).
		const tokens = await obtainAccessToken(
			async (options) => await this.helpers.httpRequest(options),
			settings,
		);
		return {
			sessionToken: tokens.sessionToken,
			refreshToken: tokens.refreshToken,
			sessionTokenFor: tokens.sessionTokenFor,
		};
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const settings = readCredentialSettings(credentials);
		const url = requestOptions.url ?? '';
		const baseURL = requestOptions.baseURL ?? (url.startsWith('/') ? settings.baseUrl : undefined);
		const target = baseURL && !/^[a-z]+:\/\//i.test(url) ? `${baseURL}${url}` : url;
		// A token made from other values than the ones typed now (the credential was edited) is not
		// sent: the API refuses the call, and n8n runs preAuthentication, which exchanges afresh.
		const token =
			settings.authMethod === 'accessToken'
				? settings.staticAccessToken
				: sessionTokenFitsSettings(settings)
					? settings.sessionToken
					: '';
		const headers = authHeadersFor(target, token, settings);
		// None for a host other than the API's (a storage upload URL): the request goes as it is.
		if (!headers) return requestOptions;
		return {
			...requestOptions,
			baseURL,
			headers: { ...(requestOptions.headers ?? {}), ...headers },
		};
	}

	/**
	 * The token exchange (preAuthentication, whose refusal says which field or API Variant to
	 * change), then one cheap read with the token. The rules say what its refusals mean.
	 */
	test: ICredentialTestRequest = {
		request: {
			method: 'GET',
			url: '/dr/v1/business/entities',
			// A redirect would take the token elsewhere: the test fails instead.
			disableFollowRedirect: true,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: `The clinic API refused the credential's access token (HTTP 401). With Authentication "Access Token": the token expired or was revoked, or it was made for the other Environment; make a new one at ${VALUE_SOURCES.longLivedToken} and paste it. With "Client Credentials": check that Environment (with Custom Base URL: the Base URL) is the one the client was made in.`,
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						"The clinic API accepted the credential but it may not read the business's clinics and doctors (HTTP 403): ask the workspace owner to give the client access to the workspace, or check the Workspace API Key.",
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						"The address answered, but not as the clinic API (HTTP 404 for the business listing): check Environment, and for Custom Base URL that it is the API's address without a path.",
				},
			},
		],
	};
}
