/**
 * Session uploads (issue 11, part 3): memory growth and throughput of the raw session upload
 * (`POST /voice/v1/sessions/{id}/audio/<name>`, body = the file's bytes) against curl
 * `--data-binary` to the same fake endpoint, min / median / max over the rounds.
 *
 * A `single` session upload holds at most 10 MB per file, and the node refuses larger files before
 * sending, so two measurements:
 *
 *   1. in n8n (filesystem binary mode): a session of several 9.5 MiB files (default 8, 76 MiB) read
 *      by Read/Write Files and sent by Upload Audio with Upload Method "Session" (several files at
 *      once, as the node does); curl sends the same files one after the other in one process.
 *      Window: first upload's arrival to the last one's answer, seen by the fake API. Memory: n8n's
 *      RSS growth in the window, in a freshly started n8n for every counted round (after a warm-up
 *      session); curl: its whole max RSS.
 *   2. one large file (default 512 MiB) with the limit LIFTED IN THE FAKE, through the package's own
 *      transport (`uploadSessionAudio`) with n8n's own HTTP helper, in a child process (the node
 *      itself would refuse it): bench/support/sessionTransportUpload.ts. Memory: that process's RSS
 *      growth.
 *
 * The fake API checks every upload (Content-Length, bytes, SHA-256) and keeps no audio here.
 *
 *   npm run bench:session -- [--files 8] [--large-mib 512] [--rounds 3] [--large-only]
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import {
	fakeSessions,
	type FakeSessions,
} from '../test/fake-api/routes/transcription/sessionStore';
import { fakeApiCredentialData } from '../test/support/fakeApiCredential';
import { ACTION_NODE_TYPE, chain, type WorkflowJson } from '../test/support/n8n/workflows';
import {
	argument,
	BENCH_CREDENTIAL,
	formatSpread,
	MiB,
	requireNode24,
	RssSampler,
	runBench,
	say,
	spread,
	startBenchFakeApi,
	startBenchN8n,
	verdict,
	webhookNode,
	type BenchFakeApi,
	type TimedRequest,
} from './support/inN8n';

const REPO = resolve(__dirname, '..');
const PART_BYTES = 9.5 * MiB;

interface Figure {
	seconds: number;
	mibPerSecond: number;
	memoryMiB: number;
}

function writeFile(path: string, bytes: number): string {
	const hash = createHash('sha256');
	const fd = openSync(path, 'w');
	for (let left = bytes; left > 0; left -= MiB) {
		const chunk = randomBytes(Math.min(MiB, left));
		hash.update(chunk);
		writeSync(fd, chunk);
	}
	closeSync(fd);
	return hash.digest('hex');
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

/** The uploads of one session since the last clearDone(): first arrival to last answer. */
function uploadWindow(
	fake: BenchFakeApi,
	sessionId: string,
	expected: number,
): { from: number; to: number } {
	const posts: TimedRequest[] = fake.done.filter(
		(r) => r.method === 'POST' && r.pathname.startsWith(`/voice/v1/sessions/${sessionId}/audio/`),
	);
	if (posts.length !== expected)
		throw new Error(`session ${sessionId}: ${posts.length} uploads, expected ${expected}`);
	const bad = posts.find((r) => r.status !== 200);
	if (bad)
		throw new Error(`session ${sessionId}: an upload was answered ${bad.status ?? 'nothing'}`);
	return {
		from: Math.min(...posts.map((r) => r.time)),
		to: Math.max(...posts.map((r) => r.doneAt)),
	};
}

function figureOf(
	window: { from: number; to: number },
	bytes: number,
	memoryBytes: number,
): Figure {
	const seconds = (window.to - window.from) / 1000;
	return { seconds, mibPerSecond: bytes / MiB / seconds, memoryMiB: memoryBytes / MiB };
}

function checkIntact(
	sessions: FakeSessions,
	sessionId: string,
	expected: Array<{ size: number; sha256: string }>,
): void {
	// Compared as sets: the order n8n lists the files in is its own.
	const key = (file: { size: number; sha256: string }) => `${file.size}:${file.sha256}`;
	const uploads = sessions.session(sessionId)?.uploads ?? [];
	const intact =
		uploads.every((u) => u.contentLength === u.size) &&
		JSON.stringify(uploads.map(key).sort()) === JSON.stringify(expected.map(key).sort());
	if (!intact) throw new Error(`session ${sessionId}: the fake did not get every file intact`);
}

