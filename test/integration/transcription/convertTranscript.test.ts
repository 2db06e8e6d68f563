/**
 * Transcription → Convert Transcript over real HTTP: create a session under an id of ours, POST the
 * transcript to convert-to-template, read the document back through the status call (decoded as Get
 * Results does). A create whose answer is lost is sent again and still makes one session.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import {
	CLINICAL_NOTES_DOCUMENT,
	CONVERT_PATH,
	customTemplateText,
	emrDocument,
	SESSIONS_PATH,
} from '../../fake-api/routes/transcription';
import { recordAttack } from '../../support/attackLedger';
import { useSessionRig } from '../../support/sessionRig';

const t = useSessionRig();
const { rig } = t;

/** The ids this node makes for a session nobody named: `n8n` and 29 hex characters. */
const OUR_SESSION_ID = /^n8n[0-9a-f]{29}$/;

const NOTES =
	'Patient has had a dry cough and fever for three days. No breathlessness. Advised rest and fluids.';

function convertParameters(extra: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		resource: 'transcription',
		operation: 'convertTranscript',
		transcript: NOTES,
		convertTemplate: 'clinical_notes_template',
		customTemplateId: { __rl: true, mode: 'list', value: '' },
		waitForCompletion: true,
		timeoutMinutes: 1,
		pollIntervalSeconds: 1,
		resultsOutput: 'session',
		...extra,
	};
}

/** Parameters that differ per item, as expressions would give them. */
async function runItems(
	perItem: Array<Record<string, unknown>>,
	continueOnFail = false,
): Promise<INodeExecutionData[]> {
	return await rig.runPerItem(convertParameters(), perItem, { continueOnFail });
}

const sessionPosts = () => rig.api.requestsTo(SESSIONS_PATH, 'POST');
const convertPosts = () =>
	rig.api.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/convert-to-template'));

