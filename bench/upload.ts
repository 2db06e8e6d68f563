/**
 * Recording upload inside n8n (issue 10, goal 2): one large file (default 1 GiB) read from disk by
 * n8n's Read/Write Files node and uploaded to the fake API's storage endpoint, side by side in one
 * run:
 *
 *   package     this package's Upload Audio (check, presign, storage POST, init)
 *   http node   n8n's HTTP Request node, the same multipart POST (presigned fields, then the file)
 *   curl        `curl -F` from a shell, the same file to the same endpoint
 *   bare node   Node's own http.request streaming the file (bench/support/bareNodeUpload.ts)
 *
 * In n8n's filesystem binary mode (its default) and in its in-memory mode
 * (N8N_DEFAULT_BINARY_DATA_MODE=default), each with an n8n of its own. The in-memory size is
 * smaller (default 256 MiB): n8n keeps such a file as Base64 text in the item, and V8 cannot hold a
 * string over ~512 M characters (a file over ~383 MiB).
 *
 * Every figure is the storage POST's own window, seen by the fake API (request arrival to answer
 * done): throughput = size / window; memory growth = the n8n process's peak RSS inside the window
 * minus its RSS just before (sampled every 20 ms from /proc), in a freshly started n8n for every
 * counted upload (after a 4 MiB warm-up upload), since RSS never shrinks back and a second upload in
 * one process would reuse the first one's pages; curl: its whole max RSS (GNU time);
 * bare Node: its own RSS growth. The fake API checks every upload (fields, file last,
 * Content-Length, bytes, SHA-256).
 *
 *   npm run bench:upload -- [--size-mib 1024] [--memory-size-mib 256] [--rounds 3] [--modes filesystem,default]
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { fakeTranscription, STORAGE_PATH } from '../test/fake-api/routes/transcription';
import { chain, type WorkflowJson, type WorkflowNode } from '../test/support/n8n/workflows';
import {
	argument,
	formatSpread,
	MiB,
	packageUploadNode,
	requireNode24,
	RssSampler,
	runBench,
	say,
	spread,
	startBenchFakeApi,
	startBenchN8n,
	verdict,
	type BenchFakeApi,
	type TimedRequest,
} from './support/inN8n';

const REPO = resolve(__dirname, '..');
const FILE_NAME = 'recording.wav';

type Contender = 'package' | 'http node' | 'curl' | 'bare node';
type Mode = 'filesystem' | 'default';

interface Figure {
	seconds: number;
	mibPerSecond: number;
	/** n8n's RSS growth in the window; curl: its whole max RSS; bare node: its own growth. */
	memoryMiB: number;
}

function writeRecording(path: string, sizeMiB: number): string {
	const hash = createHash('sha256');
	const fd = openSync(path, 'w');
	for (let i = 0; i < sizeMiB; i++) {
		const chunk = randomBytes(MiB);
		hash.update(chunk);
		writeSync(fd, chunk);
	}
	closeSync(fd);
	return hash.digest('hex');
}

