/**
 * Hosts a bench inside a real n8n 2.41.1 on Node 24, through the e2e harness (test/support/n8n.ts):
 * the package is built, packed and installed as a community package into a private n8n user
 * folder; credentials and webhook workflows are imported; `n8n start` runs and the workflows are
 * published; each round is one POST to a workflow's webhook (answered when its last node is done).
 *
 * The fake clinic API runs in this process (test/fake-api), so the bench sees every request's
 * arrival and completion: an upload's window is its storage POST's, for every contender alike
 * (this package, n8n's HTTP Request node, curl, bare Node). The n8n process's RSS is sampled from
 * /proc every 20 ms, so memory growth is measured inside that window.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

import {
	startFakeClinicApi,
	type FakeClinicApi,
	type RecordedRequest,
} from '../../test/fake-api/server';
import { fakeApiCredentialData } from '../../test/support/fakeApiCredential';
import { packedPackageForTests } from '../../test/support/n8n/install';
import { N8nInstance } from '../../test/support/n8n/instance';
import type { ExecutionResult } from '../../test/support/n8n/results';
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	type CredentialImport,
	type WorkflowJson,
	type WorkflowNode,
} from '../../test/support/n8n/workflows';

export const MiB = 1024 * 1024;

/** The Clinic Scribe credential every bench workflow uses. */
export const BENCH_CREDENTIAL = {
	id: 'clinicScribeBench1',
	name: 'Clinic Scribe (bench fake API)',
};

const OWNER = {
	email: 'bench@clinic-scribe.test',
	password: 'Bench-Password-1',
	firstName: 'Bench',
	lastName: 'Owner',
};

/** Fails early when the bench does not run on the Node n8n runs on (figures count only there). */
export function requireNode24(): void {
	if (!process.version.startsWith('v24.')) {
		throw new Error(
			`run the benches with the cached Node 24 (npm run bench does): this is ${process.version}`,
		);
	}
}

/** A request of the fake API with the time its answer was done (or the socket closed). */
export interface TimedRequest extends RecordedRequest {
	doneAt: number;
}

export interface BenchFakeApi {
	api: FakeClinicApi;
	/** Requests whose answer is done, in completion order (cleared by clearDone). */
	done: TimedRequest[];
	clearDone(): void;
}

export async function startBenchFakeApi(): Promise<BenchFakeApi> {
	const done: TimedRequest[] = [];
	const api = await startFakeClinicApi({
		maxRecordedRequests: 200_000,
		onRequestDone: (record) => done.push({ ...record, doneAt: Date.now() }),
	});
	return { api, done, clearDone: () => done.splice(0, done.length) };
}

export interface BenchN8n {
	n8n: N8nInstance;
	/** Workflow name → id. */
	ids: Record<string, string>;
	/** POSTs the JSON body to the webhook of a workflow; resolves when n8n answers (last node done). */
	trigger(
		path: string,
		body: unknown,
		timeoutMs?: number,
	): Promise<{ status: number; text: string; ms: number }>;
	/** The newest execution of a workflow, with its run data. */
	lastExecution(workflowName: string): Promise<ExecutionResult>;
	/** The error of the newest execution of a workflow (its failed node's, else the run's). */
	lastError(workflowName: string): Promise<string>;
	/**
	 * Stops and starts n8n again (same user folder, workflows stay published): a fresh process, so
	 * an RSS figure is not hidden by an earlier run's high-water mark.
	 */
	restart(): Promise<void>;
	dispose(): Promise<void>;
}

/**
 * Starts n8n with the packed package, the given credentials (plus the Clinic Scribe one for the
 * fake API) and workflows, and publishes every workflow (each starts with a Webhook node).
 */
