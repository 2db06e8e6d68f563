/**
 * One n8n in a user folder of its own: its CLI (`n8n import`, `n8n execute`), its server
 * (`n8n start`) and the REST client the tests drive it with (restClient.ts). Every process runs in
 * its own process group and is stopped by that group's id (see processes.ts).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
	createWriteStream,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import type { WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import {
	ensureN8nInstalled,
	installPackageTarball,
	majorVersionOf,
	recordCommunityPackage,
	type N8nInstallation,
	type N8nLine,
} from './install';
import {
	delay,
	freePort,
	isPortFree,
	runProcess,
	stopGroup,
	summariseLog,
	trackGroup,
	type CliResult,
} from './processes';
import { parseExecuteOutput, toExecutionResult, type ExecutionResult } from './results';
import { N8nRestClient } from './restClient';
import { newId, type CredentialImport, type WorkflowJson } from './workflows';

/** Fixed, so a user folder made by one run can be opened by the next (npm start keeps one). */
export const TEST_ENCRYPTION_KEY = 'clinic-scribe-e2e-encryption-key-not-secret';

/**
 * Modules that start services the tests do not need (and that slow every boot), per n8n major
 * version: n8n 1.x refuses to start when N8N_DISABLED_MODULES names a module it does not know (its
 * list: insights, external-secrets, community-packages, data-table, mcp, chat-hub, provisioning,
 * breaking-changes; @n8n/backend-common 1.x modules.config.js).
 */
const DISABLED_MODULES: Record<number, string> = {
	1: 'mcp,chat-hub,breaking-changes',
	2: 'mcp-registry,instance-ai,agents,chat-hub,workflow-builder',
};

export interface N8nInstanceOptions {
	/** Which installed n8n runs this instance: the newest supported (default) or the oldest. */
	n8nLine?: N8nLine;
	/** Where n8n keeps .n8n/ (database, installed packages). Default: a new temp folder, removed by dispose(). */
	userFolder?: string;
	/** Keep a temp user folder after dispose() (for debugging). */
	keepUserFolder?: boolean;
	/** HTTP port of `n8n start`. Default: a free port. */
	port?: number;
	/** Task runner broker port; distinct per n8n process. Default: a free port. */
	brokerPort?: number;
	/** Extra or overriding environment for every n8n process of this instance. */
	env?: Record<string, string | undefined>;
	/** Where the output of `n8n start` goes. Default: <userFolder>/n8n-start.log. */
	logFile?: string;
	/** Packed package to install into the user folder at create(). */
	packageTarball?: string;
	/**
	 * Pass the caller's n8n settings (N8N_*, DB_*, EXECUTIONS_*, …) through, over this harness's
	 * defaults (not the user folder, ports, address, key). Off for tests: they must not depend on
	 * the shell they run in.
	 */
	inheritN8nEnv?: boolean;
}

/** Environment variables n8n reads as settings. */
const N8N_SETTING =
	/^(N8N_|DB_|EXECUTIONS_|QUEUE_|WEBHOOK_URL$|GENERIC_TIMEZONE$|NODES_|CREDENTIALS_|WORKFLOWS_|OFFLOAD_)/;
/** Settings an instance always sets itself, even with inheritN8nEnv. */
const PINNED_SETTINGS = new Set([
	'N8N_USER_FOLDER',
	'N8N_PORT',
	'N8N_RUNNERS_BROKER_PORT',
	'N8N_ENCRYPTION_KEY',
	'N8N_LISTEN_ADDRESS',
	'WEBHOOK_URL',
]);

export class N8nInstance extends N8nRestClient {
	readonly userFolder: string;
	readonly port: number;
	readonly brokerPort: number;
	private readonly ownsUserFolder: boolean;
	private readonly keepUserFolder: boolean;
	private readonly extraEnv: Record<string, string | undefined>;
	private readonly logFile: string;
	private readonly inheritN8nEnv: boolean;
	private server:
		| { child: ChildProcess; exited: Promise<void>; log: WriteStream; recent: string[] }
		| undefined;
	private disposed = false;
	/** Package folders installed by installPackage() and not yet recorded in n8n's database. */
	private readonly packagesToRecord = new Set<string>();