function readFileNode(): WorkflowNode {
	return {
		name: 'Read Recording',
		type: 'n8n-nodes-base.readWriteFile',
		typeVersion: 1,
		position: [200, 0],
		parameters: { operation: 'read', fileSelector: '={{ $json.body.path }}', options: {} },
	};
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

function workflows(mode: Mode, fieldNames: string[]): WorkflowJson[] {
	const body = (name: string) =>
		`={{ $('Webhook').item.json.body.fields[${JSON.stringify(name)}] }}`;
	return [
		{
			name: `bench-upload-package-${mode}`,
			nodes: [
				webhook(`bench-upload-package-${mode}`),
				readFileNode(),
				packageUploadNode([400, 0], "={{ $('Webhook').item.json.body.txnId }}"),
			],
			connections: chain('Webhook', 'Read Recording', 'Upload'),
			settings: { executionOrder: 'v1' },
		},
		{
			name: `bench-upload-http-${mode}`,
			nodes: [
				webhook(`bench-upload-http-${mode}`),
				readFileNode(),
				{
					name: 'Upload',
					type: 'n8n-nodes-base.httpRequest',
					typeVersion: 4.2,
					position: [400, 0],
					parameters: {
						method: 'POST',
						url: "={{ $('Webhook').item.json.body.url }}",
						sendBody: true,
						contentType: 'multipart-form-data',
						bodyParameters: {
							parameters: [
								...fieldNames.map((name) => ({
									parameterType: 'formData',
									name,
									value: body(name),
								})),
								{ parameterType: 'formBinaryData', name: 'file', inputDataFieldName: 'data' },
							],
						},
						options: {},
					},
				},
			],
			connections: chain('Webhook', 'Read Recording', 'Upload'),
			settings: { executionOrder: 'v1' },
		},
	];
}

async function run(
	command: string,
	args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
	const child = spawn(command, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
	const code = await new Promise<number | null>((resolveCode, reject) => {
		child.once('error', reject);
		child.once('close', resolveCode);
	});
	return { code, stdout, stderr };
}

/** The one storage POST done since the last clearDone(). */
function storageWindow(fake: BenchFakeApi, what: string): TimedRequest {
	const posts = fake.done.filter((r) => r.method === 'POST' && r.pathname.startsWith(STORAGE_PATH));
	if (posts.length !== 1) throw new Error(`${what}: ${posts.length} storage POSTs, expected 1`);
	if (posts[0].status !== 204)
		throw new Error(`${what}: storage answered ${posts[0].status ?? 'nothing'}`);
	return posts[0];
}

function figureOf(window: TimedRequest, size: number, memoryBytes: number): Figure {
	const seconds = (window.doneAt - window.time) / 1000;
	return { seconds, mibPerSecond: size / MiB / seconds, memoryMiB: memoryBytes / MiB };
}

async function benchMode(
	fake: BenchFakeApi,
	mode: Mode,
	sizeMiB: number,
	rounds: number,
	dir: string,
): Promise<Record<Contender, Figure[]>> {
	const { api } = fake;
	const control = fakeTranscription(api);
	mkdirSync(join(dir, mode));
	const path = join(dir, mode, FILE_NAME);
	say(`[${mode}] writing a ${sizeMiB} MiB recording…`);
	const sha256 = writeRecording(path, sizeMiB);
	const size = sizeMiB * MiB;
	const fieldNames = Object.keys(control.presign('txn-bench-shape', api.url).uploadData.fields);
	const flows = workflows(mode, fieldNames);
	say(`[${mode}] starting n8n (N8N_DEFAULT_BINARY_DATA_MODE=${mode})…`);
	const bench = await startBenchN8n({
		api,
		workflows: flows,
		env: {
			N8N_DEFAULT_BINARY_DATA_MODE: mode,
			N8N_RESTRICT_FILE_ACCESS_TO: dir,
			// The in-memory item would otherwise be written to the database after every run.
			EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none',
		},
	});
	const figures: Record<Contender, Figure[]> = {
		package: [],
		'http node': [],
		curl: [],
		'bare node': [],
	};
	let txnCount = 0;
	const presignFor = (txnId: string) => {
		const presign = control.presign(txnId, api.url);
		return {
			url: presign.uploadData.url,
			fields: { ...presign.uploadData.fields, key: `${presign.folderPath}${FILE_NAME}` },
			folderPath: presign.folderPath,
		};
	};
	// A small file of the same name: each fresh n8n loads its code and opens its sockets on it first.
	mkdirSync(join(dir, `${mode}-warm`));
	const warmPath = join(dir, `${mode}-warm`, FILE_NAME);
	writeRecording(warmPath, 4);
	let sampler: RssSampler | undefined;
	const once = async (contender: Contender, counted: boolean): Promise<void> => {
		const txnId = `txn-bench-${mode}-${contender.replace(' ', '-')}-${++txnCount}`;
		fake.clearDone();
		let memory = 0;
		if (contender === 'package' || contender === 'http node') {
			const flow = flows[contender === 'package' ? 0 : 1].name;
			const upload = async (file: string) => {
				const target = presignFor(`${txnId}${file === warmPath ? '-warm' : ''}`);
				const answer = await bench.trigger(flow, {
					path: file,
					txnId: `${txnId}${file === warmPath ? '-warm' : ''}`,
					url: target.url,
					fields: target.fields,
				});
				if (answer.status !== 200)
					throw new Error(
						`${contender}: webhook answered ${answer.status}: ${await bench.lastError(flow)}`,
					);
			};
			if (counted) {
				// A fresh n8n for every counted upload: RSS never shrinks back, so a second upload in one
				// process would reuse the pages of the first and show no growth.
				sampler?.stop();
				await bench.restart();
				sampler = new RssSampler(bench.n8n.serverPid!);
				sampler.start();
				await upload(warmPath);
				fake.clearDone();
			}
			await upload(path);
			const window = storageWindow(fake, contender);
			memory = sampler ? sampler.growth(window.time, window.doneAt) : NaN;
			if (counted) figures[contender].push(figureOf(window, size, memory));
		} else if (contender === 'curl') {
			const target = presignFor(txnId);
			const form = Object.entries(target.fields).flatMap(([name, value]) => [
				'--form-string',
				`${name}=${value}`,
			]);
			const result = await run('/usr/bin/time', [
				'-f',
				'maxrss_kib=%M',
				'curl',
				'-sS',
				'-o',
				'/dev/null',
				'-w',
				'%{http_code}',
				'-H',
				'Expect:',
				...form,
				'-F',
				`file=@${path};type=audio/wav;filename=${FILE_NAME}`,
				target.url,
			]);
			if (result.stdout.trim() !== '204')
				throw new Error(`curl: HTTP ${result.stdout} ${result.stderr}`);
			memory = Number(/maxrss_kib=(\d+)/.exec(result.stderr)?.[1] ?? NaN) * 1024;
			if (counted) figures.curl.push(figureOf(storageWindow(fake, 'curl'), size, memory));
		} else {
			const target = presignFor(txnId);
			const result = await run(process.execPath, [
				'--import',
				'tsx',
				join(__dirname, 'support', 'bareNodeUpload.ts'),
				target.url,
				JSON.stringify(target),
				path,
				String(size),
				FILE_NAME,
			]);
			if (result.code !== 0) throw new Error(`bare node: ${result.stderr}`);
			memory = (JSON.parse(result.stdout.trim()) as { peakRssGrowthBytes: number })
				.peakRssGrowthBytes;
			if (counted)
				figures['bare node'].push(figureOf(storageWindow(fake, 'bare node'), size, memory));
		}
	};
	const contenders: Contender[] = ['curl', 'package', 'bare node', 'http node'];
	try {
		say(`[${mode}] warm-up (not counted)…`);
		for (const contender of contenders) await once(contender, false);
		for (let round = 1; round <= rounds; round++) {
			for (const contender of contenders) await once(contender, true);
			say(
				`[${mode}] round ${round}: ` +
					contenders
						.map((c) => {
							const f = figures[c][round - 1];
							return `${c} ${f.mibPerSecond.toFixed(0)} MiB/s, ${c === 'curl' ? 'max RSS' : 'RSS growth'} ${f.memoryMiB.toFixed(0)} MiB`;
						})
						.join(' | '),
			);
		}
	} finally {
		sampler?.stop();
		await bench.dispose();
	}
	const uploads = control
		.uploads()
		.filter((u) => u.txnId.startsWith(`txn-bench-${mode}-`) && !u.txnId.endsWith('-warm'));
	const intact = uploads.every(
		(u) =>
			u.size === size &&
			u.sha256 === sha256 &&
			u.contentLength === u.bodyBytes &&
			u.partOrder[u.partOrder.length - 1] === 'file',
	);
	if (!intact || uploads.length !== contenders.length * (rounds + 1)) {
		throw new Error(
			`[${mode}] the storage endpoint did not get every upload intact: ${uploads.length} uploads, intact: ${intact}`,
		);
	}
	rmSync(path, { force: true });
	return figures;
}

function report(mode: Mode, sizeMiB: number, figures: Record<Contender, Figure[]>): void {
	const throughput = (c: Contender) => spread(figures[c].map((f) => f.mibPerSecond));
	const memory = (c: Contender) => spread(figures[c].map((f) => f.memoryMiB));
	const ratios = (c: Contender) =>
		spread(figures[c].map((f, i) => f.mibPerSecond / figures.curl[i].mibPerSecond));
	say();
	say(
		`${mode === 'filesystem' ? 'filesystem binary mode' : 'in-memory binary mode (default)'}, ${sizeMiB} MiB, min / median / max of ${figures.curl.length} rounds, Node ${process.version}:`,
	);
	say(
		`  throughput MiB/s:  package ${formatSpread(throughput('package'), 0)} | HTTP Request node ${formatSpread(throughput('http node'), 0)} | curl ${formatSpread(throughput('curl'), 0)} | bare Node ${formatSpread(throughput('bare node'), 0)}`,
	);
	say(
		`  × curl (per round): package ${formatSpread(ratios('package'))} | HTTP Request node ${formatSpread(ratios('http node'))} | bare Node ${formatSpread(ratios('bare node'))}`,
	);
	say(
		`  memory growth MiB: package (n8n RSS) ${formatSpread(memory('package'), 0)} | HTTP Request node (n8n RSS) ${formatSpread(memory('http node'), 0)} | bare Node ${formatSpread(memory('bare node'), 0)} | curl's whole max RSS ${formatSpread(memory('curl'), 0)}`,
	);
	if (memory('http node').min < 0) {
		say(
			'  (HTTP Request node: negative growth: it decodes the whole file into one buffer before its upload starts, and n8n frees memory during the window)',
		);
	}
	const ratio = ratios('package').median;
	say(
		verdict(
			ratio >= 0.8,
			`goal 2 [${mode}]: throughput >= 0.8x curl (median of per-round ratios)`,
			`${ratio.toFixed(2)}x`,
		),
	);
	const worst = memory('package').max;
	const yardstick = memory('bare node').max;
	say(
		verdict(
			worst <= yardstick,
			`goal 2 [${mode}]: memory growth in every round <= bare Node's http.request (its worst round)`,
			`package worst ${worst.toFixed(0)} MiB, bare Node worst ${yardstick.toFixed(0)} MiB${worst < 64 ? ', under 64 MiB' : ''}`,
		),
	);
}

async function main(): Promise<void> {
	requireNode24();
	const sizeMiB = argument('size-mib', 1024);
	const memorySizeMiB = argument('memory-size-mib', 256);
	const rounds = argument('rounds', 3);
	const at = process.argv.indexOf('--modes');
	const modes = (at === -1 ? 'filesystem,default' : process.argv[at + 1]).split(',') as Mode[];
	const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-bench-upload-'));
	const fake = await startBenchFakeApi();
	try {
		say(`upload bench: Node ${process.version}, fake API ${fake.api.url}, ${rounds} rounds`);
		const results: Array<[Mode, number, Record<Contender, Figure[]>]> = [];
		for (const mode of modes) {
			const size = mode === 'default' ? memorySizeMiB : sizeMiB;
			results.push([mode, size, await benchMode(fake, mode, size, rounds, dir)]);
		}
		for (const [mode, size, figures] of results) report(mode, size, figures);
	} finally {
		await fake.api.close();
		rmSync(dir, { recursive: true, force: true });
	}
}

runBench(main);