async function createSessionForCurl(fake: BenchFakeApi): Promise<string> {
	const send = async () =>
		await fetch(`${fake.api.url}/__admin/sessions/create`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{}',
		});
	let response: Response;
	try {
		response = await send();
	} catch {
		// A kept-alive connection the server closed meanwhile: once more on a fresh one.
		response = await send();
	}
	return ((await response.json()) as { session_id: string }).session_id;
}

/** curl --data-binary, one file after the other in one process, with the token. */
async function curlUpload(
	fake: BenchFakeApi,
	sessionId: string,
	paths: string[],
	extension: string,
): Promise<number> {
	const args: string[] = [];
	paths.forEach((path, index) => {
		if (index > 0) args.push('--next');
		args.push(
			'-sS',
			'-o',
			'/dev/null',
			'-w',
			'%{http_code}\\n',
			'-H',
			`Authorization: Bearer ${fake.api.validCredentials.staticToken}`,
			'-H',
			'Expect:',
			'-H',
			'Content-Type: audio/wav',
			'--data-binary',
			`@${path}`,
			`${fake.api.url}/voice/v1/sessions/${sessionId}/audio/audio_${index}.${extension}`,
		);
	});
	const result = await run('/usr/bin/time', ['-f', 'maxrss_kib=%M', 'curl', ...args]);
	const codes = result.stdout.trim().split('\n');
	if (codes.length !== paths.length || codes.some((code) => code !== '200'))
		throw new Error(`curl: HTTP ${result.stdout} ${result.stderr}`);
	return Number(/maxrss_kib=(\d+)/.exec(result.stderr)?.[1] ?? NaN) * 1024;
}

function sessionWorkflow(): WorkflowJson {
	return {
		name: 'bench-session-upload',
		nodes: [
			webhookNode('bench-session-upload', randomUUID()),
			{
				name: 'Read Recordings',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1,
				position: [200, 0],
				parameters: { operation: 'read', fileSelector: '={{ $json.body.glob }}', options: {} },
			},
			{
				name: 'Upload',
				type: ACTION_NODE_TYPE,
				typeVersion: 1,
				position: [400, 0],
				parameters: {
					resource: 'transcription',
					operation: 'uploadAudio',
					uploadMethod: 'session',
					binaryPropertyName: 'data',
					transactionId: "={{ $('Webhook').first().json.body.sessionId }}",
					inputLanguages: ['en-IN'],
					outputTemplates: {
						templates: [
							{
								template: 'clinical_notes_template',
								customTemplateId: '',
								codificationNeeded: false,
							},
						],
					},
					waitForCompletion: false,
					options: {},
				},
				credentials: { clinicScribeApi: BENCH_CREDENTIAL },
			},
		],
		connections: chain('Webhook', 'Read Recordings', 'Upload'),
		settings: { executionOrder: 'v1' },
	};
}

