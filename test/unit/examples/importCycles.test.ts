/**
 * `npm run check:cycles` (scripts/check-import-cycles.ts): finds import cycles the way the module
 * loader meets them (value imports; type-only ones compile to nothing), and the shipped code has none.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

import { findImportCycles, importedSpecifiers } from '../../../scripts/importCycles';

const ROOT = resolve(__dirname, '../../..');

let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-cycles-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function files(contents: Record<string, string>): void {
	for (const [path, text] of Object.entries(contents)) {
		mkdirSync(dirname(join(dir, path)), { recursive: true });
		writeFileSync(join(dir, path), text);
	}
}

describe('what counts as an import', () => {
	it('value imports, re-exports and side-effect imports; not type-only ones, comments or strings', () => {
		const source = [
			"import { a } from './a';",
			"import type { B } from './b';",
			"import { type C } from './c';",
			"import { type D, d } from './d';",
			"import './e';",
			"export { f } from './f';",
			"export type { G } from './g';",
			"// import { h } from './h';",
			'const text = "import { i } from \'./i\'";',
			"import * as j from './j';",
		].join('\n');
		expect(importedSpecifiers(source, 'x.ts')).toEqual(['./a', './d', './e', './f', './j']);
		expect(importedSpecifiers(source, 'x.ts', { includeTypeOnly: true })).toEqual([
			'./a',
			'./b',
			'./c',
			'./d',
			'./e',
			'./f',
			'./g',
			'./j',
		]);
	});
});

describe('findImportCycles', () => {
	it('finds a cycle through three files and names it as a chain', () => {
		files({
			'src/a.ts': "import { b } from './b';\nexport const a = b;",
			'src/b.ts': "import { c } from './deep/c';\nexport const b = c;",
			'src/deep/c.ts': "import { a } from '../a';\nexport const c = () => a;",
			'src/d.ts': "import { a } from './a';\nexport const d = a;",
		});
		expect(findImportCycles(['src'], dir)).toEqual([
			['src/a.ts', 'src/b.ts', 'src/deep/c.ts', 'src/a.ts'],
		]);
	});

	it('resolves a folder import to its index.ts; a file importing itself is a cycle', () => {
		files({
			'src/room/index.ts': "import { x } from '../x';\nexport const room = x;",
			'src/x.ts': "import { room } from './room';\nexport const x = 1; export const y = room;",
			'src/self.ts': "import { self } from './self';\nexport const self = 1; void self;",
		});
		expect(findImportCycles(['src'], dir)).toEqual([
			['src/room/index.ts', 'src/x.ts', 'src/room/index.ts'],
			['src/self.ts', 'src/self.ts'],
		]);
	});

	it('a cycle of type-only imports is none (it compiles to nothing), unless asked for', () => {
		files({
			'src/a.ts': "import type { B } from './b';\nexport interface A { b?: B }",
			'src/b.ts': "import { type A } from './a';\nexport interface B { a?: A }",
		});
		expect(findImportCycles(['src'], dir)).toEqual([]);
		expect(findImportCycles(['src'], dir, { includeTypeOnly: true })).toEqual([
			['src/a.ts', 'src/b.ts', 'src/a.ts'],
		]);
	});

	it('the script exits 1 and prints the cycle; 0 without one', () => {
		files({
			'src/a.ts': "import { b } from './b';\nexport const a = b;",
			'src/b.ts': "import { a } from './a';\nexport const b = a;",
		});
		const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
		const script = join(ROOT, 'scripts', 'check-import-cycles.ts');
		const found = spawnSync(tsx, [script, join(dir, 'src')], { encoding: 'utf8' });
		expect(found.status).toBe(1);
		expect(found.stdout).toContain('a.ts → ');
		expect(found.stdout).toMatch(/: 1\n$/);
		rmSync(join(dir, 'src', 'b.ts'));
		expect(spawnSync(tsx, [script, join(dir, 'src')], { encoding: 'utf8' }).status).toBe(0);
	});
});

it('the shipped code (nodes/, credentials/) has no import cycle, type-only imports included', () => {
	expect(findImportCycles(['nodes', 'credentials'], ROOT, { includeTypeOnly: true })).toEqual([]);
});

it('npm run check:cycles counts type-only imports', () => {
	const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
		scripts: Record<string, string>;
	};
	expect(scripts['check:cycles']).toMatch(/check-import-cycles\.ts --include-type-only /);
});
