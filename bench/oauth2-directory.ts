/**
 * What the OAuth2 credential costs per call inside n8n (issue 27): ms per item over N items (default
 * 1,000), one GET per item, against the fake clinic API on loopback, in one n8n run:
 *
 *   package api          Doctor → Get Services with the Clinic Scribe API credential
 *   package oauth2       Doctor → Get Services with the Clinic Scribe OAuth2 API credential
 *   package oauth2 list  Template → Get Many with the Clinic Scribe OAuth2 API credential,
 *                        Environment Custom (the fake's addresses typed in the credential)
 *   package oauth2 production
 *                        the same, Environment Production: the Production path, its addresses
 *                        pointed at the local fake (below)
 *   http oauth2          n8n's HTTP Request node with n8n's generic OAuth2 credential (oAuth2Api),
 *                        connected to the same fake sign-in provider: the same templates GET
 *   http                 n8n's HTTP Request node, the same GET with a Bearer token as a plain header
 *
 * The HTTP Request node cannot put an OAuth2 token in the `auth` header the `/dr` endpoints take, so
 * the OAuth2 comparison is on the templates list (Bearer): `package oauth2 list` against `http
 * oauth2`. Both OAuth2 credentials are connected through n8n's own OAuth2 flow first (PKCE, body
 * authentication). The figures are the node's own execution time (n8n's run data) over the items;
 * every contender runs once to warm up, then --rounds times, interleaved.
 *
 * The package n8n runs is a bench-only copy (bench/support/productionPathPackage.ts) whose
 * production sign-in and API addresses are replaced by the fake's, so a Production credential runs
 * the shipped code path exactly, but for those address strings, without contacting the service.
 * The Custom path does not use those strings.
 *
 * With --delay-ms N the fake answers every call N ms late (a far API's round trip), as in
 * bench/directory.ts: what the credential's cost per call weighs against the network's.
 *
 *   npm run bench:directory-oauth2 -- [--items 1000] [--rounds 3] [--delay-ms 0]
 */
import { SIGN_IN } from '../test/fake-api/fixtures';
import { fakeSignIn, SIGN_IN_ROUTES } from '../test/fake-api/routes/signIn';
import { TEMPLATES_PATH } from '../test/fake-api/routes/template';
import {
	connectSignInCredential,
	oauthRedirectUrl,
	serviceSignInCredentialData,
	signInCredentialData,
	SIGN_IN_CREDENTIAL_TYPE,
} from '../test/support/signInCredential';
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	type WorkflowNode,
} from '../test/support/n8n/workflows';
import {
	directoryWorkflow,
	doctorIdsFor,
	packageDirectoryCall,
	timedDirectoryRun,
} from './support/directoryRun';
import { PRODUCTION_ADDRESSES, productionPathPackage } from './support/productionPathPackage';
import {
	argument,
	delayMsArgument,
	BENCH_CREDENTIAL,
	formatSpread,
	requireNode24,
	runBench,
	say,
	spread,
	startBenchFakeApi,
	startBenchN8n,
	verdict,
} from './support/inN8n';

const SIGN_IN_CREDENTIAL = { id: 'benchSignIn000001', name: 'Clinic Scribe OAuth2 (bench)' };
const PRODUCTION_CREDENTIAL = {
	id: 'benchSignInProd01',
	name: 'Clinic Scribe OAuth2, Production path (bench)',
};
const GENERIC_OAUTH2_CREDENTIAL = { id: 'benchGenericOAuth2', name: 'Generic OAuth2 (bench)' };

type Contender =
	| 'package api'
	| 'package oauth2'
	| 'package oauth2 list'
	| 'package oauth2 production'
	| 'http oauth2'
	| 'http';
const CONTENDERS: Contender[] = [
	'package api',
	'package oauth2',
	'package oauth2 list',
	'package oauth2 production',
	'http oauth2',
	'http',
];

