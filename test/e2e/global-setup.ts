/**
 * Once per e2e run: install n8n (scripts/install-n8n.sh; minutes on a fresh machine, a no-op
 * afterwards), build this package and pack it. The tarball's path is handed to the test files
 * through PACKED_TARBALL_ENV (jest starts its workers after this, so they inherit it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	PACKED_TARBALL_ENV,
	buildPackage,
	ensureN8nInstalled,
	packPackage,
} from '../support/n8n/install';

export default async function globalSetup(): Promise<void> {
	const started = Date.now();
	process.stderr.write('\n[e2e setup] ensuring n8n is installed (first time: several minutes)…\n');
	const installed = await ensureN8nInstalled();
	process.stderr.write(`[e2e setup] n8n: ${installed.n8nBin}\n[e2e setup] building the package…\n`);
	await buildPackage();
	const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-e2e-pack-'));
	// This process is jest's own: it outlives every test file, then removes the tarball.
	process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
	const tarball = await packPackage(dir);
	process.env[PACKED_TARBALL_ENV] = tarball;
	process.stderr.write(
		`[e2e setup] packed ${tarball} (${Math.round((Date.now() - started) / 1000)} s)\n`,
	);
}
