/**
 * n8n in queue mode for end-to-end tests: a private Redis and PostgreSQL (queueServices.ts), then
 * the three kinds of n8n process sharing one user folder (with this package installed) and one
 * database:
 *
 *   main     `n8n start`    REST API, activation (runs the trigger's webhookMethods)
 *   webhook  `n8n webhook`  serves /webhook/…; WEBHOOK_URL points here, so triggers register it
 *   worker   `n8n worker`   runs the executions the other two put on the Redis queue
 *
 * Every process is started by ServiceProcess and stopped by its PID (queueServices.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { N8nInstance } from './n8n/instance';
import { freePort, summariseLog } from './n8n/processes';
import {
	ensureQueueServicesInstalled,
	ServiceProcess,
	startPostgres,
	startRedis,
	type PrivatePostgres,
} from './queueServices';

// ---------------------------------------------------------------------------------------------
// n8n in queue mode
// ---------------------------------------------------------------------------------------------

export interface QueueModeN8nOptions {
	packageTarball: string;
	/** Extra environment for all three n8n processes. */
	env?: Record<string, string | undefined>;
	/** The worker's `--concurrency` (n8n's default: 10); 1 shows whether a waiting run holds the slot. */
	workerConcurrency?: number;
	timeoutMs?: number;
}

/**
 * Redis, PostgreSQL and the three n8n processes. create() prepares services, database and user
 * folder (import credentials/workflows then, through `main`'s CLI); start() starts main, then the
 * webhook process and the worker; dispose() stops everything by PID and removes the temp folders.
 */
export class QueueModeN8n {
	webhook: ServiceProcess | undefined;
	worker: ServiceProcess | undefined;
	readonly timings: Record<string, number> = {};
	private workerConcurrency: number | undefined;

	private constructor(
		readonly dir: string,
		readonly redis: { port: number; process: ServiceProcess },
		readonly postgres: PrivatePostgres,
		/** `n8n start`, and the CLI (import) on the shared user folder and database. */
		readonly main: N8nInstance,
		readonly webhookPort: number,
		private readonly webhookBrokerPort: number,
		readonly workerPort: number,
		private readonly workerBrokerPort: number,
	) {}

	get webhookBaseUrl(): string {
		return `http://127.0.0.1:${this.webhookPort}`;
	}

	/** The production URL of a webhook path as the webhook process serves it. */
	webhookUrl(path: string): string {
		return `${this.webhookBaseUrl}/webhook/${path.replace(/^\//, '')}`;
	}

	static async create(options: QueueModeN8nOptions): Promise<QueueModeN8n> {
		let started = Date.now();
		const services = await ensureQueueServicesInstalled();
		const timings: Record<string, number> = { 'install-queue-services.sh': Date.now() - started };
		const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-queue-'));
		let redis: { port: number; process: ServiceProcess } | undefined;
		let postgres: PrivatePostgres | undefined;
		try {
			started = Date.now();
			redis = await startRedis(services.redisServerBin, join(dir, 'redis'));
			timings['redis ready'] = Date.now() - started;
			started = Date.now();
			postgres = await startPostgres(services.pgBinDir);
			timings['postgres initdb + ready'] = Date.now() - started;

			const ports = new Set<number>();
			const distinctPort = async () => {
				let port = await freePort();
				while (ports.has(port)) port = await freePort();
				ports.add(port);
				return port;
			};
			const [mainPort, mainBroker, webhookPort, webhookBroker, workerPort, workerBroker] = [
				await distinctPort(),
				await distinctPort(),
				await distinctPort(),
				await distinctPort(),
				await distinctPort(),
				await distinctPort(),
			];
			const main = await N8nInstance.create({
				userFolder: join(dir, 'n8n'),
				port: mainPort,
				brokerPort: mainBroker,
				packageTarball: options.packageTarball,
				logFile: join(dir, 'n8n-main.log'),
				env: {
					EXECUTIONS_MODE: 'queue',
					QUEUE_BULL_REDIS_HOST: '127.0.0.1',
					QUEUE_BULL_REDIS_PORT: String(redis.port),
					DB_TYPE: 'postgresdb',
					DB_POSTGRESDB_HOST: '127.0.0.1',
					DB_POSTGRESDB_PORT: String(postgres.port),
					DB_POSTGRESDB_DATABASE: postgres.database,
					DB_POSTGRESDB_USER: postgres.user,
					DB_POSTGRESDB_PASSWORD: '',
					// Triggers register the webhook process's address, not main's.
					WEBHOOK_URL: `http://127.0.0.1:${webhookPort}/`,
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
					...options.env,
				},
			});
			const queue = new QueueModeN8n(
				dir,
				redis,
				postgres,
				main,
				webhookPort,
				webhookBroker,
				workerPort,
				workerBroker,
			);
			Object.assign(queue.timings, timings);
			queue.workerConcurrency = options.workerConcurrency;
			return queue;
		} catch (error) {
			await postgres?.process.stop();
			await redis?.process.stop();
			if (postgres) rmSync(postgres.dir, { recursive: true, force: true });
			rmSync(dir, { recursive: true, force: true });
			throw error;
		}
	}