export async function startBenchN8n(options: {
	api: FakeClinicApi;
	workflows: WorkflowJson[];
	credentials?: CredentialImport[];
	env?: Record<string, string>;
	/** The package to install instead of the one packed from this checkout (a bench-only copy). */
	packageTarball?: string;
}): Promise<BenchN8n> {
	const n8n = await N8nInstance.create({
		packageTarball: options.packageTarball ?? (await packedPackageForTests()),
		env: {
			N8N_LOG_LEVEL: 'warn',
			// Only what a bench needs; the in-memory mode's items would otherwise be stored per run.
			EXECUTIONS_DATA_SAVE_ON_PROGRESS: 'false',
			...options.env,
		},
	});
	try {
		await n8n.importCredentials([
			{ ...BENCH_CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(options.api) },
			...(options.credentials ?? []),
		]);
		const idList = await n8n.importWorkflows(options.workflows);
		const ids = Object.fromEntries(options.workflows.map((w, i) => [w.name, idList[i]]));
		await n8n.start({ timeoutMs: 240_000 });
		await n8n.ensureOwner(OWNER);
		for (const id of idList) await n8n.activateWorkflow(id, { timeoutMs: 120_000 });
		return {
			n8n,
			ids,
			trigger: async (path, body, timeoutMs = 30 * 60_000) => {
				// After a restart n8n registers published webhooks shortly after it reports ready.
				for (let attempt = 1; ; attempt++) {
					const started = performance.now();
					const response = await fetch(n8n.webhookUrl(path), {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify(body),
						signal: AbortSignal.timeout(timeoutMs),
					});
					const text = await response.text();
					if (response.status === 404 && attempt < 60) {
						await new Promise((resolveWait) => setTimeout(resolveWait, 500));
						continue;
					}
					return { status: response.status, text, ms: performance.now() - started };
				}
			},
			restart: async () => {
				await n8n.stop();
				await n8n.start({ timeoutMs: 240_000 });
				await n8n.ensureOwner(OWNER);
			},
			lastExecution: async (workflowName) => {
				const [newest] = await n8n.listExecutions({ workflowId: ids[workflowName] }, 1);
				if (!newest) throw new Error(`workflow "${workflowName}" has no execution`);
				return await n8n.getExecution(newest.id);
			},
			lastError: async (workflowName) => {
				const [newest] = await n8n.listExecutions({ workflowId: ids[workflowName] }, 1);
				if (!newest) return 'no execution';
				const failed = await n8n.getExecution(newest.id);
				const error =
					Object.values(failed.runData)
						.flat()
						.find((r) => r.error)?.error ?? failed.error;
				return error
					? `${error.message}${error.description ? ` — ${error.description}` : ''}`
					: `status ${failed.status}`;
			},
			dispose: async () => await n8n.dispose(),
		};
	} catch (error) {
		process.stderr.write(`n8n log (last lines):\n${n8n.recentServerLog().slice(-30).join('\n')}\n`);
		await n8n.dispose();
		throw error;
	}
}

/** A Webhook node (POST, answers when the last node is done) named "Webhook". */
export function webhookNode(path: string, webhookId: string): WorkflowNode {
	return {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId,
		parameters: {
			httpMethod: 'POST',
			path,
			responseMode: 'lastNode',
			responseData: 'noData',
			options: {},
		},
	};
}

/** This package's Upload Audio node named "Upload" (binary field "data", no waiting). */
export function packageUploadNode(position: [number, number], transactionId: string): WorkflowNode {
	return {
		name: 'Upload',
		type: ACTION_NODE_TYPE,
		typeVersion: 1,
		position,
		parameters: {
			resource: 'transcription',
			operation: 'uploadAudio',
			binaryPropertyName: 'data',
			transactionId,
			inputLanguages: ['en-IN'],
			outputTemplates: {
				templates: [
					{ template: 'clinical_notes_template', customTemplateId: '', codificationNeeded: false },
				],
			},
			waitForCompletion: false,
			options: {},
		},
		credentials: { clinicScribeApi: BENCH_CREDENTIAL },
	};
}

