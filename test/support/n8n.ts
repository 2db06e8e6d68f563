/**
 * A real n8n for end-to-end tests and `npm start`.
 *
 * n8n 2.41 needs Node 24; this repository's tooling runs on Node 20. scripts/install-n8n.sh puts
 * Node 24 and n8n@2.41.1 into a cache outside the repository; this module runs n8n's CLI and server
 * with that Node, in a user folder of its own, with this package installed the way n8n's
 * "Community nodes" screen installs it (npm pack → unpacked into <userFolder>/.n8n/nodes/node_modules,
 * and recorded in n8n's database at start, so that screen lists it).
 *
 * Every process started here runs in its own process group and is stopped by that group's id:
 * on stop(), on a timeout, and (as a last resort) when the parent process exits.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

// ---------------------------------------------------------------------------------------------
// Constants of this package inside n8n
// ---------------------------------------------------------------------------------------------

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const PACKAGE_NAME = 'n8n-nodes-clinic-scribe';
export const ACTION_NODE_TYPE = `${PACKAGE_NAME}.clinicScribe`;
export const TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.clinicScribeTrigger`;
export const CREDENTIAL_TYPE = 'clinicScribeApi';

/** Fixed, so a user folder made by one run can be opened by the next (npm start keeps one). */
export const TEST_ENCRYPTION_KEY = 'clinic-scribe-e2e-encryption-key-not-secret';

const INSTALL_SCRIPT = join(REPO_ROOT, 'scripts', 'install-n8n.sh');

/** Modules that start services the tests do not need (and that slow every boot). */
const DISABLED_MODULES = 'mcp-registry,instance-ai,agents,chat-hub,workflow-builder';

// ---------------------------------------------------------------------------------------------
// Installation and packaging
// ---------------------------------------------------------------------------------------------

export interface N8nInstallation {
	/** Node 24 binary. */
	nodeBin: string;
	/** n8n's bin/n8n script (run it with nodeBin). */
	n8nBin: string;
}

let installation: N8nInstallation | undefined;

/**
 * Runs scripts/install-n8n.sh (a no-op once installed; minutes on a fresh machine) and returns where
 * Node 24 and n8n are. Progress goes to this process's stderr.
 */
export async function ensureN8nInstalled(options: { timeoutMs?: number; quiet?: boolean } = {}): Promise<N8nInstallation> {
	if (installation) return installation;
	const result = await runProcess('bash', [INSTALL_SCRIPT], {
		cwd: REPO_ROOT,
		timeoutMs: options.timeoutMs ?? 30 * 60_000,
		stderr: options.quiet ? 'capture' : 'inherit',
		what: 'scripts/install-n8n.sh',
	});
	if (result.code !== 0) {
		throw new Error(`scripts/install-n8n.sh failed (exit ${result.code}):\n${tail(result.stderr + result.stdout, 40)}`);
	}
	const value = (name: string): string => {
		const line = result.stdout.split('\n').find((l) => l.startsWith(`${name}=`));
		if (!line) throw new Error(`scripts/install-n8n.sh did not print ${name}=…; output:\n${result.stdout}`);
		return line.slice(name.length + 1).trim();
	};
	installation = { nodeBin: value('NODE24_BIN'), n8nBin: value('N8N_BIN') };
	return installation;
}

/** `npm run build` in the repository. Throws with the build's output when it fails. */
export async function buildPackage(options: { timeoutMs?: number } = {}): Promise<void> {
	const result = await runProcess('npm', ['run', 'build'], {
		cwd: REPO_ROOT,
		timeoutMs: options.timeoutMs ?? 5 * 60_000,
		what: 'npm run build',
	});
	if (result.code !== 0) throw new Error(`npm run build failed (exit ${result.code}):\n${tail(result.stdout + result.stderr, 60)}`);
}

/**
 * `npm pack` of the repository (whatever is in dist/ now: build first) into destDir; returns the
 * tarball's path.
 */
export async function packPackage(destDir: string): Promise<string> {
	mkdirSync(destDir, { recursive: true });
	const result = await runProcess('npm', ['pack', '--json', '--pack-destination', destDir], {
		cwd: REPO_ROOT,
		timeoutMs: 2 * 60_000,
		what: 'npm pack',
	});
	if (result.code !== 0) throw new Error(`npm pack failed (exit ${result.code}):\n${tail(result.stdout + result.stderr, 40)}`);
	const parsed = JSON.parse(result.stdout.slice(result.stdout.indexOf('['))) as Array<{ filename: string }>;
	const tarball = join(destDir, parsed[0].filename);
	if (!existsSync(tarball)) throw new Error(`npm pack reported ${tarball}, which does not exist`);
	return tarball;
}

