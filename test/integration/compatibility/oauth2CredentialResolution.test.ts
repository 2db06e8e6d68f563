/**
 * What n8n makes of the Clinic Scribe OAuth2 API credential before its OAuth2 machinery reads it
 * (the Connect button, every signed call, every renewal): n8n's own
 * `CredentialsHelper.applyDefaultsAndOverwrites` and `getCredentialsProperties`, loaded from both
 * installed n8n versions (2.41.1 and 1.123.81, scripts/install-n8n.sh), run in this process on the
 * credential's definition with n8n-nodes-base's `oAuth2Api` as its parent: stored data in, the
 * fields n8n's OAuth2 code reads out (defaults applied, hidden fields pinned, expressions resolved,
 * the Grant Type the user chose kept).
 * The same in a real n8n: test/e2e/oauth2.e2e.test.ts and test/e2e/oldest-n8n.e2e.test.ts.
 */
import { ClinicScribeOAuth2Api } from '../../../credentials/ClinicScribeOAuth2Api.credentials';
import {
	loadCredentialsHelper,
	type N8nCredentialsHelper,
} from '../../support/n8n/credentialsHelper';
import type { N8nLine } from '../../support/n8n/install';
import { n8nRequired } from '../../support/n8nHttpRequest';

const TYPE = 'clinicScribeOAuth2Api';

const LINES: N8nLine[] = ['newest', 'oldest'];
const helpers = Object.fromEntries(
	LINES.map((line) => [line, loadCredentialsHelper(line, new ClinicScribeOAuth2Api())]),
) as Record<N8nLine, N8nCredentialsHelper | undefined>;
const missing = LINES.filter((line) => !helpers[line]);
if (missing.length > 0 && !n8nRequired())
	process.stderr.write(
		`oauth2CredentialResolution.test.ts: the ${missing.join(' and ')} n8n is not in the cache, its tests are skipped (bash scripts/install-n8n.sh ${missing.join(' / ')})\n`,
	);
const installedLines = LINES.filter((line) => helpers[line] || n8nRequired());

const CLIENT = { clientId: 'clinic-client', clientSecret: 'clinic-secret' };
const CUSTOM = {
	customAuthUrl: 'https://id.gw.example/oauth2/authorize',
	customAccessTokenUrl: 'https://id.gw.example/oauth2/token',
	baseUrl: 'https://gw.example',
};

