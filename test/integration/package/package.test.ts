/** What `npm pack` would publish, and the rules n8n's verification applies to a package. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

describe('the published package', () => {
	beforeAll(() => {
		if (!existsSync(join(root, 'dist/nodes/ClinicScribe/ClinicScribe.node.js'))) {
			throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
		}
	});

	it('contains only what n8n loads: compiled code, codex files, icons, package.json, README and licence', () => {
		const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
			cwd: root,
			encoding: 'utf8',
		});
		const files: string[] = JSON.parse(output)[0].files.map((file: { path: string }) => file.path);
		// Exactly: each shipped source compiled (no declarations, source maps or tests), each codex
		// file beside its node, each icon, and npm's three. Derived from the tracked sources, so a file
		// that n8n-node build copies or tsc emits by accident (a stray .png, a test) fails here.
		const tracked = execFileSync('git', ['ls-files', '--', 'nodes', 'credentials'], {
			cwd: root,
			encoding: 'utf8',
		})
			.trim()
			.split('\n');
		const expected = tracked
			.map((path) => (path.endsWith('.ts') ? path.replace(/\.ts$/, '.js') : path))
			.filter((path) => /\.(js|node\.json|svg|png)$/.test(path))
			.map((path) => `dist/${path}`);
		expect([...files].sort()).toEqual([...expected, 'LICENSE', 'README.md', 'package.json'].sort());
		for (const listed of [...manifest.n8n.nodes, ...manifest.n8n.credentials])
			expect(files).toContain(listed);
		// Every node's codex file sits beside it, where n8n looks for it.
		for (const node of manifest.n8n.nodes as string[])
			expect(files).toContain(node.replace(/\.js$/, '.json'));
		expect(files.filter((path) => path.endsWith('.svg')).length).toBeGreaterThanOrEqual(2);
	});

	it('has no runtime dependencies and only n8n-workflow as a peer', () => {
		expect(manifest.dependencies ?? {}).toEqual({});
		expect(manifest.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		// The lifecycle scripts n8n's scanner forbids (no-forbidden-lifecycle-scripts).
		for (const hook of [
			'prepare',
			'preinstall',
			'install',
			'postinstall',
			'prepublish',
			'preprepare',
			'postprepare',
		]) {
			expect(manifest.scripts[hook]).toBeUndefined();
		}
	});

	it('names the public GitHub repository that npm provenance and n8n verification check against', () => {
		// npm refuses a provenance publish whose repository.url differs from the repository the
		// workflow runs in; n8n's scanner fetches the attested source from GitHub.
		expect(manifest.repository).toEqual({
			type: 'git',
			url: 'https://github.com/clinic-scribe/n8n-nodes-clinic-scribe.git',
		});
		expect(manifest.homepage).toBe('https://github.com/clinic-scribe/n8n-nodes-clinic-scribe');
		expect(manifest.license).toBe('MIT');
		// The scanner finds the package in that checkout by the first package.json with its name.
		const tracked = execFileSync('git', ['ls-files', '--', '*package.json'], {
			cwd: root,
			encoding: 'utf8',
		})
			.trim()
			.split('\n');
		const named = tracked.filter(
			(path) => JSON.parse(readFileSync(join(root, path), 'utf8')).name === manifest.name,
		);
		expect(named).toEqual(['package.json']);
	});

	it('ships code that imports only what n8n allows', () => {
		const files = execFileSync('find', ['dist', '-name', '*.js'], { cwd: root, encoding: 'utf8' })
			.trim()
			.split('\n');
		const allowed =
			/^(n8n-workflow|lodash|luxon|moment|p-limit|zod|crypto|node:crypto|\.{1,2}\/.*)$/;
		const offenders: string[] = [];
		for (const file of files) {
			const source = readFileSync(join(root, file), 'utf8');
			for (const match of source.matchAll(/require\("([^"]+)"\)/g)) {
				if (!allowed.test(match[1])) offenders.push(`${file}: ${match[1]}`);
			}
			if (
				/\b(setTimeout|setInterval|setImmediate|globalThis|__dirname)\b|\bprocess\.[a-z]+|\bconsole\.[a-z]+\(/i.test(
					source,
				)
			) {
				offenders.push(`${file}: uses a global n8n's rules forbid`);
			}
		}
		expect(offenders).toEqual([]);
	});
});