/** Set by test/e2e/global-setup.ts: the tarball packed once for the whole e2e run. */
export const PACKED_TARBALL_ENV = 'CLINIC_SCRIBE_PACKAGE_TARBALL';

/**
 * The packed package for tests: the one global setup made, or (when a test file runs without it)
 * a fresh build + pack into a temp folder removed at exit.
 */
export async function packedPackageForTests(): Promise<string> {
	const fromSetup = process.env[PACKED_TARBALL_ENV];
	if (fromSetup && existsSync(fromSetup)) return fromSetup;
	await buildPackage();
	const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-pack-'));
	process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
	return await packPackage(dir);
}

/**
 * Installs a packed package into a user folder the way n8n does for Settings → Community nodes
 * (CommunityPackagesService.downloadPackage): unpack into .n8n/nodes/node_modules/<name>, drop
 * devDependencies/peerDependencies/optionalDependencies from its package.json, record it in
 * .n8n/nodes/package.json. n8n loads every n8n-nodes-* folder there at start.
 * Replaces an earlier install of the same package.
 */
export function installPackageTarball(userFolder: string, tarball: string): { name: string; version: string; directory: string } {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const staging = mkdtempSync(join(tmpdir(), 'clinic-scribe-unpack-'));
	try {
		const untar = spawnSync('tar', ['-xzf', tarball, '-C', staging, '--strip-components=1'], { encoding: 'utf8' });
		if (untar.status !== 0) throw new Error(`tar -xzf ${tarball} failed: ${untar.stderr}`);
		const manifestPath = join(staging, 'package.json');
		const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown> & {
			name: string;
			version: string;
			dependencies?: Record<string, string>;
		};
		if (manifest.dependencies && Object.keys(manifest.dependencies).length > 0) {
			// n8n would `npm install` them; a community package for n8n Cloud may have none.
			throw new Error(`${manifest.name} declares runtime dependencies (${Object.keys(manifest.dependencies).join(', ')}); it must have none`);
		}
		const { devDependencies: _d, peerDependencies: _p, optionalDependencies: _o, ...installed } = manifest;
		writeFileSync(manifestPath, JSON.stringify(installed, null, 2), 'utf8');

		const directory = join(nodesDir, 'node_modules', manifest.name);
		rmSync(directory, { recursive: true, force: true });
		mkdirSync(dirname(directory), { recursive: true });
		const move = spawnSync('mv', [staging, directory], { encoding: 'utf8' });
		if (move.status !== 0) throw new Error(`moving the unpacked package into ${directory} failed: ${move.stderr}`);

		const nodesManifestPath = join(nodesDir, 'package.json');
		const nodesManifest = existsSync(nodesManifestPath)
			? (JSON.parse(readFileSync(nodesManifestPath, 'utf8')) as { dependencies?: Record<string, string> })
			: { name: 'installed-nodes', private: true, dependencies: {} };
		nodesManifest.dependencies = { ...(nodesManifest.dependencies ?? {}), [manifest.name]: manifest.version };
		writeFileSync(nodesManifestPath, JSON.stringify(nodesManifest, null, 2), 'utf8');
		return { name: manifest.name, version: manifest.version, directory };
	} finally {
		rmSync(staging, { recursive: true, force: true });
	}
}

/** What n8n lists under Settings → Community nodes (GET /rest/community-packages), per package. */
export interface CommunityPackageRecord {
	packageName: string;
	installedVersion: string;
	authorName: string | null;
	authorEmail: string | null;
	installedNodes: Array<{ name: string; type: string; latestVersion: number }>;
}

const RECORD_PACKAGE_SCRIPT = join(__dirname, 'n8nRecordCommunityPackage.cjs');

/**
 * Writes the database rows n8n writes after installing a community package from its UI, so the
 * package is listed under Settings → Community nodes as after a real install (n8n's own install
 * endpoint fetches from the npm registry, which holds no unpublished build). Needs a migrated
 * database (after any n8n command ran on the user folder); SQLite only: with another DB_TYPE
 * (queue mode's PostgreSQL) nothing is recorded and undefined is returned.
 */
