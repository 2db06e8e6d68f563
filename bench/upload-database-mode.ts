/**
 * Upload Audio in n8n's `database` binary data mode (issue 21, goal 2; issue 27): Upload Audio beside
 * n8n's HTTP Request node sending the same file, and where the mode stops. Figures are printed;
 * nothing is asserted on time.
 *
 * n8n's database manager does not stream: `getBinaryStream` loads the whole file from the database
 * (`Readable.from(buffer)`), so either uploader holds the file in memory once. In two settings:
 *
 *   regular  `n8n start` on SQLite with N8N_DEFAULT_BINARY_DATA_MODE=database.
 *   queue    queue mode's own default: PostgreSQL, Redis, main + webhook process + worker
 *            (test/support/queueMode.ts); the uploads run on the worker.
 *
 * In each, a first workflow reads the recording into the store and answers its binary id. Then, for
 * each round and each uploader in turn: the process that runs the uploads (n8n, or the worker) is
 * restarted (a fresh process: RSS never shrinks back), a small stored file is uploaded to warm it up,
 * and a workflow hands the stored id to Upload Audio (Transaction, no wait) or to the HTTP Request
 * node (multipart: the presigned fields, then the file). Figures per upload: the storage POST's
 * throughput (size / its window as the fake API sees it), the CPU time that process used inside the
 * window (per GiB: steadier than throughput on a busy machine), its RSS when the POST arrived, and
 * its peak RSS from the run's start to the POST's end. Beside them, end to end: size / the time from
 * the uploading node's start (its `startTime` in n8n's run data, same clock) to the POST's end, and
 * the process's CPU time in that span per GiB.
 * Both uploaders read the file from n8n's database inside that time and pay the garbage collection
 * after that read wherever it lands (before or inside the POST); the package's time also holds its
 * own two calls before the upload, the check that the transaction id is unused and the presign (the
 * HTTP Request node is handed the presigned fields). A file over 256 MiB is offered to Upload Audio
 * once: PostgreSQL answers a bytea as hex text, which a JavaScript string cannot hold past ~512 M
 * characters, so n8n cannot read such a file back and the node refuses it before anything is sent
 * (docs/binary-data.md).
 *
 * Diagnostics: --node-options "…" adds to the n8n processes' NODE_OPTIONS (e.g. a --require'd
 * bench/support/gcObserver.cjs); --print-window prints each storage POST's window (epoch ms) to match
 * against such logs.
 *
 *   npm run bench:upload-database -- [--sizes-mib 255,300] [--queue-sizes-mib 200,300] [--rounds 2] [--skip-regular] [--skip-queue]
 *
 * The fake API checks every upload (fields, file last, Content-Length, bytes, SHA-256).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DATABASE_MODE_READ_MAX_BYTES } from '../nodes/ClinicScribe/actions/transcription/uploadAudio/inputBinary';
import { fakeTranscription, STORAGE_PATH } from '../test/fake-api/routes/transcription';
import { fakeApiCredentialData } from '../test/support/fakeApiCredential';
import { packedPackageForTests } from '../test/support/n8n/install';
import {
	chain,
	CREDENTIAL_TYPE,
	type WorkflowJson,
	type WorkflowNode,
} from '../test/support/n8n/workflows';
import type { ExecutionResult } from '../test/support/n8n/results';
import { QueueModeN8n } from '../test/support/queueMode';
import { queueServicesPresent } from '../test/support/queueServices';
import {
	argument,
	BENCH_CREDENTIAL,
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
} from './support/inN8n';

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

function webhook(path: string, responseData: 'noData' | 'firstEntryJson'): WorkflowNode {
	return {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData, options: {} },
	};
}

/** Read → the binary's id and size as the webhook's answer. */
const storeWorkflow: WorkflowJson = {
	name: 'bench-database-store',
	nodes: [
		webhook('bench-database-store', 'firstEntryJson'),
		{
			name: 'Read Recording',
			type: 'n8n-nodes-base.readWriteFile',
			typeVersion: 1,
			position: [200, 0],
			parameters: { operation: 'read', fileSelector: '={{ $json.body.path }}', options: {} },
		},
		{
			name: 'Binary Id',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [400, 0],
			parameters: {
				mode: 'manual',
				assignments: {
					assignments: [
						{ id: 'a1', name: 'id', type: 'string', value: '={{ $binary.data.id }}' },
						{ id: 'a2', name: 'bytes', type: 'number', value: '={{ $binary.data.bytes }}' },
					],
				},
				options: {},
			},
		},
	],
	connections: chain('Webhook', 'Read Recording', 'Binary Id'),
	settings: { executionOrder: 'v1' },
};

