/**
 * Upload bench: a large recording through the node's own upload code (transport/storage.ts,
 * sent by n8n's real `httpRequest` helper from the cached n8n, reading the file the way n8n's
 * filesystem binary mode does), next to `curl -F` sending the same file to the same endpoint, in the
 * same run. Prints the peak memory growth of this process and the throughput of both.
 *
 *   npm run bench:upload-outside -- [--size-mib 1024] [--rounds 2]
 *
 * The storage endpoint is the fake clinic API's (test/fake-api), run in a child process; it parses
 * every body as a stream and checks fields, `file` last, Content-Length, byte count and SHA-256.
 * Each node upload runs in a fresh child process of its own (loads n8n's HTTP stack, warms up on a
 * 4 MiB file, then uploads and reports), so its RSS growth is the upload's alone and no earlier
 * round's high-water mark hides it. No forced GC: n8n never forces one. A last line shows the worst
 * case, right after a forced full GC (V8 then collects the read buffers with many full GCs).
 * Targets (issue 3): memory growth < 64 MiB, throughput >= 0.7 x curl. Figures are printed; the exit
 * code is 1 only when an upload is wrong.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

import type { IExecuteFunctions } from 'n8n-workflow';

import { uploadToStorage } from '../nodes/ClinicScribe/transport/storage';
import { remoteFakeTranscription, type PresignAnswer } from '../test/fake-api/routes/transcription';
import { loadN8nHttpRequest } from '../test/support/n8nHttpRequest';
import { plainHttpRequest } from '../test/support/nodeContext';

const MiB = 1024 * 1024;
const REPO = resolve(__dirname, '..');
/** n8n's filesystem mode reads with the chunk size the node asks for (uploadAudio/files.ts). */
const READ_CHUNK = 512 * 1024;

function argument(name: string, fallback: number): number {
	const at = process.argv.indexOf(`--${name}`);
	const value = at === -1 ? fallback : Number(process.argv[at + 1]);
	if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
	return value;
}

