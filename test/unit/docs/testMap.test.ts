/**
 * CONTRIBUTING.md's "Where each operation is tested": one row per operation file
 * (nodes/ClinicScribe/actions/<resource>/<operation>.operation.ts) naming its test files by layer,
 * so finding an operation's tests is one step. Held true here: every operation file has its row and
 * at least one test file, every file named exists in its column's layer, and each file concerns the
 * operation. "Concerns" is read from the files themselves: the operation's value and its resource's
 * in quotes (as node parameters and workflow JSON give them) in the test file, in the test helpers it
 * imports or in the workflows it runs; or an import of code the operation runs that not every
 * operation runs (or that the operation file imports itself and not every operation file does).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';

import { codeSpans, section, tableRows } from '../../support/markdown';

const ROOT = resolve(__dirname, '../../..');
const ACTIONS = 'nodes/ClinicScribe/actions';

function filesUnder(dir: string, suffix: string): string[] {
	return readdirSync(join(ROOT, dir)).flatMap((name) => {
		const path = `${dir}/${name}`;
		if (statSync(join(ROOT, path)).isDirectory()) return filesUnder(path, suffix);
		return name.endsWith(suffix) ? [path] : [];
	});
}

/** The files of this repository a file imports (relative imports, resolved to .ts or a folder's index.ts). */
function importsOf(file: string): string[] {
	const text = readFileSync(join(ROOT, file), 'utf8');
	return [...text.matchAll(/from '(\.[^']+)'/g)].flatMap((match) => {
		const target = relative(ROOT, resolve(ROOT, dirname(file), match[1]));
		return [`${target}.ts`, `${target}/index.ts`]
			.filter((candidate) => existsSync(join(ROOT, candidate)))
			.slice(0, 1);
	});
}

/** Every package file a file runs: its imports, and theirs. */
function reachOf(file: string, seen = new Set<string>()): Set<string> {
	for (const target of importsOf(file)) {
		if (seen.has(target) || !target.startsWith('nodes/')) continue;
		seen.add(target);
		reachOf(target, seen);
	}
	return seen;
}

/** `appointment/book` for nodes/ClinicScribe/actions/appointment/book.operation.ts. */
const keyOf = (file: string) => relative(ACTIONS, file).replace(/\.operation\.ts$/, '');

const OPERATION_FILES = filesUnder(ACTIONS, '.operation.ts');

/** The value saved workflows hold for the operation: its key in the resource's `operations`. */
function operationValue(file: string): string {
	// The modules as the node loads them, compared by identity.
	const { operations } = require(join(ROOT, dirname(file))) as {
		operations: Record<string, unknown>;
	};
	const module: unknown = require(join(ROOT, file));
	const value = Object.keys(operations).find((key) => operations[key] === module);
	if (!value) throw new Error(`${file} is in no resource's operations`);
	return value;
}

/** Modules every operation runs (transport, the credential, common helpers): they say nothing of one operation. */
const REACHED_BY_EVERY_OPERATION = (() => {
	const reaches = OPERATION_FILES.map((file) => reachOf(file));
	return new Set([...reaches[0]].filter((module) => reaches.every((reach) => reach.has(module))));
})();

/** Modules every operation file imports itself: an import of one of them says nothing of one operation. */
const IMPORTED_BY_EVERY_OPERATION = new Set(
	OPERATION_FILES.map((file) => importsOf(file)).reduce((common, imports) =>
		common.filter((module) => imports.includes(module)),
	),
);

/**
 * The code the operation runs that not every operation runs: the operation file, what it imports
 * itself that not every operation file imports (a helper shared code also reaches, such as
 * templateRecords.ts that the error advice reads, is still the operation's own when it imports it),
 * and what it reaches that not every operation reaches.
 */
function specificTo(file: string): Set<string> {
	const own = importsOf(file).filter((module) => !IMPORTED_BY_EVERY_OPERATION.has(module));
	return new Set([
		file,
		...own,
		...[...reachOf(file)].filter((module) => !REACHED_BY_EVERY_OPERATION.has(module)),
	]);
}

