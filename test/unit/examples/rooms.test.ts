/**
 * The package's rooms and which may import which (CONTRIBUTING.md, "Rooms: which may import which"):
 * arrows only point down, so a room can be read, tested and changed without the rooms above it. The
 * table in CONTRIBUTING.md is checked against the one here, so neither can change alone.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import { codeBlocks, codeSpans, section, tableRows } from '../../support/markdown';

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
const CREDENTIAL_SIDE = [
	'authentication',
	'errors',
	'retryPolicy',
	'secretScrubbing',
	'tokenErrors',
	'tokenExchange',
].map((name) => `${NODE_DIR}/transport/${name}.ts`);

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
	return specifiers.map(
		(specifier) => relative(ROOT, resolve(ROOT, dirname(file), specifier)) + '.ts',
	);
}

const FILES = [...sourceFiles(NODE_DIR), ...sourceFiles('credentials')];

const UPLOAD_AUDIO_DIR = `${NODE_DIR}/actions/transcription/uploadAudio`;
const UPLOAD_AUDIO_ENTRY = `${NODE_DIR}/actions/transcription/uploadAudio.operation.ts`;

/**
 * Upload Audio's rooms: its entry (uploadAudio.operation.ts: the fields and executeBatch) over the
 * files of uploadAudio/, in layers. A file imports only from layers below its own, never from a
 * file beside it in its layer.
 */
const UPLOAD_AUDIO_LAYERS: Array<Record<string, string>> = [
	{ transactionFlow: 'presign, files to storage, init', sessionFlow: 'create, raw uploads, End' },
	{
		batchRunner:
			"several uploads at once, each with its method's flow: the worker pool, the halt, the first failure, the stop note; what an upload shares with its run (gate, halt, own IDs, progress); the one file upload both flows use; what output items say of an upload",
	},
	{ plan: 'items grouped into uploads (one per ID), every check before anything is sent' },
	{ ids: 'given and generated IDs', files: "an item's files: found, checked, named" },
	{
		settings: "an item's settings and how two items' settings differ",
		inputBinary: 'a file in either Binary Mode; the database mode limit',
	},
];

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
		const outside = [...seen].filter(
			(file) => !CREDENTIAL_SIDE.includes(file) && roomOf(file) !== 'shared',
		);
		expect(outside).toEqual([]);
		expect([...seen].filter((file) => CREDENTIAL_SIDE.includes(file)).sort()).toEqual([
			`${NODE_DIR}/transport/authentication.ts`,
			`${NODE_DIR}/transport/errors.ts`,
			`${NODE_DIR}/transport/retryPolicy.ts`,
			`${NODE_DIR}/transport/secretScrubbing.ts`,
			`${NODE_DIR}/transport/tokenErrors.ts`,
			`${NODE_DIR}/transport/tokenExchange.ts`,
		]);
	});
});