	private constructor(
		readonly installation: N8nInstallation,
		options: N8nInstanceOptions & { port: number; brokerPort: number },
	) {
		super(`http://127.0.0.1:${options.port}`);
		this.ownsUserFolder = options.userFolder === undefined;
		this.userFolder = options.userFolder ?? mkdtempSync(join(tmpdir(), 'clinic-scribe-n8n-'));
		mkdirSync(this.userFolder, { recursive: true });
		this.keepUserFolder = options.keepUserFolder ?? false;
		this.port = options.port;
		this.brokerPort = options.brokerPort;
		this.extraEnv = options.env ?? {};
		this.logFile = options.logFile ?? join(this.userFolder, 'n8n-start.log');
		this.inheritN8nEnv = options.inheritN8nEnv ?? false;
	}

	/** Ensures n8n is installed, prepares the user folder, installs the package if given. */
	static async create(options: N8nInstanceOptions = {}): Promise<N8nInstance> {
		const installed = await ensureN8nInstalled({ line: options.n8nLine });
		const port = options.port ?? (await freePort());
		let brokerPort = options.brokerPort ?? (await freePort());
		while (brokerPort === port) brokerPort = await freePort();
		const instance = new N8nInstance(installed, { ...options, port, brokerPort });
		if (options.packageTarball) instance.installPackage(options.packageTarball);
		return instance;
	}

	/**
	 * Installs a packed package into the user folder; the next start() also records it in n8n's
	 * database, as n8n's own install does, so Settings → Community nodes lists it.
	 */
	installPackage(tarball: string): { name: string; version: string; directory: string } {
		const installed = installPackageTarball(this.userFolder, tarball);
		this.packagesToRecord.add(installed.directory);
		return installed;
	}

	/** The major version of the n8n this instance runs (1 or 2). */
	get majorVersion(): number {
		return majorVersionOf(this.installation);
	}

	/** The environment every n8n process of this instance gets. */
	env(): NodeJS.ProcessEnv {
		const env: NodeJS.ProcessEnv = { ...process.env };
		// The parent may run under tsx or jest; n8n must not inherit their loaders, and jest's
		// NODE_ENV=test silences n8n's logger (where execute() reads the run from).
		delete env.NODE_OPTIONS;
		// n8n settings of the calling shell would make runs differ from machine to machine.
		const inherited: Record<string, string> = {};
		for (const key of Object.keys(env)) {
			if (N8N_SETTING.test(key)) {
				if (this.inheritN8nEnv && !PINNED_SETTINGS.has(key)) inherited[key] = env[key] as string;
				delete env[key];
			} else if (key.startsWith('npm_') || key.startsWith('JEST_')) delete env[key];
		}
		Object.assign(env, {
			NODE_ENV: 'production',
			PATH: `${dirname(this.installation.nodeBin)}:${process.env.PATH ?? ''}`,
			N8N_USER_FOLDER: this.userFolder,
			N8N_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
			DB_TYPE: 'sqlite',
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			N8N_PROTOCOL: 'http',
			N8N_PORT: String(this.port),
			WEBHOOK_URL: `${this.baseUrl}/`,
			N8N_EDITOR_BASE_URL: `${this.baseUrl}/`,
			N8N_RUNNERS_BROKER_PORT: String(this.brokerPort),
			N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
			N8N_LOG_FORMAT: 'json',
			N8N_LOG_LEVEL: 'info',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			N8N_SECURE_COOKIE: 'false',
			N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
			N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
			N8N_REINSTALL_MISSING_PACKAGES: 'false',
			N8N_DISABLED_MODULES: DISABLED_MODULES[this.majorVersion] ?? '',
			N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '500',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		});
		Object.assign(env, inherited);
		for (const [key, value] of Object.entries(this.extraEnv)) {
			if (value === undefined) delete env[key];
			else env[key] = value;
		}
		return env;
	}

