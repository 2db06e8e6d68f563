/**
 * Processes and ports for the n8n harness: every process started here runs in its own process
 * group and is stopped by that group's id, on stop(), on a timeout, and (as a last resort) when the
 * parent process exits.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

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

function killGroup(pid: number, signal: NodeJS.Signals): boolean {
	try {
		process.kill(-pid, signal);
		return true;
	} catch {
		return false; // ESRCH: the group is gone
	}
}

/** SIGTERM to the group, wait for the leader's exit up to timeoutMs, then SIGKILL the group. */
export async function stopGroup(child: ChildProcess, exited: Promise<void>, timeoutMs: number): Promise<void> {
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