export async function recordCommunityPackage(
	installation: N8nInstallation,
	n8nEnv: NodeJS.ProcessEnv,
	packageDirectory: string,
): Promise<CommunityPackageRecord | undefined> {
	if ((n8nEnv.DB_TYPE || 'sqlite') !== 'sqlite') return undefined;
	const userFolder = n8nEnv.N8N_USER_FOLDER;
	if (!userFolder) throw new Error('recordCommunityPackage: the environment sets no N8N_USER_FOLDER');
	const database = resolve(userFolder, '.n8n', n8nEnv.DB_SQLITE_DATABASE || 'database.sqlite');
	if (!existsSync(database)) throw new Error(`recordCommunityPackage: no n8n database at ${database} yet (run an n8n command first)`);
	// The package's nodes import n8n-workflow, which n8n's installation provides.
	const n8nModules = resolve(installation.n8nBin, '..', '..', '..');
	const result = await runProcess(
		installation.nodeBin,
		['--disable-warning=ExperimentalWarning', RECORD_PACKAGE_SCRIPT, database, n8nEnv.DB_TABLE_PREFIX ?? '', packageDirectory],
		{ cwd: userFolder, env: { ...n8nEnv, NODE_PATH: n8nModules }, timeoutMs: 60_000, what: 'recording the community package in n8n\'s database' },
	);
	if (result.code !== 0) throw new Error(`recording ${packageDirectory} in ${database} failed (exit ${result.code ?? result.signal}):\n${tail(result.stderr + result.stdout, 30)}`);
	return JSON.parse(result.stdout) as CommunityPackageRecord;
}

// ---------------------------------------------------------------------------------------------
// Workflow and credential shapes (what n8n's import commands read)
// ---------------------------------------------------------------------------------------------

export interface CredentialImport {
	/** n8n ids: up to 21 characters; newId() makes one. */
	id: string;
	name: string;
	type: string;
	/** In clear; n8n encrypts it on import. */
	data: Record<string, unknown>;
}

export interface WorkflowNode {
	id?: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	[key: string]: unknown;
}

export interface WorkflowJson {
	id?: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	active?: boolean;
	[key: string]: unknown;
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A random 16-character id of the kind n8n gives workflows and credentials. */
export function newId(): string {
	const bytes = randomBytes(16);
	let id = '';
	for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
	return id;
}

/** Connects nodes in a line: connections for [a, b, c] are a→b→c on main output 0. */
export function chain(...nodeNames: string[]): Record<string, unknown> {
	const connections: Record<string, unknown> = {};
	for (let i = 0; i + 1 < nodeNames.length; i++) {
		connections[nodeNames[i]] = { main: [[{ node: nodeNames[i + 1], type: 'main', index: 0 }]] };
	}
	return connections;
}

/** A workflow JSON file (test/e2e/workflows/*.json, examples/*.json). */
export function readWorkflowFile(path: string): WorkflowJson {
	return JSON.parse(readFileSync(path, 'utf8')) as WorkflowJson;
}

/**
 * A copy of the workflow whose nodes use the given credential for `type` (fixtures name a
 * placeholder; a test may point a workflow at a credential of its own).
 */
export function withCredential(workflow: WorkflowJson, type: string, credential: { id: string; name: string }): WorkflowJson {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) =>
			node.credentials?.[type] ? { ...node, credentials: { ...node.credentials, [type]: { ...credential } } } : node,
		),
	};
}

// ---------------------------------------------------------------------------------------------
// Execution results
// ---------------------------------------------------------------------------------------------

export interface NodeItem {
	json: Record<string, unknown>;
	binary?: Record<string, unknown>;
	pairedItem?: unknown;
	[key: string]: unknown;
}

export interface NodeRun {
	executionStatus?: string;
	executionTime?: number;
	data?: { main?: Array<NodeItem[] | null> };
	error?: ExecutionError;
	[key: string]: unknown;
}

export interface ExecutionError {
	message: string;
	description?: string | null;
	name?: string;
	httpCode?: string | number;
	node?: { name: string; type: string };
	[key: string]: unknown;
}

export interface ExecutionResult {
	status: string;
	/** Node name → its runs, as n8n stores them. */
	runData: Record<string, NodeRun[]>;
	/** The workflow's error when the run failed; undefined when it succeeded. */
	error?: ExecutionError;
	lastNodeExecuted?: string;
	/** The whole run as n8n reported it. */
	raw: Record<string, unknown>;
	/** How the `n8n execute` process ended (execute() only). */
	processExit?: { code: number | null; signal: NodeJS.Signals | null };
}

/**
 * Output items of a node's first run (main output 0 unless told). Throws with the execution's
 * error when the node did not produce output, so a failed run never looks like "0 items".
 */
