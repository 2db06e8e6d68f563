/**
 * The services n8n in queue mode needs (queueMode.ts), for end-to-end tests: a private Redis and
 * PostgreSQL from Debian (scripts/install-queue-services.sh installs them when missing). Both run on
 * loopback ports of their own with data in a temp folder; PostgreSQL is a cluster made by initdb,
 * run as the `postgres` user when this process is root. Every process is started here and stopped
 * by its PID (n8n processes: by their process group, whose id is their PID, so the task runners they
 * start go with them); an exit hook SIGKILLs whatever is left.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
	chownSync,
	createWriteStream,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
} from 'node:fs';
import type { WriteStream } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { REPO_ROOT } from './n8n/install';
import { delay, freePort, runProcess, settlesWithin, summariseLog } from './n8n/processes';

const INSTALL_SCRIPT = join(REPO_ROOT, 'scripts', 'install-queue-services.sh');

// ---------------------------------------------------------------------------------------------
// Installation
// ---------------------------------------------------------------------------------------------

export interface QueueServicesInstallation {
	redisServerBin: string;
	/** Holds initdb, postgres, pg_isready, createdb. */
	pgBinDir: string;
}

let installed: QueueServicesInstallation | undefined;

/** Whether redis-server and PostgreSQL's server binaries are on this machine (a quick, synchronous look). */
export function queueServicesPresent(): boolean {
	const onPath = (name: string) =>
		(process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, name)));
	const postgresBin = existsSync('/usr/lib/postgresql')
		? readdirSync('/usr/lib/postgresql').some((version) =>
				existsSync(join('/usr/lib/postgresql', version, 'bin', 'initdb')),
			)
		: false;
	return (onPath('redis-server') || existsSync('/usr/bin/redis-server')) && postgresBin;
}

/** Runs scripts/install-queue-services.sh (a no-op when both are present) and returns the binaries. */
export async function ensureQueueServicesInstalled(): Promise<QueueServicesInstallation> {
	if (installed) return installed;
	const result = await runProcess('bash', [INSTALL_SCRIPT], {
		cwd: REPO_ROOT,
		timeoutMs: 10 * 60_000,
		stderr: 'inherit',
		what: 'scripts/install-queue-services.sh',
	});
	if (result.code !== 0) {
		throw new Error(
			`scripts/install-queue-services.sh failed (exit ${result.code}):\n${(result.stderr + result.stdout).trim().split('\n').slice(-30).join('\n')}`,
		);
	}
	const value = (name: string): string => {
		const line = result.stdout.split('\n').find((l) => l.startsWith(`${name}=`));
		if (!line)
			throw new Error(
				`scripts/install-queue-services.sh did not print ${name}=…; output:\n${result.stdout}`,
			);
		return line.slice(name.length + 1).trim();
	};
	installed = { redisServerBin: value('REDIS_SERVER_BIN'), pgBinDir: value('PG_BIN_DIR') };
	return installed;
}

// ---------------------------------------------------------------------------------------------
// Long-running processes, each stopped by its PID
// ---------------------------------------------------------------------------------------------

/** PIDs started here and not yet known to be gone; SIGKILLed if this process exits first. */
const live = new Map<number, { group: boolean }>();
let exitHookInstalled = false;

function track(pid: number, group: boolean): void {
	live.set(pid, { group });
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	process.on('exit', () => {
		for (const [leftover, how] of live) signal(leftover, how.group, 'SIGKILL');
	});
}

function signal(pid: number, group: boolean, sig: NodeJS.Signals): boolean {
	try {
		process.kill(group ? -pid : pid, sig);
		return true;
	} catch {
		return false; // ESRCH: gone
	}
}

export interface ServiceOptions {
	/** For messages and log file names. */
	name: string;
	command: string;
	args: string[];
	env?: NodeJS.ProcessEnv;
	cwd: string;
	logFile: string;
	/** Run as this user (needs root). */
	user?: { uid: number; gid: number };
	/**
	 * Signal the whole process group (n8n: its task runners share it) instead of the PID alone
	 * (PostgreSQL's postmaster stops its own children).
	 */
	stopGroup: boolean;
	/** First signal on stop(); SIGTERM unless told (PostgreSQL: SIGINT, its "fast" shutdown). */
	stopSignal?: NodeJS.Signals;
}

/** One long-running process with its output in a log file and the last lines in memory. */
export class ServiceProcess {
	readonly pid: number;
	private readonly recent: string[] = [];
	private readonly exited: Promise<void>;
	private hasExited = false;
	private readonly log: WriteStream;

