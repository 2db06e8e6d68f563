/**
 * The README is what an n8n user reads before installing (on npm, where it is the only file of the
 * repository that ships), and the docs/ pages and CONTRIBUTING.md hold the rest. These checks keep
 * them true to the code: the README's length and order, its links (absolute GitHub addresses, since
 * relative ones break on npm), the two commands, the operation, event, example and node-version
 * tables against the nodes' own descriptions; in every document, links, anchors, `npm run` scripts
 * and repository paths that exist.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { ClinicScribeApi } from '../../../credentials/ClinicScribeApi.credentials';
import {
	ClinicScribeOAuth2Api,
	GRANT_TYPE_HINT,
	REDIRECT_URL_NOTICE,
} from '../../../credentials/ClinicScribeOAuth2Api.credentials';
import { mayRetry } from '../../../nodes/ClinicScribe/transport/retryPolicy';
import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { ClinicScribeTrigger } from '../../../nodes/ClinicScribe/ClinicScribeTrigger.node';
import {
	anchors,
	cellText,
	codeBlocks,
	firstTable,
	headings,
	linkTargets,
	section,
	withoutCodeBlocks,
} from '../../support/markdown';

const ROOT = resolve(__dirname, '../../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

const manifest = JSON.parse(read('package.json')) as {
	repository: { url: string };
	homepage: string;
	scripts: Record<string, string>;
	files: string[];
};
/** The public repository, as package.json names it (npm and n8n link to it). */
const REPO_URL = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
const FILE_URL = `${REPO_URL}/blob/main/`;
const FOLDER_URL = `${REPO_URL}/tree/main/`;

const README = read('README.md');
const DOCS = readdirSync(join(ROOT, 'docs'))
	.filter((name) => name.endsWith('.md'))
	.map((name) => `docs/${name}`);
/** Documents read on GitHub, where relative links work. CHANGELOG.md is history: its links are checked, its commands not. */
const GITHUB_DOCUMENTS = ['CONTRIBUTING.md', ...DOCS];

const action = new ClinicScribe().description;
const trigger = new ClinicScribeTrigger().description;

function isDirectory(path: string): boolean {
	return existsSync(path) && statSync(path).isDirectory();
}

