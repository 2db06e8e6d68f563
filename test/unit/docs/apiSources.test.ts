/**
 * Comments that rest on the clinic API's documents cite a key that docs/api-sources.md defines
 * (`[IFD §4.7]`, `[EKA-OAS] create-session.mdx`), so a reader can follow them; names nobody outside
 * the first authors could follow ("the service notes", "ES-OAS", "document §5") are refused. Comments
 * are read with TypeScript's parser, so a `//` inside a string or a URL is not taken for one.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

import * as ts from 'typescript';

import { cellText, firstTable, headings, section } from '../../support/markdown';

const ROOT = resolve(__dirname, '../../..');
const SOURCES_DOC = 'docs/api-sources.md';
/** Shipped code, and the fake API whose comments say which source each route follows. */
const COMMENTED_TREES = ['nodes', 'credentials', 'test/fake-api'];

/** A citation: a key in brackets, optionally a section (`[IFD §4.1–4.3]`, `[RFC6749 §5.2]`). */
const CITATION = /\[([A-Z][A-Z0-9-]*)(?: §[^\]\n]*)?\]/g;

/** Ways of naming a source that lead nowhere, each with what to write instead. */
const UNTRACEABLE: ReadonlyArray<{ pattern: RegExp; instead: string }> = [
	{ pattern: /service[ -]notes/i, instead: 'cite the public source the fact comes from' },
	{ pattern: /\bnotes (?:§|beyond)/i, instead: 'cite the public source the fact comes from' },
	{ pattern: /\binterface document(?! variant)/i, instead: 'write [IFD §…]' },
	{ pattern: /\bdocument (?:§|\d)/i, instead: 'write [IFD §…]' },
	{ pattern: /§/, instead: 'put the section inside a citation, e.g. [IFD §4.2]' },
	{
		pattern:
			/\b(?:ES-OAS|ES-hist|MCP|DT|DT-bkp|MSA|PD|PD-GS|PD-TSDOC|PDTS|PW|WS|WH|COMMS|APPT-GS|PYSDK|JS-legacy|WHSDK)\b/,
		instead: 'write its key, e.g. [EKA-MCP]',
	},
	{ pattern: /\[(?:\d|2\+)\]/, instead: 'name the sources that agree or differ' },
	{ pattern: /\bsources disagree\b/i, instead: 'name the sources that disagree' },
];

/** The keys docs/api-sources.md defines: [IFD] in its heading, and the first column of the sources table. */
function definedKeys(markdown: string): string[] {
	const contract = headings(markdown).find((heading) =>
		heading.text.startsWith('The interface document'),
	);
	const fromHeading = [...(contract?.text.matchAll(/\[([A-Z][A-Z0-9-]*)\]/g) ?? [])].map(
		(match) => match[1],
	);
	const fromTable = firstTable(section(markdown, 'Public sources')).map(
		(row) => /^\[([A-Z][A-Z0-9-]*)\]$/.exec(cellText(row[0]))?.[1] ?? `not a key: ${row[0]}`,
	);
	return [...fromHeading, ...fromTable];
}

function typeScriptFiles(directory: string): string[] {
	return readdirSync(join(ROOT, directory)).flatMap((name) => {
		const path = `${directory}/${name}`;
		if (statSync(join(ROOT, path)).isDirectory()) return typeScriptFiles(path);
		return path.endsWith('.ts') ? [path] : [];
	});
}

/** Every comment of a TypeScript file, with its line, as the parser sees it. */
function commentsOf(text: string): Array<{ line: number; text: string }> {
	const source = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, true);
	const found = new Map<number, string>();
	const collect = (ranges: ts.CommentRange[] | undefined) =>
		ranges?.forEach((range) => found.set(range.pos, text.slice(range.pos, range.end)));
	const visit = (node: ts.Node) => {
		collect(ts.getLeadingCommentRanges(text, node.pos));
		collect(ts.getTrailingCommentRanges(text, node.end));
		node.getChildren(source).forEach(visit);
	};
	visit(source);
	return [...found.entries()]
		.sort(([a], [b]) => a - b)
		.map(([pos, comment]) => ({
			line: source.getLineAndCharacterOfPosition(pos).line + 1,
			text: comment,
		}));
}

