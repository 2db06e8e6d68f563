/**
 * Many recordings inside n8n (issue 10, goal 3), with a far region's latency: the fake API waits
 * 100 ms before answering every request. 40 one-minute recordings (16 kHz 16-bit mono WAV size,
 * 1.92 MB each) read by n8n's Read/Write Files node, one transaction each (generated Transaction
 * IDs), uploaded by this package:
 *
 *   at once      one Upload Audio run with the 40 items (several transactions at a time)
 *   one by one   the same node inside n8n's Loop Over Items with a batch size of 1
 *
 * and the 40 files as ONE transaction (one Transaction ID), which shows the files of a transaction
 * going up several at a time. Times are the fake API's window (first request's arrival to the last
 * answer), the requests are counted per kind (check, presign, storage, init) and must be the same
 * both ways. Goal: at once <= 1/3 of one by one, with the same requests.
 *
 *   npm run bench:many -- [--recordings 40] [--rounds 3] [--delay-ms 100]
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { fakeTranscription, STORAGE_PATH } from '../test/fake-api/routes/transcription';
import { chain, type WorkflowJson, type WorkflowNode } from '../test/support/n8n/workflows';
import {
	argument,
	formatSpread,
	packageUploadNode,
	requireNode24,
	runBench,
	say,
	spread,
	startBenchFakeApi,
	startBenchN8n,
	verdict,
	type TimedRequest,
} from './support/inN8n';

/** One minute of 16 kHz, 16-bit mono PCM plus a WAV header. */
const ONE_MINUTE_WAV_BYTES = 60 * 16_000 * 2 + 44;

type Way = 'at once' | 'one by one' | 'one transaction';

function webhook(path: string): WorkflowNode {
	return {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: {
			httpMethod: 'POST',
			path,
			responseMode: 'lastNode',
			responseData: 'noData',
			options: {},
		},
	};
}

const readRecordings: WorkflowNode = {
	name: 'Read Recordings',
	type: 'n8n-nodes-base.readWriteFile',
	typeVersion: 1,
	position: [200, 0],
	parameters: { operation: 'read', fileSelector: '={{ $json.body.glob }}', options: {} },
};

function workflows(): Record<Way, WorkflowJson> {
	return {
		'at once': {
			name: 'bench-many-at-once',
			nodes: [webhook('bench-many-at-once'), readRecordings, packageUploadNode([400, 0], '')],
			connections: chain('Webhook', 'Read Recordings', 'Upload'),
			settings: { executionOrder: 'v1' },
		},
		'one by one': {
			name: 'bench-many-one-by-one',
			nodes: [
				webhook('bench-many-one-by-one'),
				readRecordings,
				{
					name: 'Loop Over Items',
					type: 'n8n-nodes-base.splitInBatches',
					typeVersion: 3,
					position: [400, 0],
					parameters: { batchSize: 1, options: {} },
				},
				packageUploadNode([600, 0], ''),
			],
			connections: {
				Webhook: { main: [[{ node: 'Read Recordings', type: 'main', index: 0 }]] },
				'Read Recordings': { main: [[{ node: 'Loop Over Items', type: 'main', index: 0 }]] },
				'Loop Over Items': { main: [[], [{ node: 'Upload', type: 'main', index: 0 }]] },
				Upload: { main: [[{ node: 'Loop Over Items', type: 'main', index: 0 }]] },
			},
			settings: { executionOrder: 'v1' },
		},
		'one transaction': {
			name: 'bench-many-one-transaction',
			nodes: [
				webhook('bench-many-one-transaction'),
				readRecordings,
				packageUploadNode([400, 0], "={{ $('Webhook').item.json.body.txnId }}"),
			],
			connections: chain('Webhook', 'Read Recordings', 'Upload'),
			settings: { executionOrder: 'v1' },
		},
	};
}

function kindOf(request: TimedRequest): string {
	if (request.pathname.startsWith('/voice/api/v3/status/')) return 'check';
	if (request.pathname.startsWith('/v1/file-upload')) return 'presign';
	if (request.pathname.startsWith(STORAGE_PATH)) return 'storage';
	if (request.pathname.startsWith('/voice/api/v2/transaction/init/')) return 'init';
	return 'other';
}

/** Most storage uploads the fake API had open at once. */
function peakStorage(requests: TimedRequest[]): number {
	const edges = requests
		.filter((r) => kindOf(r) === 'storage')
		.flatMap((r) => [
			{ at: r.time, delta: 1 },
			{ at: r.doneAt, delta: -1 },
		])
		.sort((a, b) => a.at - b.at || a.delta - b.delta);
	let open = 0;
	let peak = 0;
	for (const edge of edges) {
		open += edge.delta;
		peak = Math.max(peak, open);
	}
	return peak;
}