/** Why a link of `from` (a repository path) to `target` is broken, or undefined when it is not. */
function brokenLink(from: string, target: string): string | undefined {
	if (target.startsWith('mailto:')) return undefined;
	if (target.startsWith(REPO_URL)) {
		const inRepo = target.startsWith(FILE_URL)
			? target.slice(FILE_URL.length)
			: target.startsWith(FOLDER_URL)
				? target.slice(FOLDER_URL.length)
				: undefined;
		if (inRepo === undefined)
			return `${target}: a repository link must start with ${FILE_URL} or ${FOLDER_URL}`;
		return brokenPath(inRepo, target);
	}
	if (/^https?:\/\//.test(target)) return undefined;
	if (target.startsWith('#'))
		return anchors(read(from)).has(target.slice(1))
			? undefined
			: `${target}: no such heading in ${from}`;
	const resolved = relative(ROOT, normalize(join(ROOT, dirname(from), target)));
	return brokenPath(resolved, target);
}

function brokenPath(pathWithAnchor: string, target: string): string | undefined {
	const [path, anchor] = pathWithAnchor.split('#');
	const full = join(ROOT, path);
	if (!existsSync(full)) return `${target}: ${path} does not exist`;
	if (anchor !== undefined) {
		if (!path.endsWith('.md')) return `${target}: an anchor into a file that is not Markdown`;
		if (!anchors(read(path)).has(anchor)) return `${target}: no heading #${anchor} in ${path}`;
	}
	return undefined;
}

/** The repository files (or folders) a document names, as repository paths, outside links. */
function namedPaths(markdown: string): string[] {
	const text = withoutCodeBlocks(markdown) + '\n' + codeBlocks(markdown).join('\n');
	const fromRoot = [
		...text.matchAll(
			/(?:^|[\s(`'"])((?:test|bench|scripts|nodes|credentials|examples|docs|\.github|\.ci)\/[\w./-]*[\w/])/gm,
		),
	].map((m) => m[1]);
	const fromRooms = [
		...text.matchAll(
			/(?:^|[\s(`'"])((?:shared|transport|actions|trigger|methods)\/[\w./-]*\.ts)\b/gm,
		),
	].map((m) => `nodes/ClinicScribe/${m[1]}`);
	return [...fromRoot, ...fromRooms].map((path) => path.replace(/[.,:;]+$/, ''));
}

/** The display names of an options parameter. */
function optionNames(property: INodeProperties): string[] {
	return ((property.options ?? []) as INodePropertyOptions[]).map((option) => option.name);
}

/** Each resource's operations as a node of the newest version offers them (not the AI-tool list). */
function operationsByResource(): Map<string, string[]> {
	const resource = action.properties.find((p) => p.name === 'resource')!;
	const newest = Math.max(...(action.version as number[]));
	const forNewest = (p: INodeProperties) => {
		const versions = (p.displayOptions?.show?.['@version'] ?? []) as Array<
			number | { _cnd: { gte: number } }
		>;
		return (
			versions.length === 0 ||
			versions.some((v) => (typeof v === 'number' ? v === newest : newest >= v._cnd.gte))
		);
	};
	const operations = action.properties.filter(
		(p) =>
			p.name === 'operation' && !p.displayOptions?.show?.['@tool']?.includes(true) && forNewest(p),
	);
	return new Map(
		((resource.options ?? []) as INodePropertyOptions[]).map((option) => {
			const lists = operations.filter((p) =>
				(p.displayOptions?.show?.resource as string[] | undefined)?.includes(String(option.value)),
			);
			expect(lists).toHaveLength(1);
			return [option.name, optionNames(lists[0])];
		}),
	);
}

describe('the README', () => {
	it('has at most 300 lines', () => {
		// Counted as `wc -l` does: the final newline ends the last line.
		expect(README.replace(/\n$/, '').split('\n').length).toBeLessThanOrEqual(300);
	});

	it('shows a newcomer the two commands, and no other npm command (CONTRIBUTING.md has them)', () => {
		const commands = [...README.matchAll(/^npm [a-z:-]+.*$/gm)].map((match) => match[0]);
		expect(commands).toEqual(['npm start', 'npm test']);
		expect(README).not.toMatch(/npm run\b/);
	});

	it('names the service it is for', () => {
		const opening = README.slice(0, README.indexOf('\n## '));
		expect(opening).toContain("Eka Care's developer API");
		expect(opening).toContain('EkaScribe');
	});

	it('comes in the order an n8n user needs it', () => {
		expect(
			headings(README)
				.filter((h) => h.level === 2)
				.map((h) => h.text),
		).toEqual([
			'Installation',
			'Compatibility',
			'Credentials',
			'Usage',
			'Operations',
			'The trigger',
			'Example workflows',
			'Security and patient data',
			'Troubleshooting',
			'Versions',
			'Try it locally',
			'Resources',
			'Licence',
		]);
	});

	it('ships in the package, the only document that does', () => {
		expect(manifest.files).toEqual(['dist']);
		expect(manifest.homepage).toBe(REPO_URL);
	});

	it('links other files of the repository by absolute GitHub addresses (relative links break on npm)', () => {
		const relativeLinks = linkTargets(README).filter(
			(target) => !/^(https?:|mailto:|#)/.test(target),
		);
		expect(relativeLinks).toEqual([]);
	});

	it('has no broken link: every linked file, folder and heading exists', () => {
		const targets = linkTargets(README);
		expect(targets.filter((target) => target.startsWith(FILE_URL)).length).toBeGreaterThanOrEqual(
			10,
		);
		expect(targets.map((target) => brokenLink('README.md', target)).filter(Boolean)).toEqual([]);
	});

	it('leads to every page of docs/ and to CONTRIBUTING.md (through the README or the pages it links)', () => {
		const reached = new Set<string>();
		const queue = ['README.md'];
		while (queue.length > 0) {
			const from = queue.shift()!;
			if (reached.has(from)) continue;
			reached.add(from);
			for (const target of linkTargets(read(from))) {
				const inRepo = target.startsWith(FILE_URL)
					? target.slice(FILE_URL.length)
					: /^(https?:|mailto:|#)/.test(target)
						? undefined
						: relative(ROOT, normalize(join(ROOT, dirname(from), target)));
				const path = inRepo?.split('#')[0];
				if (path?.endsWith('.md') && existsSync(join(ROOT, path))) queue.push(path);
			}
		}
		expect([...DOCS, 'CONTRIBUTING.md', 'CHANGELOG.md'].filter((doc) => !reached.has(doc))).toEqual(
			[],
		);
	});

	describe('trying it without an account: npm start and npm test (README Try it locally, docs/local-demo.md, CONTRIBUTING.md)', () => {
		it('Try it locally shows npm start and npm test as commands and leads to the local demo and to CONTRIBUTING.md', () => {
			const local = section(README, 'Try it locally');
			expect(local).toContain('```sh\nnpm start\n```');
			expect(local).toContain('```sh\nnpm test\n```');
			expect(linkTargets(local)).toEqual(
				expect.arrayContaining([`${FILE_URL}docs/local-demo.md`, `${FILE_URL}CONTRIBUTING.md`]),
			);
		});

		it('CONTRIBUTING.md shows npm start and npm test, with no install step before them', () => {
			const gettingStarted = section(read('CONTRIBUTING.md'), 'Getting started');
			expect(gettingStarted).toContain('`npm start` and `npm test` each work on a fresh clone');
		});

		it('is true: both commands install the locked dependencies themselves first', () => {
			for (const script of ['start', 'test']) {
				expect(
					manifest.scripts[script].startsWith('node scripts/install-dependencies.mjs && '),
				).toBe(true);
			}
			expect(read('scripts/install-dependencies.mjs')).toContain("spawnSync('npm', ['ci'");
		});
	});

	describe('Operations: one table per resource, one line per operation', () => {
		const operations = () => section(README, 'Operations');
		const byResource = operationsByResource();

		it('covers every resource of the node', () => {
			expect(headings(operations()).map((h) => h.text)).toEqual([...byResource.keys()]);
		});

		it.each([...byResource.entries()])(
			'%s: the table lists exactly the operations the node offers',
			(resource, names) => {
				const listed = firstTable(section(operations(), resource)).map((row) => cellText(row[0]));
				expect([...listed].sort()).toEqual([...names].sort());
			},
		);

		it.each([...byResource.entries()])(
			'%s: docs/operations.md describes each operation',
			(resource, names) => {
				const reference = section(read('docs/operations.md'), resource);
				const missing = names.filter(
					(name) =>
						!reference.includes(`**${name}**`) &&
						!headings(reference).some((h) => h.text.startsWith(name)),
				);
				expect(missing).toEqual([]);
			},
		);
	});

	describe('The trigger', () => {
		const events = (trigger.properties.find((p) => p.name === 'events')!.options ??
			[]) as INodePropertyOptions[];

		it('lists exactly the events the trigger offers, by kind', () => {
			const rows = firstTable(section(README, 'The trigger')).map(
				(row) => [cellText(row[0]), row[1].split(',').map((name) => name.trim())] as const,
			);
			const listed = rows.flatMap(([kind, names]) => names.map((name) => `${kind} ${name}`));
			expect([...listed].sort()).toEqual(events.map((event) => event.name).sort());
		});

		it('docs/trigger.md gives each event the name the service sends', () => {
			const rows = firstTable(section(read('docs/trigger.md'), 'Events')).map((row) => [
				cellText(row[0]),
				cellText(row[1]),
			]);
			expect(rows).toEqual(events.map((event) => [event.name, event.value]));
		});
	});

	it('Example workflows: a line for each file of examples/, and nothing else', () => {
		const listed = firstTable(section(README, 'Example workflows')).map((row) => cellText(row[0]));
		const files = readdirSync(join(ROOT, 'examples')).filter((name) => name.endsWith('.json'));
		expect([...listed].sort()).toEqual(files.sort());
	});

	it('Versions: a row for each version of each node', () => {
		const rows = firstTable(section(README, 'Versions')).map(
			(row) => `${cellText(row[0])} ${cellText(row[1])}`,
		);
		const versions = (description: typeof action) =>
			Array.isArray(description.version) ? description.version : [description.version];
		const expected = [
			...versions(action).map((v) => `${action.displayName} ${v}`),
			...versions(trigger).map((v) => `${trigger.displayName} ${v}`),
		];
		expect(rows).toEqual(expected);
	});

	it('Compatibility: names the n8n versions the tests install', () => {
		const installer = read('scripts/install-n8n.sh');
		const newest = /^N8N_VERSION="([^"]+)"/m.exec(installer)?.[1];
		const oldest = /^N8N_OLDEST_VERSION="([^"]+)"/m.exec(installer)?.[1];
		const compatibility = section(README, 'Compatibility');
		expect(compatibility).toContain(`**n8n ${newest}**`);
		expect(compatibility).toContain(`**n8n ${oldest}**`);
	});
});

describe('Usage: from installing to a first successful execution', () => {
	const usage = () => section(README, 'Usage');
	const firstWorkflow = () => section(README, 'First workflow');

	it('has a "First workflow" subsection (room for more Usage parts after it) of a few numbered steps', () => {
		expect(
			headings(usage())
				.filter((h) => h.level === 3)
				.map((h) => h.text)[0],
		).toBe('First workflow');
		const steps = firstWorkflow()
			.split('\n')
			.filter((line) => /^\d+\. /.test(line));
		expect(steps.length).toBeGreaterThanOrEqual(3);
		expect(steps.length).toBeLessThanOrEqual(6);
		expect(steps.map((line) => /^(\d+)\./.exec(line)![1])).toEqual(
			steps.map((_line, index) => String(index + 1)),
		);
		expect(steps[0]).toContain('[Installation](#installation)');
		expect(steps.join('\n')).toContain('Execute step');
	});

	it('starts with an operation that needs no ID, named as the nodes panel names it', () => {
		const resource = 'business';
		const operations = action.properties.find(
			(p) =>
				p.name === 'operation' &&
				(p.displayOptions?.show?.resource as string[] | undefined)?.includes(resource),
		)!;
		const getEntities = (operations.options as INodePropertyOptions[]).find(
			(o) => o.value === 'getEntities',
		)!;
		expect(firstWorkflow()).toContain(`**${getEntities.action}**`);
		// No required field shows for it: it runs as soon as the credential is set.
		const shown = action.properties.filter((p) => {
			const show = p.displayOptions?.show;
			return show?.resource?.includes(resource) && show?.operation?.includes('getEntities');
		});
		expect(shown.filter((p) => p.required)).toEqual([]);
	});

	it('has exactly one image: the screenshot in docs/images/, a JPEG (a PNG would be copied into the package), linked where npm shows it too', () => {
		const images = [...README.matchAll(/!\[([^\]]*)\]\(([^)\s]+)\)/g)];
		expect(images).toHaveLength(1);
		const [, alt, url] = images[0];
		expect(usage()).toContain(url);
		expect(alt.length).toBeGreaterThan(20);
		const rawPrefix = `${REPO_URL.replace('https://github.com/', 'https://raw.githubusercontent.com/')}/main/`;
		expect(url.startsWith(`${rawPrefix}docs/images/`)).toBe(true);
		expect(url).toMatch(/\.jpg$/);
		const { width, height } = jpegSize(readFileSync(join(ROOT, url.slice(rawPrefix.length))));
		// A screenshot of the editor, not an icon.
		expect(width).toBeGreaterThanOrEqual(800);
		expect(height).toBeGreaterThanOrEqual(400);
	});

	it('no other image in the repository outside the node icons: n8n-node build would ship it', () => {
		const images = ['nodes', 'credentials', 'docs', 'examples', 'scripts', 'test', 'bench']
			.flatMap((dir) =>
				existsSync(join(ROOT, dir))
					? readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).map(
							(path) => `${dir}/${path}`,
						)
					: [],
			)
			.filter((path) => /\.(png|svg)$/.test(path));
		expect(images.sort()).toEqual([
			'nodes/ClinicScribe/clinicScribe.dark.svg',
			'nodes/ClinicScribe/clinicScribe.svg',
		]);
	});
});

