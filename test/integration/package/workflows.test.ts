/**
 * The GitHub Actions workflows cannot run here: this parses them and asserts what publishing with
 * provenance depends on, runs the CLI's release command as the publish workflow does (with a
 * stand-in npm), and runs the publish workflow's tag check.
 */
import { spawnSync } from 'node:child_process';
import {
	cpSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';

const root = join(__dirname, '../../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
	env?: Record<string, string>;
	if?: string;
	'continue-on-error'?: unknown;
}

function workflow(file: string) {
	const document = parseDocument(readFileSync(join(root, '.github/workflows', file), 'utf8'), {
		uniqueKeys: true,
	});
	expect(document.errors.map(String)).toEqual([]);
	expect(document.warnings.map(String)).toEqual([]);
	return document.toJS();
}

/** GitHub's filter pattern syntax for the subset the workflow uses: `*` matches anything but `/`. */
function filterMatches(pattern: string, ref: string): boolean {
	const regex = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
	return new RegExp(`^${regex}$`).test(ref);
}

const ci = workflow('ci.yml');
const publish = workflow('publish.yml');
const publishSteps: Step[] = publish.jobs.publish.steps;
const indexOf = (steps: Step[], predicate: (step: Step) => boolean) => steps.findIndex(predicate);
const runs = (command: string) => (step: Step) =>
	(step.run ?? '').split('\n').some((line) => line.trim() === command);
const TAG_CHECK = 'node scripts/check-release-tag.mjs "$GITHUB_REF_NAME"';

describe('publish workflow (n8n-node release --init-workflow, adapted)', () => {
	it('is the only workflow that publishes', () => {
		const files = readdirSync(join(root, '.github/workflows')).sort();
		expect(files).toEqual(['ci.yml', 'publish.yml']);
		expect(JSON.stringify(ci)).not.toMatch(/npm publish|npm run release|id-token/);
	});

	it('runs on version tags only, and the tag of this version matches its filter', () => {
		expect(publish.on).toEqual({ push: { tags: ['v*.*.*'] } });
		expect(filterMatches(publish.on.push.tags[0], `v${manifest.version}`)).toBe(true);
		expect(filterMatches(publish.on.push.tags[0], manifest.version)).toBe(false);
		expect(filterMatches(publish.on.push.tags[0], 'main')).toBe(false);
	});

	it('has exactly the permissions provenance needs, and only in the publishing job', () => {
		expect(publish.permissions).toEqual({ contents: 'read' });
		expect(Object.keys(publish.jobs)).toEqual(['publish']);
		expect(publish.jobs.publish.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
		expect(publish.jobs.publish['runs-on']).toBe('ubuntu-latest');
	});

	it('checks the tag, runs every test, then installs and runs `npm run release`, in that order and unconditionally', () => {
		const tagCheck = indexOf(publishSteps, runs(TAG_CHECK));
		const tests = indexOf(publishSteps, runs('.ci/run'));
		const release = indexOf(publishSteps, runs('npm run release'));
		expect([tagCheck >= 0, tests >= 0, release >= 0]).toEqual([true, true, true]);
		expect(tagCheck).toBeLessThan(tests);
		expect(tests).toBeLessThan(release);
		expect(
			publishSteps.filter(
				(step) => step.if !== undefined || step['continue-on-error'] !== undefined,
			),
		).toEqual([]);
		// After the tests: the template's three steps, and nothing else.
		expect(publishSteps.slice(tests + 1).map((step) => step.name)).toEqual([
			'Set up Node.js',
			'Install dependencies',
			'Release',
		]);
		expect(publishSteps[tests + 1].with).toEqual({ 'node-version': 'lts/*', cache: 'npm' });
		expect(publishSteps[tests + 2].run).toBe('npm ci');
		// Nothing publishes but the CLI's release command.
		expect(publishSteps.filter((step) => /npm publish/.test(step.run ?? ''))).toEqual([]);
		expect(manifest.scripts.release).toBe('n8n-node release');
	});

	it('hands the release step the NPM_TOKEN secret (the fallback to trusted publishing), not a literal', () => {
		const release = publishSteps[indexOf(publishSteps, runs('npm run release'))];
		expect(release.env).toEqual({ NPM_TOKEN: '${{ secrets.NPM_TOKEN }}' });
		expect(release.run?.split('\n')[0]).toBe(
			'[ -n "$NPM_TOKEN" ] && npm config set //registry.npmjs.org/:_authToken "$NPM_TOKEN"',
		);
	});

	it('runs the same test steps as CI', () => {
		const ciSteps: Step[] = ci.jobs.test.steps;
		const tests = indexOf(publishSteps, runs('.ci/run'));
		const publishTestSteps = publishSteps
			.slice(0, tests + 1)
			.filter((step) => !runs(TAG_CHECK)(step));
		expect(publishTestSteps).toEqual(ciSteps);
	});
});

describe('`npm run release` in GitHub Actions (n8n-node release)', () => {
	let dir: string;
	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-release-'));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it('lints, builds, then publishes with an npm provenance statement', () => {
		// A stand-in `npm` first on PATH records what the CLI asks of npm, and with which environment.
		const log = join(dir, 'npm-calls.log');
		writeFileSync(
			join(dir, 'npm'),
			`#!/bin/sh\necho "$* | RELEASE_MODE=$RELEASE_MODE NPM_CONFIG_PROVENANCE=$NPM_CONFIG_PROVENANCE" >> "${log}"\n`,
			{ mode: 0o755 },
		);
		const cli = join(root, 'node_modules/@n8n/node-cli/bin/n8n-node.mjs');
		const result = spawnSync(process.execPath, [cli, 'release'], {
			cwd: root,
			encoding: 'utf8',
			env: {
				...process.env,
				PATH: `${dir}:${process.env.PATH}`,
				GITHUB_ACTIONS: 'true',
				npm_config_user_agent: 'npm/11',
			},
		});
		expect(result.status).toBe(0);
		expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([
			'run lint | RELEASE_MODE= NPM_CONFIG_PROVENANCE=',
			'run build | RELEASE_MODE= NPM_CONFIG_PROVENANCE=',
			'publish | RELEASE_MODE=true NPM_CONFIG_PROVENANCE=true',
		]);
	});
});

