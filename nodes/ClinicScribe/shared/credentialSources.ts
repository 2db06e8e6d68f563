/**
 * Where an admin gets each value of the credentials, as the service documents it ([EKA-AUTH]
 * getting-started.mdx and authenticate-and-try.mdx): one wording for the fields' help and for the
 * advice of a rejected credential.
 */

/**
 * Where clients and long-lived tokens are made, by the name the service gives the page. Its address
 * is in docs/credentials.md (the credentials' documentation link): n8n's verification rules forbid
 * the `console` object in shipped code, and their check cannot tell the page's host from it.
 */
export const CREDENTIALS_PAGE = 'the Eka Developer Console';

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
