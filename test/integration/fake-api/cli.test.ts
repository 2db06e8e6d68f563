import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';

import { parseCliArgs } from '../../fake-api/cli';

const ROOT = join(__dirname, '..', '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = join(ROOT, 'test', 'fake-api', 'cli.ts');

jest.setTimeout(120_000);

interface Started {
	child: ChildProcessWithoutNullStreams;
	info: { url: string; credentials: Record<string, string>; variant: string; pid: number };
	stderr: () => string;
	extraStdout: () => string;
}

/** Starts the CLI as tests in other processes do: tsx directly (npx would not pass signals on). */
function startCli(args: string[]): Promise<Started> {
	const child = spawn(TSX, [CLI, ...args], { cwd: ROOT, stdio: 'pipe' });
	let stdout = '';
	let stderr = '';
	child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`CLI did not start: ${stderr}`)), 90_000);
		child.on('exit', (code) => reject(new Error(`CLI exited early with ${code}: ${stderr}`)));
		child.stdout.on('data', (d: Buffer) => {
			stdout += d.toString();
			const newline = stdout.indexOf('\n');
			if (newline === -1) return;
			clearTimeout(timer);
			resolve({
				child,
				info: JSON.parse(stdout.slice(0, newline)),
				stderr: () => stderr,
				extraStdout: () => stdout.slice(newline + 1),
			});
		});
	});
}

function exitOf(
	child: ChildProcessWithoutNullStreams,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
	return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('cli.ts', () => {
	test.each(['SIGTERM', 'SIGINT'] as const)(
		'prints one JSON line, serves, and stops cleanly on %s',
		async (signal) => {
			const started = await startCli(['--port', '0', '--variant', 'public', '--log']);
			try {
				const { url, credentials, variant } = started.info;
				expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
				expect(variant).toBe('public');
				expect(Object.keys(credentials).sort()).toEqual([
					'apiKey',
					'clientId',
					'clientSecret',
					'staticToken',
				]);

				const login = await fetch(`${url}/connect-auth/v1/account/login`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({
						client_id: credentials.clientId,
						client_secret: credentials.clientSecret,
					}),
				});
				expect(login.status).toBe(200);
				expect((await login.json()).expires_in).toBe(1800);
				const stats = await (await fetch(`${url}/__admin/stats`)).json();
				expect(stats.counters.tokenExchanges).toBe(1);
				expect(stats.options.variant).toBe('public');
			} finally {
				const exited = exitOf(started.child);
				started.child.kill(signal);
				expect(await exited).toEqual({ code: 0, signal: null });
			}
			expect(started.extraStdout()).toBe(''); // exactly one line on stdout
			expect(started.stderr()).toMatch(/POST \/connect-auth\/v1\/account\/login -> 200/);
			expect(started.stderr()).not.toContain(started.info.credentials.clientSecret);
		},
	);

	test('bad arguments exit 2 with a usage line', async () => {
		const child = spawn(TSX, [CLI, '--variant', 'sandbox'], { cwd: ROOT, stdio: 'pipe' });
		let stderr = '';
		child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
		expect(await exitOf(child)).toEqual({ code: 2, signal: null });
		expect(stderr).toMatch(/--variant must be document or public/);
		expect(stderr).toMatch(/usage:/);
	});

	test('parseCliArgs reads both --flag value and --flag=value', () => {
		expect(
			parseCliArgs([
				'--port=8123',
				'--variant',
				'public',
				'--patients-form',
				'patients',
				'--services-form=object',
				'--token-lifetime',
				'5',
			]),
		).toEqual({
			log: false,
			port: 8123,
			variant: 'public',
			patientsForm: 'patients',
			servicesForm: 'object',
			accessTokenLifetimeSeconds: 5,
		});
		expect(() => parseCliArgs(['--port', 'x'])).toThrow(/--port/);
		expect(() => parseCliArgs(['--what'])).toThrow(/unknown argument/);
		expect(() => parseCliArgs(['--port'])).toThrow(/needs a value/);
	});
});
