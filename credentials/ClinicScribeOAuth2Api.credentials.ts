import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { VALUE_SOURCES } from '../nodes/ClinicScribe/shared/fields/credentialSources';
import {
	API_VARIANT_OPTIONS,
	ENVIRONMENT_BASE_URLS,
} from '../nodes/ClinicScribe/transport/authentication';

/**
 * The service's sign-in (OIDC) provider, per environment, and what [EKA-OIDC] documents: its two
 * endpoints and the one scope it grants. n8n's OAuth2 flow talks to it; the nodes never do.
 */
const ENVIRONMENT_SIGN_IN_URLS = {
	production: 'https://accounts.eka.care',
	sandbox: 'https://aortago.dev.eka.care',
} as const;
const SIGN_IN_PATHS = { signIn: '/oauth2/authorize', token: '/oauth2/token' } as const;
const SIGN_IN_SCOPE = 'openid profile email offline_access';

/**
 * A value per Environment, as an expression n8n resolves from the credential's fields (`$self` in
 * a field's default, `$credentials` in the test request): the Custom field's value, else the
 * sandbox's or the production one.
 */
function perEnvironment(
	values: { production: string; sandbox: string },
	customField: string,
	fields = '$self',
): string {
	return `={{ ${fields}["environment"] === "custom" ? ${fields}["${customField}"] : ${fields}["environment"] === "sandbox" ? "${values.sandbox}" : "${values.production}" }}`;
}

const signInUrl = (path: string) => ({
	production: `${ENVIRONMENT_SIGN_IN_URLS.production}${path}`,
	sandbox: `${ENVIRONMENT_SIGN_IN_URLS.sandbox}${path}`,
});

const custom = { show: { environment: ['custom'] } };

/**
 * Who registers n8n's redirect URL: the service documents no page for it ([EKA-OIDC]), so the
 * admin sends it. The README and docs/credentials.md say the same (a unit test holds them to it).
 */
export const REDIRECT_URL_NOTICE =
	'Send the OAuth Redirect URL shown above with this Client ID to ekaconnect@eka.care: the service registers it for the client (it documents no page to do it yourself). It must match exactly: scheme, host, port and path.';

/**
 * Which grant to pick, and why (the README and docs/credentials.md say the same; a unit test holds
 * them to it).
 */
export const GRANT_TYPE_HINT =
	'Keep Authorization Code with PKCE on n8n 2.x. On n8n 1.x choose Authorization Code: there n8n sends the client ID and secret of a PKCE sign-in in a header the sign-in provider refuses, so Connect fails.';

/**
 * Sign in with the clinic account: n8n's own OAuth2 machinery (the Connect button, the
 * callback, keeping and renewing the tokens) drives the service's OIDC provider. Everything the
 * provider fixes is pinned in hidden fields, so the user types only the client ID and secret and
 * picks the grant their n8n can use.
 */
export class ClinicScribeOAuth2Api implements ICredentialType {
	name = 'clinicScribeOAuth2Api';

	extends = ['oAuth2Api'];

	displayName = 'Clinic Scribe OAuth2 API';

	icon: Icon = {
		light: 'file:../nodes/ClinicScribe/clinicScribe.svg',
		dark: 'file:../nodes/ClinicScribe/clinicScribe.dark.svg',
	};

	// The page that walks through the setup, the redirect URL included (n8n opens it as it is).
	documentationUrl =
		'https://github.com/clinic-scribe/n8n-nodes-clinic-scribe/blob/main/docs/credentials.md#setting-up-the-oauth2-credential';

