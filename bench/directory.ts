/**
 * Directory calls inside n8n (issues 10 and 27): ms per item over N items (default 1,000) of
 * Doctor → Get Services, one call per item, against the fake clinic API on loopback, side by side
 * in one n8n run:
 *
 *   package       this package's node (credential clinicScribeApi, token exchange)
 *   http+cred     n8n's HTTP Request node, the same GET with a Header Auth credential
 *   http          n8n's HTTP Request node, the token as a plain header (no credential)
 *   fetch         bare fetch from this process (keep-alive), one call after another
 *
 * The n8n figures are the node's own execution time (n8n's run data) over the items, and n8n's CPU
 * time over the whole run per item (steadier on a busy machine). Each contender runs once to warm
 * up, then --rounds times, interleaved. Goal (issue 27): package at most 0.5× http+cred.
 *
 * With --delay-ms N the fake answers every directory call N ms late (a far API's round trip; fetch
 * then shows the wait alone). With --only package,http (a comma list) only those run; with
 * --cpu-prof-dir DIR n8n runs with --cpu-prof and writes its CPU profile there when the bench stops
 * it (open it in Chrome's DevTools).
 *
 *   npm run bench:directory -- [--items 1000] [--rounds 3] [--delay-ms 0] [--only …] [--cpu-prof-dir DIR]
 */
import type { WorkflowNode } from '../test/support/n8n/workflows';
import {
	directoryWorkflow,
	doctorIdsFor,
	packageDirectoryCall,
	timedDirectoryRun,
} from './support/directoryRun';
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

const HEADER_CREDENTIAL = { id: 'benchHeaderAuth01', name: 'Bench header auth' };

type Contender = 'package' | 'http+cred' | 'http';

/** The "Call" node of each contender: this package's node, or n8n's HTTP Request node. */
function callNode(contender: Contender, apiUrl: string, token: string): WorkflowNode {
	if (contender === 'package') return packageDirectoryCall({ clinicScribeApi: BENCH_CREDENTIAL });
	const url = `=${apiUrl}/dr/v1/doctor/service/{{ $json.doctorId }}`;
	return {
		name: 'Call',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [400, 0],
		parameters:
			contender === 'http+cred'
				? {
						method: 'GET',
						url,
						authentication: 'genericCredentialType',
						genericAuthType: 'httpHeaderAuth',
						options: {},
					}
				: {
						method: 'GET',
						url,
						sendHeaders: true,
						headerParameters: { parameters: [{ name: 'auth', value: token }] },
						options: {},
					},
		...(contender === 'http+cred' ? { credentials: { httpHeaderAuth: HEADER_CREDENTIAL } } : {}),
	};
}

async function fetchLoop(apiUrl: string, token: string, doctorIds: string[]): Promise<number> {
	const started = performance.now();
	for (const id of doctorIds) {
		const response = await fetch(`${apiUrl}/dr/v1/doctor/service/${id}`, {
			headers: { auth: token },
		});
		if (response.status !== 200) throw new Error(`fetch: HTTP ${response.status}`);
		await response.json();
	}
	return (performance.now() - started) / doctorIds.length;
}

