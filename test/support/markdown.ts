/**
 * Reading the project's Markdown (README, CONTRIBUTING, docs/) the way GitHub renders it, for the
 * tests that hold the documents to the code: headings and their anchors, sections, links, tables.
 */

export interface Heading {
	level: number;
	text: string;
	line: number;
}

/** The text with fenced code blocks blanked out (line count kept), so nothing inside them counts. */
export function withoutCodeBlocks(markdown: string): string {
	let inFence = false;
	return markdown
		.split('\n')
		.map((line) => {
			if (/^\s*```/.test(line)) {
				inFence = !inFence;
				return '';
			}
			return inFence ? '' : line;
		})
		.join('\n');
}

/** The fenced code blocks, each as its text. */
export function codeBlocks(markdown: string): string[] {
	const blocks: string[] = [];
	let current: string[] | undefined;
	for (const line of markdown.split('\n')) {
		if (/^\s*```/.test(line)) {
			if (current) {
				blocks.push(current.join('\n'));
				current = undefined;
			} else {
				current = [];
			}
		} else if (current) {
			current.push(line);
		}
	}
	return blocks;
}

export function headings(markdown: string): Heading[] {
	return withoutCodeBlocks(markdown)
		.split('\n')
		.flatMap((line, index) => {
			const match = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
			return match ? [{ level: match[1].length, text: match[2], line: index }] : [];
		});
}

/** A heading's text as GitHub shows it: links reduced to their text, code and emphasis marks dropped. */
function plainText(text: string): string {
	return text
		.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/`/g, '')
		.replace(/\*\*|__|\*/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation removed, spaces to hyphens. */
export function slug(text: string): string {
	return plainText(text)
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
		.replace(/ /g, '-');
}

/** Every anchor a document has (a repeated heading gets -1, -2… as on GitHub). */
export function anchors(markdown: string): Set<string> {
	const seen = new Map<string, number>();
	const result = new Set<string>();
	for (const heading of headings(markdown)) {
		const base = slug(heading.text);
		const count = seen.get(base) ?? 0;
		result.add(count === 0 ? base : `${base}-${count}`);
		seen.set(base, count + 1);
	}
	return result;
}

/** The section under the first heading whose text is `title` (or starts with it), up to the next heading of its level or above. */
export function section(markdown: string, title: string): string {
	const lines = markdown.split('\n');
	const all = headings(markdown);
	const start =
		all.find((h) => plainText(h.text) === title) ??
		all.find((h) => plainText(h.text).startsWith(title));
	if (!start) throw new Error(`no heading "${title}"`);
	const end = all.find((h) => h.line > start.line && h.level <= start.level);
	return lines.slice(start.line + 1, end ? end.line : lines.length).join('\n');
}

/** Link targets outside code: `[text](target)`. */
export function linkTargets(markdown: string): string[] {
	const text = withoutCodeBlocks(markdown).replace(/`[^`\n]*`/g, '``');
	return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
}

/** The rows of every table in the text, header rows included, each as trimmed cells. */
export function tableRows(markdown: string): string[][] {
	return withoutCodeBlocks(markdown)
		.split('\n')
		.filter((line) => line.trim().startsWith('|') && !/^\s*\|\s*-{3}/.test(line))
		.map((line) =>
			line
				.trim()
				.replace(/^\|/, '')
				.replace(/\|$/, '')
				.split('|')
				.map((cell) => cell.trim()),
		);
}

/** The rows of the first table in the text, without its header row. */
export function firstTable(markdown: string): string[][] {
	const lines = withoutCodeBlocks(markdown).split('\n');
	const start = lines.findIndex((line) => line.trim().startsWith('|'));
	if (start < 0) return [];
	let end = start;
	while (end < lines.length && lines[end].trim().startsWith('|')) end++;
	return tableRows(lines.slice(start, end).join('\n')).slice(1);
}

/** A cell's text without bold, italics and code marks. */
export function cellText(cell: string): string {
	return cell
		.replace(/\*\*|`/g, '')
		.replace(/^\*(.*)\*$/, '$1')
		.trim();
}

/** The names in backticks in a piece of text. */
export function codeSpans(text: string): string[] {
	return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
}