/** What is wrong with one comment's citations, given the defined keys. */
function citationProblems(comment: string, keys: ReadonlySet<string>): string[] {
	const problems = [...comment.matchAll(CITATION)]
		.filter((match) => !keys.has(match[1]))
		.map((match) => `${match[0]} is not defined in ${SOURCES_DOC}`);
	const rest = comment.replace(CITATION, '');
	for (const { pattern, instead } of UNTRACEABLE) {
		const match = pattern.exec(rest);
		if (match) problems.push(`"${match[0]}" cannot be followed: ${instead}`);
	}
	return problems;
}

const markdown = readFileSync(join(ROOT, SOURCES_DOC), 'utf8');
const KEYS = definedKeys(markdown);
const KEY_SET = new Set(KEYS);

describe(SOURCES_DOC, () => {
	it('defines each key once, the interface document first', () => {
		expect(KEYS[0]).toBe('IFD');
		expect(KEYS.filter((key) => !/^[A-Z][A-Z0-9-]*$/.test(key))).toEqual([]);
		expect(KEYS.filter((key, index) => KEYS.indexOf(key) !== index)).toEqual([]);
		expect(KEYS.length).toBeGreaterThan(15);
	});

	it('says where each public source can be read: an address or a repository and commit', () => {
		const rows = firstTable(section(markdown, 'Public sources'));
		const nowhere = rows
			.filter((row) => !/https:\/\/|@ `?[0-9a-f]{7,40}`?/.test(row[3] ?? ''))
			.map((row) => row[0]);
		expect(nowhere).toEqual([]);
	});

	it('cites only keys it defines', () => {
		const cited = [...markdown.matchAll(CITATION)].map((match) => match[1]);
		expect(cited.filter((key) => !KEY_SET.has(key))).toEqual([]);
	});
});

describe('source citations in comments', () => {
	it.each(COMMENTED_TREES)(
		'%s: every comment cites a defined key and no untraceable source',
		(tree) => {
			const problems = typeScriptFiles(tree).flatMap((path) =>
				commentsOf(readFileSync(join(ROOT, path), 'utf8')).flatMap((comment) =>
					citationProblems(comment.text, KEY_SET).map(
						(problem) => `${relative(ROOT, join(ROOT, path))}:${comment.line}: ${problem}`,
					),
				),
			);
			expect(problems).toEqual([]);
		},
	);

	it('the comments of shipped code do cite the sources (the check above has something to check)', () => {
		const cited = new Set(
			['nodes', 'credentials']
				.flatMap(typeScriptFiles)
				.flatMap((path) =>
					commentsOf(readFileSync(join(ROOT, path), 'utf8')).flatMap((comment) =>
						[...comment.text.matchAll(CITATION)].map((match) => match[1]),
					),
				),
		);
		expect(
			['IFD', 'EKA-OAS', 'EKA-DT', 'EKA-PD', 'EKA-V2'].filter((key) => !cited.has(key)),
		).toEqual([]);
	});

	it('reads comments, not strings, and catches each kind of untraceable citation', () => {
		const code = [
			"const url = 'https://example.com/path'; // [EKA-DT] the list",
			'/** As the service notes say ([C]); document §5; MCP sends it; [NOPE §2]. */',
			"const text = '// service notes in a string are not a comment';",
		].join('\n');
		const comments = commentsOf(code);
		expect(comments.map((comment) => comment.line)).toEqual([1, 2]);
		expect(citationProblems(comments[0].text, KEY_SET)).toEqual([]);
		expect(citationProblems(comments[1].text, KEY_SET)).toEqual([
			`[C] is not defined in ${SOURCES_DOC}`,
			`[NOPE §2] is not defined in ${SOURCES_DOC}`,
			'"service notes" cannot be followed: cite the public source the fact comes from',
			'"document §" cannot be followed: write [IFD §…]',
			'"§" cannot be followed: put the section inside a citation, e.g. [IFD §4.2]',
			'"MCP" cannot be followed: write its key, e.g. [EKA-MCP]',
		]);
	});
});