/** Width and height from a JPEG's frame header (SOF0–SOF3); throws when there is none. */
function jpegSize(bytes: Buffer): { width: number; height: number } {
	expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
	for (let at = 2; at + 9 < bytes.length; ) {
		if (bytes[at] !== 0xff) throw new Error(`not a JPEG marker at byte ${at}`);
		const marker = bytes[at + 1];
		if (marker >= 0xc0 && marker <= 0xc3)
			return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
		at += 2 + bytes.readUInt16BE(at + 2);
	}
	throw new Error('no frame header');
}

describe('Resources', () => {
	const resources = () => section(README, 'Resources');

	it("links n8n's community node docs and the service's API docs", () => {
		const targets = linkTargets(resources());
		expect(targets).toEqual(
			expect.arrayContaining([
				'https://docs.n8n.io/integrations/#community-nodes',
				'https://developer.eka.care',
			]),
		);
		expect(
			targets.some((target) =>
				target.startsWith('https://developer.eka.care/api-reference/authorization/'),
			),
		).toBe(true);
	});
});

describe('Credentials: where each value comes from, the same words everywhere', () => {
	const credentials = () => section(README, 'Credentials');
	const apiCredential = new ClinicScribeApi();
	const signIn = new ClinicScribeOAuth2Api();
	const variantNames = (properties: INodeProperties[]) =>
		optionNames(properties.find((p) => p.name === 'apiVariant')!);

	it('names the API Variant options as both credentials do (by the documentation the admin has)', () => {
		expect(variantNames(signIn.properties)).toEqual(variantNames(apiCredential.properties));
		const row = firstTable(
			credentials().slice(credentials().indexOf('Where each value comes from')),
		).find((r) => cellText(r[0]) === 'API Variant')!;
		for (const name of variantNames(apiCredential.properties)) {
			expect(row[1]).toContain(`**${name}**`);
			expect(read('docs/credentials.md')).toContain(`**${name}**`);
		}
	});

	it('gives the service addresses of the values: the console, the hub, the docs', () => {
		const text = credentials();
		for (const address of [
			'https://console.eka.care',
			'https://hub.eka.care/account/',
			'https://developer.eka.care',
		])
			expect(linkTargets(text)).toContain(address);
		const fields = apiCredential.properties.filter((p) =>
			['clientId', 'apiKey', 'accessToken'].includes(p.name),
		);
		// The fields name the console by the name the docs link to its address (shipped code may not
		// hold the host: n8n's check for the `console` object cannot tell the two apart).
		expect(text).toContain('[Eka Developer Console](https://console.eka.care)');
		for (const field of fields)
			expect(field.description).toMatch(/the Eka Developer Console|hub\.eka\.care/);
	});

	it.each([
		['Clinic Scribe API', apiCredential, 'clinic-scribe-api'],
		['Clinic Scribe OAuth2 API', signIn, 'setting-up-the-oauth2-credential'],
	] as const)(
		'%s: its documentation link opens the section of docs/credentials.md that explains its fields',
		(_name, credential, anchor) => {
			expect(credential.documentationUrl).toBe(`${FILE_URL}docs/credentials.md#${anchor}`);
			expect(brokenLink('README.md', String(credential.documentationUrl))).toBeUndefined();
		},
	);

	it('the Grant Type hint, the README and docs/credentials.md give the same advice: Authorization Code with PKCE on n8n 2.x, Authorization Code on n8n 1.x', () => {
		expect(signIn.properties.find((p) => p.name === 'grantType')?.description).toBe(
			GRANT_TYPE_HINT,
		);
		const plain = (text: string) => text.replace(/[*_]/g, '').replace(/\s+/g, ' ').toLowerCase();
		const advice = [
			'keep authorization code with pkce on n8n 2.x',
			'on n8n 1.x choose authorization code',
		];
		for (const text of [
			GRANT_TYPE_HINT,
			section(read('docs/credentials.md'), 'Setting up the OAuth2 credential'),
		])
			for (const words of advice) expect(plain(text)).toContain(words);
		expect(plain(README)).toMatch(/\| 1\.123\.x[^|]*\|[^|]*grant type to authorization code/);
	});

	it('the OAuth2 notice, the README and docs/credentials.md say the same about registering the redirect URL', () => {
		const notice = signIn.properties.find(
			(p) => p.type === 'notice' && p.name === 'redirectUrlNotice',
		)!.displayName;
		expect(notice).toBe(REDIRECT_URL_NOTICE);
		const shared = notice.slice(notice.indexOf('to ekaconnect@eka.care'));
		expect(shared).toContain('registers it for the client');
		const flat = (text: string) => text.replace(/\s+/g, ' ');
		expect(flat(credentials())).toContain(shared);
		expect(
			flat(section(read('docs/credentials.md'), 'Setting up the OAuth2 credential')),
		).toContain(shared);
		// Nothing left of the older advice that the admin registers it "with the service" themselves.
		for (const text of [README, read('docs/credentials.md'), notice])
			expect(flat(text)).not.toMatch(
				/[Rr]egister (it|the OAuth Redirect URL)[^.]* with the service/,
			);
	});
});