/** A process's CPU time so far (user + system, seconds; /proc's USER_HZ of 100). */
export function cpuSecondsOf(pid: number): number {
	const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
	return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Samples a process's RSS (and its CPU time) every intervalMs (from /proc), with timestamps. */
export class RssSampler {
	private readonly samples: Array<{ at: number; rss: number; cpu: number }> = [];
	private timer: NodeJS.Timeout | undefined;
	private reading = false;

	constructor(
		private readonly pid: number,
		private readonly intervalMs = 20,
	) {}

	start(): void {
		this.timer = setInterval(() => void this.sample(), this.intervalMs);
	}

	stop(): void {
		clearInterval(this.timer);
	}

	async sample(): Promise<number | undefined> {
		if (this.reading) return undefined;
		this.reading = true;
		try {
			const status = await readFile(`/proc/${this.pid}/status`, 'utf8');
			const kib = /VmRSS:\s+(\d+) kB/.exec(status);
			if (!kib) return undefined;
			const rss = Number(kib[1]) * 1024;
			this.samples.push({ at: Date.now(), rss, cpu: cpuSecondsOf(this.pid) });
			return rss;
		} catch {
			return undefined;
		} finally {
			this.reading = false;
		}
	}

	/** Peak RSS inside [from, to] minus the last sample before `from` (bytes). */
	growth(from: number, to: number): number {
		const before = this.samples.filter((s) => s.at <= from);
		const baseline =
			before.length > 0
				? before[before.length - 1].rss
				: this.samples.find((s) => s.at >= from)?.rss;
		const inside = this.samples.filter((s) => s.at >= from && s.at <= to + this.intervalMs);
		if (baseline === undefined || inside.length === 0) return NaN;
		return Math.max(...inside.map((s) => s.rss)) - baseline;
	}

	/** The CPU time the process used between the samples nearest `from` and `to` (seconds). */
	cpuBetween(from: number, to: number): number {
		const at = (time: number) =>
			(this.samples.find((s) => s.at >= time) ?? this.samples[this.samples.length - 1])?.cpu ?? NaN;
		return at(to) - at(from);
	}

	/** The highest RSS sampled inside [from, to] (bytes). */
	peak(from: number, to: number): number {
		const inside = this.samples.filter((s) => s.at >= from && s.at <= to + this.intervalMs);
		return inside.length === 0 ? NaN : Math.max(...inside.map((s) => s.rss));
	}

	/** The RSS of the last sample at or before `at` (bytes; the first sample when none is earlier). */
	rssAt(at: number): number {
		const before = this.samples.filter((s) => s.at <= at);
		return before.length > 0 ? before[before.length - 1].rss : (this.samples[0]?.rss ?? NaN);
	}

	clear(): void {
		this.samples.splice(0, this.samples.length);
	}
}

// ---------------------------------------------------------------------------------------------
// Figures
// ---------------------------------------------------------------------------------------------

export interface Spread {
	min: number;
	median: number;
	max: number;
}

export function spread(values: number[]): Spread {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	const median =
		sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	return { min: sorted[0], median, max: sorted[sorted.length - 1] };
}

export function formatSpread(s: Spread, digits = 2, unit = ''): string {
	return `${s.min.toFixed(digits)} / ${s.median.toFixed(digits)} / ${s.max.toFixed(digits)}${unit}`;
}

/** One line of a verdict: PASS or MISS, what was compared, the figures. */
export function verdict(pass: boolean, goal: string, figures: string): string {
	return `${pass ? 'PASS' : 'MISS'}  ${goal}: ${figures}`;
}

export function argument(name: string, fallback: number): number {
	const at = process.argv.indexOf(`--${name}`);
	const value = at === -1 ? fallback : Number(process.argv[at + 1]);
	if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
	return value;
}

/** --delay-ms N: how late the fake answers each call (a far API's round trip); 0 without the flag. */
export function delayMsArgument(): number {
	return process.argv.includes('--delay-ms') ? argument('delay-ms', 1) : 0;
}

export function say(line = ''): void {
	process.stdout.write(`${line}\n`);
}

/** Runs a bench's main and exits 1 with the stack when it throws. */
export function runBench(main: () => Promise<void>): void {
	main().then(
		() => process.exit(process.exitCode ?? 0),
		(error: unknown) => {
			process.stderr.write(
				`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`,
			);
			process.exit(1);
		},
	);
}