async function main(): Promise<void> {
	requireNode24();
	const items = argument('items', 1000);
	const rounds = argument('rounds', 3);
	const delayMs = delayMsArgument();
	const fake = await startBenchFakeApi();
	const { api } = fake;
	const token = api.validCredentials.staticToken;
	const onlyAt = process.argv.indexOf('--only');
	const contenders = (['package', 'http+cred', 'http'] as Contender[]).filter(
		(c) => onlyAt === -1 || process.argv[onlyAt + 1].split(',').includes(c),
	);
	const profAt = process.argv.indexOf('--cpu-prof-dir');
	const workflows = contenders.map((c) =>
		directoryWorkflow(`bench-directory-${c.replace('+', '-')}`, callNode(c, api.url, token)),
	);
	say(
		`directory bench: ${items} items, ${rounds} rounds, ${delayMs} ms added to each answer, Node ${process.version}, fake API ${api.url}; starting n8n…`,
	);
	const bench = await startBenchN8n({
		api,
		workflows,
		credentials: [
			{ ...HEADER_CREDENTIAL, type: 'httpHeaderAuth', data: { name: 'auth', value: token } },
		],
		env:
			profAt === -1
				? {}
				: {
						NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.argv[profAt + 1]} --cpu-prof-interval=200`,
						N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '3',
					},
	});
	try {
		const doctorIds = doctorIdsFor(items);
		const perItem: Record<Contender | 'fetch', number[]> = {
			package: [],
			'http+cred': [],
			http: [],
			fetch: [],
		};
		const cpuPerItem: Record<Contender, number[]> = { package: [], 'http+cred': [], http: [] };
		const runOnce = async (contender: Contender) =>
			await timedDirectoryRun(
				bench,
				api,
				workflows[contenders.indexOf(contender)].name,
				doctorIds,
				undefined,
				delayMs,
			);
		say('warm-up round (not counted)…');
		for (const contender of contenders) await runOnce(contender);
		await fetchLoop(api.url, token, doctorIds.slice(0, 100));
		for (let round = 1; round <= rounds; round++) {
			for (const contender of contenders) {
				const figures = await runOnce(contender);
				perItem[contender].push(figures.msPerItem);
				cpuPerItem[contender].push(figures.cpuMsPerItem);
			}
			perItem.fetch.push(await fetchLoop(api.url, token, doctorIds));
			say(
				`round ${round}: ` +
					contenders
						.map(
							(c) =>
								`${c} ${perItem[c][round - 1].toFixed(3)} ms/item (n8n CPU ${cpuPerItem[c][round - 1].toFixed(3)})`,
						)
						.join(' | ') +
					` | fetch ${perItem.fetch[round - 1].toFixed(3)} ms/item`,
			);
		}
		if (contenders.length < 3) return;
		const ratios = perItem.package.map((ms, i) => ms / perItem['http+cred'][i]);
		const ratiosNoCred = perItem.package.map((ms, i) => ms / perItem.http[i]);
		const cpuRatios = cpuPerItem.package.map((ms, i) => ms / cpuPerItem['http+cred'][i]);
		say();
		say(
			`ms per item over ${items} items, min / median / max of ${rounds} rounds (inside n8n 2.41.1, Node ${process.version}):`,
		);
		say(`  this package                          ${formatSpread(spread(perItem.package), 3)}`);
		say(`  HTTP Request node, header-auth cred.  ${formatSpread(spread(perItem['http+cred']), 3)}`);
		say(`  HTTP Request node, no credential      ${formatSpread(spread(perItem.http), 3)}`);
		say(`  fetch, keep-alive (outside n8n)       ${formatSpread(spread(perItem.fetch), 3)}`);
		say(`  package / HTTP Request with credential, per round: ${formatSpread(spread(ratios))}`);
		say(
			`  package / HTTP Request without credential, per round: ${formatSpread(spread(ratiosNoCred))}`,
		);
		say(`n8n's CPU per item over the whole run (ms), min / median / max:`);
		say(
			`  this package ${formatSpread(spread(cpuPerItem.package), 3)} | HTTP Request node with credential ${formatSpread(spread(cpuPerItem['http+cred']), 3)} | without ${formatSpread(spread(cpuPerItem.http), 3)}`,
		);
		say(`  package / HTTP Request with credential, per round: ${formatSpread(spread(cpuRatios))}`);
		say(
			verdict(
				spread(ratios).median <= 0.5,
				'issue 27: at most half the time of the HTTP Request node with a credential (median ratio <= 0.5)',
				`${spread(ratios).median.toFixed(2)}×`,
			),
		);
	} finally {
		await bench.dispose();
		await api.close();
	}
}

runBench(main);
