#!/usr/bin/env node
/**
 * The lint half of n8n's verification scanner (@n8n/scan-community-package), run offline.
 *
 * `npx @n8n/scan-community-package <name>` needs a published version: it checks npm provenance,
 * downloads the source at the attested commit and the tarball from npm, then lints both with
 * `analyzePackage`. Here the same exported `analyzePackage` runs, with the same file patterns and
 * the scanner's own ESLint config and plugin versions, on:
 *   - the source: package.json, nodes/, credentials/ (the scanner's SOURCE_FILE_PATTERNS), and
 *   - the tarball `npm pack` makes, unpacked as the scanner unpacks it, linting its compiled .js
 *     and package.json as the scanner does for a published version.
 * Inline eslint-disable comments are ignored (the scanner sets allowInlineConfig: false).
 * The provenance check cannot run before publishing; docs/verification.md says how it is met.
 *
 * Runs as plain `node`, as the scanner's CLI does: in-process under a test runner the external
 * lint plugin can resolve another parser instance and silently skip its rules.
 *
 *   node scripts/scan-package.mjs                  source + freshly packed tarball (needs dist/)
 *   node scripts/scan-package.mjs --source <dir>   the source leg only, on <dir>
 *   node scripts/scan-package.mjs --tarball <tgz>  the tarball leg only, on <tgz>
 * Exit code 0 when every leg passed, 1 when the scanner refused one, 2 on a usage or setup error.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const scannerPath = require.resolve('@n8n/scan-community-package/scanner/scanner.mjs');
const scannerVersion = JSON.parse(
	readFileSync(join(dirname(scannerPath), '../package.json'), 'utf8'),
).version;
// What the scanner lints in a downloaded tarball (scanner.mjs, analyzePackageByName).
const TARBALL_FILE_PATTERNS = ['**/*.js', 'package.json'];

class SetupError extends Error {}
function fail(message) {
	throw new SetupError(message);
}

function parseArgs(argv) {
	const legs = {};
	for (let i = 0; i < argv.length; i += 2) {
		const [flag, value] = [argv[i], argv[i + 1]];
		if ((flag !== '--source' && flag !== '--tarball') || !value) {
			fail(`unknown arguments "${argv.join(' ')}"; use --source <dir> and/or --tarball <file.tgz>`);
		}
		legs[flag.slice(2)] = resolve(value);
	}
	return Object.keys(legs).length > 0 ? legs : { source: root, tarball: undefined };
}

function run(command, args, options) {
	const result = spawnSync(command, args, { encoding: 'utf8', ...options });
	if (result.status !== 0)
		fail(`${command} ${args.join(' ')} failed: ${result.stderr || result.error}`);
	return result.stdout;
}

/** `npm pack` of this repository, as `npm publish` would upload it. */
function packRepository(destination) {
	const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
	for (const file of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) {
		if (!existsSync(join(root, file)))
			fail(`${file} is missing: run \`npm run build\` first (npm test does)`);
	}
	const output = run(
		'npm',
		['pack', '--ignore-scripts', '--json', '--pack-destination', destination],
		{ cwd: root },
	);
	return join(destination, JSON.parse(output)[0].filename);
}

/** Unpacked as the scanner does after `npm pack <name>@<version>`. */
function unpack(tarball, workDir) {
	if (!existsSync(tarball)) fail(`no tarball at ${tarball}`);
	const packageDir = join(workDir, 'package');
	mkdirSync(packageDir);
	run('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1']);
	return packageDir;
}

function report(leg, target, result) {
	// The scanner passes a folder with nothing to lint; here that can only be a wrong path.
	if (result.passed && result.message) fail(`${leg} ${target}: ${result.message}`);
	if (result.passed) {
		console.log(`n8n scanner ${scannerVersion}, ${leg}: passed (${target})`);
		return true;
	}
	console.log(`n8n scanner ${scannerVersion}, ${leg}: REFUSED (${target}): ${result.message}`);
	if (result.details) console.log(result.details);
	return false;
}

let legs;
try {
	legs = parseArgs(process.argv.slice(2));
} catch (error) {
	console.error(`scan-package: ${error.message}`);
	process.exit(2);
}
// eslint-plugin-n8n-nodes-base switches to its own test mode under NODE_ENV=test (jest sets it),
// where its filename rules misjudge real files; the scanner never runs that way.
delete process.env.NODE_ENV;
// The scanner makes a temp folder when imported; have it removed at exit.
require(createRequire(scannerPath).resolve('tmp')).setGracefulCleanup();
const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(scannerPath);

const workDir = mkdtempSync(join(tmpdir(), 'clinic-scribe-scan-'));
let passed = true;
let setupError;
try {
	if (legs.source) {
		passed =
			report('source', legs.source, await analyzePackage(legs.source, SOURCE_FILE_PATTERNS)) &&
			passed;
	}
	if ('tarball' in legs) {
		const tarball = legs.tarball ?? packRepository(workDir);
		const packageDir = unpack(tarball, workDir);
		passed =
			report(
				'tarball',
				tarball.startsWith(workDir) ? `npm pack: ${tarball.slice(workDir.length + 1)}` : tarball,
				await analyzePackage(packageDir, TARBALL_FILE_PATTERNS),
			) && passed;
	}
} catch (error) {
	if (!(error instanceof SetupError)) throw error;
	setupError = error;
} finally {
	rmSync(workDir, { recursive: true, force: true });
}
if (setupError) console.error(`scan-package: ${setupError.message}`);
process.exit(setupError ? 2 : passed ? 0 : 1);
