/**
 * `npm run lint` is `n8n-node lint` with n8n's template configuration, then `prettier --check .`;
 * the one change to the template is that test/, bench/ and scripts/ (never shipped, run in Node) are
 * left to `npm run lint:tests`. This checks that the change is only that: what ships is linted with exactly
 * the template's configuration objects, Cloud rules included.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Runs an ES module snippet from the repository root (eslint.config.mjs is ESM) and parses what it prints. */
function evaluate(source: string): unknown {
	const result = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
		cwd: root,
		encoding: 'utf8',
	});
	if (result.status !== 0) throw new Error(result.stderr);
	return JSON.parse(result.stdout);
}

function printedConfig(file: string): { rules: Record<string, unknown> } | undefined {
	const result = spawnSync(join(root, 'node_modules/.bin/eslint'), ['--print-config', file], {
		cwd: root,
		encoding: 'utf8',
	});
	if (result.status !== 0) throw new Error(result.stderr || result.stdout);
	const printed = result.stdout.trim();
	return printed === 'undefined' || printed === '' ? undefined : JSON.parse(printed);
}

describe('lint configuration', () => {
	it('lint, build, dev and release are the n8n-node commands', () => {
		// n8n's lint, then the one formatter over the whole repository (the starter's prettier settings).
		expect(manifest.scripts.lint).toBe('n8n-node lint && prettier --check .');
		expect(manifest.scripts.build).toBe('n8n-node build');
		expect(manifest.scripts.release).toBe('n8n-node release');
		expect(manifest.scripts.dev).toMatch(/ n8n-node dev$/);
		expect(manifest.devDependencies['@n8n/node-cli']).toBe('0.48.3');
	});

	it("is n8n's template configuration, preceded only by ignores of folders that never ship", () => {
		const comparison = evaluate(`
			const ours = (await import('./eslint.config.mjs')).default;
			const { config } = await import('@n8n/node-cli/eslint');
			console.log(JSON.stringify({
				first: ours[0],
				sameObjectsAfterIt: ours.length === config.length + 1 && config.every((entry, index) => ours[index + 1] === entry),
			}));
		`);
		expect(comparison).toEqual({
			first: { ignores: ['test/**', 'bench/**', 'scripts/**'] },
			sameObjectsAfterIt: true,
		});
		const shipped = [...manifest.files, 'nodes', 'credentials', 'package.json'];
		for (const ignored of ['test', 'bench', 'scripts']) expect(shipped).not.toContain(ignored);
	});

	it('lints shipped code with the Cloud rules and both rule sets, and leaves tests to lint:tests', () => {
		const node = printedConfig('nodes/ClinicScribe/ClinicScribe.node.ts');
		const credential = printedConfig('credentials/ClinicScribeApi.credentials.ts');
		for (const rule of [
			'@n8n/community-nodes/no-restricted-globals',
			'@n8n/community-nodes/no-restricted-imports',
			'no-console',
		]) {
			expect([rule, (node?.rules[rule] as unknown[] | undefined)?.[0]]).toEqual([rule, 2]);
		}
		expect(
			Object.keys(node?.rules ?? {}).filter((rule) => rule.startsWith('n8n-nodes-base/node-'))
				.length,
		).toBeGreaterThan(50);
		expect(
			Object.keys(credential?.rules ?? {}).filter((rule) => rule.startsWith('n8n-nodes-base/cred-'))
				.length,
		).toBeGreaterThan(10);
		expect(printedConfig('test/support/nodeContext.ts')).toBeUndefined();
		expect(manifest.scripts['lint:tests']).toBe(
			'eslint --config eslint.tests.config.mjs test bench scripts',
		);
		expect(manifest.scripts.test).toContain('npm run lint && npm run lint:tests &&');
	});
});