function callNode(contender: Contender, apiUrl: string, staticToken: string): WorkflowNode {
	const signIn = { [SIGN_IN_CREDENTIAL_TYPE]: SIGN_IN_CREDENTIAL };
	const oauth2 = { authentication: SIGN_IN_CREDENTIAL_TYPE };
	switch (contender) {
		case 'package api':
			return packageDirectoryCall({ [CREDENTIAL_TYPE]: BENCH_CREDENTIAL });
		case 'package oauth2':
			return packageDirectoryCall(signIn, oauth2);
		case 'package oauth2 list':
		case 'package oauth2 production':
			return {
				name: 'Call',
				type: ACTION_NODE_TYPE,
				typeVersion: 1,
				position: [400, 0],
				parameters: { ...oauth2, resource: 'template', operation: 'getAll', returnAll: true },
				credentials:
					contender === 'package oauth2 list'
						? signIn
						: { [SIGN_IN_CREDENTIAL_TYPE]: PRODUCTION_CREDENTIAL },
			};
		case 'http oauth2':
		case 'http':
			return {
				name: 'Call',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [400, 0],
				parameters:
					contender === 'http oauth2'
						? {
								method: 'GET',
								url: `${apiUrl}${TEMPLATES_PATH}`,
								authentication: 'genericCredentialType',
								genericAuthType: 'oAuth2Api',
								options: {},
							}
						: {
								method: 'GET',
								url: `${apiUrl}${TEMPLATES_PATH}`,
								sendHeaders: true,
								headerParameters: {
									parameters: [{ name: 'Authorization', value: `Bearer ${staticToken}` }],
								},
								options: {},
							},
				...(contender === 'http oauth2'
					? { credentials: { oAuth2Api: GENERIC_OAUTH2_CREDENTIAL } }
					: {}),
			};
	}
}

/** The path each contender calls once per item. */
function pathOf(contender: Contender): string {
	return contender === 'package api' || contender === 'package oauth2'
		? '/dr/v1/doctor/service/'
		: TEMPLATES_PATH;
}