describe('what the README promises, true to the code', () => {
	it('the retry sentence lists exactly the statuses that are retried', () => {
		const sentence = /answers ((?:\d{3}, )+\d{3} and \d{3}) are retried/.exec(
			section(README, 'Operations').replace(/\s+/g, ' '),
		);
		expect(sentence).not.toBeNull();
		const listed = sentence![1].split(/, | and /).map(Number);
		const retried = Array.from({ length: 500 }, (_, index) => 100 + index).filter((status) =>
			mayRetry({ status }),
		);
		expect(listed).toEqual(retried);
	});

	it('Share Patient Data With the AI Agent: on by default, and both the field and the security section say so', () => {
		const field = action.properties.find(
			(p) => p.displayName === 'Share Patient Data With the AI Agent',
		)!;
		expect(field.default).toBe(true);
		expect(field.description).toContain('On by default');
		expect(section(README, 'Security and patient data').replace(/\s+/g, ' ')).toMatch(
			/Share Patient Data With the AI Agent\*\* switch, \*\*on by default\*\*/,
		);
	});
});

describe('docs/credentials.md', () => {
	/** Every field a user sees in a credential (hidden fields and notices left out). */
	const visibleFields = (properties: INodeProperties[]) => [
		...new Set(
			properties
				.filter((p) => p.type !== 'hidden' && p.type !== 'notice')
				.map((p) => p.displayName),
		),
	];
	const tableNames = (text: string) =>
		firstTable(text).flatMap((row) =>
			cellText(row[0])
				.replace(/\s*\([^)]*\)/g, '')
				.split(',')
				.map((name) => name.trim()),
		);

	it.each([
		['Clinic Scribe API', new ClinicScribeApi().properties],
		['Setting up the OAuth2 credential', new ClinicScribeOAuth2Api().properties],
	] as const)('%s: its table explains every field of the credential', (title, properties) => {
		const names = tableNames(section(read('docs/credentials.md'), title));
		expect(visibleFields([...properties]).filter((field) => !names.includes(field))).toEqual([]);
	});
});

