/**
 * CONTRIBUTING.md's "Where each operation is tested": tests mirror operations. For every operation
 * file (nodes/ClinicScribe/actions/<resource>/<operation>.operation.ts) its calls over HTTP are
 * tested in test/integration/<resource>/<operation>.test.ts (an option or topic of it in
 * <operation>.<topic>.test.ts); a resource folder of test/integration holds nothing else, and no
 * folder there is named like a resource that is not one; every operation runs in some e2e file.
 * "Concerns" is read from the files themselves: the operation's value and its resource's in quotes
 * (as node parameters and workflow JSON give them) in the test file, in the test helpers it imports
 * or in the workflows it runs; or an import of code the operation runs that not every operation runs
 * (or that the operation file imports itself and not every operation file does).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';

import { section } from '../../support/markdown';

const ROOT = resolve(__dirname, '../../..');
const ACTIONS = 'nodes/ClinicScribe/actions';
const INTEGRATION = 'test/integration';

/**
 * The folders of test/integration that are no resource's: topics of several operations or of none.
 * A new folder is either a resource's (named as its actions folder) or added here.
 */
const TOPIC_FOLDERS = [
	'attack',
	'compatibility',
	'credential',
	'fake-api',
	'fhir-server',
	'inbox',
	'methods',
	'package',
	'trigger',
];

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
const OPERATIONS = OPERATION_FILES.map(keyOf);
const RESOURCES = [...new Set(OPERATIONS.map((operation) => operation.split('/')[0]))];

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

/** Whether a test file concerns the operation (`appointment/book`): see the file's comment. */
function concerns(testFile: string, operation: string): boolean {
	const file = `${ACTIONS}/${operation}.operation.ts`;
	const quoted = (word: string) => new RegExp(`['"\`]${word}['"\`]`);
	const text = textOfTest(testFile);
	if (quoted(operationValue(file)).test(text) && quoted(operation.split('/')[0]).test(text)) {
		return true;
	}
	const specific = specificTo(file);
	return importsOf(testFile).some((target) => specific.has(target));
}

/** `<operation>.test.ts` or `<operation>.<topic>.test.ts`: the operation a file name gives. */
const TEST_FILE_NAME = /^(?<operation>[A-Za-z0-9]+)(\.[A-Za-z0-9-]+)?\.test\.ts$/;

/** Every entry of a resource folder of test/integration, files and folders alike. */
function entriesOf(resource: string): string[] {
	const folder = `${INTEGRATION}/${resource}`;
	return existsSync(join(ROOT, folder))
		? readdirSync(join(ROOT, folder)).map((name) => `${folder}/${name}`)
		: [];
}

/** The operation (`resource/operation`) an entry of a resource folder is named after, if any. */
function operationOfEntry(path: string): string | undefined {
	const resource = basename(dirname(path));
	const name = TEST_FILE_NAME.exec(basename(path))?.groups?.operation;
	if (!name || statSync(join(ROOT, path)).isDirectory()) return undefined;
	return OPERATIONS.includes(`${resource}/${name}`) ? `${resource}/${name}` : undefined;
}

const RESOURCE_TEST_FILES = RESOURCES.flatMap(entriesOf);
const E2E_FILES = filesUnder('test/e2e', '.e2e.test.ts');

describe('CONTRIBUTING.md: where each operation is tested', () => {
	test('CONTRIBUTING.md states the rule held here', () => {
		const rule = section(
			readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8'),
			'Where each operation is tested',
		);
		for (const words of [
			'`test/integration/<resource>/<operation>.test.ts`',
			'`test/integration/<resource>/<operation>.<topic>.test.ts`',
			'`test/e2e/*.e2e.test.ts`',
			'`test/unit/docs/testMap.test.ts`',
		]) {
			expect(rule).toContain(words);
		}
	});

	test('the operation files are found, each in a resource folder', () => {
		expect(OPERATION_FILES.length).toBeGreaterThan(20);
		expect(RESOURCES.length).toBeGreaterThan(5);
	});

	test.each(OPERATIONS)('%s has test/integration/<resource>/<operation>.test.ts', (operation) => {
		expect(existsSync(join(ROOT, `${INTEGRATION}/${operation}.test.ts`))).toBe(true);
	});

	test.each(RESOURCES)(
		'test/integration/%s holds only <operation>.test.ts and <operation>.<topic>.test.ts of its operations',
		(resource) => {
			const misfits = entriesOf(resource).filter((path) => !operationOfEntry(path));
			expect(misfits).toEqual([]);
		},
	);

	test('test/integration has no folder but a resource and the listed topics', () => {
		const folders = readdirSync(join(ROOT, INTEGRATION)).filter((name) =>
			statSync(join(ROOT, INTEGRATION, name)).isDirectory(),
		);
		expect(
			folders.filter((name) => !RESOURCES.includes(name) && !TOPIC_FOLDERS.includes(name)),
		).toEqual([]);
		// A topic may not take a resource's name in another case (`Patient`, `medlink`).
		const lower = RESOURCES.map((resource) => resource.toLowerCase());
		expect(TOPIC_FOLDERS.filter((topic) => lower.includes(topic.toLowerCase()))).toEqual([]);
	});

	test.each(RESOURCE_TEST_FILES.filter((path) => operationOfEntry(path)))(
		'%s concerns its operation',
		(path) => {
			expect({ path, concerns: concerns(path, operationOfEntry(path)!) }).toEqual({
				path,
				concerns: true,
			});
		},
	);

	test.each(OPERATIONS)('%s runs in a real n8n in some test/e2e/*.e2e.test.ts', (operation) => {
		expect(E2E_FILES.filter((path) => concerns(path, operation)).length).toBeGreaterThan(0);
	});

	test("the check of what a file concerns can fail: Template's tests do not concern Prescription → Get, though both are 'get'", () => {
		const other = `${INTEGRATION}/template/get.test.ts`;
		expect(/['"`]get['"`]/.test(textOfTest(other))).toBe(true);
		expect(/['"`]prescription['"`]/.test(textOfTest(other))).toBe(false);
		expect(concerns(other, 'prescription/get')).toBe(false);
		expect(concerns(other, 'template/get')).toBe(true);
	});
});