	private constructor(
		private readonly options: ServiceOptions,
		private readonly child: ChildProcess,
		log: WriteStream,
	) {
		if (child.pid === undefined)
			throw new Error(`${options.name}: spawning ${options.command} gave no PID`);
		this.pid = child.pid;
		this.log = log;
		const remember = (chunk: Buffer) => {
			log.write(chunk);
			for (const line of chunk.toString('utf8').split('\n'))
				if (line.trim()) this.recent.push(line);
			if (this.recent.length > 2000) this.recent.splice(0, this.recent.length - 2000);
		};
		child.stdout?.on('data', remember);
		child.stderr?.on('data', remember);
		this.exited = new Promise<void>((resolveExit) =>
			child.once('exit', () => {
				this.hasExited = true;
				resolveExit();
			}),
		);
	}

	static start(options: ServiceOptions): ServiceProcess {
		const log = createWriteStream(options.logFile, { flags: 'a' });
		const child = spawn(options.command, options.args, {
			cwd: options.cwd,
			env: options.env ?? process.env,
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
			...(options.user ?? {}),
		});
		child.once('error', (error) => log.write(`spawn error: ${error.message}\n`));
		const service = new ServiceProcess(options, child, log);
		track(service.pid, options.stopGroup);
		return service;
	}

	get name(): string {
		return this.options.name;
	}

	get running(): boolean {
		return !this.hasExited;
	}

	/** The last lines the process printed (up to 2000). */
	lines(): string[] {
		return [...this.recent];
	}

	/** What to show when something about this process went wrong. */
	describe(): string {
		return `${this.name} (pid ${this.pid}${this.hasExited ? `, exited ${this.child.exitCode ?? this.child.signalCode}` : ''}; log ${this.options.logFile}):\n${summariseLog(this.recent.join('\n'))}`;
	}

	/** Polls until check() is true; throws with this process's log after timeoutMs or when it exits. */
	async waitUntil(
		what: string,
		check: () => boolean | Promise<boolean>,
		timeoutMs: number,
	): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			if (await check()) return;
			if (this.hasExited) throw new Error(`${this.name} exited before ${what}: ${this.describe()}`);
			if (Date.now() > deadline)
				throw new Error(`${this.name}: not ${what} within ${timeoutMs} ms: ${this.describe()}`);
			await delay(250);
		}
	}

	/** Waits until a printed line matches; returns it. */
	async waitForLine(pattern: RegExp, timeoutMs: number): Promise<string> {
		let found: string | undefined;
		await this.waitUntil(
			`printing ${pattern}`,
			() => (found = this.recent.find((l) => pattern.test(l))) !== undefined,
			timeoutMs,
		);
		return found as string;
	}

	/** The stop signal to the PID (or its group), SIGKILL after timeoutMs. Safe to call twice. */
	async stop(timeoutMs = 20_000): Promise<void> {
		const { stopGroup } = this.options;
		if (!this.hasExited) {
			signal(this.pid, stopGroup, this.options.stopSignal ?? 'SIGTERM');
			if (!(await settlesWithin(this.exited, timeoutMs))) {
				signal(this.pid, stopGroup, 'SIGKILL');
				await settlesWithin(this.exited, 5000);
			}
		}
		if (stopGroup) signal(this.pid, true, 'SIGKILL'); // what the leader left in its group
		live.delete(this.pid);
		await new Promise<void>((resolveClose) => this.log.end(() => resolveClose()));
	}
}

// ---------------------------------------------------------------------------------------------
// Redis and PostgreSQL
// ---------------------------------------------------------------------------------------------

/** Whether a Redis answers PING on 127.0.0.1:port. */
async function redisPongs(port: number): Promise<boolean> {
	return await new Promise<boolean>((resolvePong) => {
		const socket = connect({ host: '127.0.0.1', port });
		let answer = '';
		const done = (ok: boolean) => {
			socket.destroy();
			resolvePong(ok);
		};
		socket.setTimeout(2000, () => done(false));
		socket.once('error', () => done(false));
		socket.once('connect', () => socket.write('PING\r\n'));
		socket.on('data', (chunk: Buffer) => {
			answer += chunk.toString('utf8');
			if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
		});
	});
}

