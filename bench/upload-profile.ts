/**
 * Diagnostic (issue 10, goal 2): where the time of the package's upload goes inside n8n. One n8n
 * (filesystem or in-memory binary mode), alternating curl and the package's Upload Audio on the
 * same file, printing per upload: throughput, the n8n process's CPU (user+sys, from /proc) and the
 * receiver's CPU (this process: the fake API parses and hashes every body) in the window.
 * With --cpu-prof-dir DIR, n8n runs with --cpu-prof and writes its profile there on exit;
 * --node-options "…" adds to n8n's NODE_OPTIONS (e.g. a --require'd GC observer, or a V8 flag);
 * --print-window prints each storage POST's window (epoch ms) to match against such logs;
 * --keep-log FILE copies n8n's log before the user folder is removed.
 *
 *   bash bench/node24.sh bench/upload-profile.ts [--size-mib 1024] [--rounds 3] [--mode filesystem|default]
 *     [--cpu-prof-dir DIR] [--node-options "…"] [--print-window] [--keep-log FILE]
 *
 * A diagnostic, not a goal check: bench/upload.ts prints the figures of issue 10.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import {
	closeSync,
	copyFileSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	rmSync,
	writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { fakeTranscription, STORAGE_PATH } from '../test/fake-api/routes/transcription';
import { chain, type WorkflowNode } from '../test/support/n8n/workflows';
import {
	argument,
	cpuSecondsOf,
	MiB,
	packageUploadNode,
	requireNode24,
	runBench,
	say,
	startBenchFakeApi,
	startBenchN8n,
} from './support/inN8n';

function writeRecording(path: string, sizeMiB: number): void {
	const fd = openSync(path, 'w');
	for (let i = 0; i < sizeMiB; i++) writeSync(fd, randomBytes(MiB));
	closeSync(fd);
}

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

async function main(): Promise<void> {
	requireNode24();
	const sizeMiB = argument('size-mib', 1024);
	const rounds = argument('rounds', 3);
	const modeAt = process.argv.indexOf('--mode');
	const mode = modeAt === -1 ? 'filesystem' : process.argv[modeAt + 1];
	const profAt = process.argv.indexOf('--cpu-prof-dir');
	const profDir = profAt === -1 ? undefined : process.argv[profAt + 1];
	const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-upload-profile-'));
	const fake = await startBenchFakeApi();
	const control = fakeTranscription(fake.api);
	const path = join(dir, 'recording.wav');
	writeRecording(path, sizeMiB);
	const flow = {
		name: 'bench-upload-profile',
		nodes: [
			webhook('bench-upload-profile'),
			{
				name: 'Read Recording',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1,
				position: [200, 0],
				parameters: { operation: 'read', fileSelector: '={{ $json.body.path }}', options: {} },
			} as WorkflowNode,
			packageUploadNode([400, 0], "={{ $('Webhook').item.json.body.txnId }}"),
		],
		connections: chain('Webhook', 'Read Recording', 'Upload'),
		settings: { executionOrder: 'v1' },
	};
	const env: Record<string, string> = {
		N8N_DEFAULT_BINARY_DATA_MODE: mode,
		N8N_RESTRICT_FILE_ACCESS_TO: dir,
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none',
	};
	if (profDir) {
		mkdirSync(profDir, { recursive: true });
		env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${profDir} --cpu-prof-interval=500`;
	}
	const optsAt = process.argv.indexOf('--node-options');
	if (optsAt !== -1)
		env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} ${process.argv[optsAt + 1]}`.trim();
	const bench = await startBenchN8n({ api: fake.api, workflows: [flow], env });
	const pid = bench.n8n.serverPid!;
	let n = 0;
	// n8n's CPU sampled every 10 ms, so the storage POST's window can be cut out of it.
	const cpuSamples: Array<{ at: number; cpu: number }> = [];
	const cpuTimer = setInterval(
		() => cpuSamples.push({ at: Date.now(), cpu: cpuSecondsOf(pid) }),
		10,
	);
	const cpuAt = (at: number): number =>
		(cpuSamples.find((sample) => sample.at >= at) ?? cpuSamples[cpuSamples.length - 1]).cpu;
	const measure = async (who: 'curl' | 'package'): Promise<string> => {
		const txnId = `txn-prof-${++n}`;
		const presign = control.presign(txnId, fake.api.url);
		fake.clearDone();
		const n8nCpu0 = cpuSecondsOf(pid);
		const self0 = process.cpuUsage();
		let extra = '';
		if (who === 'curl') {
			const form = Object.entries({
				...presign.uploadData.fields,
				key: `${presign.folderPath}recording.wav`,
			}).flatMap(([k, v]) => ['--form-string', `${k}=${v}`]);
			const out = await new Promise<string>((resolveRun) => {
				const child = spawn('/usr/bin/time', [
					'-f',
					'cpu=%U+%S',
					'curl',
					'-sS',
					'-o',
					'/dev/null',
					'-H',
					'Expect:',
					...form,
					'-F',
					`file=@${path};type=audio/wav;filename=recording.wav`,
					presign.uploadData.url,
				]);
				let err = '';
				child.stderr.on('data', (c: Buffer) => (err += c.toString()));
				child.on('close', () => resolveRun(err));
			});
			extra = ` curl ${/cpu=(\S+)/.exec(out)?.[1]}s`;
		} else {
			const answer = await bench.trigger(flow.name, { path, txnId });
			if (answer.status !== 200)
				throw new Error(`package: ${answer.status} ${await bench.lastError(flow.name)}`);
		}
		const self = process.cpuUsage(self0);
		const n8nCpu = cpuSecondsOf(pid) - n8nCpu0;
		const post = fake.done.find((r) => r.method === 'POST' && r.pathname.startsWith(STORAGE_PATH));
		if (!post || post.status !== 204) throw new Error(`${who}: storage ${post?.status}`);
		const seconds = (post.doneAt - post.time) / 1000;
		const inWindow = cpuAt(post.doneAt) - cpuAt(post.time);
		if (process.argv.includes('--print-window')) say(`window ${post.time} ${post.doneAt}`);
		return `${who.padEnd(8)} ${(sizeMiB / seconds).toFixed(0).padStart(4)} MiB/s  ${seconds.toFixed(2)} s  n8n cpu ${n8nCpu.toFixed(2)}s (in the POST window ${inWindow.toFixed(2)}s)  receiver cpu ${((self.user + self.system) / 1e6).toFixed(2)}s${extra}`;
	};
	try {
		say(`upload profile: ${mode}, ${sizeMiB} MiB, Node ${process.version}`);
		await measure('package'); // warm-up
		for (let round = 1; round <= rounds; round++) {
			const c = await measure('curl');
			const p = await measure('package');
			say(`round ${round}: ${c}`);
			say(`round ${round}: ${p}`);
		}
	} finally {
		clearInterval(cpuTimer);
		const logAt = process.argv.indexOf('--keep-log');
		if (logAt !== -1)
			copyFileSync((bench.n8n as unknown as { logFile: string }).logFile, process.argv[logAt + 1]);
		await bench.dispose();
		await fake.api.close();
		rmSync(dir, { recursive: true, force: true });
	}
}

runBench(main);