/** The stored file (by id, from the body) as the item's binary "data", as n8n hands it to the next node. */
const storedRecordingNode: WorkflowNode = {
	name: 'Stored Recording',
	type: 'n8n-nodes-base.code',
	typeVersion: 2,
	position: [200, 0],
	parameters: {
		jsCode:
			"const { id } = $input.first().json.body;\nreturn [{ json: {}, binary: { data: { id, data: 'database', mimeType: 'audio/wav', fileName: 'recording.wav', fileExtension: 'wav' } } }];",
	},
};

type Uploader = 'package' | 'http node';
const UPLOADERS: Uploader[] = ['package', 'http node'];

const UPLOAD_WORKFLOW: Record<Uploader, string> = {
	package: 'bench-database-upload',
	'http node': 'bench-database-upload-http',
};

/** The stored file → Upload Audio, or → the HTTP Request node with the same multipart POST. */
function uploadWorkflow(uploader: Uploader, fieldNames: string[]): WorkflowJson {
	const name = UPLOAD_WORKFLOW[uploader];
	const field = (fieldName: string) =>
		`={{ $('Webhook').item.json.body.fields[${JSON.stringify(fieldName)}] }}`;
	const upload: WorkflowNode =
		uploader === 'package'
			? packageUploadNode([400, 0], "={{ $('Webhook').item.json.body.txnId }}")
			: {
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
								...fieldNames.map((fieldName) => ({
									parameterType: 'formData',
									name: fieldName,
									value: field(fieldName),
								})),
								{ parameterType: 'formBinaryData', name: 'file', inputDataFieldName: 'data' },
							],
						},
						options: {},
					},
				};
	return {
		name,
		nodes: [webhook(name, 'noData'), storedRecordingNode, upload],
		connections: chain('Webhook', 'Stored Recording', 'Upload'),
		settings: { executionOrder: 'v1' },
	};
}

/** Where the workflows run: a regular n8n, or queue mode (the uploads on its worker). */
interface UploadHost {
	label: string;
	/** POSTs to a workflow's webhook (its name is its path); resolves with n8n's answer. */
	trigger(path: string, body: unknown): Promise<{ status: number; text: string }>;
	/** Starts a fresh process for the uploads (n8n, or the worker) and returns its PID. */
	freshUploadProcess(): Promise<number>;
	lastError(workflowName: string): Promise<string>;
	/** A workflow's newest execution with its run data (undefined when it has none yet). */
	newestExecution(workflowName: string): Promise<ExecutionResult | undefined>;
	dispose(): Promise<void>;
}

/** The name of the uploading node in both upload workflows. */
const UPLOAD_NODE = 'Upload';

/**
 * The uploading node's start (ms since epoch, n8n's run data `startTime`) in the workflow's newest
 * execution, once n8n has stored the run that started at or after `after` (bounded wait).
 */
async function uploadNodeStart(
	host: UploadHost,
	workflowName: string,
	after: number,
): Promise<number> {
	const deadline = Date.now() + 60_000;
	for (;;) {
		const execution = await host.newestExecution(workflowName);
		const startTime = execution?.runData[UPLOAD_NODE]?.[0]?.startTime;
		if (typeof startTime === 'number' && startTime >= after) return startTime;
		if (Date.now() > deadline)
			throw new Error(
				`${workflowName}: no stored run of "${UPLOAD_NODE}" started after ${after} (newest: ${String(startTime)})`,
			);
		await new Promise((resolveWait) => setTimeout(resolveWait, 200));
	}
}

/** End to end: the uploading node's start to the storage POST's end (seconds) and size / that. */
function endToEnd(
	sizeMiB: number,
	nodeStart: number,
	postDoneAt: number,
): { seconds: number; mibPerSecond: number } {
	const seconds = (postDoneAt - nodeStart) / 1000;
	return { seconds, mibPerSecond: sizeMiB / seconds };
}

