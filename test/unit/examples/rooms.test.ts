/**
 * The package's rooms and which may import which (CONTRIBUTING.md, "Rooms: which may import which"):
 * arrows only point down, so a room can be read, tested and changed without the rooms above it. The
 * table in CONTRIBUTING.md is checked against the one here, so neither can change alone.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import { codeSpans, section, tableRows } from '../../support/markdown';

const ROOT = resolve(__dirname, '../../..');
const NODE_DIR = 'nodes/ClinicScribe';

/** Each room and the rooms (besides itself) it may import from. */
const MAY_IMPORT: Record<string, string[]> = {
	shared: [],
	transport: ['shared'],
	trigger: ['transport', 'shared'],
	methods: ['transport', 'shared'],
	actions: ['transport', 'shared'],
	'ClinicScribe.node': ['actions', 'methods', 'transport', 'shared'],
	'ClinicScribeTrigger.node': ['trigger', 'transport', 'shared'],
	credentials: ['transport', 'shared'],
};

/** The transport modules the credential may use: they know nothing of a node's execution context. */
const CREDENTIAL_SIDE = ['apiVariants', 'authHeaders', 'credentialSettings', 'errorBodies', 'retry', 'retryPolicy', 'tokenExchange'].map(
	(name) => `${NODE_DIR}/transport/${name}.ts`,
);

function sourceFiles(dir: string): string[] {
	return readdirSync(join(ROOT, dir)).flatMap((name) => {
		const path = `${dir}/${name}`;
		if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
		return name.endsWith('.ts') ? [path] : [];
	});
}

function roomOf(file: string): string {
	if (file.startsWith('credentials/')) return 'credentials';
	const inside = relative(NODE_DIR, file);
	const first = inside.split('/')[0];
	return first.endsWith('.ts') ? first.replace(/\.ts$/, '') : first;
}

/** The package files a file imports (relative imports resolved; packages left out). */
function importsOf(file: string): string[] {
	const text = readFileSync(join(ROOT, file), 'utf8');
	const specifiers = [...text.matchAll(/from '(\.[^']+)'/g)].map((match) => match[1]);
	return specifiers.map((specifier) => relative(ROOT, resolve(ROOT, dirname(file), specifier)) + '.ts');
}

const FILES = [...sourceFiles(NODE_DIR), ...sourceFiles('credentials')];

describe('rooms: arrows only point down', () => {
	test.each(FILES)('%s imports only from its own room and the rooms below it', (file) => {
		const room = roomOf(file);
		expect(Object.keys(MAY_IMPORT)).toContain(room);
		const wrong = importsOf(file).filter((target) => {
			const to = roomOf(target);
			return to !== room && !MAY_IMPORT[room].includes(to);
		});
		expect(wrong).toEqual([]);
	});

	test('the credential uses only the credential-side transport modules, and they reach nothing else', () => {
		const seen = new Set<string>();
		const queue = sourceFiles('credentials').flatMap(importsOf);
		while (queue.length > 0) {
			const file = queue.shift()!;
			if (seen.has(file)) continue;
			seen.add(file);
			queue.push(...importsOf(file));
		}
		const outside = [...seen].filter((file) => !CREDENTIAL_SIDE.includes(file) && roomOf(file) !== 'shared');
		expect(outside).toEqual([]);
		expect([...seen].filter((file) => CREDENTIAL_SIDE.includes(file)).sort()).toEqual(
			[`${NODE_DIR}/transport/apiVariants.ts`, `${NODE_DIR}/transport/authHeaders.ts`, `${NODE_DIR}/transport/credentialSettings.ts`, `${NODE_DIR}/transport/errorBodies.ts`, `${NODE_DIR}/transport/retry.ts`, `${NODE_DIR}/transport/retryPolicy.ts`, `${NODE_DIR}/transport/tokenExchange.ts`],
		);
	});
});

describe('CONTRIBUTING.md states the same rooms', () => {
	/** A room as CONTRIBUTING.md writes it (`shared/`, `ClinicScribe.node.ts`) → its name here. */
	const roomName = (written: string) => written.replace(/\/$/, '').replace(/\.ts$/, '');
	const rows = tableRows(section(readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8'), 'Rooms: which may import which')).slice(1);

	test('one row per room, each room once', () => {
		const rooms = rows.flatMap(([room]) => codeSpans(room).map(roomName));
		expect([...rooms].sort()).toEqual(Object.keys(MAY_IMPORT).sort());
	});

	test.each(rows.map(([room, mayImport]) => [room, mayImport]))('%s may import what MAY_IMPORT says', (room, mayImport) => {
		const named = codeSpans(mayImport);
		const rooms = named.filter((name) => name.endsWith('/') || name.endsWith('.ts')).map(roomName);
		const modules = named.filter((name) => !name.endsWith('/') && !name.endsWith('.ts'));
		for (const written of codeSpans(room).map(roomName)) {
			// The credential may use transport only through the modules the row names.
			const expected = written === 'credentials' ? MAY_IMPORT.credentials.filter((r) => r !== 'transport') : MAY_IMPORT[written];
			expect([...rooms].sort()).toEqual([...expected].sort());
			const expectedModules = written === 'credentials' ? CREDENTIAL_SIDE.map((file) => file.split('/').pop()!.replace(/\.ts$/, '')) : [];
			expect([...modules].sort()).toEqual(expectedModules.sort());
		}
	});
});