describe.each(installedLines)("n8n's credential resolution, the %s supported n8n", (line) => {
	const helper = (): N8nCredentialsHelper => {
		const loaded = helpers[line];
		if (!loaded) throw new Error(`the ${line} n8n is not installed (bash scripts/install-n8n.sh)`);
		return loaded;
	};

	test.each([
		[
			'production',
			'https://accounts.eka.care/oauth2/authorize',
			'https://accounts.eka.care/oauth2/token',
		],
		[
			'sandbox',
			'https://aortago.dev.eka.care/oauth2/authorize',
			'https://aortago.dev.eka.care/oauth2/token',
		],
		['custom', CUSTOM.customAuthUrl, CUSTOM.customAccessTokenUrl],
	])(
		'Environment %s: the sign-in URLs n8n uses, with PKCE, the client in the body and the fixed scope',
		async (environment, authUrl, accessTokenUrl) => {
			// A Production or Sandbox credential saved by the editor holds no Custom fields.
			const stored = environment === 'custom' ? { ...CLIENT, environment, ...CUSTOM } : CLIENT;
			const resolved = await helper().resolve({ ...stored, environment });
			expect(resolved).toMatchObject({
				authUrl,
				accessTokenUrl,
				grantType: 'pkce',
				authentication: 'body',
				scope: 'openid profile email offline_access',
				authQueryParameters: '',
				...CLIENT,
			});
		},
	);

	test.each([
		['Authorization Code with PKCE (the default)', {}, 'pkce'],
		['Authorization Code with PKCE', { grantType: 'pkce' }, 'pkce'],
		['Authorization Code (for n8n 1.x)', { grantType: 'authorizationCode' }, 'authorizationCode'],
	])(
		'Grant Type %s: the grant the user chose reaches n8n, the client in the body either way',
		async (_choice, stored, grantType) => {
			const resolved = await helper().resolve({ ...CLIENT, environment: 'production', ...stored });
			expect(resolved).toMatchObject({ grantType, authentication: 'body', ...CLIENT });
			expect(
				helper()
					.getCredentialsProperties(TYPE)
					.filter((p) => p.name === 'grantType')
					.map((p) => [p.type, p.default]),
			).toEqual([['options', 'pkce']]);
		},
	);

	test('a Production credential without an Environment (saved before the field existed, or by the API) signs in at production', async () => {
		expect(await helper().resolve({ ...CLIENT })).toMatchObject({
			authUrl: 'https://accounts.eka.care/oauth2/authorize',
			accessTokenUrl: 'https://accounts.eka.care/oauth2/token',
		});
	});

	test('n8n keeps one property per name for a credential that extends oAuth2Api (the last declared): the credential declares each sign-in URL once, an expression that follows Environment', () => {
		const perEnvironment = new ClinicScribeOAuth2Api();
		const show = (environment: string) => ({ show: { environment: [environment] } });
		perEnvironment.properties = [
			...perEnvironment.properties.filter((p) => p.name !== 'authUrl'),
			...['production', 'sandbox', 'custom'].map((environment) => ({
				displayName: 'Authorization URL',
				name: 'authUrl',
				type: 'hidden' as const,
				default: `https://${environment}.example/oauth2/authorize`,
				displayOptions: show(environment),
			})),
		];
		const n8nOwn = loadCredentialsHelper(line, perEnvironment);
		const merged = n8nOwn?.getCredentialsProperties(TYPE).filter((p) => p.name === 'authUrl');
		expect(merged?.map((p) => p.default)).toEqual(['https://custom.example/oauth2/authorize']);
		expect(
			helper()
				.getCredentialsProperties(TYPE)
				.filter((p) => ['authUrl', 'accessTokenUrl'].includes(p.name))
				.map((p) => [p.name, p.type, String(p.default).startsWith('={{')]),
		).toEqual([
			['authUrl', 'hidden', true],
			['accessTokenUrl', 'hidden', true],
		]);
	});
});

describe.each(installedLines.filter((line) => line === 'newest'))(
	'what n8n 2.x pins (the %s supported n8n)',
	(line) => {
		test("stored sign-in URLs and client authentication are replaced by the credential's own; a stored scope and grant type are kept (the grant is a visible choice, OAUTH_PINNED_FIELDS pins only hidden ones)", async () => {
			const resolved = await helpers[line]!.resolve({
				...CLIENT,
				environment: 'production',
				authUrl: 'https://elsewhere.example/authorize',
				accessTokenUrl: 'https://elsewhere.example/token',
				grantType: 'authorizationCode',
				authentication: 'header',
				scope: 'openid',
			});
			expect(resolved).toMatchObject({
				authUrl: 'https://accounts.eka.care/oauth2/authorize',
				accessTokenUrl: 'https://accounts.eka.care/oauth2/token',
				grantType: 'authorizationCode',
				authentication: 'body',
				scope: 'openid',
			});
		});
	},
);

describe.each(installedLines.filter((line) => line === 'oldest'))(
	'what n8n 1.x pins (the %s supported n8n)',
	(line) => {
		test('nothing: a stored value of a hidden field is what n8n uses (an edited export could change the sign-in URLs)', async () => {
			const resolved = await helpers[line]!.resolve({
				...CLIENT,
				environment: 'production',
				authUrl: 'https://elsewhere.example/authorize',
				grantType: 'clientCredentials',
			});
			expect(resolved).toMatchObject({
				authUrl: 'https://elsewhere.example/authorize',
				accessTokenUrl: 'https://accounts.eka.care/oauth2/token',
				grantType: 'clientCredentials',
			});
		});
	},
);