interface UploadFigure {
	mibPerSecond: number;
	/** The upload process's RSS when the storage POST arrived, and its peak from the run's start to the POST's end (MiB). */
	rssAtPostMiB: number;
	peakRssMiB: number;
	/** CPU time the upload process used inside the storage POST's window, per GiB sent (seconds). */
	cpuPerGiB: number;
	/** From the uploading node's start in n8n to the storage POST's end: seconds, and size / that. */
	endToEndSeconds: number;
	endToEndMiBPerSecond: number;
	/** From the uploading node's start to the storage POST's arrival (seconds). */
	beforePostSeconds: number;
	/** The upload process's CPU time from the node's start to the POST's end, per GiB (seconds). */
	endToEndCpuPerGiB: number;
}

async function compareUploaders(
	host: UploadHost,
	fake: BenchFakeApi,
	dir: string,
	sizesMiB: number[],
	rounds: number,
): Promise<string[]> {
	const control = fakeTranscription(fake.api);
	const report: string[] = [];
	const warmPath = join(dir, 'warm.wav');
	writeRecording(warmPath, 4);
	let sampler: RssSampler | undefined;
	let uploads = 0;
	const upload = async (
		uploader: Uploader,
		id: string,
	): Promise<{ txnId: string; started: number; status: number }> => {
		const txnId = `txn-bench-db-${uploader.replace(' ', '-')}-${++uploads}-${randomBytes(3).toString('hex')}`;
		const presign = control.presign(txnId, fake.api.url);
		const fields = { ...presign.uploadData.fields, key: `${presign.folderPath}recording.wav` };
		const started = Date.now();
		const answer = await host.trigger(UPLOAD_WORKFLOW[uploader], {
			id,
			txnId,
			url: presign.uploadData.url,
			fields,
		});
		return { txnId, started, status: answer.status };
	};
	const store = async (path: string): Promise<{ id: string; bytes: number }> => {
		const stored = await host.trigger(storeWorkflow.name, { path });
		if (stored.status !== 200)
			throw new Error(
				`store: webhook answered ${stored.status}: ${await host.lastError(storeWorkflow.name)}`,
			);
		const answer = JSON.parse(stored.text) as { id: string; bytes: number };
		if (!String(answer.id).startsWith('database:'))
			throw new Error(`store: unexpected answer ${stored.text}`);
		return answer;
	};
	try {
		for (const sizeMiB of sizesMiB) {
			const path = join(dir, `${host.label}-${sizeMiB}.wav`);
			say(`[${host.label}] writing a ${sizeMiB} MiB recording…`);
			const sha256 = writeRecording(path, sizeMiB);
			const size = sizeMiB * MiB;
			const { id, bytes } = await store(path);
			rmSync(path, { force: true });
			if (bytes !== size) throw new Error(`store: ${bytes} bytes stored, expected ${size}`);
			if (size > DATABASE_MODE_READ_MAX_BYTES) {
				await host.freshUploadProcess();
				const started = Date.now();
				const { status } = await upload('package', id);
				const sent = fake.api.requests.filter(
					(r) => r.time >= started && /^\/(storage\/|voice\/)/.test(r.pathname),
				).length;
				report.push(
					`  ${sizeMiB} MiB: Upload Audio ${status === 200 ? 'uploaded it' : 'refused it'}, ${sent} requests of the transaction sent${status === 200 ? '' : `: ${await host.lastError(UPLOAD_WORKFLOW.package)}`}`,
				);
				say(`[${host.label}]${report[report.length - 1]}`);
				continue;
			}
			const figures: Record<Uploader, UploadFigure[]> = { package: [], 'http node': [] };
			for (let round = 1; round <= rounds; round++) {
				for (const uploader of UPLOADERS) {
					sampler?.stop();
					sampler = new RssSampler(await host.freshUploadProcess());
					sampler.start();
					// Warm-up: the upload path's code loaded, its sockets open (a small stored file of its own).
					const warm = await upload(uploader, (await store(warmPath)).id);
					if (warm.status !== 200)
						throw new Error(
							`${uploader} warm-up: ${await host.lastError(UPLOAD_WORKFLOW[uploader])}`,
						);
					await new Promise((resolveWait) => setTimeout(resolveWait, 1000));
					fake.clearDone();
					const { txnId, started, status } = await upload(uploader, id);
					if (status !== 200)
						throw new Error(`${uploader}: ${await host.lastError(UPLOAD_WORKFLOW[uploader])}`);
					const post = fake.done.find(
						(r) => r.method === 'POST' && r.pathname.startsWith(STORAGE_PATH),
					);
					if (!post) throw new Error(`${uploader}: no storage POST seen`);
					const received = control.uploads().find((u) => u.txnId === txnId);
					if (process.argv.includes('--print-window'))
						say(`[${host.label}] ${uploader} window ${post.time} ${post.doneAt}`);
					if (
						!received ||
						received.size !== size ||
						received.sha256 !== sha256 ||
						received.contentLength !== received.bodyBytes
					) {
						throw new Error(
							`${uploader}: the storage endpoint did not get the ${sizeMiB} MiB file intact`,
						);
					}
					const nodeStart = await uploadNodeStart(host, UPLOAD_WORKFLOW[uploader], started);
					if (process.argv.includes('--print-window'))
						say(`[${host.label}] ${uploader} node start ${nodeStart}`);
					const whole = endToEnd(sizeMiB, nodeStart, post.doneAt);
					figures[uploader].push({
						endToEndSeconds: whole.seconds,
						endToEndMiBPerSecond: whole.mibPerSecond,
						beforePostSeconds: (post.time - nodeStart) / 1000,
						endToEndCpuPerGiB: (sampler.cpuBetween(nodeStart, post.doneAt) * 1024) / sizeMiB,
						mibPerSecond: sizeMiB / ((post.doneAt - post.time) / 1000),
						rssAtPostMiB: sampler.rssAt(post.time) / MiB,
						peakRssMiB: sampler.peak(started, post.doneAt) / MiB,
						cpuPerGiB: (sampler.cpuBetween(post.time, post.doneAt) * 1024) / sizeMiB,
					});
				}
				say(
					`[${host.label}] ${sizeMiB} MiB, round ${round}: ` +
						UPLOADERS.map((u) => {
							const f = figures[u][round - 1];
							return `${u} ${f.mibPerSecond.toFixed(0)} MiB/s (CPU ${f.cpuPerGiB.toFixed(2)} s/GiB), end to end ${f.endToEndSeconds.toFixed(2)} s (POST at +${f.beforePostSeconds.toFixed(2)} s) = ${f.endToEndMiBPerSecond.toFixed(0)} MiB/s (CPU ${f.endToEndCpuPerGiB.toFixed(2)} s/GiB), RSS ${f.rssAtPostMiB.toFixed(0)} MiB at the POST, peak ${f.peakRssMiB.toFixed(0)} MiB`;
						}).join(' | '),
				);
			}
			const of = (u: Uploader, pick: (f: UploadFigure) => number, digits = 0) =>
				formatSpread(spread(figures[u].map(pick)), digits);
			const ratio = spread(
				figures.package.map((f, i) => f.mibPerSecond / figures['http node'][i].mibPerSecond),
			);
			const endToEndRatio = spread(
				figures.package.map(
					(f, i) => f.endToEndMiBPerSecond / figures['http node'][i].endToEndMiBPerSecond,
				),
			);
			const extraAtPost = spread(
				figures.package.map((f, i) => f.rssAtPostMiB - figures['http node'][i].rssAtPostMiB),
			);
			const extraPeak = spread(
				figures.package.map((f, i) => f.peakRssMiB - figures['http node'][i].peakRssMiB),
			);
			report.push(
				`  ${sizeMiB} MiB, storage POST throughput MiB/s: Upload Audio ${of('package', (f) => f.mibPerSecond)} | HTTP Request node ${of('http node', (f) => f.mibPerSecond)} | ratio per round ${formatSpread(ratio)}`,
				`  ${sizeMiB} MiB, end to end (the node's start in n8n → the POST's end; both read the file from n8n's database and pay the collection after it, the package also its id check and presign calls), s: Upload Audio ${of('package', (f) => f.endToEndSeconds, 2)} | HTTP Request node ${of('http node', (f) => f.endToEndSeconds, 2)}; of which before the POST: ${of('package', (f) => f.beforePostSeconds, 2)} | ${of('http node', (f) => f.beforePostSeconds, 2)}`,
				`  ${sizeMiB} MiB, end-to-end throughput MiB/s: Upload Audio ${of('package', (f) => f.endToEndMiBPerSecond)} | HTTP Request node ${of('http node', (f) => f.endToEndMiBPerSecond)} | ratio per round ${formatSpread(endToEndRatio)}`,
				`  ${sizeMiB} MiB, the upload process's CPU inside the POST's window, s per GiB: Upload Audio ${of('package', (f) => f.cpuPerGiB, 2)} | HTTP Request node ${of('http node', (f) => f.cpuPerGiB, 2)}`,
				`  ${sizeMiB} MiB, the upload process's CPU end to end (the node's start → the POST's end), s per GiB: Upload Audio ${of('package', (f) => f.endToEndCpuPerGiB, 2)} | HTTP Request node ${of('http node', (f) => f.endToEndCpuPerGiB, 2)}`,
				`  ${sizeMiB} MiB, RSS at the storage POST's arrival, MiB: Upload Audio ${of('package', (f) => f.rssAtPostMiB)} | HTTP Request node ${of('http node', (f) => f.rssAtPostMiB)} | difference per round ${formatSpread(extraAtPost, 0)}`,
				`  ${sizeMiB} MiB, peak RSS from the run's start to the POST's end, MiB: Upload Audio ${of('package', (f) => f.peakRssMiB)} | HTTP Request node ${of('http node', (f) => f.peakRssMiB)} | difference per round ${formatSpread(extraPeak, 0)}`,
				`  ${verdict(ratio.median >= 1, "storage POST throughput at least the HTTP Request node's (median of per-round ratios)", `${ratio.median.toFixed(2)}×`)}`,
				`  ${verdict(endToEndRatio.median >= 1, "end-to-end throughput at least the HTTP Request node's (median of per-round ratios)", `${endToEndRatio.median.toFixed(2)}×`)}`,
				`  ${verdict(extraPeak.median <= 0 && extraAtPost.median <= 0, 'no more memory than the HTTP Request node (medians of the per-round differences)', `${extraAtPost.median.toFixed(0)} MiB at the POST, ${extraPeak.median.toFixed(0)} MiB at the peak`)}`,
				`  ${verdict(extraPeak.median <= 0, "end to end, peak RSS no more than the HTTP Request node's (the run's start to the POST's end, wherever n8n's collection lands; median of the per-round differences)", `${extraPeak.median.toFixed(0)} MiB`)}`,
			);
		}
	} finally {
		sampler?.stop();
	}
	return report;
}