async function benchInN8n(
	fake: BenchFakeApi,
	sessions: FakeSessions,
	files: number,
	rounds: number,
	dir: string,
): Promise<Record<'package' | 'curl', Figure[]>> {
	mkdirSync(join(dir, 'parts'));
	mkdirSync(join(dir, 'warm'));
	say(`[session of ${files} × 9.5 MiB] writing the files…`);
	const parts = Array.from({ length: files }, (_, i) => {
		const path = join(dir, 'parts', `part-${String(i).padStart(2, '0')}.wav`);
		return { path, size: PART_BYTES, sha256: writeFile(path, PART_BYTES) };
	});
	writeFile(join(dir, 'warm', 'warm.wav'), 256 * 1024);
	const total = files * PART_BYTES;
	const workflow = sessionWorkflow();
	say('[in n8n] starting n8n (N8N_DEFAULT_BINARY_DATA_MODE=filesystem)…');
	const bench = await startBenchN8n({
		api: fake.api,
		workflows: [workflow],
		env: {
			N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
			N8N_RESTRICT_FILE_ACCESS_TO: dir,
			EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none',
		},
	});
	const figures: Record<'package' | 'curl', Figure[]> = { package: [], curl: [] };
	let sampler: RssSampler | undefined;
	const upload = async (glob: string, sessionId: string) => {
		const answer = await bench.trigger('bench-session-upload', { glob, sessionId });
		if (answer.status !== 200)
			throw new Error(
				`package: webhook answered ${answer.status}: ${await bench.lastError(workflow.name)}`,
			);
	};
	const once = async (round: number, counted: boolean) => {
		// package
		const sessionId = `bench-session-${round}-${randomBytes(4).toString('hex')}`;
		if (counted) {
			sampler?.stop();
			await bench.restart();
			sampler = new RssSampler(bench.n8n.serverPid!);
			sampler.start();
			await upload(join(dir, 'warm', '*.wav'), `${sessionId}-warm`);
		}
		fake.clearDone();
		await upload(join(dir, 'parts', '*.wav'), sessionId);
		const window = uploadWindow(fake, sessionId, files);
		checkIntact(sessions, sessionId, parts);
		if (counted)
			figures.package.push(
				figureOf(window, total, sampler ? sampler.growth(window.from, window.to) : NaN),
			);
		// curl, the same files to the same endpoint
		const curlSession = await createSessionForCurl(fake);
		fake.clearDone();
		const memory = await curlUpload(
			fake,
			curlSession,
			parts.map((p) => p.path),
			'wav',
		);
		const curlWindow = uploadWindow(fake, curlSession, files);
		checkIntact(sessions, curlSession, parts);
		if (counted) figures.curl.push(figureOf(curlWindow, total, memory));
	};
	try {
		say('[in n8n] warm-up (not counted)…');
		await once(0, false);
		for (let round = 1; round <= rounds; round++) {
			await once(round, true);
			const p = figures.package[round - 1];
			const c = figures.curl[round - 1];
			say(
				`[in n8n] round ${round}: package ${p.mibPerSecond.toFixed(0)} MiB/s, RSS growth ${p.memoryMiB.toFixed(0)} MiB | curl ${c.mibPerSecond.toFixed(0)} MiB/s, max RSS ${c.memoryMiB.toFixed(0)} MiB`,
			);
		}
	} finally {
		sampler?.stop();
		await bench.dispose();
	}
	return figures;
}

async function benchLarge(
	fake: BenchFakeApi,
	sessions: FakeSessions,
	largeMiB: number,
	rounds: number,
	dir: string,
): Promise<Record<'transport' | 'curl', Figure[]>> {
	const size = largeMiB * MiB;
	sessions.setOptions({ maxSingleUploadBytes: size });
	const path = join(dir, 'large.wav');
	say(`[one ${largeMiB} MiB file, limit lifted in the fake] writing it…`);
	const sha256 = writeFile(path, size);
	const credential = JSON.stringify(
		fakeApiCredentialData(fake.api, {
			authMethod: 'accessToken',
			accessToken: fake.api.validCredentials.staticToken,
		}),
	);
	const figures: Record<'transport' | 'curl', Figure[]> = { transport: [], curl: [] };
	for (let round = 0; round <= rounds; round++) {
		const sessionId = await createSessionForCurl(fake);
		fake.clearDone();
		const child = await run(process.execPath, [
			'--import',
			'tsx',
			join(__dirname, 'support', 'sessionTransportUpload.ts'),
			credential,
			sessionId,
			path,
			String(size),
		]);
		if (child.code !== 0) throw new Error(`transport: ${child.stderr}`);
		const transportWindow = uploadWindow(fake, sessionId, 1);
		checkIntact(sessions, sessionId, [{ size, sha256 }]);
		const curlSession = await createSessionForCurl(fake);
		fake.clearDone();
		const curlMemory = await curlUpload(fake, curlSession, [path], 'wav');
		const curlWindow = uploadWindow(fake, curlSession, 1);
		checkIntact(sessions, curlSession, [{ size, sha256 }]);
		if (round === 0) continue; // warm-up
		figures.transport.push(
			figureOf(
				transportWindow,
				size,
				(JSON.parse(child.stdout.trim()) as { peakRssGrowthBytes: number }).peakRssGrowthBytes,
			),
		);
		figures.curl.push(figureOf(curlWindow, size, curlMemory));
		const t = figures.transport[round - 1];
		const c = figures.curl[round - 1];
		say(
			`[large] round ${round}: transport ${t.mibPerSecond.toFixed(0)} MiB/s, RSS growth ${t.memoryMiB.toFixed(0)} MiB | curl ${c.mibPerSecond.toFixed(0)} MiB/s, max RSS ${c.memoryMiB.toFixed(0)} MiB`,
		);
	}
	rmSync(path, { force: true });
	return figures;
}

