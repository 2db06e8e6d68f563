/** The Clinic Scribe API credential's fields for the project's fake clinic API. */
export interface FakeApiAddress {
	url: string;
	validCredentials: { clientId: string; clientSecret: string; apiKey: string };
}

export function fakeApiCredentialData(
	api: FakeApiAddress,
	overrides: Record<string, string> = {},
): Record<string, string> {
	return {
		apiVariant: 'document',
		environment: 'custom',
		baseUrl: api.url,
		authMethod: 'clientCredentials',
		clientId: api.validCredentials.clientId,
		clientSecret: api.validCredentials.clientSecret,
		apiKey: api.validCredentials.apiKey,
		...overrides,
	};
}