/** NODE_OPTIONS for the n8n processes from --node-options, if given. */
function nodeOptions(): Record<string, string> {
	const at = process.argv.indexOf('--node-options');
	return at === -1 ? {} : { NODE_OPTIONS: process.argv[at + 1] };
}

async function regularHost(
	fake: BenchFakeApi,
	dir: string,
	workflows: WorkflowJson[],
): Promise<UploadHost> {
	say('[regular] starting n8n on SQLite (N8N_DEFAULT_BINARY_DATA_MODE=database)…');
	const bench = await startBenchN8n({
		api: fake.api,
		workflows,
		env: {
			N8N_DEFAULT_BINARY_DATA_MODE: 'database',
			N8N_RESTRICT_FILE_ACCESS_TO: dir,
			N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE: '1024',
			...nodeOptions(),
		},
	});
	return {
		label: 'regular',
		trigger: async (path, body) => await bench.trigger(path, body),
		freshUploadProcess: async () => {
			await bench.restart();
			return bench.n8n.serverPid!;
		},
		lastError: async (name) => await bench.lastError(name),
		newestExecution: async (name) => {
			const [newest] = await bench.n8n.listExecutions({ workflowId: bench.ids[name] }, 1);
			return newest ? await bench.n8n.getExecution(newest.id) : undefined;
		},
		dispose: async () => await bench.dispose(),
	};
}

