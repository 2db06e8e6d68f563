/**
 * Installing n8n and this package into it: n8n 2.41 needs Node 24 while this repository's tooling
 * runs on Node 20, so scripts/install-n8n.sh puts Node 24 and n8n into a cache outside the
 * repository: the newest n8n the package supports (2.41.1, the default) and the oldest (1.123.x, for
 * the compatibility e2e test; docs/compatibility.md). The package is built, packed and unpacked into a user folder the way n8n's
 * "Community nodes" screen installs it (npm pack → <userFolder>/.n8n/nodes/node_modules), and
 * recorded in n8n's database so that screen lists it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

import { runProcess, tail } from './processes';

export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const PACKAGE_NAME = 'n8n-nodes-clinic-scribe';

const INSTALL_SCRIPT = join(REPO_ROOT, 'scripts', 'install-n8n.sh');

/** Which end of the supported range: what scripts/install-n8n.sh takes as its argument. */
export type N8nLine = 'newest' | 'oldest';

export interface N8nInstallation {
	/** Node 24 binary. */
	nodeBin: string;
	/** n8n's bin/n8n script (run it with nodeBin). */
	n8nBin: string;
	/** The n8n version installed there ("2.41.1"). */
	version: string;
}

/** A version scripts/install-n8n.sh pins (the one place they are written down): N8N_VERSION, NODE_VERSION, … */
export function pinnedInInstaller(name: string): string {
	const match = new RegExp(`^${name}="([^"]+)"$`, 'm').exec(readFileSync(INSTALL_SCRIPT, 'utf8'));
	if (!match) throw new Error(`scripts/install-n8n.sh does not pin ${name}`);
	return match[1];
}

/** The n8n versions scripts/install-n8n.sh pins. */
export function pinnedN8nVersions(): Record<N8nLine, string> {
	return {
		newest: pinnedInInstaller('N8N_VERSION'),
		oldest: pinnedInInstaller('N8N_OLDEST_VERSION'),
	};
}

/** The major version of an installed n8n (1 or 2): what some harness settings depend on. */
export function majorVersionOf(installation: Pick<N8nInstallation, 'version'>): number {
	return Number(installation.version.split('.')[0]);
}

const installations = new Map<N8nLine, N8nInstallation>();

/**
 * Runs scripts/install-n8n.sh for one end of the range (default the newest; a no-op once
 * installed; minutes on a fresh machine) and returns where Node 24 and that n8n are. Progress goes
 * to this process's stderr.
 */
export async function ensureN8nInstalled(
	options: { timeoutMs?: number; quiet?: boolean; line?: N8nLine } = {},
): Promise<N8nInstallation> {
	const line = options.line ?? 'newest';
	const known = installations.get(line);
	if (known) return known;
	const result = await runProcess('bash', [INSTALL_SCRIPT, line], {
		cwd: REPO_ROOT,
		timeoutMs: options.timeoutMs ?? 30 * 60_000,
		stderr: options.quiet ? 'capture' : 'inherit',
		what: 'scripts/install-n8n.sh',
	});
	if (result.code !== 0) {
		throw new Error(
			`scripts/install-n8n.sh failed (exit ${result.code}):\n${tail(result.stderr + result.stdout, 40)}`,
		);
	}
	const value = (name: string): string => {
		const line = result.stdout.split('\n').find((l) => l.startsWith(`${name}=`));
		if (!line)
			throw new Error(`scripts/install-n8n.sh did not print ${name}=…; output:\n${result.stdout}`);
		return line.slice(name.length + 1).trim();
	};
	const installation = {
		nodeBin: value('NODE24_BIN'),
		n8nBin: value('N8N_BIN'),
		version: value('N8N_VERSION'),
	};
	installations.set(line, installation);
	return installation;
}

