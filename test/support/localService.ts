/**
 * A local service as its own process (the local EHR, the inbox): started in its own process group,
 * stopped by that group (SIGTERM, then SIGKILL), killed with the parent if the parent exits first
 * (the n8n harness's group bookkeeping, test/support/n8n/processes.ts), and waited for by polling a
 * condition, never for a fixed time.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

import { delay, stopGroup, tail, trackGroup } from './n8n/processes';

/** How much of a service's output is kept for error messages. */
const KEPT_OUTPUT_CHARS = 64 * 1024;

export interface ServiceProcess {
	readonly pid: number;
	readonly child: ChildProcess;
	/** Resolves when the process has exited. */
	readonly exited: Promise<void>;
	/** The last lines of its stdout and stderr, for error messages. */
	output(lines?: number): string;
	/** Stops the process group (SIGTERM, SIGKILL after timeoutMs); resolves when it is gone. */
	stop(timeoutMs?: number): Promise<void>;
}

export function spawnService(
	command: string,
	args: string[],
	options: { cwd: string; env: NodeJS.ProcessEnv; what: string },
): ServiceProcess {
	const child = spawn(command, args, {
		cwd: options.cwd,
		env: options.env,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	if (child.pid === undefined) throw new Error(`${options.what} could not be started (${command})`);
	trackGroup(child.pid);
	let kept = '';
	const keep = (chunk: Buffer) => {
		kept = (kept + chunk.toString('utf8')).slice(-KEPT_OUTPUT_CHARS);
	};
	child.stdout?.on('data', keep);
	child.stderr?.on('data', keep);
	const exited = new Promise<void>((resolve) => {
		if (child.exitCode !== null || child.signalCode !== null) resolve();
		else child.once('exit', () => resolve());
	});
	let stopping: Promise<void> | undefined;
	return {
		pid: child.pid,
		child,
		exited,
		output: (lines = 30) => tail(kept, lines) || '(no output)',
		stop: (timeoutMs = 10_000) => (stopping ??= stopGroup(child, exited, timeoutMs)),
	};
}

/**
 * Polls `check` (every 100 ms) until it returns a value other than undefined, and returns that
 * value. Fails at once when the service exits, and after timeoutMs, with the service's output.
 */
export async function pollUntil<T>(
	service: ServiceProcess,
	what: string,
	timeoutMs: number,
	check: () => Promise<T | undefined>,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let exited = false;
	void service.exited.then(() => (exited = true));
	for (;;) {
		if (exited)
			throw new Error(
				`${what}: the process exited (code ${service.child.exitCode ?? service.child.signalCode}) before it was ready. Output:\n${service.output()}`,
			);
		const value = await check().catch(() => undefined);
		if (value !== undefined) return value;
		if (Date.now() > deadline)
			throw new Error(`${what}: not ready within ${timeoutMs} ms. Output:\n${service.output()}`);
		await delay(100);
	}
}

/** Environment for a child service: ours, with `node` resolving to nodeBin's folder first. */
export function envWithNode(nodeBin: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const folder = nodeBin.slice(0, nodeBin.lastIndexOf('/'));
	return { ...process.env, PATH: `${folder}:${process.env.PATH ?? ''}`, ...extra };
}
