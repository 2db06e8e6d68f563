/**
 * The GitHub Actions workflows cannot run here: this parses them and asserts what publishing with
 * provenance depends on, and runs the release workflow's tag check.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
	const document = parseDocument(readFileSync(join(root, '.github/workflows', file), 'utf8'), { uniqueKeys: true });
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
const release = workflow('release.yml');
const releaseSteps: Step[] = release.jobs.release.steps;
const indexOf = (steps: Step[], predicate: (step: Step) => boolean) => steps.findIndex(predicate);
const runs = (command: string) => (step: Step) => (step.run ?? '').split('\n').some((line) => line.trim() === command);

describe('release workflow', () => {
	it('runs on version tags only, and the tag of this version matches its filter', () => {
		expect(release.on).toEqual({ push: { tags: ['v*.*.*'] } });
		expect(filterMatches(release.on.push.tags[0], `v${manifest.version}`)).toBe(true);
		expect(filterMatches(release.on.push.tags[0], manifest.version)).toBe(false);
		expect(filterMatches(release.on.push.tags[0], 'main')).toBe(false);
	});

	it('has exactly the permissions provenance needs, and only in the publishing job', () => {
		expect(release.permissions).toEqual({ contents: 'read' });
		expect(Object.keys(release.jobs)).toEqual(['release']);
		expect(release.jobs.release.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
		expect(release.jobs.release['runs-on']).toBe('ubuntu-latest');
	});

	it('checks the tag, runs every test, then publishes with provenance, in that order and unconditionally', () => {
		const tagCheck = indexOf(releaseSteps, runs('node scripts/check-release-tag.mjs "$GITHUB_REF_NAME"'));
		const tests = indexOf(releaseSteps, runs('.ci/run'));
		const publish = indexOf(releaseSteps, runs('npm publish --provenance --access public'));
		expect([tagCheck >= 0, tests >= 0, publish >= 0]).toEqual([true, true, true]);
		expect(tagCheck).toBeLessThan(tests);
		expect(tests).toBeLessThan(publish);
		expect(releaseSteps.filter((step) => step.if !== undefined || step['continue-on-error'] !== undefined)).toEqual([]);
		// Nothing between the tests and publishing rebuilds or reinstalls what was tested.
		const between = releaseSteps.slice(tests + 1, publish);
		expect(between.map((step) => step.uses ?? step.run)).toEqual(['actions/setup-node@v4']);
		expect(releaseSteps.filter((step) => /npm publish/.test(step.run ?? ''))).toHaveLength(1);
	});

	it('publishes with an npm new enough for trusted publishing, to the public registry', () => {
		const setup = releaseSteps.filter((step) => step.uses === 'actions/setup-node@v4');
		expect(setup.map((step) => step.with)).toEqual([
			{ 'node-version': '20', cache: 'npm' },
			{ 'node-version': '24', 'registry-url': 'https://registry.npmjs.org' },
		]);
		const publish = releaseSteps.find(runs('npm publish --provenance --access public'));
		expect(publish?.env).toEqual({ NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}' });
		expect(publish?.run).toContain('is older than 11.5.1, which trusted publishing needs');
	});

	it('runs the same test steps as CI', () => {
		const ciSteps: Step[] = ci.jobs.test.steps;
		const tests = indexOf(releaseSteps, runs('.ci/run'));
		const releaseTestSteps = releaseSteps.slice(0, tests + 1).filter((step) => !runs('node scripts/check-release-tag.mjs "$GITHUB_REF_NAME"')(step));
		expect(releaseTestSteps).toEqual(ciSteps);
	});
});

describe('CI workflow', () => {
	const steps: Step[] = ci.jobs.test.steps;

	it('runs .ci/run for pull requests and on main, with read-only permissions', () => {
		expect(ci.on).toEqual({ pull_request: null, push: { branches: ['main'] } });
		expect(ci.permissions).toEqual({ contents: 'read' });
		expect(steps.map((step) => step.run).filter(Boolean).pop()).toBe('.ci/run');
		const mode = spawnSync('git', ['ls-files', '-s', '.ci/run'], { cwd: root, encoding: 'utf8' }).stdout.split(' ')[0];
		expect(mode).toBe('100755');
	});

	it('uses the Node .ci/run expects, installs the queue-mode services and caches the real n8n', () => {
		expect(steps.find((step) => step.uses === 'actions/setup-node@v4')?.with).toEqual({ 'node-version': '20', cache: 'npm' });
		expect(manifest.engines).toEqual({ node: '>=20.15' });
		const apt = steps.find((step) => /apt-get install/.test(step.run ?? ''))?.run ?? '';
		expect(apt).toMatch(/^sudo apt-get install -y -q --no-install-recommends .*\bredis-server\b/m);
		expect(apt).toMatch(/^sudo apt-get install -y -q --no-install-recommends .*\bpostgresql\b/m);
		expect(steps.find((step) => step.uses === 'actions/cache@v4')?.with).toEqual({
			path: '~/.cache/n8n-nodes-clinic-scribe',
			key: "n8n-${{ runner.os }}-${{ hashFiles('scripts/install-n8n.sh') }}",
		});
		// The cache key changes when the installer's pinned versions do.
		expect(readFileSync(join(root, 'scripts/install-n8n.sh'), 'utf8')).toMatch(/^N8N_VERSION="2\.41\.1"$/m);
		expect(readFileSync(join(root, 'scripts/install-n8n.sh'), 'utf8')).toMatch(/^N8N_OLDEST_VERSION="1\.123\.81"$/m);
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
		const result = spawnSync('node', [join(dir, 'scripts/check-release-tag.mjs'), tag], { encoding: 'utf8' });
		return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
	}

	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-release-check-'));
		mkdirSync(join(dir, 'scripts'));
		cpSync(join(root, 'scripts/check-release-tag.mjs'), join(dir, 'scripts/check-release-tag.mjs'));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("accepts this repository's version tag", () => {
		const result = spawnSync('node', ['scripts/check-release-tag.mjs', `v${manifest.version}`], { cwd: root, encoding: 'utf8' });
		expect(result.stdout.trim()).toBe(`release check: tag v${manifest.version} matches package.json ${manifest.version} and CHANGELOG.md`);
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
			output: 'release check: CHANGELOG.md has no "## [0.2.0] - YYYY-MM-DD" section: move the [Unreleased] entries under it',
		});
		expect(check('v0.2.0', '0.2.0', '## [0.2.0]\n').status).toBe(1);
	});
});