describe('Convert Transcript', () => {
	test('with Wait: one session, one conversion of the text, the document decoded', async () => {
		const output = await rig.run(convertParameters());
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		const sessionId = output[0].json.session_id as string;
		expect(sessionId).toMatch(OUR_SESSION_ID);
		expect(output[0].json).toMatchObject({ status: 'completed', http_status: 200 });
		expect(output[0].json.document_id).toMatch(/^doc_[0-9a-f]{12}$/);
		expect(output[0].json.documents).toEqual({ clinical_notes_template: CLINICAL_NOTES_DOCUMENT });
		expect(sessionPosts().map((r) => r.body)).toEqual([
			{ session_id: sessionId, upload_type: 'single', templates: ['clinical_notes_template'] },
		]);
		const converts = convertPosts();
		expect(converts.map((r) => [r.path, r.body])).toEqual([
			[
				CONVERT_PATH.replace(':txnId', sessionId),
				{ transcript: NOTES, template_id: 'clinical_notes_template' },
			],
		]);
		expect(converts[0].headers.authorization).toMatch(/^Bearer /);
		expect(converts[0].headers.flavour).toBeUndefined();
		// 1 poll answered 202 (the fake's default), then the document.
		expect(rig.api.requestsTo(`/voice/api/v3/status/${sessionId}`, 'GET')).toHaveLength(2);
	});

	test('without Wait: the session is output at once as processing, with its document id', async () => {
		const output = await rig.run(convertParameters({ waitForCompletion: false }));
		expect(output).toHaveLength(1);
		expect(output[0].json).toMatchObject({ status: 'processing', http_status: 202 });
		expect(output[0].json.document_id).toMatch(/^doc_/);
		expect(
			rig.api.requestsTo(`/voice/api/v3/status/${output[0].json.session_id as string}`, 'GET'),
		).toHaveLength(1);
	});

	test("EMR Format uses the variant's EMR template; a custom template from the picker is sent as its id and decoded as text", async () => {
		const emr = await rig.run(convertParameters({ convertTemplate: 'emr' }));
		expect(emr[0].json.documents).toEqual({ svc_emr_template: emrDocument(false) });
		const custom = await rig.run(
			convertParameters({
				convertTemplate: 'custom',
				customTemplateId: { __rl: true, mode: 'list', value: 'tpl-soap-note' },
			}),
		);
		expect(custom[0].json.documents).toEqual({
			'tpl-soap-note': customTemplateText('tpl-soap-note'),
		});
		expect(convertPosts().map((r) => (r.body as { template_id: string }).template_id)).toEqual([
			'svc_emr_template',
			'tpl-soap-note',
		]);
	});

	test.each([
		['empty text', { transcript: '   ' }, 'The Transcript field of item 0 is empty'],
		[
			'not text',
			{ transcript: { text: NOTES } },
			'The Transcript field of item 0 is not text (object)',
		],
		[
			'no custom template',
			{ convertTemplate: 'custom' },
			'The Custom Template field of item 0 is empty',
		],
	])('bad input (%s) fails the item with 0 requests', async (_name, extra, message) => {
		await expect(rig.run(convertParameters(extra))).rejects.toThrow(message);
		expect(rig.api.requests).toHaveLength(0);
	});

	test('an API refusal is a clear message that does not echo the transcript', async () => {
		const output = await runItems(
			[
				{
					convertTemplate: 'custom',
					customTemplateId: { __rl: true, mode: 'id', value: 'tpl-nobody-has' },
				},
			],
			true,
		);
		expect(output).toHaveLength(1);
		const error = output[0].json.error as string;
		expect(error).toBe(
			'The clinic API refused creating a session for the transcript (HTTP 400 invalid_template_id): unknown template_id tpl-nobody-has',
		);
		expect(JSON.stringify(output)).not.toContain('dry cough');
		expect(convertPosts()).toHaveLength(0);
	});

	test('Continue On Fail: bad and good items side by side, each paired with its own item; the bad one sends nothing', async () => {
		const output = await runItems(
			[
				{ transcript: 'First visit: headache for two days.' },
				{ transcript: '' },
				{ transcript: 'Third visit: knee pain after a fall.' },
			],
			true,
		);
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[0].json.documents).toEqual({ clinical_notes_template: CLINICAL_NOTES_DOCUMENT });
		expect(output[1].json.error).toBe('The Transcript field of item 1 is empty');
		expect(output[2].json.documents).toEqual({ clinical_notes_template: CLINICAL_NOTES_DOCUMENT });
		expect(output[0].json.session_id).not.toBe(output[2].json.session_id);
		expect(convertPosts().map((r) => (r.body as { transcript: string }).transcript)).toEqual([
			'First visit: headache for two days.',
			'Third visit: knee pain after a fall.',
		]);
	});

	test('a dropped conversion call is not sent again (each call makes a new document)', async () => {
		rig.api.injectFault({
			method: 'POST',
			path: /\/convert-to-template$/,
			fault: { kind: 'drop' },
		});
		await expect(rig.run(convertParameters())).rejects.toThrow(
			/^Could not reach the clinic API for converting the transcript of session "n8n[0-9a-f]{29}" to template "clinical_notes_template"/,
		);
		expect(convertPosts()).toHaveLength(1);
		expect(sessionPosts()).toHaveLength(1);
	});

	test('a 500 on the conversion call is not repeated either (the service may have made the document); the error says to check first', async () => {
		rig.api.injectFault({
			method: 'POST',
			path: /\/convert-to-template$/,
			fault: { kind: 'status', status: 500 },
		});
		const run = rig.run(convertParameters());
		await expect(run).rejects.toThrow(
			/^The clinic API refused converting the transcript of session "n8n[0-9a-f]{29}" to template "clinical_notes_template" \(HTTP 500/,
		);
		await expect(run).rejects.toMatchObject({
			description: expect.stringMatching(
				/not repeated automatically: the service may have carried it out/,
			),
		});
		expect(convertPosts()).toHaveLength(1);
		recordAttack(
			'convert-500-not-repeated',
			'a 500 on the paid conversion call: not repeated, the error says to check before running again',
			{ duplicateInits: 0 },
		);
	});

	test('a 429 on the conversion call is repeated: it says the request was not taken', async () => {
		rig.api.injectFault({
			method: 'POST',
			path: /\/convert-to-template$/,
			fault: { kind: 'status', status: 429, headers: { 'retry-after': '0' } },
		});
		const output = await rig.run(convertParameters());
		expect(output).toHaveLength(1);
		expect(convertPosts().map((r) => r.status)).toEqual([429, 202]);
	});

	test.each([
		['convert-create-lost-500', 'status500'],
		['convert-create-lost-drop', 'drop'],
	] as const)(
		'%s: the create carried out and its answer lost (%s): sent again under the same id, the "exists" answer is our own session: one session, one conversion, the document',
		async (row, kind) => {
			t.sessions.loseCreateAnswer({ kind });
			const output = await rig.run(convertParameters());
			expect(output).toHaveLength(1);
			const sessionId = output[0].json.session_id as string;
			expect(sessionId).toMatch(OUR_SESSION_ID);
			expect(output[0].json.documents).toEqual({
				clinical_notes_template: CLINICAL_NOTES_DOCUMENT,
			});
			expect(
				sessionPosts().map((r) => [r.status, (r.body as { session_id?: string }).session_id]),
			).toEqual([
				[kind === 'drop' ? undefined : 500, sessionId],
				[409, sessionId],
			]);
			// One session on the service: the repeat made none of its own.
			expect(t.sessions.sessions().map((session) => session.sessionId)).toEqual([sessionId]);
			expect(convertPosts().map((r) => r.path)).toEqual([
				CONVERT_PATH.replace(':txnId', sessionId),
			]);
			recordAttack(
				row,
				`create answer lost (${kind}): repeated under our id, the 409 read as ours: 1 session, 1 conversion`,
				{ itemsLost: 0, duplicateInits: 0 },
			);
		},
	);

	test('no answer to any create: the error says a session may have been made and the transcript was not sent; nothing is converted', async () => {
		t.sessions.loseCreateAnswer({ kind: 'drop' });
		rig.api.injectFault({ method: 'POST', path: SESSIONS_PATH, times: 3, fault: { kind: 'drop' } });
		const run = rig.run(convertParameters());
		await expect(run).rejects.toThrow(
			/^Session "n8n[0-9a-f]{29}" of item 0 may have been created, but no answer came from the clinic API/,
		);
		await expect(run).rejects.toMatchObject({
			description: expect.stringContaining('The transcript was not sent, so no document was made'),
		});
		expect(sessionPosts()).toHaveLength(4);
		expect(t.sessions.sessions()).toHaveLength(1);
		expect(convertPosts()).toHaveLength(0);
	});

	test('"exists" to a create whose answer was not lost is not taken for ours: the item fails and nothing is converted', async () => {
		rig.api.injectFault({
			method: 'POST',
			path: SESSIONS_PATH,
			fault: {
				kind: 'status',
				status: 409,
				body: { error: { code: 'session_already_exists', message: 'session exists' } },
			},
		});
		const run = rig.run(convertParameters());
		await expect(run).rejects.toThrow(
			'The clinic API refused creating a session for the transcript (HTTP 409)',
		);
		await expect(run).rejects.toMatchObject({
			description: expect.stringContaining('the transcript was not sent. Run the node again'),
		});
		expect(convertPosts()).toHaveLength(0);
	});

	test('as an AI agent tool: text in, text out; with Share Patient Data off it refuses before any request', async () => {
		const asTool = (parameters: Record<string, unknown>) => {
			const context = rig.context(parameters);
			(context as unknown as { isToolExecution: () => boolean }).isToolExecution = () => true;
			return rig.node.execute.call(context);
		};
		await expect(asTool(convertParameters({ shareWithAiAgent: false }))).rejects.toThrow(
			'Convert Transcript is not shared with AI agents in this node',
		);
		expect(rig.api.requests).toHaveLength(0);
		const [output] = await asTool(convertParameters({ resultsOutput: 'simple' }));
		expect(output).toHaveLength(1);
		expect(output[0].json).toMatchObject({ status: 'completed', transcript: null });
		expect(output[0].json.clinical_notes).toContain('Acute upper respiratory tract infection');
	});
});
