import type { ClinicScribeSettings } from './credentialSettings';

/**
 * The `/dr/...` directory endpoints take the token raw in a header named `auth` ([IFD §5], [EKA-DT]);
 * every other call takes `Authorization: Bearer`. The public service's SDKs also send the client id
 * ([EKA-PYSDK], [EKA-MCP]).
 */
export function authHeadersFor(
	url: string,
	token: string,
	settings: Pick<ClinicScribeSettings, 'variantSettings' | 'clientId'>,
): Record<string, string> {
	const tokenHeaders: Record<string, string> = isDirectoryPath(pathOf(url))
		? { auth: token }
		: { Authorization: `Bearer ${token}` };
	return { ...tokenHeaders, ...clientIdHeaders(url, settings) };
}

/**
 * The same headers for the OAuth2 credential, whose token n8n adds itself as `Authorization: Bearer`:
 * the client-id header, and the one other header that must carry the token (`auth` on `/dr`).
 */
export function oAuth2HeadersFor(
	url: string,
	settings: Pick<ClinicScribeSettings, 'variantSettings' | 'clientId'>,
): { headers: Record<string, string>; tokenHeader?: 'auth' } {
	return { headers: clientIdHeaders(url, settings), tokenHeader: isDirectoryPath(pathOf(url)) ? 'auth' : undefined };
}

/** The patient directory requires client-id on every call, whichever variant ([EKA-PD]). */
function clientIdHeaders(url: string, settings: Pick<ClinicScribeSettings, 'variantSettings' | 'clientId'>): Record<string, string> {
	if (settings.clientId && (settings.variantSettings.sendsClientIdHeader || isPatientDirectoryPath(pathOf(url)))) {
		return { 'client-id': settings.clientId };
	}
	return {};
}

/** `/profiles/...`: the patient directory, which takes Bearer and requires the client-id header. */
export function isPatientDirectoryPath(path: string): boolean {
	return path === '/profiles' || path.startsWith('/profiles/');
}

export function isDirectoryPath(path: string): boolean {
	return path === '/dr' || path.startsWith('/dr/');
}

/** True when `url` (absolute, or relative to the API) addresses the API's own host. */
export function isApiUrl(url: string, baseUrl: string): boolean {
	if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return true;
	return originOf(url) === originOf(baseUrl);
}

function pathOf(url: string): string {
	const withoutOrigin = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
	const path = withoutOrigin.split(/[?#]/)[0];
	return path.startsWith('/') ? path : `/${path}`;
}

function originOf(url: string): string {
	const match = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)/i.exec(url);
	return (match ? match[1] : '').toLowerCase();
}