async function main(): Promise<void> {
	requireNode24();
	const items = argument('items', 1000);
	const rounds = argument('rounds', 3);
	const delayMs = delayMsArgument();
	const fake = await startBenchFakeApi();
	const { api } = fake;
	const workflows = CONTENDERS.map((c) =>
		directoryWorkflow(
			`bench-oauth2-${c.replace(/ /g, '-')}`,
			callNode(c, api.url, api.validCredentials.staticToken),
		),
	);
	say(
		`OAuth2 bench: ${items} items, ${rounds} rounds, ${delayMs} ms added to each answer, Node ${process.version}, fake API ${api.url}; starting n8n…`,
	);
	say(
		`n8n runs a bench-only copy of the package: its production addresses (${PRODUCTION_ADDRESSES.signIn}, ${PRODUCTION_ADDRESSES.api}) pointed at the local fake, for the Production path; the Custom path does not use them`,
	);
	const bench = await startBenchN8n({
		api,
		workflows,
		packageTarball: await productionPathPackage(api.url),
		credentials: [
			{ ...SIGN_IN_CREDENTIAL, type: SIGN_IN_CREDENTIAL_TYPE, data: signInCredentialData(api) },
			{
				...PRODUCTION_CREDENTIAL,
				type: SIGN_IN_CREDENTIAL_TYPE,
				data: serviceSignInCredentialData('production'),
			},
			{
				...GENERIC_OAUTH2_CREDENTIAL,
				type: 'oAuth2Api',
				// n8n's generic OAuth2 credential, filled in as a user would for the same provider.
				data: {
					grantType: 'pkce',
					authUrl: `${api.url}${SIGN_IN_ROUTES.authorize}`,
					accessTokenUrl: `${api.url}${SIGN_IN_ROUTES.token}`,
					clientId: SIGN_IN.clientId,
					clientSecret: SIGN_IN.clientSecret,
					scope: SIGN_IN.scope,
					authQueryParameters: '',
					authentication: 'body',
				},
			},
		],
	});
	try {
		fakeSignIn(api).registerRedirectUri(oauthRedirectUrl(bench.n8n));
		for (const credential of [
			SIGN_IN_CREDENTIAL,
			PRODUCTION_CREDENTIAL,
			GENERIC_OAUTH2_CREDENTIAL,
		]) {
			const connected = await connectSignInCredential(bench.n8n, credential.id);
			if (connected.callback.status !== 200)
				throw new Error(
					`connecting ${credential.name} failed: ${connected.callback.text.slice(0, 300)}`,
				);
		}
		const doctorIds = doctorIdsFor(items);
		const perItem = Object.fromEntries(CONTENDERS.map((c) => [c, [] as number[]])) as Record<
			Contender,
			number[]
		>;
		const cpuPerItem = Object.fromEntries(CONTENDERS.map((c) => [c, [] as number[]])) as Record<
			Contender,
			number[]
		>;
		const runOnce = async (contender: Contender) =>
			await timedDirectoryRun(
				bench,
				api,
				workflows[CONTENDERS.indexOf(contender)].name,
				doctorIds,
				pathOf(contender),
				delayMs,
			);
		say('warm-up round (not counted)…');
		for (const contender of CONTENDERS) await runOnce(contender);
		for (let round = 1; round <= rounds; round++) {
			for (const contender of CONTENDERS) {
				const figures = await runOnce(contender);
				perItem[contender].push(figures.msPerItem);
				cpuPerItem[contender].push(figures.cpuMsPerItem);
			}
			say(
				`round ${round}: ${CONTENDERS.map((c) => `${c} ${perItem[c][round - 1].toFixed(3)} ms/item (n8n CPU ${cpuPerItem[c][round - 1].toFixed(3)})`).join(' | ')}`,
			);
		}
		const ratio = (a: Contender, b: Contender) =>
			spread(perItem[a].map((ms, i) => ms / perItem[b][i]));
		say();
		say(
			`ms per item over ${items} items, min / median / max of ${rounds} rounds (inside n8n 2.41.1, Node ${process.version}):`,
		);
		say(
			`  this package, Doctor → Get Services, Clinic Scribe API credential     ${formatSpread(spread(perItem['package api']), 3)}`,
		);
		say(
			`  this package, Doctor → Get Services, Clinic Scribe OAuth2 credential  ${formatSpread(spread(perItem['package oauth2']), 3)}`,
		);
		say(
			`  this package, Template → Get Many, Clinic Scribe OAuth2 credential    ${formatSpread(spread(perItem['package oauth2 list']), 3)}`,
		);
		say(
			`  this package, Template → Get Many, Clinic Scribe OAuth2 credential, Production path (addresses pointed at the local fake)  ${formatSpread(spread(perItem['package oauth2 production']), 3)}`,
		);
		say(
			`  HTTP Request node, the same GET, n8n's generic OAuth2 credential      ${formatSpread(spread(perItem['http oauth2']), 3)}`,
		);
		say(
			`  HTTP Request node, the same GET, no credential (Bearer header)        ${formatSpread(spread(perItem.http), 3)}`,
		);
		say(
			`  OAuth2 / API credential (Doctor → Get Services), per round: ${formatSpread(ratio('package oauth2', 'package api'))}`,
		);
		say(
			`  package / HTTP Request node, both OAuth2 (templates), per round: Custom path ${formatSpread(ratio('package oauth2 list', 'http oauth2'))}; Production path ${formatSpread(ratio('package oauth2 production', 'http oauth2'))}`,
		);
		say(
			`  Production path / Custom path (templates), per round: ${formatSpread(ratio('package oauth2 production', 'package oauth2 list'))}`,
		);
		say(
			`  package OAuth2 / HTTP Request node without credential (templates), per round: ${formatSpread(ratio('package oauth2 list', 'http'))}`,
		);
		const cpu = (c: Contender) => formatSpread(spread(cpuPerItem[c]), 3);
		say(
			`n8n's CPU per item over the whole run (ms), min / median / max: ${CONTENDERS.map((c) => `${c} ${cpu(c)}`).join(' | ')}`,
		);
		for (const [path, contender] of [
			['Custom path', 'package oauth2 list'],
			['Production path', 'package oauth2 production'],
		] as const) {
			const median = ratio(contender, 'http oauth2').median;
			say(
				verdict(
					median <= 1,
					`OAuth2, ${path}: at most the HTTP Request node's cost with an OAuth2 credential (median ratio <= 1.0)`,
					`${median.toFixed(2)}×`,
				),
			);
		}
	} finally {
		await bench.dispose();
		await api.close();
	}
}

runBench(main);