	/**
	 * Runs one n8n CLI command (`n8n <args>`) to its end, bounded by timeoutMs. Do not run two at
	 * once on one user folder, nor while start()ed: they share one SQLite database.
	 */
	async cli(args: string[], options: { timeoutMs?: number } = {}): Promise<CliResult> {
		this.assertUsable();
		return await runProcess(this.installation.nodeBin, [this.installation.n8nBin, ...args], {
			cwd: this.userFolder,
			env: this.env(),
			timeoutMs: options.timeoutMs ?? 3 * 60_000,
			what: `n8n ${args.join(' ')}`,
			capture: 'files',
		});
	}

	private async cliOrThrow(
		args: string[],
		options: { timeoutMs?: number } = {},
	): Promise<CliResult> {
		const result = await this.cli(args, options);
		if (result.code !== 0) {
			throw new Error(
				`n8n ${args.join(' ')} failed (exit ${result.code ?? result.signal}):\n${summariseLog(result.stdout + result.stderr)}`,
			);
		}
		return result;
	}

	/** `n8n import:credentials`: data in clear, n8n encrypts it with the instance's key. */
	async importCredentials(credentials: CredentialImport[]): Promise<void> {
		await this.withTempFile(credentials, async (file) => {
			await this.cliOrThrow(['import:credentials', `--input=${file}`]);
		});
	}

	/**
	 * `n8n import:workflow` of one or more workflows (one CLI run). Workflows without an id get one.
	 * Returns the ids in order. Nodes must reference credentials by {id, name}.
	 */
	async importWorkflows(workflows: WorkflowJson[]): Promise<string[]> {
		const withIds = workflows.map((w) => ({ ...w, id: w.id ?? newId(), active: false }));
		await this.withTempFile(withIds, async (file) => {
			await this.cliOrThrow(['import:workflow', `--input=${file}`]);
		});
		return withIds.map((w) => w.id);
	}

	async importWorkflow(workflow: WorkflowJson): Promise<string> {
		const [id] = await this.importWorkflows([workflow]);
		return id;
	}

	/**
	 * `n8n execute --id=<id>`: runs the workflow from its start node (a Manual Trigger) in a
	 * process of its own and returns the run. A failed run is returned with `error` set (status
	 * 'error'), not thrown; anything else unexpected (no run in the output) throws with the log.
	 */
	async execute(
		workflowId: string,
		options: { timeoutMs?: number } = {},
	): Promise<ExecutionResult> {
		const result = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput'], options);
		const output = result.stdout + '\n' + result.stderr;
		const run = parseExecuteOutput(result.stdout) ?? parseExecuteOutput(result.stderr);
		if (!run) {
			throw new Error(
				`n8n execute --id=${workflowId} printed no run (exit ${result.code ?? result.signal}):\n${summariseLog(output)}`,
			);
		}
		const execution = toExecutionResult(run);
		execution.processExit = { code: result.code, signal: result.signal };
		if (result.signal === 'SIGSEGV') {
			// n8n 2.41.1's `execute` exits without disposing its isolated-vm expression engine, and
			// Node 24 then sometimes crashes in an isolate thread during exit (seen in gdb: the main
			// thread joining, an isolate thread allocating). The run was complete and printed by
			// then, so it stands; a crash before the run is printed fails above.
			return execution;
		}
		if (result.code !== 0 && !execution.error) {
			throw new Error(
				`n8n execute --id=${workflowId} exited ${result.code ?? result.signal} without an execution error:\n${summariseLog(output)}`,
			);
		}
		if (result.code === 0 && execution.error) {
			throw new Error(
				`n8n execute --id=${workflowId} exited 0 but the run has an error: ${execution.error.message}`,
			);
		}
		return execution;
	}

	// --- long-running server -----------------------------------------------------------------

	get running(): boolean {
		return this.server !== undefined;
	}