async function startFakeApi(): Promise<{ url: string; child: ChildProcess }> {
	const child = spawn(
		process.execPath,
		[
			join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
			join(REPO, 'test', 'fake-api', 'cli.ts'),
			'--port',
			'0',
		],
		{
			cwd: REPO,
			stdio: ['ignore', 'pipe', 'inherit'],
		},
	);
	const line = await new Promise<string>((resolveLine, reject) => {
		const lines = createInterface({ input: child.stdout! });
		lines.once('line', resolveLine);
		child.once('exit', (code) => reject(new Error(`fake API exited with ${code}`)));
	});
	return { url: (JSON.parse(line) as { url: string }).url, child };
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

interface Measurement {
	seconds: number;
	mibPerSecond: number;
	peakRssGrowthMiB?: number;
	peakRssMiB?: number;
}

async function nodeUpload(
	url: string,
	presign: PresignAnswer,
	path: string,
	size: number,
	httpRequest: unknown,
	forceGc = false,
): Promise<Measurement> {
	const ctx = {
		getNode: () => ({
			name: 'Clinic Scribe',
			type: 'bench',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		}),
		getExecutionCancelSignal: () => undefined,
		helpers: { httpRequest },
	} as unknown as IExecuteFunctions;
	if (forceGc && typeof global.gc === 'function') global.gc();
	const baseline = process.memoryUsage.rss();
	let peak = baseline;
	// memoryUsage.rss() is cheap; the full memoryUsage() walks the heap and would slow the upload.
	const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
	const started = process.hrtime.bigint();
	const outcome = await uploadToStorage(
		ctx,
		{
			url: presign.uploadData.url,
			fields: presign.uploadData.fields,
			folderPath: presign.folderPath,
		},
		{
			fileName: 'bench-recording.wav',
			label: 'the bench recording',
			contentType: 'audio/wav',
			size,
			open: async () => createReadStream(path, { highWaterMark: READ_CHUNK }),
		},
		0,
	);
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	clearInterval(sampler);
	peak = Math.max(peak, process.memoryUsage.rss());
	if (outcome.kind !== 'stored')
		throw new Error(`node upload refused: ${JSON.stringify(outcome)} (${url})`);
	return { seconds, mibPerSecond: size / MiB / seconds, peakRssGrowthMiB: (peak - baseline) / MiB };
}

function curlUpload(presign: PresignAnswer, path: string, size: number): Measurement {
	const form: string[] = [];
	for (const [name, value] of Object.entries(presign.uploadData.fields)) {
		form.push(
			'--form-string',
			`${name}=${name === 'key' ? `${presign.folderPath}bench-recording.wav` : value}`,
		);
	}
	form.push('-F', `file=@${path};type=audio/wav;filename=bench-recording.wav`);
	// curl's own peak memory, when GNU time is there to tell it.
	const time = spawnSync('sh', ['-c', 'command -v /usr/bin/time']).status === 0;
	const args = [
		'-sS',
		'-o',
		'/dev/null',
		'-w',
		'%{http_code} %{time_total}',
		'-H',
		'Expect:',
		...form,
		presign.uploadData.url,
	];
	const result = time
		? spawnSync('/usr/bin/time', ['-f', 'maxrss_kib=%M', 'curl', ...args], { encoding: 'utf8' })
		: spawnSync('curl', args, { encoding: 'utf8' });
	const [code, total] = result.stdout.trim().split(' ');
	if (code !== '204') throw new Error(`curl upload answered ${code}: ${result.stderr}`);
	const seconds = Number(total);
	const rss = /maxrss_kib=(\d+)/.exec(result.stderr ?? '');
	return {
		seconds,
		mibPerSecond: size / MiB / seconds,
		peakRssMiB: rss ? Number(rss[1]) / 1024 : undefined,
	};
}

/** Child mode: warm up, upload once, print the measurement as JSON. */
async function childUpload(): Promise<void> {
	const [url, presignJson, warmPresignJson, path, warmPath, sizeText, forceGc] =
		process.argv.slice(3);
	const httpRequest = loadN8nHttpRequest() ?? plainHttpRequest;
	await nodeUpload(
		url,
		JSON.parse(warmPresignJson) as PresignAnswer,
		warmPath,
		4 * MiB,
		httpRequest,
	);
	const measurement = await nodeUpload(
		url,
		JSON.parse(presignJson) as PresignAnswer,
		path,
		Number(sizeText),
		httpRequest,
		forceGc === 'gc',
	);
	process.stdout.write(`${JSON.stringify(measurement)}\n`);
}

async function nodeUploadInChild(
	url: string,
	control: ReturnType<typeof remoteFakeTranscription>,
	name: string,
	path: string,
	warmPath: string,
	size: number,
	forceGc = false,
): Promise<Measurement> {
	const presign = await control.presign(name);
	const warm = await control.presign(`${name}-warm`);
	const args = [
		'--import',
		'tsx',
		...(forceGc ? ['--expose-gc'] : []),
		__filename,
		'--child-upload',
		url,
		JSON.stringify(presign),
		JSON.stringify(warm),
		path,
		warmPath,
		String(size),
		forceGc ? 'gc' : 'no-gc',
	];
	const result = spawnSync(process.execPath, args, {
		cwd: REPO,
		encoding: 'utf8',
		maxBuffer: 16 * MiB,
	});
	if (result.status !== 0)
		throw new Error(`node upload child failed (${result.status}): ${result.stderr}`);
	return JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as Measurement;
}

async function main(): Promise<void> {
	const sizeMiB = argument('size-mib', 1024);
	const rounds = argument('rounds', 2);
	const n8nHttp = loadN8nHttpRequest();
	const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-bench-'));
	const fake = await startFakeApi();
	const stop = () => {
		fake.child.kill('SIGTERM');
		rmSync(dir, { recursive: true, force: true });
	};
	try {
		const control = remoteFakeTranscription(fake.url);
		const path = join(dir, 'recording.wav');
		process.stdout.write(`writing a ${sizeMiB} MiB recording…\n`);
		const sha256 = writeRecording(path, sizeMiB);
		const size = sizeMiB * MiB;
		process.stdout.write(
			`uploader: ${n8nHttp ? "n8n 2.41.1's httpRequest helper (cached n8n)" : 'test context axios (n8n not installed: run scripts/install-n8n.sh for the real figures)'}\n`,
		);

		const warmPath = join(dir, 'warm.wav');
		writeRecording(warmPath, 4);

		const nodeRuns: Measurement[] = [];
		const curlRuns: Measurement[] = [];
		for (let round = 1; round <= rounds; round++) {
			curlRuns.push(curlUpload(await control.presign(`txn-bench-curl-${round}`), path, size));
			nodeRuns.push(
				await nodeUploadInChild(fake.url, control, `txn-bench-node-${round}`, path, warmPath, size),
			);
			const c = curlRuns[curlRuns.length - 1];
			const n = nodeRuns[nodeRuns.length - 1];
			process.stdout.write(
				`round ${round}: curl ${c.mibPerSecond.toFixed(0)} MiB/s (${c.seconds.toFixed(2)} s${c.peakRssMiB ? `, curl max RSS ${c.peakRssMiB.toFixed(0)} MiB` : ''}) | node ${n.mibPerSecond.toFixed(0)} MiB/s (${n.seconds.toFixed(2)} s, peak RSS growth ${n.peakRssGrowthMiB!.toFixed(1)} MiB)\n`,
			);
		}
		const afterGc = await nodeUploadInChild(
			fake.url,
			control,
			'txn-bench-node-gc',
			path,
			warmPath,
			size,
			true,
		);

		const uploads = (await control.uploads()).filter((u) => !u.txnId.endsWith('-warm'));
		const rejected = await control.rejectedUploads();
		const intact =
			uploads.length === rounds * 2 + 1 &&
			uploads.every(
				(u) =>
					u.size === size &&
					u.sha256 === sha256 &&
					u.partOrder[u.partOrder.length - 1] === 'file' &&
					u.contentLength === u.bodyBytes,
			);
		const best = (runs: Measurement[]) => Math.max(...runs.map((r) => r.mibPerSecond));
		const peakGrowth = Math.max(...nodeRuns.map((r) => r.peakRssGrowthMiB!));
		const ratio = best(nodeRuns) / best(curlRuns);
		process.stdout.write(
			[
				'',
				`file: ${sizeMiB} MiB; storage endpoint checked every upload (fields, file last, Content-Length, bytes, SHA-256): ${intact && rejected.length === 0 ? 'all intact' : 'PROBLEM'}`,
				`node upload peak RSS growth: ${peakGrowth.toFixed(1)} MiB (target < 64 MiB: ${peakGrowth < 64 ? 'met' : 'MISSED'})`,
				`throughput best of ${rounds}: node ${best(nodeRuns).toFixed(0)} MiB/s, curl ${best(curlRuns).toFixed(0)} MiB/s, ratio ${ratio.toFixed(2)} (target >= 0.70: ${ratio >= 0.7 ? 'met' : 'MISSED'})`,
				`worst case, right after a forced full GC: node ${afterGc.mibPerSecond.toFixed(0)} MiB/s (ratio ${(afterGc.mibPerSecond / best(curlRuns)).toFixed(2)}), peak RSS growth ${afterGc.peakRssGrowthMiB!.toFixed(1)} MiB`,
				'',
			].join('\n'),
		);
		if (!intact || rejected.length > 0) {
			process.stderr.write(
				`uploads: ${JSON.stringify(uploads.map(({ fields: _f, ...u }) => u))}\nrejected: ${JSON.stringify(rejected)}\n`,
			);
			process.exitCode = 1;
		}
	} finally {
		stop();
	}
}

(process.argv[2] === '--child-upload' ? childUpload() : main()).catch((error: unknown) => {
	process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