async function main(): Promise<void> {
	requireNode24();
	const recordings = argument('recordings', 40);
	const rounds = argument('rounds', 3);
	const delayMs = argument('delay-ms', 100);
	const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-bench-many-'));
	for (let i = 0; i < recordings; i++)
		writeFileSync(
			join(dir, `visit-${String(i).padStart(3, '0')}.wav`),
			randomBytes(ONE_MINUTE_WAV_BYTES),
		);
	const fake = await startBenchFakeApi();
	const { api } = fake;
	const flows = workflows();
	say(
		`many-recordings bench: ${recordings} one-minute recordings, every request answered after ${delayMs} ms, ${rounds} rounds, Node ${process.version}; starting n8n…`,
	);
	const bench = await startBenchN8n({
		api,
		workflows: Object.values(flows),
		env: { N8N_RESTRICT_FILE_ACCESS_TO: dir },
	});
	try {
		// A bench sends far more than a free workspace's daily quota.
		fakeTranscription(api).setOptions({ dailyTransactionLimit: 1_000_000 });
		api.injectFault({ path: '/', times: Infinity, fault: { kind: 'delay', ms: delayMs } });
		const seconds: Record<Way, number[]> = {
			'at once': [],
			'one by one': [],
			'one transaction': [],
		};
		const requests: Partial<Record<Way, Record<string, number>>> = {};
		const peaks: Record<Way, number[]> = { 'at once': [], 'one by one': [], 'one transaction': [] };
		let txnCount = 0;
		const once = async (way: Way): Promise<void> => {
			fake.clearDone();
			const answer = await bench.trigger(flows[way].name, {
				glob: join(dir, '*.wav'),
				txnId: `bench-one-txn-${++txnCount}-${Date.now()}`,
			});
			if (answer.status !== 200)
				throw new Error(
					`${way}: webhook answered ${answer.status}: ${await bench.lastError(flows[way].name)}`,
				);
			const done = fake.done.filter((r) => kindOf(r) !== 'other');
			// The used-id check answers 404 for an id never used: that is the expected answer.
			const failed = done.filter(
				(r) =>
					r.status === undefined ||
					(r.status >= 400 && !(kindOf(r) === 'check' && r.status === 404)),
			);
			if (failed.length > 0)
				throw new Error(
					`${way}: ${failed.length} requests failed, first: ${failed[0].method} ${failed[0].pathname} → ${failed[0].status}`,
				);
			const counts: Record<string, number> = {};
			for (const r of done) counts[kindOf(r)] = (counts[kindOf(r)] ?? 0) + 1;
			requests[way] = counts;
			const first = Math.min(...done.map((r) => r.time));
			const last = Math.max(...done.map((r) => r.doneAt));
			seconds[way].push((last - first) / 1000);
			peaks[way].push(peakStorage(done));
		};
		const ways: Way[] = ['one by one', 'at once', 'one transaction'];
		for (let round = 1; round <= rounds; round++) {
			for (const way of ways) await once(way);
			say(
				`round ${round}: ` +
					ways
						.map(
							(w) =>
								`${w} ${seconds[w][round - 1].toFixed(2)} s (storage uploads open at once, peak ${peaks[w][round - 1]})`,
						)
						.join(' | '),
			);
		}
		const ratios = seconds['at once'].map((s, i) => s / seconds['one by one'][i]);
		const same = JSON.stringify(requests['at once']) === JSON.stringify(requests['one by one']);
		say();
		say(
			`${recordings} one-minute recordings, ${delayMs} ms per request, min / median / max of ${rounds} rounds (inside n8n 2.41.1, Node ${process.version}):`,
		);
		say(
			`  ${recordings} transactions, one by one (Loop Over Items, batch 1)  ${formatSpread(spread(seconds['one by one']))} s, requests ${JSON.stringify(requests['one by one'])}`,
		);
		say(
			`  ${recordings} transactions, one node run                           ${formatSpread(spread(seconds['at once']))} s, requests ${JSON.stringify(requests['at once'])}, peak uploads at once ${Math.max(...peaks['at once'])}`,
		);
		say(
			`  ${recordings} files in one transaction               ${formatSpread(spread(seconds['one transaction']))} s, requests ${JSON.stringify(requests['one transaction'])}, peak uploads at once ${Math.max(...peaks['one transaction'])}`,
		);
		say(`  at once / one by one, per round: ${formatSpread(spread(ratios))}`);
		say(
			verdict(
				spread(ratios).max <= 1 / 3 && same,
				'goal 3: 40 recordings in 40 transactions in <= 1/3 of the one-by-one time (every round), same requests',
				`${formatSpread(spread(ratios))}, requests ${same ? 'the same' : 'DIFFER'}`,
			),
		);
	} finally {
		await bench.dispose();
		await api.close();
		rmSync(dir, { recursive: true, force: true });
	}
}

runBench(main);