describe('CI workflow', () => {
	const steps: Step[] = ci.jobs.test.steps;

	it('runs .ci/run for pull requests and on main, with read-only permissions', () => {
		expect(ci.on).toEqual({ pull_request: null, push: { branches: ['main'] } });
		expect(ci.permissions).toEqual({ contents: 'read' });
		expect(
			steps
				.map((step) => step.run)
				.filter(Boolean)
				.pop(),
		).toBe('.ci/run');
		const mode = spawnSync('git', ['ls-files', '-s', '.ci/run'], {
			cwd: root,
			encoding: 'utf8',
		}).stdout.split(' ')[0];
		expect(mode).toBe('100755');
	});

	it('uses the Node .ci/run expects, installs the queue-mode services and caches the real n8n', () => {
		expect(steps.find((step) => step.uses === 'actions/setup-node@v4')?.with).toEqual({
			'node-version': '20',
			cache: 'npm',
		});
		expect(manifest.engines).toEqual({ node: '>=20.15' });
		const apt = steps.find((step) => /apt-get install/.test(step.run ?? ''))?.run ?? '';
		expect(apt).toMatch(/^sudo apt-get install -y -q --no-install-recommends .*\bredis-server\b/m);
		expect(apt).toMatch(/^sudo apt-get install -y -q --no-install-recommends .*\bpostgresql\b/m);
		expect(steps.find((step) => step.uses === 'actions/cache@v4')?.with).toEqual({
			path: '~/.cache/n8n-nodes-clinic-scribe',
			key: "n8n-${{ runner.os }}-${{ hashFiles('scripts/install-n8n.sh') }}",
		});
		// The cache key changes when the installer's pinned versions do.
		expect(readFileSync(join(root, 'scripts/install-n8n.sh'), 'utf8')).toMatch(
			/^N8N_VERSION="2\.41\.1"$/m,
		);
		expect(readFileSync(join(root, 'scripts/install-n8n.sh'), 'utf8')).toMatch(
			/^N8N_OLDEST_VERSION="1\.123\.81"$/m,
		);
		// npm test installs both ends of the range before the e2e tests (the oldest-n8n file needs the older one).
		expect(manifest.scripts['n8n:install']).toMatch(/^bash scripts\/install-n8n\.sh all && /);
	});
});

describe('release tag check (scripts/check-release-tag.mjs)', () => {
	let dir: string;

	/** The script in a copy of the repository's layout with this version and changelog. */
	function check(tag: string, version: string, changelog: string) {
		writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...manifest, version }));
		writeFileSync(join(dir, 'CHANGELOG.md'), changelog);
		const result = spawnSync('node', [join(dir, 'scripts/check-release-tag.mjs'), tag], {
			encoding: 'utf8',
		});
		return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
	}

	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-release-check-'));
		mkdirSync(join(dir, 'scripts'));
		cpSync(join(root, 'scripts/check-release-tag.mjs'), join(dir, 'scripts/check-release-tag.mjs'));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("accepts this repository's version tag", () => {
		const result = spawnSync('node', ['scripts/check-release-tag.mjs', `v${manifest.version}`], {
			cwd: root,
			encoding: 'utf8',
		});
		expect(result.stdout.trim()).toBe(
			`release check: tag v${manifest.version} matches package.json ${manifest.version} and CHANGELOG.md`,
		);
		expect(result.status).toBe(0);
	});

	it('refuses a tag that is not v + the version', () => {
		const changelog = '## [0.2.0] - 2026-12-01\n';
		expect(check('v0.2.1', '0.2.0', changelog)).toEqual({
			status: 1,
			output:
				'release check: tag "v0.2.1" does not match package.json\'s version 0.2.0: tag the commit v0.2.0, or set the version with `npm version <new version> --no-git-tag-version` and commit it before tagging',
		});
		expect(check('0.2.0', '0.2.0', changelog).status).toBe(1);
		expect(check('v0.2.0', '0.2.0', changelog).status).toBe(0);
	});

	it('refuses a version without a dated CHANGELOG section', () => {
		expect(check('v0.2.0', '0.2.0', '## [Unreleased]\n\n## [0.1.0] - 2026-11-22\n')).toEqual({
			status: 1,
			output:
				'release check: CHANGELOG.md has no "## [0.2.0] - YYYY-MM-DD" section: move the [Unreleased] entries under it',
		});
		expect(check('v0.2.0', '0.2.0', '## [0.2.0]\n').status).toBe(1);
	});
});
