#!/usr/bin/env node
/**
 * The release workflow's first step: the pushed tag must be `v` + package.json's version, and
 * CHANGELOG.md must have a dated section for that version, so npm never gets a version whose tag,
 * manifest and changelog disagree.
 *
 *   node scripts/check-release-tag.mjs v0.2.0
 * Exit code 0 when they agree; 1 with the reason and the fix otherwise.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
const tag = process.argv[2] ?? '';

// semver.org's grammar, without build metadata (npm drops it).
const semver = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;
const escaped = version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const problems = [];
if (!semver.test(version))
	problems.push(
		`package.json's version "${version}" is not a semantic version (MAJOR.MINOR.PATCH)`,
	);
if (tag !== `v${version}`) {
	problems.push(
		`tag "${tag}" does not match package.json's version ${version}: tag the commit v${version}, or set the version with \`npm version <new version> --no-git-tag-version\` and commit it before tagging`,
	);
}
if (!new RegExp(`^## \\[${escaped}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm').test(changelog)) {
	problems.push(
		`CHANGELOG.md has no "## [${version}] - YYYY-MM-DD" section: move the [Unreleased] entries under it`,
	);
}

if (problems.length > 0) {
	for (const problem of problems) console.error(`release check: ${problem}`);
	process.exit(1);
}
console.log(`release check: tag ${tag} matches package.json ${version} and CHANGELOG.md`);
