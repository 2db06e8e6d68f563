/**
 * Transcription → Convert Transcript inside a real n8n 2.41.1: a Set node's text, through an
 * expression, converted with a workspace template picked from the list, waited for and decoded,
 * against the fake clinic API (one `n8n execute` of test/e2e/workflows/convert-transcript.json).
 */
import { customTemplateText, SESSIONS_PATH } from '../fake-api/routes/transcription';
import { nodeOutput } from '../support/n8n/results';
import { useWorkflowRun } from '../support/n8n/workflowRun';

// jest 29 ignores testTimeout inside a project's config; every n8n run takes seconds.
jest.setTimeout(5 * 60_000);

const NOTES =
	'Fever for three days with a dry cough. Throat congested, chest clear. Paracetamol 650 mg, rest, fluids.';

const run = useWorkflowRun('convert-transcript');

describe('typed notes to a document, in n8n', () => {
	it('runs the workflow to success', () => {
		expect(run.result.error).toBeUndefined();
		expect(run.result.status).toBe('success');
	});

	it('outputs the completed session with the decoded document, paired to its item', () => {
		const items = nodeOutput(run.result, 'Convert Transcript');
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({
			status: 'completed',
			http_status: 200,
			documents: { 'tpl-soap-note': customTemplateText('tpl-soap-note') },
		});
		expect(String(items[0].json.document_id)).toMatch(/^doc_[0-9a-f]{12}$/);
		expect(JSON.stringify(items[0].pairedItem)).toBe('{"item":0}');
	});

	it('sent one session and one conversion of the text from the expression', () => {
		const sessionId = String(nodeOutput(run.result, 'Convert Transcript')[0].json.session_id);
		// The session is created under the node's own id (`n8n` and 29 hex characters), so a lost answer can be repeated.
		expect(sessionId).toMatch(/^n8n[0-9a-f]{29}$/);
		expect(run.api.requestsTo(SESSIONS_PATH, 'POST').map((call) => call.body)).toEqual([
			{ session_id: sessionId, upload_type: 'single', templates: ['tpl-soap-note'] },
		]);
		const converts = run.api.requests.filter(
			(call) => call.method === 'POST' && call.path.endsWith('/convert-to-template'),
		);
		expect(converts.map((call) => call.path)).toEqual([
			expect.stringContaining(`/transaction/${sessionId}/convert-to-template`),
		]);
		expect(converts.map((call) => call.body)).toEqual([
			{ transcript: NOTES, template_id: 'tpl-soap-note' },
		]);
		expect(converts.every((call) => /^Bearer /.test(String(call.headers.authorization)))).toBe(
			true,
		);
	});
});
