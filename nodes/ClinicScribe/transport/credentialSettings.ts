import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import {
	apiVariantSettings,
	ENVIRONMENT_BASE_URLS,
	type ApiVariant,
	type ApiVariantSettings,
} from './apiVariants';
import { trimmedString } from '../shared/values';

export const CREDENTIAL_TYPE = 'clinicScribeApi';

/** The credential's fields, read once and typed, so no other code reads raw credential data. */
export interface ClinicScribeSettings {
	variant: ApiVariant;
	variantSettings: ApiVariantSettings;
	baseUrl: string;
	authMethod: 'clientCredentials' | 'accessToken';
	clientId: string;
	clientSecret: string;
	apiKey: string;
	staticAccessToken: string;
	sessionToken: string;
	refreshToken: string;
	/** The Clinic Scribe Trigger's webhook signing key, when the user chose one. */
	signingKey: string;
}

export function readCredentialSettings(credentials: ICredentialDataDecryptedObject): ClinicScribeSettings {
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
