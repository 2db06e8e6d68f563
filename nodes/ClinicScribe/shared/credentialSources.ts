/**
 * Where an admin gets each value of the credentials, as the service documents it ([EKA-AUTH]
 * getting-started.mdx and authenticate-and-try.mdx): one wording for the fields' help and for the
 * advice of a rejected credential.
 */

/** The service's own pages. */
export const SERVICE_PAGES = {
	/** The API documentation. */
	docs: 'https://developer.eka.care',
	/** How to get client credentials, a sharing key and a long-lived token. */
	authentication: 'https://developer.eka.care/api-reference/authorization/getting-started',
	/** The developer console, where clients and long-lived tokens are made. */
	console: 'https://console.eka.care',
	/** The workspace owner's hub, where a workspace's API key (the docs' "sharing key") is made. */
	hub: 'https://hub.eka.care/account/',
} as const;

/** Where each value comes from, in words a field's help and an error message can both use. */
export const VALUE_SOURCES = {
	clientCredentials: 'console.eka.care → Manage API Credentials (Client IDs and Secrets)',
	longLivedToken:
		'console.eka.care → Manage API Credentials → ⋮ (More options) → Create Long Live Token',
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