export function nodeOutput(result: ExecutionResult, nodeName: string, options: { run?: number; output?: number } = {}): NodeItem[] {
	const runs = result.runData[nodeName];
	const run = runs?.[options.run ?? 0];
	if (!run) {
		throw new Error(
			`node "${nodeName}" did not run (ran: ${Object.keys(result.runData).join(', ') || 'nothing'})` + describeError(result),
		);
	}
	if (run.error) throw new Error(`node "${nodeName}" failed: ${run.error.message}${run.error.description ? ` — ${run.error.description}` : ''}`);
	const items = run.data?.main?.[options.output ?? 0];
	if (!items) throw new Error(`node "${nodeName}" has no output ${options.output ?? 0}` + describeError(result));
	return items;
}

/** JSON of a node's output items. */
export function nodeJson(result: ExecutionResult, nodeName: string, options: { run?: number; output?: number } = {}): Array<Record<string, unknown>> {
	return nodeOutput(result, nodeName, options).map((item) => item.json);
}

function describeError(result: ExecutionResult): string {
	if (!result.error) return '';
	return `; execution error: ${result.error.message}${result.error.description ? ` — ${result.error.description}` : ''}`;
}

/** Turns the run object n8n prints (or stores) into an ExecutionResult. */
export function toExecutionResult(run: Record<string, unknown>): ExecutionResult {
	const data = run.data as { resultData?: { runData?: Record<string, NodeRun[]>; error?: ExecutionError; lastNodeExecuted?: string } } | undefined;
	const resultData = data?.resultData ?? {};
	return {
		status: String(run.status ?? (resultData.error ? 'error' : 'unknown')),
		runData: resultData.runData ?? {},
		error: resultData.error,
		lastNodeExecuted: resultData.lastNodeExecuted,
		raw: run,
	};
}

/**
 * Finds the run in `n8n execute`'s output (N8N_LOG_FORMAT=json): a log line whose message is the
 * run as JSON. n8n prints it after "Execution was successful" and after "Execution error:" alike.
 */
export function parseExecuteOutput(output: string): Record<string, unknown> | undefined {
	const lines = output.split('\n');
	for (let i = lines.length - 1; i >= 0; i--) {
		const line = lines[i].trim();
		if (!line.startsWith('{')) continue;
		let entry: { message?: unknown };
		try {
			entry = JSON.parse(line) as { message?: unknown };
		} catch {
			continue;
		}
		if (typeof entry.message !== 'string' || !entry.message.trimStart().startsWith('{')) continue;
		try {
			const run = JSON.parse(entry.message) as Record<string, unknown>;
			if (run && typeof run === 'object' && 'data' in run && typeof run.data === 'object') return run;
		} catch {
			// another JSON-looking message
		}
	}
	return undefined;
}

// ---------------------------------------------------------------------------------------------
// The instance
// ---------------------------------------------------------------------------------------------

export interface N8nInstanceOptions {
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

export interface CliResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

export interface OwnerAccount {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export interface PublicationStatus {
	status: 'not_published' | 'in_progress' | 'published' | 'partial' | 'failed' | string;
	liveVersionId: string | null;
	pendingVersionId: string | null;
	triggers: Array<{ nodeId: string; status: string; errorMessage: string | null }>;
}

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	status: string;
	mode: string;
	finished?: boolean;
	startedAt?: string;
	stoppedAt?: string;
	[key: string]: unknown;
}

const BROWSER_ID = 'clinic-scribe-e2e-browser';

/** Environment variables n8n reads as settings. */
const N8N_SETTING = /^(N8N_|DB_|EXECUTIONS_|QUEUE_|WEBHOOK_URL$|GENERIC_TIMEZONE$|NODES_|CREDENTIALS_|WORKFLOWS_|OFFLOAD_)/;
/** Settings an instance always sets itself, even with inheritN8nEnv. */
const PINNED_SETTINGS = new Set(['N8N_USER_FOLDER', 'N8N_PORT', 'N8N_RUNNERS_BROKER_PORT', 'N8N_ENCRYPTION_KEY', 'N8N_LISTEN_ADDRESS', 'WEBHOOK_URL']);

export class N8nInstance {
	readonly userFolder: string;
	readonly port: number;
	readonly brokerPort: number;
	readonly baseUrl: string;
	private readonly ownsUserFolder: boolean;
	private readonly keepUserFolder: boolean;
	private readonly extraEnv: Record<string, string | undefined>;
	private readonly logFile: string;
	private readonly inheritN8nEnv: boolean;
	private server: { child: ChildProcess; exited: Promise<void>; log: WriteStream; recent: string[] } | undefined;
	private cookie: string | undefined;
	private disposed = false;
	/** Package folders installed by installPackage() and not yet recorded in n8n's database. */
	private readonly packagesToRecord = new Set<string>();

