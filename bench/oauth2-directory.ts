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
import { randomUUID } from 'node:crypto';

import { fakeSignIn } from '../test/fake-api/routes/signIn';
import { connectSignInCredential, oauthRedirectUrl, signInCredentialData, SIGN_IN_CREDENTIAL_TYPE } from '../test/support/signInCredential';
import { ACTION_NODE_TYPE, CREDENTIAL_TYPE, chain, type WorkflowJson } from '../test/support/n8n/workflows';
import { argument, BENCH_CREDENTIAL, formatSpread, requireNode24, runBench, say, spread, startBenchFakeApi, startBenchN8n } from './support/inN8n';

const DOCTORS = ['do1001', 'do1002', 'do1003', 'do1004'];
const SIGN_IN_CREDENTIAL = { id: 'benchSignIn000001', name: 'Clinic Scribe OAuth2 (bench)' };

type Contender = 'api' | 'oauth2';

function workflow(contender: Contender): WorkflowJson {
	const path = `bench-oauth2-directory-${contender}`;
	const credentials: Record<string, { id: string; name: string }> =
		contender === 'api' ? { [CREDENTIAL_TYPE]: BENCH_CREDENTIAL } : { [SIGN_IN_CREDENTIAL_TYPE]: SIGN_IN_CREDENTIAL };
	return {
		name: path,
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'noData', options: {} },
			},
			{
				name: 'One Item per Doctor',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [200, 0],
				parameters: { fieldToSplitOut: 'body.doctorIds', options: { destinationFieldName: 'doctorId' } },
			},
			{
				name: 'Call',
				type: ACTION_NODE_TYPE,
				typeVersion: 1,
				position: [400, 0],
				parameters: {
					...(contender === 'oauth2' ? { authentication: SIGN_IN_CREDENTIAL_TYPE } : {}),
					resource: 'doctor',
					operation: 'getServices',
					doctorId: { __rl: true, mode: 'id', value: '={{ $json.doctorId }}' },
					returnAll: true,
					options: {},
				},
				credentials,
			},
		],
		connections: chain('Webhook', 'One Item per Doctor', 'Call'),
		settings: { executionOrder: 'v1' },
	};
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
		const doctorIds = Array.from({ length: items }, (_, i) => DOCTORS[i % DOCTORS.length]);
		const perItem: Record<Contender, number[]> = { api: [], oauth2: [] };
		const runOnce = async (contender: Contender): Promise<number> => {
			const name = workflows[contenders.indexOf(contender)].name;
			api.reset();
			const answer = await bench.trigger(name, { doctorIds });
			if (answer.status !== 200) throw new Error(`${contender}: webhook answered ${answer.status}: ${answer.text.slice(0, 500)}`);
			const execution = await bench.lastExecution(name);
			const run = execution.runData.Call?.[0];
			if (!run || run.error || execution.status !== 'success') {
				throw new Error(`${contender}: the run failed: ${run?.error?.message ?? execution.error?.message ?? execution.status}`);
			}
			const calls = api.requestsTo('/dr/v1/doctor/service/', 'GET').filter((r) => r.status === 200).length;
			if (calls !== items) throw new Error(`${contender}: ${calls} successful directory calls, expected ${items}`);
			return Number(run.executionTime) / items;
		};
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
