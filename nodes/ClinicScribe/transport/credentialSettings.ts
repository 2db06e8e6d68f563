import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import {
	apiVariantSettings,
	ENVIRONMENT_BASE_URLS,
	type ApiVariant,
	type ApiVariantSettings,
} from './apiVariants';
import { API_CREDENTIAL_TYPE, SIGN_IN_CREDENTIAL_TYPE, type ClinicCredentialType } from '../shared/credentialChoice';
import { trimmedString } from '../shared/values';


/** The credential's fields, read once and typed, so no other code reads raw credential data. */
export interface ClinicScribeSettings {
	variant: ApiVariant;
	variantSettings: ApiVariantSettings;
	baseUrl: string;
	/** oAuth2: the Clinic Scribe OAuth2 API credential, whose tokens n8n got when the user connected it. */
	authMethod: 'clientCredentials' | 'accessToken' | 'oAuth2';
	clientId: string;
	clientSecret: string;
	apiKey: string;
	staticAccessToken: string;
	sessionToken: string;
	refreshToken: string;
	/** The OAuth2 credential's ID token (the signed-in user's identity); empty otherwise. */
	idToken: string;
	/** The Clinic Scribe Trigger's webhook signing key, when the user chose one. */
	signingKey: string;
}

export function readCredentialSettings(
	credentials: ICredentialDataDecryptedObject,
	type: ClinicCredentialType = API_CREDENTIAL_TYPE,
): ClinicScribeSettings {
	if (type === SIGN_IN_CREDENTIAL_TYPE) return readOAuth2Settings(credentials);
	const variant: ApiVariant = credentials.apiVariant === 'public' ? 'public' : 'document';
	return {
		variant,
		variantSettings: apiVariantSettings(variant),
		baseUrl: resolveBaseUrl(credentials.environment, credentials.baseUrl),
		authMethod: credentials.authMethod === 'accessToken' ? 'accessToken' : 'clientCredentials',
		clientId: trimmedString(credentials.clientId),
		clientSecret: trimmedString(credentials.clientSecret),
		apiKey: trimmedString(credentials.apiKey),
		staticAccessToken: trimmedString(credentials.accessToken),
		sessionToken: trimmedString(credentials.sessionToken),
		refreshToken: trimmedString(credentials.refreshToken),
		idToken: '',
		signingKey: trimmedString(credentials.webhookSigningSecret),
	};
}

/**
 * The OAuth2 credential: the same API settings (environment, variant, client id for the client-id
 * header, signing key), and the tokens n8n keeps in `oauthTokenData` (empty until connected).
 */
function readOAuth2Settings(credentials: ICredentialDataDecryptedObject): ClinicScribeSettings {
	const variant: ApiVariant = credentials.apiVariant === 'public' ? 'public' : 'document';
	const tokens = (typeof credentials.oauthTokenData === 'object' && credentials.oauthTokenData !== null
		? credentials.oauthTokenData
		: {}) as Record<string, unknown>;
	return {
		variant,
		variantSettings: apiVariantSettings(variant),
		baseUrl: resolveBaseUrl(credentials.environment, credentials.baseUrl),
		authMethod: 'oAuth2',
		clientId: trimmedString(credentials.clientId),
		clientSecret: trimmedString(credentials.clientSecret),
		apiKey: '',
		staticAccessToken: '',
		sessionToken: trimmedString(tokens.access_token),
		refreshToken: trimmedString(tokens.refresh_token),
		idToken: trimmedString(tokens.id_token),
		signingKey: trimmedString(credentials.webhookSigningSecret),
	};
}

export function resolveBaseUrl(environment: unknown, customBaseUrl: unknown): string {
	const chosen =
		environment === 'sandbox'
			? ENVIRONMENT_BASE_URLS.sandbox
			: environment === 'custom'
				? trimmedString(customBaseUrl)
				: ENVIRONMENT_BASE_URLS.production;
	return chosen.replace(/\/+$/, '');
}
