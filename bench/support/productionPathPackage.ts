/**
 * A bench-only copy of the packed package whose production addresses (the service's sign-in
 * provider and API) are replaced by the local fake's, so a credential set to Environment Production
 * runs the shipped code path exactly, but for those address strings, without contacting the
 * service. Only the bench installs it; the shipped package holds nothing for it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { packedPackageForTests } from '../../test/support/n8n/install';

/** The service's production addresses as the package ships them (docs/credentials.md). */
export const PRODUCTION_ADDRESSES = {
	signIn: 'https://accounts.eka.care',
	api: 'https://api.eka.care',
} as const;

function run(command: string, args: string[]): void {
	const result = spawnSync(command, args, { encoding: 'utf8' });
	if (result.status !== 0)
		throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
}

function javaScriptFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true, recursive: true })
		.filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
		.map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Packs the package (building it first) and returns the tarball of a copy whose compiled code
 * sends both production addresses' traffic to `fakeUrl`. Fails when either address is not found
 * (the shipped addresses changed, and the copy would not be the Production path).
 */
export async function productionPathPackage(fakeUrl: string): Promise<string> {
	const packed = await packedPackageForTests();
	const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-bench-production-path-'));
	process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
	run('tar', ['-xzf', packed, '-C', dir]);
	const replaced = { signIn: 0, api: 0 };
	for (const file of javaScriptFiles(join(dir, 'package', 'dist'))) {
		let code = readFileSync(file, 'utf8');
		const before = code;
		for (const key of Object.keys(replaced) as Array<keyof typeof replaced>) {
			const parts = code.split(PRODUCTION_ADDRESSES[key]);
			replaced[key] += parts.length - 1;
			code = parts.join(fakeUrl);
		}
		if (code !== before) writeFileSync(file, code);
	}
	for (const [key, count] of Object.entries(replaced))
		if (count === 0)
			throw new Error(
				`the built package holds no ${PRODUCTION_ADDRESSES[key as keyof typeof replaced]}: the Production path copy cannot point it at the fake`,
			);
	const tarball = join(dir, 'production-path.tgz');
	run('tar', ['-czf', tarball, '-C', dir, 'package']);
	return tarball;
}
