#!/usr/bin/env node
/**
 * The first step of `npm start` and `npm test`: installs the locked dependencies (`npm ci`) when
 * they are not installed yet, so both commands work on a fresh clone with no `npm install` first.
 * A no-op when every direct dependency is installed at the version package-lock.json locks.
 *
 * Not an install lifecycle script (n8n's rules forbid those, and .npmrc's ignore-scripts would skip
 * a prestart/pretest): start and test call it themselves. Uses only Node's own modules, since it
 * runs before anything is installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));

/** Direct dependencies missing from node_modules or installed at another version than the lock's. */
function notInstalled() {
	const names = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies });
	return names.filter((name) => {
		const installed = join(root, 'node_modules', name, 'package.json');
		if (!existsSync(installed)) return true;
		const locked = lock.packages?.[`node_modules/${name}`]?.version;
		return locked !== undefined && JSON.parse(readFileSync(installed, 'utf8')).version !== locked;
	});
}

const missing = notInstalled();
if (missing.length > 0) {
	const shown =
		missing.length > 5
			? `${missing.slice(0, 5).join(', ')} and ${missing.length - 5} more`
			: missing.join(', ');
	console.log(`Installing the locked dependencies (npm ci): ${shown} not installed`);
	const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
		cwd: root,
		stdio: 'inherit',
	});
	if (result.status !== 0) {
		console.error(
			`npm ci failed (exit ${result.status ?? result.signal}); run it yourself to see why`,
		);
		process.exit(1);
	}
	const major = Number(process.versions.node.split('.')[0]);
	if (major < 24)
		console.log(
			`Node ${process.versions.node}: the "npm warn EBADENGINE" lines above (n8n-workflow's isolated-vm, Medplum's packages) are expected and harmless: nothing runs them under this Node (docs/local-demo.md).`,
		);
}
