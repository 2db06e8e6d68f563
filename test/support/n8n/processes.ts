/**
 * Processes and ports for the n8n harness: every process started here runs in its own process
 * group and is stopped by that group's id, on stop(), on a timeout, and (as a last resort) when the
 * parent process exits.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CliResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

/** Process groups started here and not yet known to be gone; killed if this process exits first. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

export function trackGroup(pid: number | undefined): void {
	if (pid === undefined) return;
	liveGroups.add(pid);
	if (!exitHookInstalled) {
		exitHookInstalled = true;
		process.on('exit', () => {
			for (const group of liveGroups) killGroup(group, 'SIGKILL');
		});
	}
}

/** Forgets a group stopped elsewhere, so the exit hook never signals a reused id. */
export function untrackGroup(pid: number): void {
	liveGroups.delete(pid);
}

/** Signals the whole group (0: only checks it exists); false when the group is gone. */
export function killGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
	try {
		process.kill(-pid, signal);
		return true;
	} catch {
		return false; // ESRCH: the group is gone
	}
}

/** SIGTERM to the group, wait for the leader's exit up to timeoutMs, then SIGKILL the group. */
export async function stopGroup(
	child: ChildProcess,
	exited: Promise<void>,
	timeoutMs: number,
): Promise<void> {
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
	untrackGroup(pid);
}

/** Whether any process of the group is still there. */
export function groupAlive(pid: number): boolean {
	return killGroup(pid, 0);
}

interface RunOptions {
	cwd: string;
	env?: NodeJS.ProcessEnv;
	timeoutMs: number;
	/** 'inherit' streams stderr to ours (progress) while also capturing it. */
	stderr?: 'capture' | 'inherit';
	/**
	 * 'files' captures through files opened for appending instead of pipes. n8n's task runner shares
	 * the command's output; on a pipe, its lines can land inside one long line of n8n's (a run with
	 * binary data inline is far over the pipe's atomic 4 KiB), so that line no longer parses; an
	 * append to a file is written whole. Not with stderr 'inherit'.
	 */
	capture?: 'pipes' | 'files';
	what: string;
}

/**
 * Runs a command in its own process group to its end and captures its output. After timeoutMs the
 * group is stopped and the returned promise rejects with the output so far.
 */
export async function runProcess(
	command: string,
	args: string[],
	options: RunOptions,
): Promise<CliResult> {
	const files =
		options.capture === 'files' && options.stderr !== 'inherit' ? outputFiles() : undefined;
	const child = spawn(command, args, {
		cwd: options.cwd,
		env: options.env ?? process.env,
		detached: true,
		stdio: ['ignore', files?.stdoutFd ?? 'pipe', files?.stderrFd ?? 'pipe'],
	});
	files?.closeFds();
	trackGroup(child.pid);
	const stdout: Buffer[] = [];
	const stderr: Buffer[] = [];
	const output = (): { stdout: string; stderr: string } =>
		files?.read() ?? {
			stdout: Buffer.concat(stdout).toString('utf8'),
			stderr: Buffer.concat(stderr).toString('utf8'),
		};
	child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
	child.stderr?.on('data', (chunk: Buffer) => {
		stderr.push(chunk);
		if (options.stderr === 'inherit') process.stderr.write(chunk);
	});
	const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
		(resolveClose, rejectClose) => {
			child.once('error', rejectClose);
			child.once('close', (code, signal) => resolveClose({ code, signal }));
		},
	);
	const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
	let timer: NodeJS.Timeout | undefined;
	const timedOut = new Promise<'timeout'>((resolveTimeout) => {
		timer = setTimeout(() => resolveTimeout('timeout'), options.timeoutMs);
	});
	try {
		const outcome = await Promise.race([closed, timedOut]);
		if (outcome === 'timeout') {
			await stopGroup(child, exited, 5000);
			const so = output();
			throw new Error(
				`${options.what} did not finish within ${options.timeoutMs} ms; stopped it. Output so far:\n` +
					summariseLog(so.stdout + so.stderr),
			);
		}
		// Whatever the command left running in its group (n8n's task runner) goes with it.
		if (child.pid !== undefined) {
			killGroup(child.pid, 'SIGKILL');
			liveGroups.delete(child.pid);
		}
		return { ...outcome, ...output() };
	} finally {
		clearTimeout(timer);
		files?.remove();
	}
}

/** Two files in a folder of their own, opened for appending, for a command's stdout and stderr. */
function outputFiles() {
	const folder = mkdtempSync(join(tmpdir(), 'clinic-scribe-cli-'));
	const stdoutFd = openSync(join(folder, 'stdout'), 'a');
	const stderrFd = openSync(join(folder, 'stderr'), 'a');
	return {
		stdoutFd,
		stderrFd,
		/** The child has its own copies; ours would keep nothing open but the files. */
		closeFds: () => {
			closeSync(stdoutFd);
			closeSync(stderrFd);
		},
		read: () => ({
			stdout: readFileSync(join(folder, 'stdout'), 'utf8'),
			stderr: readFileSync(join(folder, 'stderr'), 'utf8'),
		}),
		remove: () => rmSync(folder, { recursive: true, force: true }),
	};
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

export function tail(text: string, lines: number): string {
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
			if (typeof entry.message === 'string')
				return `[${entry.level ?? '?'}] ${entry.message.slice(0, 4000)}`;
		} catch {
			// not JSON
		}
		return line.slice(0, 4000);
	};
	const important = lines
		.filter((l) => /"level":"(warn|error)"/.test(l))
		.slice(-15)
		.map(render);
	const last = lines.slice(-lastLines).map(render);
	return [...important, ...(important.length ? ['…'] : []), ...last].join('\n');
}
