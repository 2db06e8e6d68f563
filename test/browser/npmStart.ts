/**
 * `npm start` as a child process for the browser tests: a user folder and ports of its own, ready
 * once it printed that n8n runs, stopped by its process group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { REPO_ROOT } from '../support/n8n/install';
import {
	freePort,
	groupAlive,
	killGroup,
	trackGroup,
	untrackGroup,
} from '../support/n8n/processes';

const READY_LINE = 'n8n is running with n8n-nodes-clinic-scribe installed.';

export class NpmStart {
	private output = '';

	private constructor(
		private readonly child: ChildProcess,
		private readonly dir: string,
		readonly baseUrl: string,
		readonly fakeApiUrl: string,
		/** The local EHR (its page; the FHIR base is `<ehrUrl>/fhir`). */
		readonly ehrUrl: string,
		/** The local inbox's page. */
		readonly inboxUrl: string,
		/** The environment the demo scripts need to reach these (their ports). */
		readonly demoEnv: Record<string, string>,
	) {
		const keep = (chunk: Buffer) => {
			this.output += chunk.toString();
		};
		child.stdout?.on('data', keep);
		child.stderr?.on('data', keep);
	}

	/** What npm start printed so far. */
	get printed(): string {
		return this.output;
	}

	/** Its n8n user folder (CLINIC_SCRIBE_USER_FOLDER). */
	get userFolder(): string {
		return join(this.dir, 'n8n');
	}

	get browserProfile(): string {
		return join(this.dir, 'chromium-profile');
	}

	/** `npm start` with a user folder and ports of its own; resolves once it printed that n8n runs. */
	static async start(): Promise<NpmStart> {
		const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-browser-'));
		const [n8nPort, fakeApiPort, brokerPort, ehrPort, inboxPort, smtpPort] =
			await distinctFreePorts(6);
		const ports = {
			N8N_PORT: String(n8nPort),
			CLINIC_SCRIBE_FAKE_API_PORT: String(fakeApiPort),
			CLINIC_SCRIBE_EHR_PORT: String(ehrPort),
			CLINIC_SCRIBE_INBOX_PORT: String(inboxPort),
		};
		const child = spawn('npm', ['start'], {
			cwd: REPO_ROOT,
			// Its own process group, so stop() reaches npm, sh and tsx alike.
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
			env: {
				...process.env,
				...ports,
				N8N_RUNNERS_BROKER_PORT: String(brokerPort),
				CLINIC_SCRIBE_SMTP_PORT: String(smtpPort),
				CLINIC_SCRIBE_USER_FOLDER: join(dir, 'n8n'),
			},
		});
		trackGroup(child.pid);
		const started = new NpmStart(
			child,
			dir,
			`http://127.0.0.1:${n8nPort}`,
			`http://127.0.0.1:${fakeApiPort}`,
			`http://127.0.0.1:${ehrPort}`,
			`http://127.0.0.1:${inboxPort}`,
			ports,
		);
		await started.ready();
		return started;
	}

	private async ready(): Promise<void> {
		await new Promise<void>((resolveReady, reject) => {
			const check = () => {
				if (this.output.includes(READY_LINE)) done(undefined);
			};
			const exited = (code: number | null) =>
				done(
					new Error(
						`npm start exited (code ${code}) before n8n was ready:\n${this.output.slice(-4000)}`,
					),
				);
			const done = (error: Error | undefined) => {
				this.child.stdout?.off('data', check);
				this.child.off('exit', exited);
				if (error) reject(error);
				else resolveReady();
			};
			this.child.stdout?.on('data', check);
			this.child.once('exit', exited);
			check();
		});
	}

	/** `npm run <script>` (demo:complete, demo:clinic) against this npm start; its output, or why it failed. */
	async demo(script: string): Promise<string> {
		const child = spawn('npm', ['run', '--silent', script], {
			cwd: REPO_ROOT,
			env: { ...process.env, ...this.demoEnv },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
		// Each waits 30 s at most for what it checks; 3 minutes bounds the whole of it.
		const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
		const code = await new Promise<number | null>((resolveExit) =>
			child.once('exit', resolveExit),
		).finally(() => clearTimeout(timer));
		if (code !== 0) throw new Error(`npm run ${script} exited with ${code}:\n${output}`);
		return output;
	}

	/**
	 * SIGTERM to npm start's process group: start.ts then stops n8n (its own group) and the fake API
	 * and exits. Waits until the group is empty (SIGKILL after a minute), then removes the folder.
	 */
	async stop(): Promise<void> {
		const group = this.child.pid;
		if (group) {
			killGroup(group, 'SIGTERM');
			for (let waited = 0; groupAlive(group); waited += 250) {
				if (waited === 60_000) killGroup(group, 'SIGKILL');
				await new Promise((resolveWait) => setTimeout(resolveWait, 250));
			}
			untrackGroup(group);
		}
		rmSync(this.dir, { recursive: true, force: true });
	}
}

async function distinctFreePorts(count: number): Promise<number[]> {
	const ports = new Set<number>();
	while (ports.size < count) ports.add(await freePort());
	return [...ports];
}
