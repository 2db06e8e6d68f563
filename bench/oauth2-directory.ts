/**
 * What the OAuth2 credential costs per call inside n8n: ms per item over N items (default 1,000) of
 * Doctor → Get Services, one call per item, against the fake clinic API on loopback, with
 *
 *   api      the Clinic Scribe API credential (the package keeps the run's token: one read per run)
 *   oauth2   the Clinic Scribe OAuth2 API credential, connected through the fake sign-in provider
 *            (n8n's OAuth2 helper reads and decrypts the stored credential for every call)
 *
 * The figures are the node's own execution time (n8n's run data). Each runs once to warm up, then
 * --rounds times, interleaved. No goal: it prints the figures and the ratio.
 *
 *   bash bench/node24.sh bench/oauth2-directory.ts [--items 1000] [--rounds 3]
 */
import { fakeSignIn } from '../test/fake-api/routes/signIn';
import { connectSignInCredential, oauthRedirectUrl, signInCredentialData, SIGN_IN_CREDENTIAL_TYPE } from '../test/support/signInCredential';
import { CREDENTIAL_TYPE, type WorkflowJson } from '../test/support/n8n/workflows';
import { directoryWorkflow, doctorIdsFor, packageDirectoryCall, timedDirectoryRun } from './support/directoryRun';
import { argument, BENCH_CREDENTIAL, formatSpread, requireNode24, runBench, say, spread, startBenchFakeApi, startBenchN8n } from './support/inN8n';

const SIGN_IN_CREDENTIAL = { id: 'benchSignIn000001', name: 'Clinic Scribe OAuth2 (bench)' };

type Contender = 'api' | 'oauth2';

function workflow(contender: Contender): WorkflowJson {
	const call =
		contender === 'api'
			? packageDirectoryCall({ [CREDENTIAL_TYPE]: BENCH_CREDENTIAL })
			: packageDirectoryCall({ [SIGN_IN_CREDENTIAL_TYPE]: SIGN_IN_CREDENTIAL }, { authentication: SIGN_IN_CREDENTIAL_TYPE });
	return directoryWorkflow(`bench-oauth2-directory-${contender}`, call);
}

async function main(): Promise<void> {
	requireNode24();
	const items = argument('items', 1000);
	const rounds = argument('rounds', 3);
	const fake = await startBenchFakeApi();
	const { api } = fake;
	const contenders: Contender[] = ['api', 'oauth2'];
	const workflows = contenders.map(workflow);
	say(`OAuth2 directory bench: ${items} items, ${rounds} rounds, Node ${process.version}, fake API ${api.url}; starting n8n…`);
	const bench = await startBenchN8n({
		api,
		workflows,
		credentials: [{ ...SIGN_IN_CREDENTIAL, type: SIGN_IN_CREDENTIAL_TYPE, data: signInCredentialData(api) }],
	});
	try {
		fakeSignIn(api).registerRedirectUri(oauthRedirectUrl(bench.n8n));
		const connected = await connectSignInCredential(bench.n8n, SIGN_IN_CREDENTIAL.id);
		if (connected.callback.status !== 200) throw new Error(`connecting the OAuth2 credential failed: ${connected.callback.text.slice(0, 300)}`);
		const doctorIds = doctorIdsFor(items);
		const perItem: Record<Contender, number[]> = { api: [], oauth2: [] };
		const runOnce = async (contender: Contender): Promise<number> =>
			await timedDirectoryRun(bench, api, workflows[contenders.indexOf(contender)].name, doctorIds);
		say('warm-up round (not counted)…');
		for (const contender of contenders) await runOnce(contender);
		for (let round = 1; round <= rounds; round++) {
			for (const contender of contenders) perItem[contender].push(await runOnce(contender));
			say(`round ${round}: ${contenders.map((c) => `${c} ${perItem[c][round - 1].toFixed(3)} ms/item`).join(' | ')}`);
		}
		const ratios = perItem.oauth2.map((ms, i) => ms / perItem.api[i]);
		say();
		say(`ms per item over ${items} items, min / median / max of ${rounds} rounds (inside n8n 2.41.1, Node ${process.version}):`);
		say(`  Clinic Scribe API credential          ${formatSpread(spread(perItem.api), 3)}`);
		say(`  Clinic Scribe OAuth2 API credential   ${formatSpread(spread(perItem.oauth2), 3)}`);
		say(`  OAuth2 / API, per round: ${formatSpread(spread(ratios))}`);
	} finally {
		await bench.dispose();
		await api.close();
	}
}

runBench(main);