async function queueHost(
	fake: BenchFakeApi,
	dir: string,
	workflows: WorkflowJson[],
): Promise<UploadHost> {
	say(
		"[queue] starting PostgreSQL, Redis, main, webhook process and worker (binary data: database, queue mode's default)…",
	);
	const queue = await QueueModeN8n.create({
		packageTarball: await packedPackageForTests(),
		env: {
			N8N_RESTRICT_FILE_ACCESS_TO: dir,
			N8N_LOG_LEVEL: 'warn',
			N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE: '1024',
			...nodeOptions(),
		},
	});
	try {
		await queue.main.importCredentials([
			{ ...BENCH_CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(fake.api) },
		]);
		const ids = await queue.main.importWorkflows(workflows);
		await queue.start();
		await queue.main.ensureOwner({
			email: 'bench@clinic-scribe.test',
			password: 'Bench-Password-1',
			firstName: 'Bench',
			lastName: 'Owner',
		});
		for (const id of ids) await queue.main.activateWorkflow(id, { timeoutMs: 120_000 });
		const idOf = (name: string) => ids[workflows.findIndex((w) => w.name === name)];
		const newestExecution = async (name: string) => {
			const [newest] = await queue.main.listExecutions({ workflowId: idOf(name) }, 1);
			return newest ? await queue.main.getExecution(newest.id) : undefined;
		};
		return {
			label: 'queue',
			trigger: async (path, body) => {
				// Bounded: a read that never finishes (past the mode's limit) is a finding, not a hang.
				const answer = await fetch(queue.webhookUrl(path), {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify(body),
					signal: AbortSignal.timeout(5 * 60_000),
				});
				return { status: answer.status, text: await answer.text() };
			},
			freshUploadProcess: async () => {
				await queue.restartWorker();
				return queue.worker!.pid;
			},
			lastError: async (name) => {
				const execution = await newestExecution(name);
				if (!execution) return 'no execution';
				const error =
					Object.values(execution.runData)
						.flat()
						.find((r) => r.error)?.error ?? execution.error;
				return error ? error.message : `status ${execution.status}`;
			},
			newestExecution,
			dispose: async () => await queue.dispose(),
		};
	} catch (error) {
		await queue.dispose();
		throw error;
	}
}