/** A redis-server on 127.0.0.1:<free port>, nothing persisted, working files in dir. */
export async function startRedis(
	redisServerBin: string,
	dir: string,
	options: { timeoutMs?: number } = {},
): Promise<{ port: number; process: ServiceProcess }> {
	mkdirSync(dir, { recursive: true });
	const port = await freePort();
	const redis = ServiceProcess.start({
		name: 'redis-server',
		command: redisServerBin,
		args: [
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--protected-mode',
			'yes',
			'--save',
			'',
			'--appendonly',
			'no',
			'--daemonize',
			'no',
			'--dir',
			dir,
			'--logfile',
			'',
		],
		cwd: dir,
		logFile: join(dir, 'redis.log'),
		stopGroup: false,
	});
	await redis.waitUntil(
		`answering PING on port ${port}`,
		async () => await redisPongs(port),
		options.timeoutMs ?? 30_000,
	);
	return { port, process: redis };
}

/** The uid and gid of a system user (from /etc/passwd). */
function systemUser(name: string): { uid: number; gid: number } {
	const line = readFileSync('/etc/passwd', 'utf8')
		.split('\n')
		.find((l) => l.startsWith(`${name}:`));
	if (!line) throw new Error(`no system user ${name} (the postgresql package creates it)`);
	const [, , uid, gid] = line.split(':');
	return { uid: Number(uid), gid: Number(gid) };
}

export interface PrivatePostgres {
	port: number;
	database: string;
	user: string;
	process: ServiceProcess;
	/** Holds the cluster; owned by the user PostgreSQL runs as. */
	dir: string;
}

/**
 * A PostgreSQL cluster of its own (initdb, trust authentication on loopback only, TCP only, no
 * fsync: it is thrown away) with a database for n8n. As root it runs as the `postgres` user
 * (PostgreSQL refuses root); otherwise as the current user.
 */
export async function startPostgres(
	pgBinDir: string,
	options: { database?: string; timeoutMs?: number } = {},
): Promise<PrivatePostgres> {
	const timeoutMs = options.timeoutMs ?? 60_000;
	const database = options.database ?? 'n8n';
	const asRoot = process.getuid?.() === 0;
	const user = asRoot ? systemUser('postgres') : undefined;
	const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-pg-'));
	if (user) chownSync(dir, user.uid, user.gid);
	const dataDir = join(dir, 'data');
	const env: NodeJS.ProcessEnv = {
		PATH: `${pgBinDir}:/usr/bin:/bin`,
		HOME: dir,
		LANG: 'C',
		LC_ALL: 'C',
	};

	// One-shot commands as the postgres user (or as ourselves), bounded by timeoutMs.
	const asPostgres = async (bin: string, args: string[], what: string) => {
		const result = spawnSync(join(pgBinDir, bin), args, {
			cwd: dir,
			env,
			encoding: 'utf8',
			timeout: timeoutMs,
			killSignal: 'SIGKILL',
			...(user ?? {}),
		});
		if (result.status !== 0) {
			const why = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
			throw new Error(
				`${what} failed (${why}):\n${`${result.stdout ?? ''}${result.stderr ?? ''}`.trim()}`,
			);
		}
	};
	try {
		await asPostgres(
			'initdb',
			['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
			'initdb',
		);
	} catch (error) {
		rmSync(dir, { recursive: true, force: true });
		throw error;
	}

	const port = await freePort();
	const isReady = async () => {
		const check = spawnSync(
			join(pgBinDir, 'pg_isready'),
			['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-t', '2'],
			{ env, encoding: 'utf8', timeout: 5000 },
		);
		return check.status === 0;
	};
	let postgres: ServiceProcess | undefined;
	try {
		postgres = ServiceProcess.start({
			name: 'postgres',
			command: join(pgBinDir, 'postgres'),
			args: [
				'-D',
				dataDir,
				'-p',
				String(port),
				'-c',
				'listen_addresses=127.0.0.1',
				'-c',
				'unix_socket_directories=',
				'-c',
				'fsync=off',
				'-c',
				'synchronous_commit=off',
				'-c',
				'full_page_writes=off',
				'-c',
				'max_connections=100',
			],
			cwd: dir,
			env,
			user,
			logFile: join(dir, 'postgres.log'),
			stopGroup: false,
			stopSignal: 'SIGINT',
		});
		await postgres.waitUntil(`accepting connections on port ${port}`, isReady, timeoutMs);
		await asPostgres(
			'createdb',
			['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', database],
			`createdb ${database}`,
		);
	} catch (error) {
		await postgres?.stop();
		rmSync(dir, { recursive: true, force: true });
		throw error;
	}
	return { port, database, user: 'postgres', process: postgres, dir };
}