/** Workflow files the e2e tests run: their own, and the examples users import. */
const WORKFLOW_FILES = ['test/e2e/workflows', 'examples'].flatMap((dir) =>
	filesUnder(dir, '.json'),
);

/** A test file's text with that of the test helpers it imports (outside the fake API) and the workflow files it names. */
function textOfTest(file: string): string {
	const own = readFileSync(join(ROOT, file), 'utf8');
	const helpers = importsOf(file).filter(
		(target) => target.startsWith('test/') && !target.startsWith('test/fake-api/'),
	);
	const workflows = WORKFLOW_FILES.filter((path) => own.includes(basename(path, '.json')));
	return [
		own,
		...[...helpers, ...workflows].map((path) => readFileSync(join(ROOT, path), 'utf8')),
	].join('\n');
}

const LAYERS = [
	{ column: 'unit', folder: 'test/unit/', suffix: '.test.ts' },
	{ column: 'integration', folder: 'test/integration/', suffix: '.test.ts' },
	{ column: 'e2e', folder: 'test/e2e/', suffix: '.e2e.test.ts' },
] as const;

const [header, ...rows] = tableRows(
	section(readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8'), 'Where each operation is tested'),
);

/** Each row: the operation it names and its test files, by layer. */
const MAP = rows.map((cells) => ({
	operation: codeSpans(cells[0]).join(' '),
	byLayer: LAYERS.map((layer, index) => ({ ...layer, files: codeSpans(cells[index + 1] ?? '') })),
}));

describe('CONTRIBUTING.md: where each operation is tested', () => {
	test('the table has the columns operation, unit, integration, e2e', () => {
		expect(header).toEqual(['operation', ...LAYERS.map((layer) => layer.column)]);
	});

	test('one row per operation file, each once', () => {
		expect(OPERATION_FILES.length).toBeGreaterThan(20);
		expect(MAP.map((row) => row.operation).sort()).toEqual(OPERATION_FILES.map(keyOf).sort());
	});

	test.each(MAP.map((row) => [row.operation, row] as const))(
		'%s: names at least one test file, and each exists in its layer',
		(_operation, row) => {
			const named = row.byLayer.flatMap((layer) => layer.files);
			expect(named.length).toBeGreaterThan(0);
			for (const layer of row.byLayer) {
				const misplaced = layer.files.filter(
					(path) =>
						!path.startsWith(layer.folder) ||
						!path.endsWith(layer.suffix) ||
						!existsSync(join(ROOT, path)),
				);
				expect({ column: layer.column, misplaced }).toEqual({
					column: layer.column,
					misplaced: [],
				});
			}
		},
	);

	test.each(MAP.map((row) => [row.operation, row] as const))(
		'%s: every test file named concerns the operation',
		(operation, row) => {
			const file = `${ACTIONS}/${operation}.operation.ts`;
			const value = operationValue(file);
			const quoted = (word: string) => new RegExp(`['"\`]${word}['"\`]`);
			const names = (text: string) =>
				quoted(value).test(text) && quoted(operation.split('/')[0]).test(text);
			const specific = specificTo(file);
			const unrelated = row.byLayer
				.flatMap((layer) => layer.files)
				.filter((path) => existsSync(join(ROOT, path)))
				.filter(
					(path) =>
						!names(textOfTest(path)) && !importsOf(path).some((target) => specific.has(target)),
				);
			expect(unrelated).toEqual([]);
		},
	);

	test("the check of what a file concerns can fail: Template's tests do not concern Prescription → Get, though both are 'get'", () => {
		const file = `${ACTIONS}/prescription/get.operation.ts`;
		const specific = specificTo(file);
		const other = 'test/integration/template/template.test.ts';
		expect(/['"`]get['"`]/.test(textOfTest(other))).toBe(true);
		expect(/['"`]prescription['"`]/.test(textOfTest(other))).toBe(false);
		expect(importsOf(other).filter((target) => specific.has(target))).toEqual([]);
	});
});