	properties: INodeProperties[] = [
		{
			displayName: 'Authorization URL',
			name: 'authUrl',
			type: 'hidden',
			default: perEnvironment(signInUrl(SIGN_IN_PATHS.signIn), 'customAuthUrl'),
			required: true,
		},
		{
			displayName: 'Access Token URL',
			name: 'accessTokenUrl',
			type: 'hidden',
			default: perEnvironment(signInUrl(SIGN_IN_PATHS.token), 'customAccessTokenUrl'),
			required: true,
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			description: `The OAuth client's ID, from ${VALUE_SOURCES.clientCredentials} or from ekaconnect@eka.care. Also sent as the client-id header where the API asks for it (the patient directory).`,
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Issued with the client ID (shown once). n8n sends it only to the sign-in provider, in the body of its token requests.',
		},
		// The provider grants one fixed scope; offline_access is what gives n8n a refresh token.
		{ displayName: 'Scope', name: 'scope', type: 'hidden', default: SIGN_IN_SCOPE },
		{
			displayName: 'Auth URI Query Parameters',
			name: 'authQueryParameters',
			type: 'hidden',
			default: '',
		},
		// The provider takes client_id and client_secret in the form body, not as a Basic header.
		{ displayName: 'Authentication', name: 'authentication', type: 'hidden', default: 'body' },
		{
			displayName: REDIRECT_URL_NOTICE,
			name: 'redirectUrlNotice',
			type: 'notice',
			default: '',
		},
		// A choice, not pinned: n8n 1.x sends the client of a PKCE code exchange in a Basic header,
		// which the provider refuses; its plain code grant honours `authentication: 'body'`.
		// (n8n 2.x keeps a stored grantType only when the field is not hidden.)
		{
			displayName: 'Grant Type',
			name: 'grantType',
			type: 'options',
			options: [
				{
					name: 'Authorization Code',
					value: 'authorizationCode',
					description: 'Needed on n8n 1.x. The same sign-in, without PKCE.',
				},
				{
					name: 'Authorization Code with PKCE',
					value: 'pkce',
					description: 'Recommended by the sign-in provider. Needs n8n 2.0 or later.',
				},
			],
			default: 'pkce',
			description: GRANT_TYPE_HINT,
		},
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{
					name: 'Production',
					value: 'production',
					description: `Sign-in ${ENVIRONMENT_SIGN_IN_URLS.production}, API ${ENVIRONMENT_BASE_URLS.production}`,
				},
				{
					name: 'Sandbox',
					value: 'sandbox',
					description: `Sign-in ${ENVIRONMENT_SIGN_IN_URLS.sandbox}, API ${ENVIRONMENT_BASE_URLS.sandbox}`,
				},
				{
					name: 'Custom',
					value: 'custom',
					description:
						'A gateway of your own, or a local test server: give its sign-in and API addresses',
				},
			],
			default: 'production',
			description:
				'Production and sandbox have separate clients: use one n8n credential per environment',
		},
		{
			displayName: 'Authorization URL',
			name: 'customAuthUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://accounts.example.com/oauth2/authorize',
			displayOptions: custom,
			description: "Where the sign-in window opens (the provider's authorize endpoint)",
		},
		{
			displayName: 'Access Token URL',
			name: 'customAccessTokenUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://accounts.example.com/oauth2/token',
			displayOptions: custom,
			description: "The provider's token endpoint: n8n gets and renews the tokens there",
		},
		{
			displayName: 'API Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://api.example.com',
			displayOptions: custom,
			description: 'The address every API path is appended to, without a trailing path',
		},
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
				'Which documentation you were given for the API: the same choice as in the Clinic Scribe API credential. It does not change how you sign in; a wrong choice shows at the first Upload Audio, whose error says which to pick.',
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
	];

	/**
	 * n8n (2.41 and later) runs this before each request it signs with the account's token. It only
	 * checks that an account is connected, so the test of a credential never connected says so
	 * instead of n8n's "Unable to sign without access token". It changes nothing.
	 */
	async preAuthentication(
		this: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
	): Promise<IDataObject> {
		const tokens = credentials.oauthTokenData as { access_token?: unknown } | undefined;
		if (typeof tokens?.access_token !== 'string' || tokens.access_token === '') {
			throw new Error(
				'No clinic account is connected: open the credential, click Connect and sign in with the clinic account, then test again',
			);
		}
		return {};
	}

	/**
	 * One cheap read with the connected account's token (the webhook subscriptions list, which takes
	 * Bearer). A 401 makes n8n renew the token first, so a wrong Client Secret shows up here too.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL: perEnvironment(ENVIRONMENT_BASE_URLS, 'baseUrl', '$credentials'),
			url: '/notification/v1/connect/webhook/subscriptions',
			method: 'GET',
			// A redirect would take the token elsewhere: the test fails instead.
			disableFollowRedirect: true,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						"The API rejected the clinic account's token even after renewing it: reconnect the account, and check that Environment is where the client is registered",
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'The connected clinic account has no permission to use the API: ask the workspace admin to grant it, or connect another account',
				},
			},
		],
	};
}