	/**
	 * Resolves when the started `n8n start` exits by itself or by stop() (with its exit code or
	 * signal); undefined while not started.
	 */
	serverExit(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined {
		const server = this.server;
		if (!server) return undefined;
		return server.exited.then(() => ({
			code: server.child.exitCode,
			signal: server.child.signalCode,
		}));
	}

	/** PID (and process group id) of the started `n8n start`, while started. */
	get serverPid(): number | undefined {
		return this.server?.child.pid;
	}

	/**
	 * Starts `n8n start` in its own process group and waits until /healthz/readiness answers 200.
	 * Throws (after stopping it) when it exits early or is not ready within timeoutMs.
	 */
	async start(options: { timeoutMs?: number } = {}): Promise<void> {
		this.assertUsable();
		if (this.server) throw new Error('n8n is already started');
		const timeoutMs = options.timeoutMs ?? 120_000;
		// Otherwise the readiness check could be answered by whatever already listens there.
		if (!(await isPortFree(this.port))) {
			throw new Error(
				`port ${this.port} on 127.0.0.1 is in use (another n8n?); choose another port`,
			);
		}
		mkdirSync(dirname(this.logFile), { recursive: true });
		const log = createWriteStream(this.logFile, { flags: 'a' });
		const child = spawn(this.installation.nodeBin, [this.installation.n8nBin, 'start'], {
			cwd: this.userFolder,
			env: this.env(),
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		const recent: string[] = [];
		const remember = (chunk: Buffer) => {
			log.write(chunk);
			for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) recent.push(line);
			if (recent.length > 200) recent.splice(0, recent.length - 200);
		};
		child.stdout?.on('data', remember);
		child.stderr?.on('data', remember);
		const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
		let hasExited = false;
		void exited.then(() => {
			hasExited = true;
		});
		this.server = { child, exited, log, recent };
		trackGroup(child.pid);

		const deadline = Date.now() + timeoutMs;
		try {
			for (;;) {
				if (hasExited) {
					throw new Error(
						`n8n start exited (code ${child.exitCode ?? child.signalCode}) before it was ready:\n${summariseLog(recent.join('\n'))}`,
					);
				}
				if (Date.now() > deadline) {
					throw new Error(
						`n8n start was not ready within ${timeoutMs} ms (${this.baseUrl}/healthz/readiness):\n${summariseLog(recent.join('\n'))}`,
					);
				}
				if (await this.isReady()) break;
				await delay(250);
			}
			// After start: n8n has migrated the database by now, on a first start too.
			for (const directory of this.packagesToRecord) {
				await recordCommunityPackage(this.installation, this.env(), directory);
				this.packagesToRecord.delete(directory);
			}
		} catch (error) {
			await this.stop();
			throw error;
		}
	}

	private async isReady(): Promise<boolean> {
		try {
			const response = await fetch(`${this.baseUrl}/healthz/readiness`, {
				signal: AbortSignal.timeout(2000),
			});
			await response.arrayBuffer();
			return response.status === 200;
		} catch {
			return false;
		}
	}

	/** Lines `n8n start` printed so far (last 200). */
	recentServerLog(): string[] {
		return this.server ? [...this.server.recent] : [];
	}

	/** Everything `n8n start` has printed in this user folder so far (every start appends). */
	serverLog(): string {
		return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8') : '';
	}

	/** SIGTERM to the server's process group, SIGKILL after timeoutMs. Safe to call when stopped. */
	async stop(options: { timeoutMs?: number } = {}): Promise<void> {
		const server = this.server;
		if (!server) return;
		this.server = undefined;
		this.cookie = undefined;
		await stopGroup(server.child, server.exited, options.timeoutMs ?? 20_000);
		await new Promise<void>((resolveClose) => server.log.end(() => resolveClose()));
	}

	/** stop(), and removes a temp user folder made by create(). */
	async dispose(): Promise<void> {
		await this.stop();
		if (this.disposed) return;
		this.disposed = true;
		if (this.ownsUserFolder && !this.keepUserFolder)
			rmSync(this.userFolder, { recursive: true, force: true });
	}

	// --- REST API (needs start()) ------------------------------------------------------------
	private async withTempFile<T>(content: unknown, use: (file: string) => Promise<T>): Promise<T> {
		const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-import-'));
		const file = join(dir, 'import.json');
		try {
			writeFileSync(file, JSON.stringify(content), { mode: 0o600 });
			return await use(file);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}

	private assertUsable(): void {
		if (this.disposed) throw new Error('this N8nInstance was disposed');
	}
}