async function main(): Promise<void> {
	requireNode24();
	const files = argument('files', 8);
	const largeMiB = argument('large-mib', 512);
	const rounds = argument('rounds', 3);
	const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-bench-session-'));
	const fake = await startBenchFakeApi();
	const sessions = fakeSessions(fake.api);
	sessions.setOptions({ keepAudio: false });
	try {
		say(
			`session upload bench: Node ${process.version}, fake API ${fake.api.url}, ${rounds} rounds`,
		);
		const largeOnly = process.argv.includes('--large-only');
		const inN8n = largeOnly ? undefined : await benchInN8n(fake, sessions, files, rounds, dir);
		const large = await benchLarge(fake, sessions, largeMiB, rounds, dir);
		const s = (values: number[], digits = 0) => formatSpread(spread(values), digits);
		say();
		if (inN8n) reportInN8n(inN8n, files, rounds, s);
		reportLarge(large, largeMiB, s);
	} finally {
		await fake.api.close();
		rmSync(dir, { recursive: true, force: true });
	}
}

type Format = (values: number[], digits?: number) => string;

function reportInN8n(
	inN8n: Record<'package' | 'curl', Figure[]>,
	files: number,
	rounds: number,
	s: Format,
): void {
	say(
		`1. in n8n, filesystem binary mode: a session of ${files} × 9.5 MiB (${(files * 9.5).toFixed(1)} MiB), min / median / max of ${rounds} rounds:`,
	);
	say(
		`  throughput MiB/s:  package ${s(inN8n.package.map((f) => f.mibPerSecond))} | curl --data-binary ${s(inN8n.curl.map((f) => f.mibPerSecond))}`,
	);
	const ratio = spread(inN8n.package.map((f, i) => f.mibPerSecond / inN8n.curl[i].mibPerSecond));
	say(`  × curl (per round): package ${formatSpread(ratio)}`);
	say(
		`  memory MiB:        package (n8n RSS growth) ${s(inN8n.package.map((f) => f.memoryMiB))} | curl's whole max RSS ${s(inN8n.curl.map((f) => f.memoryMiB))}`,
	);
	const inN8nWorst = Math.max(...inN8n.package.map((f) => f.memoryMiB));
	say(
		verdict(
			inN8nWorst < files * 9.5,
			`no whole-session copy in n8n: RSS growth < the session's size (${(files * 9.5).toFixed(0)} MiB)`,
			`worst ${inN8nWorst.toFixed(0)} MiB`,
		),
	);
}

function reportLarge(
	large: Record<'transport' | 'curl', Figure[]>,
	largeMiB: number,
	s: Format,
): void {
	say(
		`2. one ${largeMiB} MiB file, the fake's 10 MB limit lifted, the package's transport with n8n's HTTP helper (child process):`,
	);
	say(
		`  throughput MiB/s:  transport ${s(large.transport.map((f) => f.mibPerSecond))} | curl --data-binary ${s(large.curl.map((f) => f.mibPerSecond))}`,
	);
	const largeRatio = spread(
		large.transport.map((f, i) => f.mibPerSecond / large.curl[i].mibPerSecond),
	);
	say(`  × curl (per round): transport ${formatSpread(largeRatio)}`);
	say(
		`  memory MiB:        transport (process RSS growth) ${s(large.transport.map((f) => f.memoryMiB))} | curl's whole max RSS ${s(large.curl.map((f) => f.memoryMiB))}`,
	);
	const worst = Math.max(...large.transport.map((f) => f.memoryMiB));
	// The yardstick of bench/upload.ts: bare Node's http.request streaming a file grows by 65–69 MiB.
	say(
		verdict(
			worst < largeMiB / 4,
			`no whole-file copy: the ${largeMiB} MiB upload grows the process by under a quarter of the file in every round`,
			`worst ${worst.toFixed(0)} MiB (curl --data-binary holds the whole file: ${Math.max(...large.curl.map((f) => f.memoryMiB)).toFixed(0)} MiB)`,
		),
	);
}

runBench(main);
