/**
 * `npm run scan` (scripts/scan-package.mjs) runs the lint half of n8n's verification scanner on the
 * source and on the packed tarball. These tests show it passes this package and refuses copies that
 * break n8n's rules, eslint-disable comments included, so a change that would fail verification
 * fails CI.
 */
import { spawnSync } from 'node:child_process';
import {
	appendFileSync,
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

jest.setTimeout(120_000);

const root = join(__dirname, '../../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const scannerVersion = JSON.parse(
	readFileSync(join(root, 'node_modules/@n8n/scan-community-package/package.json'), 'utf8'),
).version;
const tarballName = `${manifest.name}-${manifest.version}.tgz`;

let work: string;

function run(command: string, args: string[], cwd: string) {
	const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
	return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function scan(...args: string[]) {
	return run('node', [join(root, 'scripts/scan-package.mjs'), ...args], root);
}

/** `npm pack` of a folder holding an unpacked package, as `npm publish` would upload it. */
function pack(packageDir: string, destination: string): string {
	mkdirSync(destination, { recursive: true });
	const packed = run(
		'npm',
		['pack', '--ignore-scripts', '--silent', '--pack-destination', destination],
		packageDir,
	);
	expect(packed.status).toBe(0);
	return join(destination, tarballName);
}

/** An unpacked copy of this package's tarball, to break on purpose. */
function unpackedCopy(name: string): string {
	const dir = join(work, name);
	mkdirSync(dir);
	expect(
		run('tar', ['-xzf', join(work, 'good', tarballName), '-C', dir, '--strip-components=1'], work)
			.status,
	).toBe(0);
	return dir;
}

beforeAll(() => {
	if (!existsSync(join(root, 'dist/nodes/ClinicScribe/ClinicScribe.node.js'))) {
		throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
	}
	work = mkdtempSync(join(tmpdir(), 'clinic-scribe-scanner-test-'));
	pack(root, join(work, 'good'));
});

afterAll(() => {
	if (work) rmSync(work, { recursive: true, force: true });
});

describe("n8n's verification scanner in CI", () => {
	it('passes this package: its source and its packed tarball', () => {
		const tarball = join(work, 'good', tarballName);
		const result = scan('--source', root, '--tarball', tarball);
		expect(result.output.trim().split('\n')).toEqual([
			`n8n scanner ${scannerVersion}, source: passed (${root})`,
			`n8n scanner ${scannerVersion}, tarball: passed (${tarball})`,
		]);
		expect(result.status).toBe(0);
	});

	it('refuses a tarball whose compiled code or manifest breaks the rules, eslint-disable comments notwithstanding', () => {
		const bad = unpackedCopy('bad-tarball');
		appendFileSync(
			join(bad, 'dist/nodes/ClinicScribe/ClinicScribe.node.js'),
			'\n/* eslint-disable */\nsetTimeout(() => undefined, 1);\n',
		);
		appendFileSync(
			join(bad, 'dist/credentials/ClinicScribeApi.credentials.js'),
			'\n// eslint-disable-next-line\nconst fs = require("fs");\n',
		);
		const badManifest = JSON.parse(readFileSync(join(bad, 'package.json'), 'utf8'));
		writeFileSync(
			join(bad, 'package.json'),
			JSON.stringify({ ...badManifest, dependencies: { axios: '1.18.0' } }, null, 2),
		);
		const tarball = pack(bad, join(work, 'bad-tarball-packed'));

		const result = scan('--tarball', tarball);

		expect(result.status).toBe(1);
		expect(result.output).toContain(
			`n8n scanner ${scannerVersion}, tarball: REFUSED (${tarball}): ESLint violations found`,
		);
		const errors = result.output
			.split('\n')
			.filter((line) => / error /.test(line))
			.map((line) => line.trim().split(/\s+/).pop());
		expect(errors.sort()).toEqual([
			'@n8n/community-nodes/no-restricted-globals',
			'@n8n/community-nodes/no-restricted-imports',
			'@n8n/community-nodes/no-runtime-dependencies',
		]);
		expect(result.output).toContain("Use of restricted global 'setTimeout' is not allowed");
		expect(result.output).toContain("Require of 'fs' is not allowed");
		expect(result.output).toContain('3 problems (3 errors, 0 warnings)');
	});

	it('fails when it finds nothing to lint, which the scanner itself would pass', () => {
		const empty = join(work, 'empty');
		mkdirSync(empty);
		expect(scan('--source', empty)).toEqual({
			status: 2,
			output: `scan-package: source ${empty}: No files found to analyze\n`,
		});
	});

	it('refuses source that breaks a rule, eslint-disable comments notwithstanding', () => {
		const source = join(work, 'bad-source');
		for (const entry of ['package.json', 'nodes', 'credentials'])
			cpSync(join(root, entry), join(source, entry), { recursive: true });
		appendFileSync(
			join(source, 'nodes/ClinicScribe/ClinicScribe.node.ts'),
			"\n// eslint-disable-next-line no-console\nconsole.log('debug');\n",
		);

		const result = scan('--source', source);

		expect(result.status).toBe(1);
		expect(result.output).toContain(
			`n8n scanner ${scannerVersion}, source: REFUSED (${source}): ESLint violations found`,
		);
		expect(result.output).toMatch(
			/ClinicScribe\.node\.ts\n\s+\d+:1\s+error\s+Unexpected console statement\s+no-console/,
		);
	});
});