async function main(): Promise<void> {
	requireNode24();
	const sizes = (name: string, fallback: string) => {
		const at = process.argv.indexOf(`--${name}`);
		return (at === -1 ? fallback : process.argv[at + 1]).split(',').map(Number);
	};
	const rounds = argument('rounds', 2);
	const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-bench-database-'));
	const fake = await startBenchFakeApi();
	const fieldNames = Object.keys(
		fakeTranscription(fake.api).presign('txn-bench-db-shape', fake.api.url).uploadData.fields,
	);
	const workflows = [storeWorkflow, ...UPLOADERS.map((u) => uploadWorkflow(u, fieldNames))];
	const settings: Array<[UploadHost['label'], () => Promise<UploadHost>, number[], string]> = [
		[
			'regular',
			async () => await regularHost(fake, dir, workflows),
			sizes('sizes-mib', '255,300'),
			'regular mode on SQLite',
		],
		[
			'queue',
			async () => await queueHost(fake, dir, workflows),
			sizes('queue-sizes-mib', '200,300'),
			'queue mode on PostgreSQL, uploads on the worker',
		],
	];
	const reports: string[] = [];
	try {
		for (const [label, start, sizesMiB, title] of settings) {
			if (process.argv.includes(`--skip-${label}`)) continue;
			if (label === 'queue' && !queueServicesPresent()) {
				reports.push(
					'queue mode: skipped (redis-server or PostgreSQL is not installed: sudo bash scripts/install-queue-services.sh)',
				);
				continue;
			}
			const host = await start();
			try {
				const lines = await compareUploaders(host, fake, dir, sizesMiB, rounds);
				reports.push(
					`${title}, database binary mode, the stored file by id → Upload Audio or the HTTP Request node, min / median / max of ${rounds} rounds, a fresh process per upload (Node ${process.version}):`,
					...lines,
				);
			} finally {
				await host.dispose();
			}
		}
	} finally {
		await fake.api.close();
		rmSync(dir, { recursive: true, force: true });
	}
	say();
	for (const line of reports) say(line);
}

runBench(main);
