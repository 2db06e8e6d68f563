/**
 * Headless Chromium for the browser tests: Debian's build (scripts/install-chromium.sh), with the
 * flags this closed network needs (no background connections), and whether the tests can run.
 */
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.CLINIC_SCRIBE_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

/** `describe`, or `describe.skip` with the reason when Chromium is missing and not required. */
export function describeWithChromium(file: string): jest.Describe {
	if (existsSync(CHROMIUM) || process.env.CLINIC_SCRIBE_REQUIRE_BROWSER === '1') return describe;
	process.stderr.write(
		`[browser test] ${file} skipped: ${CHROMIUM} is not installed; run \`sudo bash scripts/install-chromium.sh\` to include it\n`,
	);
	return describe.skip;
}
