import type { INodeProperties } from 'n8n-workflow';

/** The package's two credential types: a client id and secret, or a sign-in with the clinic account. */
export const API_CREDENTIAL_TYPE = 'clinicScribeApi';
export const SIGN_IN_CREDENTIAL_TYPE = 'clinicScribeOAuth2Api';
export type ClinicCredentialType = typeof API_CREDENTIAL_TYPE | typeof SIGN_IN_CREDENTIAL_TYPE;

const AUTHENTICATION_PARAMETER = 'authentication';

/**
 * The Authentication field of both nodes. Its default is the API credential: n8n does not store a
 * default, so a saved node without the field must read as one using that credential.
 */
export const authenticationProperty: INodeProperties = {
	displayName: 'Authentication',
	name: AUTHENTICATION_PARAMETER,
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'Client ID and Secret',
			value: API_CREDENTIAL_TYPE,
			description:
				'The Clinic Scribe API credential: a client ID and secret (or a long-lived token) exchanged for tokens',
		},
		{
			name: 'Sign In With the Clinic Account (OAuth2)',
			value: SIGN_IN_CREDENTIAL_TYPE,
			description:
				'The Clinic Scribe OAuth2 API credential: connect once in a browser window, n8n keeps and renews the tokens',
		},
	],
	default: API_CREDENTIAL_TYPE,
};

/** The credential type a node's parameters choose (a node saved without the field: the API credential). */
export function chosenCredentialType(parameters: {
	[AUTHENTICATION_PARAMETER]?: unknown;
}): ClinicCredentialType {
	return parameters[AUTHENTICATION_PARAMETER] === SIGN_IN_CREDENTIAL_TYPE
		? SIGN_IN_CREDENTIAL_TYPE
		: API_CREDENTIAL_TYPE;
}
