/**
 * Upload Audio in n8n's `database` binary data mode (issue 21, goal 2): what a long recording costs
 * there, and where the mode stops. Figures are printed; nothing is asserted on time.
 *
 * n8n's database manager does not stream: `getBinaryStream` loads the whole file from the database
 * (`Readable.from(buffer)`), so the node's upload holds the file in memory once. Two settings:
 *
 *   regular  `n8n start` on SQLite with N8N_DEFAULT_BINARY_DATA_MODE=database. A first workflow reads
 *            the recording into the store and answers its binary id; n8n is restarted (a fresh
 *            process: RSS never shrinks back); a second workflow hands that id to Upload Audio
 *            (Transaction, no wait). Memory = n8n's peak RSS from that run's start to its storage
 *            POST's end, minus the RSS just before. Throughput = size / the storage POST's window.
 *   queue    queue mode's own default: PostgreSQL, Redis, main + webhook process + worker
 *            (test/support/queueMode.ts). One workflow reads the file and uploads it; the worker's
 *            peak RSS over the whole run (read + store + upload) is shown, and what happens to a file
 *            over 256 MiB: PostgreSQL answers a bytea as hex text, which a JavaScript string cannot
 *            hold past ~512 M characters, so n8n cannot read such a file back (the node refuses it
 *            before anything is sent; see docs/binary-data.md).
 *
 *   npm run bench:upload-database -- [--sizes-mib 250,300] [--queue-sizes-mib 200,300] [--skip-regular] [--skip-queue]
 *
 * The fake API checks every upload (fields, file last, Content-Length, bytes, SHA-256).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { fakeTranscription, STORAGE_PATH } from '../test/fake-api/routes/transcription';
import { fakeApiCredentialData } from '../test/support/fakeApiCredential';
import { packedPackageForTests } from '../test/support/n8n/install';
import { chain, CREDENTIAL_TYPE, type WorkflowJson, type WorkflowNode } from '../test/support/n8n/workflows';
import { QueueModeN8n, queueServicesPresent } from '../test/support/queueMode';
import {
	BENCH_CREDENTIAL,
	MiB,
	packageUploadNode,
	requireNode24,
	RssSampler,
	runBench,
	say,
	startBenchFakeApi,
	startBenchN8n,
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

const readNode: WorkflowNode = {
	name: 'Read Recording',
	type: 'n8n-nodes-base.readWriteFile',
	typeVersion: 1,
	position: [200, 0],
	parameters: { operation: 'read', fileSelector: '={{ $json.body.path }}', options: {} },
};

/** Read → the binary's id and size as the webhook's answer. */
const storeWorkflow: WorkflowJson = {
	name: 'bench-database-store',
	nodes: [
		webhook('bench-database-store', 'firstEntryJson'),
		readNode,
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

/** The stored file (by id, from the body) → Upload Audio. */
const uploadWorkflow: WorkflowJson = {
	name: 'bench-database-upload',
	nodes: [
		webhook('bench-database-upload', 'noData'),
		{
			name: 'Stored Recording',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [200, 0],
			parameters: {
				jsCode:
					"const { id } = $input.first().json.body;\nreturn [{ json: {}, binary: { data: { id, data: 'database', mimeType: 'audio/wav', fileName: 'recording.wav', fileExtension: 'wav' } } }];",
			},
		},
		packageUploadNode([400, 0], "={{ $('Webhook').item.json.body.txnId }}"),
	],
	connections: chain('Webhook', 'Stored Recording', 'Upload'),
	settings: { executionOrder: 'v1' },
};

/** Read → Upload Audio in one run (queue mode). */
const readAndUploadWorkflow: WorkflowJson = {
	name: 'bench-database-read-upload',
	nodes: [webhook('bench-database-read-upload', 'noData'), readNode, packageUploadNode([400, 0], "={{ $('Webhook').item.json.body.txnId }}")],
	connections: chain('Webhook', 'Read Recording', 'Upload'),
	settings: { executionOrder: 'v1' },
};

async function regularMode(fake: BenchFakeApi, dir: string, sizesMiB: number[]): Promise<void> {
	const control = fakeTranscription(fake.api);
	say('[regular, SQLite] starting n8n (N8N_DEFAULT_BINARY_DATA_MODE=database)…');
	const bench = await startBenchN8n({
		api: fake.api,
		workflows: [storeWorkflow, uploadWorkflow],
		env: { N8N_DEFAULT_BINARY_DATA_MODE: 'database', N8N_RESTRICT_FILE_ACCESS_TO: dir, N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE: '1024' },
	});
	const lines: string[] = [];
	let sampler: RssSampler | undefined;
	const warmPath = join(dir, 'warm.wav');
	writeRecording(warmPath, 4);
	try {
		for (const sizeMiB of sizesMiB) {
			const path = join(dir, `regular-${sizeMiB}.wav`);
			say(`[regular, SQLite] writing a ${sizeMiB} MiB recording…`);
			const sha256 = writeRecording(path, sizeMiB);
			const size = sizeMiB * MiB;
			const stored = await bench.trigger('bench-database-store', { path });
			if (stored.status !== 200) throw new Error(`store: webhook answered ${stored.status}: ${await bench.lastError('bench-database-store')}`);
			const { id, bytes } = JSON.parse(stored.text) as { id: string; bytes: number };
			if (!String(id).startsWith('database:') || bytes !== size) throw new Error(`store: unexpected answer ${stored.text}`);
			rmSync(path, { force: true });
			say(`[regular, SQLite] stored as ${id} (${(stored.ms / 1000).toFixed(1)} s); restarting n8n for a clean RSS…`);
			sampler?.stop();
			await bench.restart();
			sampler = new RssSampler(bench.n8n.serverPid!);
			sampler.start();
			// Warm-up: the upload path's code loaded, its sockets open (a small file of its own).
			const warm = await bench.trigger('bench-database-store', { path: warmPath });
			const warmUpload = await bench.trigger('bench-database-upload', { id: (JSON.parse(warm.text) as { id: string }).id, txnId: `txn-bench-db-warm-${sizeMiB}` });
			if (warmUpload.status !== 200) throw new Error(`warm-up upload: ${await bench.lastError('bench-database-upload')}`);
			await new Promise((resolveWait) => setTimeout(resolveWait, 1000));
			fake.clearDone();
			const txnId = `txn-bench-db-${sizeMiB}-${randomBytes(3).toString('hex')}`;
			const before = (await sampler.sample()) ?? NaN;
			const started = Date.now();
			const answer = await bench.trigger('bench-database-upload', { id, txnId });
			const seconds = (Date.now() - started) / 1000;
			// Presign, storage, init: anything of the transaction.
			const sent = fake.api.requests.filter((r) => r.time >= started && /^\/(v1\/file-upload|storage\/|voice\/)/.test(r.pathname)).length;
			if (answer.status !== 200) {
				lines.push(`  ${sizeMiB} MiB: refused after ${seconds.toFixed(1)} s, ${sent} requests of the transaction sent: ${await bench.lastError('bench-database-upload')}`);
			} else {
				const post = fake.done.find((r) => r.method === 'POST' && r.pathname.startsWith(STORAGE_PATH));
				if (!post) throw new Error('upload: no storage POST seen');
				const growth = sampler.growth(started, post.doneAt);
				const upload = control.uploads().find((u) => u.txnId === txnId);
				const intact = upload !== undefined && upload.size === size && upload.sha256 === sha256 && upload.contentLength === upload.bodyBytes;
				if (!intact) process.exitCode = 1;
				const postSeconds = (post.doneAt - post.time) / 1000;
				lines.push(
					`  ${sizeMiB} MiB: ${intact ? 'uploaded intact' : 'PROBLEM: storage did not get the file intact'}; run ${seconds.toFixed(1)} s, storage POST ${postSeconds.toFixed(1)} s (${(sizeMiB / postSeconds).toFixed(0)} MiB/s); ` +
						`n8n RSS ${(before / MiB).toFixed(0)} MiB before, peak growth ${(growth / MiB).toFixed(0)} MiB from the run's start to the storage POST's end (${(growth / size).toFixed(2)}× the file)`,
				);
			}
			say(`[regular, SQLite]${lines[lines.length - 1]}`);
		}
	} finally {
		sampler?.stop();
		await bench.dispose();
	}
	say();
	say(`regular mode (SQLite), database binary mode, Code node (the stored file by id) → Upload Audio (Node ${process.version}):`);
	for (const line of lines) say(line);
}

async function queueMode(fake: BenchFakeApi, dir: string, sizesMiB: number[]): Promise<void> {
	if (!queueServicesPresent()) {
		say('[queue] skipped: redis-server or PostgreSQL is not installed (sudo bash scripts/install-queue-services.sh)');
		return;
	}
	const control = fakeTranscription(fake.api);
	say('[queue] starting PostgreSQL, Redis, main, webhook process and worker (binary data: database, queue mode\'s default)…');
	const queue = await QueueModeN8n.create({
		packageTarball: await packedPackageForTests(),
		env: { N8N_RESTRICT_FILE_ACCESS_TO: dir, N8N_LOG_LEVEL: 'warn', N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE: '1024' },
	});
	const lines: string[] = [];
	try {
		await queue.main.importCredentials([{ ...BENCH_CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(fake.api) }]);
		const [workflowId] = await queue.main.importWorkflows([readAndUploadWorkflow]);
		await queue.start();
		await queue.main.ensureOwner({ email: 'bench@clinic-scribe.test', password: 'Bench-Password-1', firstName: 'Bench', lastName: 'Owner' });
		await queue.main.activateWorkflow(workflowId, { timeoutMs: 120_000 });
		const sampler = new RssSampler(queue.worker!.pid);
		sampler.start();
		for (const sizeMiB of sizesMiB) {
			const path = join(dir, `queue-${sizeMiB}.wav`);
			say(`[queue] writing a ${sizeMiB} MiB recording…`);
			const sha256 = writeRecording(path, sizeMiB);
			const txnId = `txn-bench-queue-${sizeMiB}-${randomBytes(3).toString('hex')}`;
			fake.clearDone();
			const before = (await sampler.sample()) ?? NaN;
			const started = Date.now();
			// Bounded: a read that never finishes (a file past the mode's limit, before the node checked it) is a finding.
			const answer = await fetch(queue.webhookUrl('bench-database-read-upload'), {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ path, txnId }),
				signal: AbortSignal.timeout(5 * 60_000),
			}).catch((error: unknown) => ({ status: 0, text: async () => `no answer within 5 minutes (${String(error)})` }));
			const text = await answer.text();
			const seconds = (Date.now() - started) / 1000;
			const growth = sampler.growth(started, Date.now());
			const upload = control.uploads().find((u) => u.txnId === txnId);
			const storagePosts = fake.done.filter((r) => r.method === 'POST' && r.pathname.startsWith(STORAGE_PATH) && r.pathname.includes(txnId)).length;
			let outcome: string;
			if (answer.status === 200 && upload && upload.size === sizeMiB * MiB && upload.sha256 === sha256) outcome = 'uploaded intact';
			else {
				const [newest] = await queue.main.listExecutions({ workflowId }, 1);
				const execution = newest ? await queue.main.getExecution(newest.id) : undefined;
				const error = execution ? (Object.values(execution.runData).flat().find((r) => r.error)?.error ?? execution.error) : undefined;
				outcome = `failed (HTTP ${answer.status}${text ? ` ${text.slice(0, 120)}` : ''}): ${error ? error.message : 'no error recorded'}; storage POSTs: ${storagePosts}`;
			}
			lines.push(`  ${sizeMiB} MiB: ${outcome}; ${seconds.toFixed(1)} s; worker RSS ${(before / MiB).toFixed(0)} MiB before, peak growth ${(growth / MiB).toFixed(0)} MiB over the run (${(growth / (sizeMiB * MiB)).toFixed(2)}× the file)`);
			say(`[queue]${lines[lines.length - 1]}`);
			rmSync(path, { force: true });
		}
		sampler.stop();
	} finally {
		await queue.dispose();
	}
	say();
	say(`queue mode (PostgreSQL), database binary mode, Read/Write Files → Upload Audio on the worker (Node ${process.version}):`);
	for (const line of lines) say(line);
}

async function main(): Promise<void> {
	requireNode24();
	const sizes = (name: string, fallback: string) => {
		const at = process.argv.indexOf(`--${name}`);
		return (at === -1 ? fallback : process.argv[at + 1]).split(',').map(Number);
	};
	const regularSizes = sizes('sizes-mib', '250,300');
	const queueSizes = sizes('queue-sizes-mib', '200,300');
	const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-bench-database-'));
	const fake = await startBenchFakeApi();
	try {
		if (!process.argv.includes('--skip-regular')) await regularMode(fake, dir, regularSizes);
		if (!process.argv.includes('--skip-queue')) await queueMode(fake, dir, queueSizes);
	} finally {
		await fake.api.close();
		rmSync(dir, { recursive: true, force: true });
	}
}

runBench(main);