/** `npm run build` in the repository. Throws with the build's output when it fails. */
export async function buildPackage(options: { timeoutMs?: number } = {}): Promise<void> {
	const result = await runProcess('npm', ['run', 'build'], {
		cwd: REPO_ROOT,
		timeoutMs: options.timeoutMs ?? 5 * 60_000,
		what: 'npm run build',
	});
	if (result.code !== 0)
		throw new Error(
			`npm run build failed (exit ${result.code}):\n${tail(result.stdout + result.stderr, 60)}`,
		);
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
	if (result.code !== 0)
		throw new Error(
			`npm pack failed (exit ${result.code}):\n${tail(result.stdout + result.stderr, 40)}`,
		);
	const parsed = JSON.parse(result.stdout.slice(result.stdout.indexOf('['))) as Array<{
		filename: string;
	}>;
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
export function installPackageTarball(
	userFolder: string,
	tarball: string,
): { name: string; version: string; directory: string } {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const staging = mkdtempSync(join(tmpdir(), 'clinic-scribe-unpack-'));
	try {
		const untar = spawnSync('tar', ['-xzf', tarball, '-C', staging, '--strip-components=1'], {
			encoding: 'utf8',
		});
		if (untar.status !== 0) throw new Error(`tar -xzf ${tarball} failed: ${untar.stderr}`);
		const manifestPath = join(staging, 'package.json');
		const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown> & {
			name: string;
			version: string;
			dependencies?: Record<string, string>;
		};
		if (manifest.dependencies && Object.keys(manifest.dependencies).length > 0) {
			// n8n would `npm install` them; a community package for n8n Cloud may have none.
			throw new Error(
				`${manifest.name} declares runtime dependencies (${Object.keys(manifest.dependencies).join(', ')}); it must have none`,
			);
		}
		const {
			devDependencies: _d,
			peerDependencies: _p,
			optionalDependencies: _o,
			...installed
		} = manifest;
		writeFileSync(manifestPath, JSON.stringify(installed, null, 2), 'utf8');

		const directory = join(nodesDir, 'node_modules', manifest.name);
		rmSync(directory, { recursive: true, force: true });
		mkdirSync(dirname(directory), { recursive: true });
		const move = spawnSync('mv', [staging, directory], { encoding: 'utf8' });
		if (move.status !== 0)
			throw new Error(`moving the unpacked package into ${directory} failed: ${move.stderr}`);

		const nodesManifestPath = join(nodesDir, 'package.json');
		const nodesManifest = existsSync(nodesManifestPath)
			? (JSON.parse(readFileSync(nodesManifestPath, 'utf8')) as {
					dependencies?: Record<string, string>;
				})
			: { name: 'installed-nodes', private: true, dependencies: {} };
		nodesManifest.dependencies = {
			...(nodesManifest.dependencies ?? {}),
			[manifest.name]: manifest.version,
		};
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

const RECORD_PACKAGE_SCRIPT = join(__dirname, 'recordCommunityPackage.cjs');

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
	if (!userFolder)
		throw new Error('recordCommunityPackage: the environment sets no N8N_USER_FOLDER');
	const database = resolve(userFolder, '.n8n', n8nEnv.DB_SQLITE_DATABASE || 'database.sqlite');
	if (!existsSync(database))
		throw new Error(
			`recordCommunityPackage: no n8n database at ${database} yet (run an n8n command first)`,
		);
	// The package's nodes import n8n-workflow, which n8n's installation provides.
	const n8nModules = resolve(installation.n8nBin, '..', '..', '..');
	const result = await runProcess(
		installation.nodeBin,
		[
			'--disable-warning=ExperimentalWarning',
			RECORD_PACKAGE_SCRIPT,
			database,
			n8nEnv.DB_TABLE_PREFIX ?? '',
			packageDirectory,
		],
		{
			cwd: userFolder,
			env: { ...n8nEnv, NODE_PATH: n8nModules },
			timeoutMs: 60_000,
			what: "recording the community package in n8n's database",
		},
	);
	if (result.code !== 0)
		throw new Error(
			`recording ${packageDirectory} in ${database} failed (exit ${result.code ?? result.signal}):\n${tail(result.stderr + result.stdout, 30)}`,
		);
	return JSON.parse(result.stdout) as CommunityPackageRecord;
}