describe('every document', () => {
	it.each([...GITHUB_DOCUMENTS, 'CHANGELOG.md'])(
		'%s: every link leads to a file, folder or heading that exists',
		(document) => {
			const broken = linkTargets(read(document)).map((target) => brokenLink(document, target));
			expect(broken.filter(Boolean)).toEqual([]);
		},
	);

	it.each(['README.md', ...GITHUB_DOCUMENTS])(
		'%s: every `npm run` script it names exists',
		(document) => {
			const scripts = [...read(document).matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1]);
			expect(scripts.filter((name) => !(name in manifest.scripts))).toEqual([]);
		},
	);

	it.each(['README.md', ...GITHUB_DOCUMENTS])(
		'%s: every repository path it names exists',
		(document) => {
			const missing = namedPaths(read(document)).filter(
				(path) => !existsSync(join(ROOT, path)) && !isDirectory(join(ROOT, path)),
			);
			expect(missing).toEqual([]);
		},
	);
});

describe('CONTRIBUTING.md, development map', () => {
	const map = () => codeBlocks(section(read('CONTRIBUTING.md'), 'Development map'))[0] ?? '';
	const tracked = (dir: string): string[] =>
		readdirSync(join(ROOT, dir)).flatMap((name) => {
			const path = `${dir}/${name}`;
			return isDirectory(join(ROOT, path)) ? [path + '/', ...tracked(path)] : [path];
		});
	const tree = [
		'nodes',
		'credentials',
		'test',
		'scripts',
		'bench',
		'examples',
		'docs',
		'.github',
	].flatMap(tracked);
	const baseNames = new Set(tree.map((path) => path.replace(/\/$/, '').split('/').pop()));

	it('names only files that exist', () => {
		// A name after a placeholder (`<operation>.operation.ts`) is a pattern, not a file.
		const named = [
			...map().matchAll(/(?<![>.\w-])[A-Za-z][\w.-]*\.(?:ts|mjs|cjs|sh|json|yml|svg)\b/g),
		].map((match) => match[0]);
		expect(named.length).toBeGreaterThan(40);
		expect(named.filter((name) => !baseNames.has(name))).toEqual([]);
	});

	it('shows every room of the node and every layer of the tests', () => {
		const rooms = readdirSync(join(ROOT, 'nodes/ClinicScribe')).filter((name) =>
			isDirectory(join(ROOT, 'nodes/ClinicScribe', name)),
		);
		const layers = readdirSync(join(ROOT, 'test')).filter((name) =>
			isDirectory(join(ROOT, 'test', name)),
		);
		expect([...rooms, ...layers].filter((name) => !map().includes(`${name}/`))).toEqual([]);
	});
});
