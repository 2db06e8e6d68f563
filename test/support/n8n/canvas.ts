/**
 * Where things sit on n8n 2.41's canvas, computed from workflow JSON (there is no browser here):
 * node boxes with their labels, sticky note boxes, and how tall a sticky note's text is. Used to lay
 * out examples/*.json and `npm start`'s local copies so that no note covers a node and every note is
 * about as tall as its text.
 *
 * Figures from n8n's editor: a node is 100×100 at its position (top left), its name and subtitle are
 * centred below it and may be wider than it; a sticky note is `width`×`height` (default 240×160) at
 * its position; note text is InterVariable 14 px, line height 1.35 (paragraphs) or 1.3 (list items),
 * `##` headings 24 px, 8 px below each block, 8 px padding and about 24 px free at the bottom.
 */
import type { WorkflowJson, WorkflowNode } from './workflows';

export const STICKY_NOTE_TYPE = 'n8n-nodes-base.stickyNote';
const NODE_SIZE = 100;
/** Room a node's label takes: below the node (two lines of name and a subtitle), and either side. */
const LABEL_BELOW = 60;
const LABEL_SIDE = 40;
const DEFAULT_STICKY = { width: 240, height: 160 };

/** Average advance of a character of prose, in px (InterVariable 14 px, rounded up). */
const CHAR_PX = 7;
const HEADING_CHAR_PX = 14;
const PARAGRAPH_LINE_PX = 14 * 1.35;
const LIST_LINE_PX = 14 * 1.3;
const HEADING_LINE_PX = 24 * 1.35;
const BLOCK_GAP_PX = 8;
const LIST_INDENT_PX = 20;
const PADDING_X_PX = 8;
/** Top padding plus the free strip at the bottom of a note. */
const PADDING_Y_PX = 8 + 24;

export interface Box {
	left: number;
	top: number;
	right: number;
	bottom: number;
}

export const isStickyNote = (node: WorkflowNode): boolean => node.type === STICKY_NOTE_TYPE;

/** A node with the room its label takes. */
export function nodeBox(node: WorkflowNode): Box {
	const [x, y] = node.position;
	return {
		left: x - LABEL_SIDE,
		top: y,
		right: x + NODE_SIZE + LABEL_SIDE,
		bottom: y + NODE_SIZE + LABEL_BELOW,
	};
}

export function stickyBox(node: WorkflowNode): Box {
	const [x, y] = node.position;
	const width =
		typeof node.parameters.width === 'number' ? node.parameters.width : DEFAULT_STICKY.width;
	const height =
		typeof node.parameters.height === 'number' ? node.parameters.height : DEFAULT_STICKY.height;
	return { left: x, top: y, right: x + width, bottom: y + height };
}

export function overlaps(a: Box, b: Box): boolean {
	return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

/** How a line of markdown reads on the canvas: markers that do not show are left out. */
function visibleText(line: string): string {
	return (
		line
			.replace(/\*\*|__/g, '')
			.replace(/(^|\W)[*_](\S)/g, '$1$2')
			.replace(/(\S)[*_](\W|$)/g, '$1$2')
			.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
			// code spans are set in a wider monospace font, with padding
			.replace(
				/`([^`]*)`/g,
				(_m, code: string) => `${code}${'x'.repeat(Math.ceil(code.length / 4) + 1)}`,
			)
	);
}

/** Lines a text takes when wrapped at word boundaries to `widthPx`. */
function wrappedLines(text: string, widthPx: number, charPx: number): number {
	const perLine = Math.max(1, Math.floor(widthPx / charPx));
	let lines = 1;
	let used = 0;
	for (const word of text.split(/\s+/).filter(Boolean)) {
		const length = word.length;
		if (used === 0) used = length;
		else if (used + 1 + length <= perLine) used += 1 + length;
		else {
			lines += 1;
			used = length;
		}
		while (used > perLine) {
			lines += 1;
			used -= perLine;
		}
	}
	return lines;
}

/**
 * Height in px that a sticky note's markdown takes at the given note width (an estimate that errs
 * on the tall side). Each source line is a line on the canvas (n8n renders line breaks).
 */
export function stickyTextHeight(content: string, width: number): number {
	const inner = width - 2 * PADDING_X_PX;
	let height = PADDING_Y_PX;
	let inBlock = false;
	for (const raw of content.split('\n')) {
		const line = raw.trimEnd();
		if (line.trim() === '') {
			if (inBlock) height += BLOCK_GAP_PX;
			inBlock = false;
			continue;
		}
		inBlock = true;
		const heading = /^#{1,6}\s+(.*)$/.exec(line);
		const listItem = /^\s*(?:[-*]|\d+\.)\s+(.*)$/.exec(line);
		if (heading) {
			height +=
				wrappedLines(visibleText(heading[1]), inner, HEADING_CHAR_PX) * HEADING_LINE_PX +
				BLOCK_GAP_PX;
			inBlock = false;
		} else if (listItem) {
			height +=
				wrappedLines(visibleText(listItem[1]), inner - LIST_INDENT_PX, CHAR_PX) * LIST_LINE_PX +
				3.5;
		} else {
			height += wrappedLines(visibleText(line), inner, CHAR_PX) * PARAGRAPH_LINE_PX;
		}
	}
	if (inBlock) height += BLOCK_GAP_PX;
	return Math.ceil(height);
}

/** How far a note may be taller than its text before it looks empty. */
export const STICKY_SLACK_PX = 60;

/**
 * What is wrong with a workflow's layout: a note over a node (or its label), a note over another
 * note, a note too short for its text or much taller than it. Empty when it is clean.
 */
export function layoutProblems(workflow: WorkflowJson): string[] {
	const problems: string[] = [];
	const notes = workflow.nodes.filter(isStickyNote);
	const nodes = workflow.nodes.filter((n) => !isStickyNote(n));
	for (const note of notes) {
		const box = stickyBox(note);
		for (const node of nodes) {
			if (overlaps(box, nodeBox(node)))
				problems.push(`note "${note.name}" covers node "${node.name}"`);
		}
		for (const other of notes) {
			if (other !== note && other.name > note.name && overlaps(box, stickyBox(other)))
				problems.push(`note "${note.name}" covers note "${other.name}"`);
		}
		const content = typeof note.parameters.content === 'string' ? note.parameters.content : '';
		const needed = stickyTextHeight(content, box.right - box.left);
		const height = box.bottom - box.top;
		if (height < needed)
			problems.push(`note "${note.name}" is ${height} px tall, its text needs about ${needed} px`);
		if (height > needed + STICKY_SLACK_PX)
			problems.push(`note "${note.name}" is ${height} px tall for about ${needed} px of text`);
	}
	return problems;
}

/** Rounded up to n8n's 20 px canvas grid. */
export const onGrid = (px: number): number => Math.ceil(px / 20) * 20;
