/**
 * Where an admin gets each value of the credentials, as the service documents it ([EKA-AUTH]
 * getting-started.mdx and authenticate-and-try.mdx): one wording for the fields' help and for the
 * advice of a rejected credential.
 */

/** Where clients and long-lived tokens are made, by the name the service gives the page. */
export const CREDENTIALS_PAGE = 'the Eka Developer Console';

/**
 * That page's address, for the fields' help (one click less for the admin). n8n's `no-console` rule
 * concerns the `console` object, not a string that names the host.
 */
export const CREDENTIALS_PAGE_ADDRESS = 'https://console.eka.care';

/** Where each value comes from, in words a field's help and an error message can both use. */
export const VALUE_SOURCES = {
	clientCredentials: `${CREDENTIALS_PAGE} → Manage API Credentials (Client IDs and Secrets)`,
	longLivedToken: `${CREDENTIALS_PAGE} → Manage API Credentials → ⋮ (More options) → Create Long Live Token`,
	workspaceKey: "the workspace owner's hub.eka.care → API Token → Create",
} as const;

/** The credential fields whose value comes from one of those places. */
export type SourcedField =
	| 'Client ID'
	| 'Client Secret'
	| 'Client ID or Client Secret'
	| 'Workspace API Key'
	| 'Access Token';

/** Where to copy a field's value again, as a clause ("copy it again from …"). */
export function whereToGet(field: SourcedField): string {
	if (field === 'Workspace API Key')
		return `${VALUE_SOURCES.workspaceKey} (or your API provider, with the interface document)`;
	if (field === 'Access Token') return VALUE_SOURCES.longLivedToken;
	return VALUE_SOURCES.clientCredentials;
}
