/**
 * The example workflows on n8n's canvas (computed from their JSON; the browser test shows them):
 * no sticky note covers a node or its label, and every note is about as tall as its text, in
 * examples/*.json and in the local copies `npm start` imports (whose notes say more).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { localCopy } from '../../../scripts/localExamples';
import { REPO_ROOT } from '../../support/n8n/install';
import { readWorkflowFile } from '../../support/n8n/workflows';
import {
	layoutProblems,
	nodeBox,
	overlaps,
	stickyBox,
	stickyTextHeight,
} from '../../support/n8n/canvas';

const EXAMPLES = readdirSync(join(REPO_ROOT, 'examples')).filter((f) => f.endsWith('.json'));
const LOCAL_SETUP = {
	fakeApiUrl: 'http://127.0.0.1:5690',
	fhirBaseUrl: 'http://127.0.0.1:5691/fhir',
	inboxUrl: 'http://127.0.0.1:5692',
	recordingPath:
		'/home/someone/projects/n8n-nodes-clinic-scribe/.n8n-local/files/recordings/consultation.wav',
};

test('there are examples to check', () => {
	expect(EXAMPLES.sort()).toEqual([
		'appointment-booked-reminder.json',
		'appointment-completed-prescription-email.json',
		'completed-transcription-to-ehr.json',
		'review-and-sign-before-filing.json',
		'session-transcribe-and-email.json',
		'transcribe-and-email.json',
	]);
});

describe.each(EXAMPLES)('%s', (file) => {
	const example = readWorkflowFile(join(REPO_ROOT, 'examples', file));

	test('as shipped: no note covers a node, every note fits its text', () => {
		expect(layoutProblems(example)).toEqual([]);
	});

	test('as npm start imports it: its longer note still covers no node and fits its text', () => {
		const copy = localCopy(example, LOCAL_SETUP);
		expect(layoutProblems(copy)).toEqual([]);
		const [note] = copy.nodes.filter((n) => n.type === 'n8n-nodes-base.stickyNote');
		expect(note.parameters.content).toContain('credential "Clinic Scribe (local fake API)"');
		// grown upwards: the same bottom edge as the shipped note
		const [shipped] = example.nodes.filter((n) => n.type === 'n8n-nodes-base.stickyNote');
		expect(stickyBox(note).bottom).toBe(stickyBox(shipped).bottom);
	});
});

describe('the layout checks themselves', () => {
	const node = {
		name: 'A',
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters: {},
	};
	const note = (position: [number, number], width: number, height: number, content: string) => ({
		name: 'Note',
		type: 'n8n-nodes-base.stickyNote',
		typeVersion: 1,
		position,
		parameters: { width, height, content },
	});

	test('a note over a node, or over the label below it, is reported', () => {
		expect(overlaps(stickyBox(note([-20, -100], 300, 120, 'x')), nodeBox(node))).toBe(true);
		expect(overlaps(stickyBox(note([-20, 120], 300, 120, 'x')), nodeBox(node))).toBe(true);
		expect(overlaps(stickyBox(note([-20, -140], 300, 120, 'x')), nodeBox(node))).toBe(false);
		expect(
			layoutProblems({
				name: 'w',
				nodes: [node, note([-20, -100], 300, 120, 'x')],
				connections: {},
			}),
		).toContain('note "Note" covers node "A"');
	});

	test('text wraps: a longer text at the same width needs more height, a wider note less', () => {
		const text = 'word '.repeat(200);
		expect(stickyTextHeight(text, 300)).toBeGreaterThan(stickyTextHeight(text.slice(0, 500), 300));
		expect(stickyTextHeight(text, 600)).toBeLessThan(stickyTextHeight(text, 300));
	});

	test('a note much taller than its text is reported, and one too short for it', () => {
		const text = '## Title\nOne short line.';
		const needed = stickyTextHeight(text, 400);
		expect(
			layoutProblems({
				name: 'w',
				nodes: [note([0, -900], 400, needed + 200, text)],
				connections: {},
			}),
		).toEqual([`note "Note" is ${needed + 200} px tall for about ${needed} px of text`]);
		expect(
			layoutProblems({
				name: 'w',
				nodes: [note([0, -900], 400, needed - 20, text)],
				connections: {},
			}),
		).toEqual([`note "Note" is ${needed - 20} px tall, its text needs about ${needed} px`]);
	});
});