	/** Environment of the webhook process or the worker: main's, on ports of their own. */
	private envFor(
		port: number,
		brokerPort: number,
		extra: Record<string, string> = {},
	): NodeJS.ProcessEnv {
		return {
			...this.main.env(),
			N8N_PORT: String(port),
			N8N_RUNNERS_BROKER_PORT: String(brokerPort),
			...extra,
		};
	}

	private startN8nProcess(
		kind: 'webhook' | 'worker',
		env: NodeJS.ProcessEnv,
		flags: string[] = [],
	): ServiceProcess {
		return ServiceProcess.start({
			name: `n8n ${kind}`,
			command: this.main.installation.nodeBin,
			args: [this.main.installation.n8nBin, kind, ...flags],
			cwd: this.main.userFolder,
			env,
			logFile: join(this.dir, `n8n-${kind}.log`),
			stopGroup: true,
		});
	}

	/** Stops the worker and starts a fresh one (a bench's memory figure then starts from a new process). */
	async restartWorker(options: { timeoutMs?: number } = {}): Promise<void> {
		await this.worker?.stop();
		this.worker = this.startWorker();
		await this.worker.waitUntil(
			`ready on port ${this.workerPort}`,
			async () => await isReady(`http://127.0.0.1:${this.workerPort}/healthz/readiness`),
			options.timeoutMs ?? 180_000,
		);
	}

	private startWorker(): ServiceProcess {
		return this.startN8nProcess(
			'worker',
			this.envFor(this.workerPort, this.workerBrokerPort, {
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(this.workerPort),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			}),
			this.workerConcurrency === undefined ? [] : [`--concurrency=${this.workerConcurrency}`],
		);
	}

	/**
	 * Stops `n8n start` and starts it again on the same port, user folder, database and Redis (the
	 * webhook process and the worker keep running). Its session is gone: log in again.
	 */
	async restartMain(options: { timeoutMs?: number } = {}): Promise<void> {
		const started = Date.now();
		await this.main.stop();
		await this.main.start({ timeoutMs: options.timeoutMs ?? 180_000 });
		this.timings['main restart'] = Date.now() - started;
	}

	/** Starts main (readiness), then the webhook process and the worker together (readiness of both). */
	async start(options: { timeoutMs?: number } = {}): Promise<void> {
		const timeoutMs = options.timeoutMs ?? 180_000;
		let started = Date.now();
		await this.main.start({ timeoutMs });
		this.timings['main ready'] = Date.now() - started;

		started = Date.now();
		this.webhook = this.startN8nProcess(
			'webhook',
			this.envFor(this.webhookPort, this.webhookBrokerPort),
		);
		this.worker = this.startWorker();
		await Promise.all([
			this.webhook.waitUntil(
				`ready on ${this.webhookBaseUrl}`,
				async () => await isReady(`${this.webhookBaseUrl}/healthz/readiness`),
				timeoutMs,
			),
			this.worker.waitUntil(
				`ready on port ${this.workerPort}`,
				async () => await isReady(`http://127.0.0.1:${this.workerPort}/healthz/readiness`),
				timeoutMs,
			),
		]);
		this.timings['webhook + worker ready'] = Date.now() - started;
	}

	/** Stops the n8n processes (worker, webhook, main), then Redis and PostgreSQL; removes temp folders. */
	async dispose(options: { keepFiles?: boolean } = {}): Promise<void> {
		await this.worker?.stop();
		await this.webhook?.stop();
		await this.main.stop();
		await this.redis.process.stop();
		await this.postgres.process.stop();
		if (!options.keepFiles) {
			rmSync(this.postgres.dir, { recursive: true, force: true });
			rmSync(this.dir, { recursive: true, force: true });
		}
	}

	/** Logs of all processes, for a failure message. */
	describe(): string {
		return [
			`main: ${summariseLog(this.main.recentServerLog().join('\n'))}`,
			this.webhook?.describe() ?? 'webhook: not started',
			this.worker?.describe() ?? 'worker: not started',
		].join('\n\n');
	}
}

async function isReady(url: string): Promise<boolean> {
	try {
		const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
		await response.arrayBuffer();
		return response.status === 200;
	} catch {
		return false;
	}
}