describe('CONTRIBUTING.md states the same rooms', () => {
	/** A room as CONTRIBUTING.md writes it (`shared/`, `ClinicScribe.node.ts`) → its name here. */
	const roomName = (written: string) => written.replace(/\/$/, '').replace(/\.ts$/, '');
	const rows = tableRows(
		section(readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8'), 'Rooms: which may import which'),
	).slice(1);

	test('one row per room, each room once', () => {
		const rooms = rows.flatMap(([room]) => codeSpans(room).map(roomName));
		expect([...rooms].sort()).toEqual(Object.keys(MAY_IMPORT).sort());
	});

	test.each(rows.map(([room, mayImport]) => [room, mayImport]))(
		'%s may import what MAY_IMPORT says',
		(room, mayImport) => {
			const named = codeSpans(mayImport);
			const rooms = named
				.filter((name) => name.endsWith('/') || name.endsWith('.ts'))
				.map(roomName);
			const modules = named.filter((name) => !name.endsWith('/') && !name.endsWith('.ts'));
			for (const written of codeSpans(room).map(roomName)) {
				// The credential may use transport only through the modules the row names.
				const expected =
					written === 'credentials'
						? MAY_IMPORT.credentials.filter((r) => r !== 'transport')
						: MAY_IMPORT[written];
				expect([...rooms].sort()).toEqual([...expected].sort());
				const expectedModules =
					written === 'credentials'
						? CREDENTIAL_SIDE.map((file) => file.split('/').pop()!.replace(/\.ts$/, ''))
						: [];
				expect([...modules].sort()).toEqual(expectedModules.sort());
			}
		},
	);
});

const TRANSPORT_DIR = `${NODE_DIR}/transport`;

/**
 * The transport files that are no resource's: the shared pieces CONTRIBUTING's development map
 * names (the call and its token, the credential side, storage) and the trigger's subscriptions.
 */
const TRANSPORT_SHARED = [
	'apiCall',
	'attemptOutcome',
	'authentication',
	'errors',
	'request',
	'retryPolicy',
	'runCredential',
	'secretScrubbing',
	'storage',
	'tokenErrors',
	'tokenExchange',
	'tokenRenewal',
	'uploadBody',
	'webhookApi',
];

/** The node's resources, as actions/ names their folders (Appointment → appointment, MedLink → medLink). */
const RESOURCES = readdirSync(join(ROOT, NODE_DIR, 'actions')).filter((name) =>
	statSync(join(ROOT, NODE_DIR, 'actions', name)).isDirectory(),
);

describe('transport: one name per resource', () => {
	const resources = RESOURCES;
	const transportFiles = FILES.filter((file) => file.startsWith(`${TRANSPORT_DIR}/`));
	const inside = (file: string) => file.slice(TRANSPORT_DIR.length + 1);

	test('there are resources and transport files to check', () => {
		expect(resources.length).toBeGreaterThanOrEqual(8);
		expect(transportFiles.length).toBeGreaterThan(TRANSPORT_SHARED.length);
	});

	test("every transport file is a resource's (<resource>Api.ts, or a file of <resource>/) or a named shared piece", () => {
		const misnamed = transportFiles.filter((file) => {
			const [first, ...below] = inside(file).split('/');
			if (below.length > 0) return !resources.includes(first);
			const name = first.replace(/\.ts$/, '');
			return !TRANSPORT_SHARED.includes(name) && !resources.some((r) => name === `${r}Api`);
		});
		expect(misnamed).toEqual([]);
	});

	test.each(resources)(
		'%s: its calls are under its name, in one place (a file or a folder)',
		(r) => {
			const places = [`${r}Api.ts`, `${r}/`].filter((place) =>
				transportFiles.some((file) =>
					place.endsWith('/') ? inside(file).startsWith(place) : inside(file) === place,
				),
			);
			expect(places).toHaveLength(1);
		},
	);

	test('every named shared piece exists', () => {
		const missing = TRANSPORT_SHARED.filter(
			(name) => !transportFiles.includes(`${TRANSPORT_DIR}/${name}.ts`),
		);
		expect(missing).toEqual([]);
	});

	test("CONTRIBUTING.md's development map names every transport file", () => {
		const map =
			codeBlocks(
				section(readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8'), 'Development map'),
			)[0] ?? '';
		const transportEntry = map.slice(map.indexOf('  transport/'), map.indexOf('  shared/'));
		const unnamed = transportFiles
			.map((file) => file.split('/').pop()!)
			.filter((name) => !new RegExp(`(?<![\\w.])${name.replace('.', '\\.')}`).test(transportEntry));
		expect(transportEntry.length).toBeGreaterThan(0);
		expect(unnamed).toEqual([]);
	});
});

const FAKE_ROUTES_DIR = 'test/fake-api/routes';

/** The fake clinic API's route files that are no node resource's, each named for what it is. */
const FAKE_ROUTE_TOPICS = [
	'auth', // the token endpoints, and the raw `auth` header check the /dr endpoints share
	'ehrReceiver', // the EHR the examples file clinical documents into
	'messageGateway', // the gateway the examples send patients' messages through
	'signIn', // the sign-in (OIDC) provider and its login page
	'webhooks', // the trigger's subscriptions and the deliveries to it
];

describe('fake clinic API: one name per resource', () => {
	const entries = readdirSync(join(ROOT, FAKE_ROUTES_DIR));
	const isFolder = (entry: string) => statSync(join(ROOT, FAKE_ROUTES_DIR, entry)).isDirectory();

	test('there are resources and route files to check', () => {
		expect(RESOURCES.length).toBeGreaterThanOrEqual(8);
		expect(entries.length).toBeGreaterThan(FAKE_ROUTE_TOPICS.length);
	});

	test("every entry of test/fake-api/routes/ is a resource's (<resource>.ts or <resource>/) or a named topic file", () => {
		const misnamed = entries.filter((entry) => {
			if (isFolder(entry)) return !RESOURCES.includes(entry);
			const name = entry.replace(/\.ts$/, '');
			return name === entry || (!RESOURCES.includes(name) && !FAKE_ROUTE_TOPICS.includes(name));
		});
		expect(misnamed).toEqual([]);
	});

	test.each(RESOURCES)(
		'%s: its fake routes are under its name, in one place (a file or a folder)',
		(r) => {
			const places = entries.filter(
				(entry) => entry === `${r}.ts` || (entry === r && isFolder(entry)),
			);
			expect(places).toHaveLength(1);
		},
	);

	test('every named topic file exists', () => {
		expect(FAKE_ROUTE_TOPICS.filter((name) => !entries.includes(`${name}.ts`))).toEqual([]);
	});
});

/**
 * The longest a file may be, in prettier's lines (which `npx prettier --check` keeps): a shipped one
 * (nodes/, credentials/), and one of the tests' support, the fake clinic API or the local EHR.
 */
const SHIPPED_MAX_LINES = 500;
const TEST_SUPPORT_MAX_LINES = 650;
const TEST_SUPPORT_DIRS = ['test/support', 'test/fake-api', 'test/fhir-server'];

/** The code files under a folder of the repository (.ts, .js, .cjs, .mjs), at any depth. */
function codeFiles(dir: string): string[] {
	return readdirSync(join(ROOT, dir)).flatMap((name) => {
		const path = `${dir}/${name}`;
		if (statSync(join(ROOT, path)).isDirectory()) return codeFiles(path);
		return /\.[cm]?[jt]s$/.test(name) ? [path] : [];
	});
}

function lineCount(file: string): number {
	return readFileSync(join(ROOT, file), 'utf8').replace(/\n$/, '').split('\n').length;
}

describe('file sizes: no file too long to read', () => {
	const supportFiles = TEST_SUPPORT_DIRS.flatMap(codeFiles);

	test('there are files to check, in every folder', () => {
		expect(FILES.length).toBeGreaterThan(100);
		for (const dir of TEST_SUPPORT_DIRS)
			expect(supportFiles.filter((file) => file.startsWith(`${dir}/`)).length).toBeGreaterThan(0);
	});

	test('lines are counted as an editor shows them', () => {
		const [first] = FILES;
		const text = readFileSync(join(ROOT, first), 'utf8');
		expect(text.endsWith('\n')).toBe(true);
		expect(lineCount(first)).toBe(text.split('\n').length - 1);
	});

	test.each(FILES)(`%s (shipped) is at most ${SHIPPED_MAX_LINES} lines`, (file) => {
		expect(lineCount(file)).toBeLessThanOrEqual(SHIPPED_MAX_LINES);
	});

	test.each(supportFiles)(`%s is at most ${TEST_SUPPORT_MAX_LINES} lines`, (file) => {
		expect(lineCount(file)).toBeLessThanOrEqual(TEST_SUPPORT_MAX_LINES);
	});
});

describe("rooms: Upload Audio's files", () => {
	const layerOf = (file: string) =>
		UPLOAD_AUDIO_LAYERS.findIndex((layer) =>
			Object.keys(layer).some((name) => file === `${UPLOAD_AUDIO_DIR}/${name}.ts`),
		);
	const folderFiles = FILES.filter((file) => file.startsWith(`${UPLOAD_AUDIO_DIR}/`));

	test('every file of uploadAudio/ has its layer and a description, and every described file exists', () => {
		const described = UPLOAD_AUDIO_LAYERS.flatMap((layer) =>
			Object.keys(layer).map((name) => `${UPLOAD_AUDIO_DIR}/${name}.ts`),
		);
		expect(folderFiles.sort()).toEqual([...described].sort());
		for (const layer of UPLOAD_AUDIO_LAYERS)
			for (const purpose of Object.values(layer)) expect(purpose.length).toBeGreaterThan(10);
	});

	test.each(folderFiles)('%s imports only from layers below its own', (file) => {
		const own = layerOf(file);
		const wrong = importsOf(file).filter(
			(target) => target.startsWith(`${UPLOAD_AUDIO_DIR}/`) && layerOf(target) <= own,
		);
		expect(own).toBeGreaterThanOrEqual(0);
		expect(wrong).toEqual([]);
		expect(importsOf(file)).not.toContain(UPLOAD_AUDIO_ENTRY);
	});

	/**
	 * The entry's peers in transcription/ (the wait, the results as output items, the other
	 * operations) call the API and sit above Upload Audio's rooms. What the rooms share with them sits
	 * below both: a module of actions/ that imports neither transport/ nor another module of actions/
	 * (the results fields' reading, the error items).
	 */
	const ACTIONS_DIR = `${NODE_DIR}/actions/`;
	const isBelowTheOperations = (target: string) =>
		importsOf(target).every(
			(imported) =>
				!imported.startsWith(`${NODE_DIR}/transport/`) && !imported.startsWith(ACTIONS_DIR),
		);
	const reachedOutside = (file: string) =>
		importsOf(file).filter(
			(target) => target.startsWith(ACTIONS_DIR) && !target.startsWith(`${UPLOAD_AUDIO_DIR}/`),
		);

	test.each(folderFiles)(
		'%s reaches outside uploadAudio/ only for modules of actions/ below the operations',
		(file) => {
			expect(reachedOutside(file).filter((target) => !isBelowTheOperations(target))).toEqual([]);
		},
	);

	test('the rule above has something to check: the folder reads the results fields and the error items from outside it', () => {
		const reached = new Set(folderFiles.flatMap(reachedOutside));
		expect([...reached].sort()).toEqual([
			`${ACTIONS_DIR}errorItems.ts`,
			`${ACTIONS_DIR}transcription/resultsSettings.ts`,
		]);
	});

	test('only the entry reaches into uploadAudio/: no other file of the package imports from it', () => {
		const outside = FILES.filter(
			(file) => file !== UPLOAD_AUDIO_ENTRY && !file.startsWith(`${UPLOAD_AUDIO_DIR}/`),
		);
		const reaching = outside.filter((file) =>
			importsOf(file).some((target) => target.startsWith(`${UPLOAD_AUDIO_DIR}/`)),
		);
		expect(reaching).toEqual([]);
		expect(
			importsOf(UPLOAD_AUDIO_ENTRY).filter((target) => target.startsWith(`${UPLOAD_AUDIO_DIR}/`))
				.length,
		).toBeGreaterThan(0);
	});
});

describe('rooms: what only the trigger reads lives in trigger/', () => {
	const SHARED_DIR = `${NODE_DIR}/shared/`;
	const importersOf = (target: string) =>
		FILES.filter((file) => file !== target && importsOf(file).includes(target));
	const isTriggerSide = (file: string) =>
		['trigger', 'ClinicScribeTrigger.node'].includes(roomOf(file));

	test('no file of shared/ is imported by the trigger alone', () => {
		const triggerOnly = FILES.filter((file) => file.startsWith(SHARED_DIR)).filter((file) => {
			const importers = importersOf(file);
			return importers.length > 0 && importers.every(isTriggerSide);
		});
		expect(triggerOnly).toEqual([]);
	});

	test('the rule above has something to check: the trigger reads its events and signatures from trigger/', () => {
		const moved = ['clinicEvents', 'completionEvents', 'webhookSignature'].map(
			(name) => `${NODE_DIR}/trigger/${name}.ts`,
		);
		for (const file of moved) {
			expect(FILES).toContain(file);
			expect(importersOf(file).length).toBeGreaterThan(0);
			expect(importersOf(file).every(isTriggerSide)).toBe(true);
		}
	});
});

describe("rooms: shared/'s rooms say what they hold", () => {
	const SHARED = `${NODE_DIR}/shared`;
	/** shared/'s rooms (CONTRIBUTING.md's development map describes each). */
	const SHARED_ROOMS = ['answers', 'fields', 'fhir'];
	/** The only files at shared/'s top: small utilities and request rules. */
	const SHARED_TOP = [
		'abortableSleep',
		'appointmentFilters',
		'audioFiles',
		'concurrencyGate',
		'deadline',
		'timeInput',
		'timeZones',
		'values',
	];
	const entries = readdirSync(join(ROOT, SHARED));

	test('shared/ holds its named rooms and, at its top, only its named files', () => {
		const rooms = entries.filter((name) => statSync(join(ROOT, SHARED, name)).isDirectory());
		const top = entries
			.filter((name) => !rooms.includes(name))
			.map((name) => name.replace(/\.ts$/, ''));
		expect(rooms.sort()).toEqual([...SHARED_ROOMS].sort());
		expect(top.sort()).toEqual([...SHARED_TOP].sort());
	});

	test.each(SHARED_ROOMS)("CONTRIBUTING.md's development map describes shared/%s/", (room) => {
		const map =
			codeBlocks(
				section(readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8'), 'Development map'),
			)[0] ?? '';
		expect(map).toMatch(new RegExp(`^  shared/${room}/ +\\S`, 'm'));
	});

	test('no file of shared/fields/ is imported from elsewhere in shared/: field definitions sit on top of the answers', () => {
		const fieldsReaders = FILES.filter(
			(file) => file.startsWith(`${SHARED}/`) && !file.startsWith(`${SHARED}/fields/`),
		).filter((file) => importsOf(file).some((target) => target.startsWith(`${SHARED}/fields/`)));
		expect(fieldsReaders).toEqual([]);
	});
});

describe('rooms: shared/ and trigger/ export only what another file uses', () => {
	const modules = FILES.filter(
		(file) => file.startsWith(`${NODE_DIR}/shared/`) || file.startsWith(`${NODE_DIR}/trigger/`),
	);
	const readers = [...FILES, ...['test', 'bench', 'scripts'].flatMap(sourceFiles)].map((file) => ({
		file,
		text: readFileSync(join(ROOT, file), 'utf8'),
	}));
	const exportsOf = (file: string) =>
		[
			...readFileSync(join(ROOT, file), 'utf8').matchAll(
				/^export (?:declare )?(?:async )?(?:function\*?|const|let|class|interface|type|enum) (\w+)/gm,
			),
		].map((match) => match[1]);

	test('there are exports to check', () => {
		expect(modules.flatMap(exportsOf).length).toBeGreaterThan(100);
	});

	test.each(modules)('%s: every export is named by another file', (file) => {
		const unused = exportsOf(file).filter(
			(name) =>
				!readers.some(
					(reader) => reader.file !== file && new RegExp(`\\b${name}\\b`).test(reader.text),
				),
		);
		expect(unused).toEqual([]);
	});
});