	private constructor(
		readonly installation: N8nInstallation,
		options: N8nInstanceOptions & { port: number; brokerPort: number },
	) {
		this.ownsUserFolder = options.userFolder === undefined;
		this.userFolder = options.userFolder ?? mkdtempSync(join(tmpdir(), 'clinic-scribe-n8n-'));
		mkdirSync(this.userFolder, { recursive: true });
		this.keepUserFolder = options.keepUserFolder ?? false;
		this.port = options.port;
		this.brokerPort = options.brokerPort;
		this.baseUrl = `http://127.0.0.1:${this.port}`;
		this.extraEnv = options.env ?? {};
		this.logFile = options.logFile ?? join(this.userFolder, 'n8n-start.log');
		this.inheritN8nEnv = options.inheritN8nEnv ?? false;
	}

	/** Ensures n8n is installed, prepares the user folder, installs the package if given. */
	static async create(options: N8nInstanceOptions = {}): Promise<N8nInstance> {
		const installed = await ensureN8nInstalled();
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
			N8N_DISABLED_MODULES: DISABLED_MODULES,
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
		});
	}

	private async cliOrThrow(args: string[], options: { timeoutMs?: number } = {}): Promise<CliResult> {
		const result = await this.cli(args, options);
		if (result.code !== 0) {
			throw new Error(`n8n ${args.join(' ')} failed (exit ${result.code ?? result.signal}):\n${summariseLog(result.stdout + result.stderr)}`);
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
	async execute(workflowId: string, options: { timeoutMs?: number } = {}): Promise<ExecutionResult> {
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
			throw new Error(`n8n execute --id=${workflowId} exited ${result.code ?? result.signal} without an execution error:\n${summariseLog(output)}`);
		}
		if (result.code === 0 && execution.error) {
			throw new Error(`n8n execute --id=${workflowId} exited 0 but the run has an error: ${execution.error.message}`);
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
		return server.exited.then(() => ({ code: server.child.exitCode, signal: server.child.signalCode }));
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
			throw new Error(`port ${this.port} on 127.0.0.1 is in use (another n8n?); choose another port`);
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
					throw new Error(`n8n start exited (code ${child.exitCode ?? child.signalCode}) before it was ready:\n${summariseLog(recent.join('\n'))}`);
				}
				if (Date.now() > deadline) {
					throw new Error(`n8n start was not ready within ${timeoutMs} ms (${this.baseUrl}/healthz/readiness):\n${summariseLog(recent.join('\n'))}`);
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
			const response = await fetch(`${this.baseUrl}/healthz/readiness`, { signal: AbortSignal.timeout(2000) });
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
		if (this.ownsUserFolder && !this.keepUserFolder) rmSync(this.userFolder, { recursive: true, force: true });
	}

	// --- REST API (needs start()) ------------------------------------------------------------

	/**
	 * Calls n8n's internal REST API with the session cookie. Returns the response's `data` (n8n wraps
	 * answers in {data}); throws with status and body on a non-2xx answer.
	 */
	async rest<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		if (!this.server) throw new Error('n8n is not started: call start() first');
		const headers: Record<string, string> = { 'browser-id': BROWSER_ID, accept: 'application/json' };
		if (body !== undefined) headers['content-type'] = 'application/json';
		if (this.cookie) headers.cookie = this.cookie;
		const response = await fetch(`${this.baseUrl}/rest${path}`, {
			method,
			headers,
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(30_000),
		});
		const text = await response.text();
		const setCookie = response.headers.getSetCookie?.() ?? [];
		const auth = setCookie.map((c) => c.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
		if (auth) this.cookie = auth;
		if (!response.ok) throw new Error(`n8n ${method} /rest${path} answered ${response.status}: ${text.slice(0, 2000)}`);
		if (text === '') return undefined as T;
		const parsed = JSON.parse(text) as { data?: T };
		return (parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed) as T;
	}

	/** GET of a non-REST path with the session cookie (e.g. /types/nodes.json); parsed JSON. */
	async getJson<T = unknown>(path: string): Promise<T> {
		if (!this.server) throw new Error('n8n is not started: call start() first');
		const headers: Record<string, string> = { 'browser-id': BROWSER_ID, accept: 'application/json' };
		if (this.cookie) headers.cookie = this.cookie;
		const response = await fetch(`${this.baseUrl}${path}`, { headers, signal: AbortSignal.timeout(30_000) });
		const text = await response.text();
		if (!response.ok) throw new Error(`n8n GET ${path} answered ${response.status}: ${text.slice(0, 2000)}`);
		return JSON.parse(text) as T;
	}

	/** Node type names n8n has loaded (needs a session: setupOwner or login first). */
	async loadedNodeTypes(): Promise<string[]> {
		return (await this.getJson<Array<{ name: string }>>('/types/nodes.json')).map((t) => t.name);
	}

	/** Credential type names n8n has loaded (needs a session). */
	async loadedCredentialTypes(): Promise<string[]> {
		return (await this.getJson<Array<{ name: string }>>('/types/credentials.json')).map((t) => t.name);
	}

	/** Creates the instance owner (first start of a user folder only) and keeps its session. */
	async setupOwner(owner: OwnerAccount): Promise<void> {
		await this.rest('POST', '/owner/setup', owner);
	}

	async login(email: string, password: string): Promise<void> {
		await this.rest('POST', '/login', { emailOrLdapLoginId: email, password });
	}

	/** Logs in, creating the owner first when the instance has none yet. */
	async ensureOwner(owner: OwnerAccount): Promise<'created' | 'existing'> {
		try {
			await this.setupOwner(owner);
			return 'created';
		} catch (error) {
			if (!/answered 400/.test(String(error))) throw error;
			await this.login(owner.email, owner.password);
			return 'existing';
		}
	}

	async getWorkflow(workflowId: string): Promise<Record<string, unknown> & { versionId: string; active: boolean; activeVersionId?: string | null }> {
		return await this.rest('GET', `/workflows/${workflowId}`);
	}

	/**
	 * Returns the publication status, or undefined when the instance runs without the publication
	 * service (N8N_USE_WORKFLOW_PUBLICATION_SERVICE=false: activation is synchronous there).
	 */
	async publicationStatus(workflowId: string): Promise<PublicationStatus | undefined> {
		try {
			return await this.rest<PublicationStatus>('GET', `/workflows/${workflowId}/publication-status`);
		} catch (error) {
			if (/answered 404: .*publication status is not available/i.test(String(error))) return undefined;
			throw error;
		}
	}

	/**
	 * Activates (publishes) the workflow's current version and waits until n8n reports it
	 * published: its triggers' webhookMethods have run. Throws with n8n's reason when a trigger
	 * failed to activate, or after timeoutMs.
	 */
	async activateWorkflow(workflowId: string, options: { timeoutMs?: number } = {}): Promise<PublicationStatus | undefined> {
		const workflow = await this.getWorkflow(workflowId);
		await this.rest('POST', `/workflows/${workflowId}/activate`, { versionId: workflow.versionId });
		return await this.waitForPublication(workflowId, (s) => s.status !== 'in_progress' && s.liveVersionId === workflow.versionId, options.timeoutMs);
	}

	/** Deactivates (unpublishes) and waits until n8n reports it not published. */
	async deactivateWorkflow(workflowId: string, options: { timeoutMs?: number } = {}): Promise<PublicationStatus | undefined> {
		await this.rest('POST', `/workflows/${workflowId}/deactivate`, {});
		return await this.waitForPublication(workflowId, (s) => s.status === 'not_published', options.timeoutMs);
	}

	private async waitForPublication(
		workflowId: string,
		done: (status: PublicationStatus) => boolean,
		timeoutMs = 60_000,
	): Promise<PublicationStatus | undefined> {
		const deadline = Date.now() + timeoutMs;
		let last: PublicationStatus | undefined;
		for (;;) {
			last = await this.publicationStatus(workflowId);
			if (last === undefined) return undefined; // synchronous mode: done when the call returned
			if (last.status === 'failed' || last.status === 'partial') {
				const reasons = last.triggers.filter((t) => t.status === 'failed').map((t) => t.errorMessage ?? 'no message');
				throw new Error(`publishing workflow ${workflowId} ${last.status}: ${reasons.join('; ')}`);
			}
			if (done(last)) return last;
			if (Date.now() > deadline) {
				throw new Error(`workflow ${workflowId}: publication not done within ${timeoutMs} ms; last status ${JSON.stringify(last)}`);
			}
			await delay(200);
		}
	}

	/** Executions, newest first (n8n's list for the UI; includes running ones). */
	async listExecutions(filter: { workflowId?: string; status?: string } = {}, limit = 100): Promise<ExecutionSummary[]> {
		const query = new URLSearchParams({ filter: JSON.stringify(filter), limit: String(limit) });
		const list = await this.rest<{ results: ExecutionSummary[] }>('GET', `/executions?${query.toString()}`);
		return list.results;
	}

	/** One execution with its run data decoded (n8n sends it in `flatted` form). */
	async getExecution(executionId: string): Promise<ExecutionResult & { id: string; workflowId: string; mode: string }> {
		const execution = await this.rest<Record<string, unknown> & { id: string; workflowId: string; mode: string; data: string }>(
			'GET',
			`/executions/${executionId}`,
		);
		const data = typeof execution.data === 'string' ? flattedParse(execution.data) : execution.data;
		return { ...toExecutionResult({ ...execution, data }), id: String(execution.id), workflowId: execution.workflowId, mode: execution.mode };
	}

	/**
	 * Waits until the workflow has at least `count` finished executions (any status but running,
	 * new, waiting), polling; returns them newest first. Throws after timeoutMs with what it saw.
	 */
	async waitForExecutions(workflowId: string, count: number, options: { timeoutMs?: number } = {}): Promise<ExecutionSummary[]> {
		const timeoutMs = options.timeoutMs ?? 30_000;
		const deadline = Date.now() + timeoutMs;
		const unfinished = new Set(['running', 'new', 'waiting', 'unknown']);
		for (;;) {
			const list = await this.listExecutions({ workflowId });
			const finished = list.filter((e) => !unfinished.has(e.status));
			if (finished.length >= count) return finished;
			if (Date.now() > deadline) {
				throw new Error(`workflow ${workflowId}: ${finished.length} finished executions after ${timeoutMs} ms, expected ${count} (all: ${JSON.stringify(list.map((e) => e.status))})`);
			}
			await delay(200);
		}
	}

	/** Production webhook URL of a path (what a trigger registers with WEBHOOK_URL as set here). */
	webhookUrl(path: string): string {
		return `${this.baseUrl}/webhook/${path.replace(/^\//, '')}`;
	}

	/** Test webhook URL of a path (served only while the editor listens for a test event). */
	testWebhookUrl(path: string): string {
		return `${this.baseUrl}/webhook-test/${path.replace(/^\//, '')}`;
	}

	/**
	 * What the editor sends for "Listen for test event" in a trigger's panel (n8n 2.41's
	 * POST /rest/workflows/<id>/run from that trigger, up to it): n8n runs the trigger's
	 * webhookMethods with the test URL and answers {waitingForWebhook: true}. The first request to
	 * the test URL runs the workflow in manual mode, then n8n removes the test webhook (delete),
	 * as it does after 2 minutes or on stopListening().
	 */
	async listenForTestEvent(workflowId: string, triggerName: string): Promise<{ waitingForWebhook?: boolean; executionId?: string }> {
		return await this.rest('POST', `/workflows/${workflowId}/run`, {
			triggerToStartFrom: { name: triggerName },
			destinationNode: { nodeName: triggerName, mode: 'inclusive' },
		});
	}

	/** The editor's "Stop listening": n8n removes the workflow's test webhooks. */
	async stopListening(workflowId: string): Promise<void> {
		await this.rest('DELETE', `/test-webhook/${workflowId}`);
	}

	// --- helpers -----------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------------------------

/** Process groups started here and not yet known to be gone; killed if this process exits first. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function trackGroup(pid: number | undefined): void {
	if (pid === undefined) return;
	liveGroups.add(pid);
	if (!exitHookInstalled) {
		exitHookInstalled = true;
		process.on('exit', () => {
			for (const group of liveGroups) killGroup(group, 'SIGKILL');
		});
	}
}

function killGroup(pid: number, signal: NodeJS.Signals): boolean {
	try {
		process.kill(-pid, signal);
		return true;
	} catch {
		return false; // ESRCH: the group is gone
	}
}

/** SIGTERM to the group, wait for the leader's exit up to timeoutMs, then SIGKILL the group. */
async function stopGroup(child: ChildProcess, exited: Promise<void>, timeoutMs: number): Promise<void> {
	const pid = child.pid;
	if (pid === undefined) return;
	if (child.exitCode === null && child.signalCode === null) {
		killGroup(pid, 'SIGTERM');
		if (!(await settlesWithin(exited, timeoutMs))) {
			killGroup(pid, 'SIGKILL');
			await settlesWithin(exited, 5000);
		}
	}
	// Children the leader left behind (task runners) share its group.
	killGroup(pid, 'SIGKILL');
	liveGroups.delete(pid);
}

interface RunOptions {
	cwd: string;
	env?: NodeJS.ProcessEnv;
	timeoutMs: number;
	/** 'inherit' streams stderr to ours (progress) while also capturing it. */
	stderr?: 'capture' | 'inherit';
	what: string;
}

/**
 * Runs a command in its own process group to its end and captures its output. After timeoutMs the
 * group is stopped and the returned promise rejects with the output so far.
 */
export async function runProcess(command: string, args: string[], options: RunOptions): Promise<CliResult> {
	const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
	trackGroup(child.pid);
	const stdout: Buffer[] = [];
	const stderr: Buffer[] = [];
	child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
	child.stderr?.on('data', (chunk: Buffer) => {
		stderr.push(chunk);
		if (options.stderr === 'inherit') process.stderr.write(chunk);
	});
	const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveClose, rejectClose) => {
		child.once('error', rejectClose);
		child.once('close', (code, signal) => resolveClose({ code, signal }));
	});
	const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
	let timer: NodeJS.Timeout | undefined;
	const timedOut = new Promise<'timeout'>((resolveTimeout) => {
		timer = setTimeout(() => resolveTimeout('timeout'), options.timeoutMs);
	});
	try {
		const outcome = await Promise.race([closed, timedOut]);
		if (outcome === 'timeout') {
			await stopGroup(child, exited, 5000);
			throw new Error(
				`${options.what} did not finish within ${options.timeoutMs} ms; stopped it. Output so far:\n` +
					summariseLog(Buffer.concat(stdout).toString('utf8') + Buffer.concat(stderr).toString('utf8')),
			);
		}
		// Whatever the command left running in its group (n8n's task runner) goes with it.
		if (child.pid !== undefined) {
			killGroup(child.pid, 'SIGKILL');
			liveGroups.delete(child.pid);
		}
		return { ...outcome, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') };
	} finally {
		clearTimeout(timer);
	}
}

/** Whether nothing listens on 127.0.0.1:port right now. */
export async function isPortFree(port: number): Promise<boolean> {
	return await new Promise<boolean>((resolveFree) => {
		const server = createServer();
		server.once('error', () => resolveFree(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolveFree(true)));
	});
}

/** A port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
	return await new Promise<number>((resolvePort, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolvePort(port));
		});
	});
}

/** Whether `promise` settles within ms; leaves no timer behind either way. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<false>((resolveTimeout) => {
		timer = setTimeout(() => resolveTimeout(false), ms);
	});
	try {
		return await Promise.race([promise.then(() => true), timeout]);
	} finally {
		clearTimeout(timer);
	}
}

export function delay(ms: number): Promise<void> {
	return new Promise((resolveDelay) => setTimeout(resolveDelay, ms));
}

function tail(text: string, lines: number): string {
	return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/**
 * The useful part of an n8n JSON log for an error message: warnings and errors in full, plus the
 * last lines, messages only.
 */
export function summariseLog(output: string, lastLines = 25): string {
	const lines = output.split('\n').filter((l) => l.trim() !== '');
	if (lines.length === 0) return '(no output)';
	const render = (line: string): string => {
		try {
			const entry = JSON.parse(line) as { level?: string; message?: string };
			if (typeof entry.message === 'string') return `[${entry.level ?? '?'}] ${entry.message.slice(0, 4000)}`;
		} catch {
			// not JSON
		}
		return line.slice(0, 4000);
	};
	const important = lines.filter((l) => /"level":"(warn|error)"/.test(l)).slice(-15).map(render);
	const last = lines.slice(-lastLines).map(render);
	return [...important, ...(important.length ? ['…'] : []), ...last].join('\n');
}

/** flatted's parse (n8n stores and sends run data in that form); small enough to keep here. */
export function flattedParse(text: string): unknown {
	// Every string becomes a String object: inside objects they are references (indexes into the
	// array); the array's own string entries are the real strings.
	const input = (JSON.parse(text, (_key, value: unknown) => (typeof value === 'string' ? new String(value) : value)) as unknown[]).map(
		(v) => (v instanceof String ? String(v) : v),
	);
	const revived = new Set<unknown>();
	const revive = (container: Record<string, unknown>): void => {
		for (const key of Object.keys(container)) {
			const value = container[key];
			if (!(value instanceof String)) continue;
			const target = input[Number(value)];
			container[key] = target;
			if (target !== null && typeof target === 'object' && !revived.has(target)) {
				revived.add(target);
				revive(target as Record<string, unknown>);
			}
		}
	};
	const root = input[0];
	if (root !== null && typeof root === 'object') {
		revived.add(root);
		revive(root as Record<string, unknown>);
	}
	return root;
}
