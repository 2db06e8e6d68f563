/**
 * The one place where [IFD] and the public service spell things differently: the token exchange
 * ([IFD §4.5] vs [EKA-AUTH] login), the upload action and the EMR template id ([IFD §2.5] vs
 * [EKA-V2]). Everything else is the same in both (docs/api-sources.md, "The API variant").
 */
export type ApiVariant = 'document' | 'public';
export type ApiEnvironment = 'production' | 'sandbox' | 'custom';

export interface ApiVariantSettings {
	/** How a client id and secret become an access token. */
	tokenExchange: 'documentTokenEndpoint' | 'publicLogin';
	exchangePath: string;
	/** The `action` value of an upload. */
	uploadAction: string;
	/** The template id of the EMR-compatible format. */
	emrTemplateId: string;
	/** The public SDKs send the client id with every call ([EKA-PYSDK] client.py, [EKA-MCP] base_client.py). */
	sendsClientIdHeader: boolean;
}

export const API_VARIANTS: Record<ApiVariant, ApiVariantSettings> = {
	document: {
		tokenExchange: 'documentTokenEndpoint',
		exchangePath: '/api/v1/auth/token',
		uploadAction: 'scribe-v2',
		emrTemplateId: 'svc_emr_template',
		sendsClientIdHeader: false,
	},
	public: {
		tokenExchange: 'publicLogin',
		exchangePath: '/connect-auth/v1/account/login',
		uploadAction: 'ekascribe-v2',
		emrTemplateId: 'eka_emr_template',
		sendsClientIdHeader: true,
	},
};

/** [IFD]'s {base_url} and {sandbox_base_url}, as the publishing service names them ([EKA-V2] servers). */
export const ENVIRONMENT_BASE_URLS: Record<Exclude<ApiEnvironment, 'custom'>, string> = {
	production: 'https://api.eka.care',
	sandbox: 'https://api.dev.eka.care',
};

/**
 * The service's sign-in (OIDC) provider for the OAuth2 credential, per environment, and what
 * [EKA-OIDC] documents: its two endpoints and the one scope it grants.
 */
export const ENVIRONMENT_SIGN_IN_URLS: Record<Exclude<ApiEnvironment, 'custom'>, string> = {
	production: 'https://accounts.eka.care',
	sandbox: 'https://aortago.dev.eka.care',
};
export const SIGN_IN_PATHS = { signIn: '/oauth2/authorize', token: '/oauth2/token' } as const;
export const SIGN_IN_SCOPE = 'openid profile email offline_access';

export const SESSION_RENEWAL_PATH = '/connect-auth/v1/account/refresh-token';

export function apiVariantSettings(variant: unknown): ApiVariantSettings {
	return variant === 'public' ? API_VARIANTS.public : API_VARIANTS.document;
}

/**
 * The API Variant option of both credentials, named by what the admin was given (which documents
 * they follow), not by how the variants differ on the wire: that is in docs/credentials.md.
 */
export const API_VARIANT_OPTIONS: Record<ApiVariant, { name: string; description: string }> = {
	public: {
		name: 'Eka Care Developer Docs (developer.eka.care)',
		description: 'You follow Eka Care\'s public documentation at developer.eka.care and made your client at console.eka.care',
	},
	document: {
		name: 'Interface Document From Your API Provider',
		description: 'You were given the interface document ("Clinic Directory, Patient Search and Audio Transcription Interface") and an API key for your workspace',
	},
};

/** The option name of a variant, quoted as the credential shows it. */
export function apiVariantLabel(variant: ApiVariant): string {
	return `"${API_VARIANT_OPTIONS[variant].name}"`;
}

export function otherApiVariant(variant: ApiVariant): ApiVariant {
	return variant === 'public' ? 'document' : 'public';
}

/** The variant whose upload action this is, if either's. */
export function apiVariantOfUploadAction(action: string): ApiVariant | undefined {
	return (Object.keys(API_VARIANTS) as ApiVariant[]).find((variant) => API_VARIANTS[variant].uploadAction === action);
}
