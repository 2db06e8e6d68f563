/**
 * Transcription → Get Results over real HTTP: every status of the status call as a state, decoding
 * of each template kind, the output forms, and Wait for Completion (bounded, cancellable).
 */
import type { INodeExecutionData } from 'n8n-workflow';

import {
	CLINICAL_NOTES_DOCUMENT,
	customTemplateText,
	emrDocument,
	FHIR_BUNDLE,
	STATUS_PATH,
	TRANSCRIPT_TEXT,
	type Outcome,
} from '../../fake-api/routes/transcription';
import { startFinishedSession } from '../../support/fakeTranscriptionSession';
import {
	item,
	resultsParameters,
	TranscriptionRig,
	uploadParameters,
} from '../../support/transcriptionRig';
import { useTestTransportPolicy } from '../../support/transportPolicy';

const rig = new TranscriptionRig();

beforeAll(async () => {
	await rig.start();
	useTestTransportPolicy({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
});
afterAll(async () => await rig.stop());
beforeEach(() => rig.reset());

const ALL_TEMPLATES = {
	templates: [
		{ template: 'clinical_notes_template', customTemplateId: '', codificationNeeded: false },
		{ template: 'emr', customTemplateId: '', codificationNeeded: true },
		{ template: 'transcript_template', customTemplateId: '', codificationNeeded: false },
		{ template: 'custom', customTemplateId: 'tpl-soap-note', codificationNeeded: false },
	],
};

/** Uploads one recording for the session, so the fake knows it; processing as scripted. */
/** The last recorded request id when each session's upload had finished. */
const sessionStartedAfter = new Map<string, number>();
const statusRequestsOf = (txnId: string) =>
	rig.api
		.requestsTo(`/voice/api/v3/status/${txnId}`, 'GET')
		.filter((r) => r.id > (sessionStartedAfter.get(txnId) ?? 0));

async function startSession(
	txnId: string,
	script: { outcome?: Outcome; processingPolls?: number } = {},
	templates = ALL_TEMPLATES,
) {
	rig.fake.script(txnId, { processingPolls: 0, ...script });
	await rig.run(
		uploadParameters({
			transactionId: txnId,
			outputTemplates: templates,
			options: { additionalData: '{"visit": "V-7"}' },
		}),
		{
			items: [item({ data: rig.storedBinary(rig.audioFile('visit.wav', 2000)) })],
		},
	);
	// Upload Audio asks for the status once before uploading (is the ID used?): later calls are the wait's.
	sessionStartedAfter.set(txnId, Math.max(0, ...rig.api.requests.map((r) => r.id)));
}

async function results(
	sessionId: unknown,
	extra: Record<string, unknown> = {},
	options: { continueOnFail?: boolean; cancelSignal?: AbortSignal } = {},
) {
	return await rig.run(resultsParameters(sessionId, extra), options);
}

function documents(output: INodeExecutionData[]): Record<string, unknown> {
	return output[0].json.documents as Record<string, unknown>;
}

describe('Get Results', () => {
	test('200: every template decoded: JSON documents, text with Hindi intact, markdown kept as text', async () => {
		await startSession('visit-done');
		const output = await results('visit-done');
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		expect(output[0].json).toMatchObject({
			session_id: 'visit-done',
			status: 'completed',
			http_status: 200,
			additional_data: { visit: 'V-7' },
		});
		expect(documents(output)).toEqual({
			clinical_notes_template: CLINICAL_NOTES_DOCUMENT,
			svc_emr_template: emrDocument(true),
			transcript_template: TRANSCRIPT_TEXT,
			'tpl-soap-note': customTemplateText('tpl-soap-note'),
		});
		expect(documents(output).transcript_template).toContain(
			'मुझे तीन दिन से बुखार और सूखी खांसी है।',
		);
		const templates = output[0].json.templates as Array<Record<string, unknown>>;
		expect(templates.map((t) => [t.template_id, t.format, t.status])).toEqual([
			['clinical_notes_template', 'json', 'success'],
			['svc_emr_template', 'json', 'success'],
			['transcript_template', 'text', 'success'],
			['tpl-soap-note', 'text', 'success'],
		]);
	});

	test('202: still processing is a normal result', async () => {
		await startSession('visit-busy', { processingPolls: 5 });
		const output = await results('visit-busy');
		expect(output[0].json).toMatchObject({
			session_id: 'visit-busy',
			status: 'processing',
			http_status: 202,
			documents: {},
		});
	});

	test('206: partial results come out with each template’s own status and errors', async () => {
		await startSession('visit-partial', { outcome: 'partial' });
		const output = await results('visit-partial', { resultsOutput: 'templates' });
		expect(output.map((o) => [o.json.template_id, o.json.status, o.json.session_status])).toEqual([
			['clinical_notes_template', 'success', 'partial'],
			['svc_emr_template', 'failure', 'partial'],
			['transcript_template', 'failure', 'partial'],
			['tpl-soap-note', 'failure', 'partial'],
		]);
		expect(output[0].json.value).toEqual(CLINICAL_NOTES_DOCUMENT);
		expect(output[1].json).toMatchObject({
			format: 'empty',
			value: null,
			errors: [{ code: 'template_generation_failed' }],
		});
		expect(output.every((o) => (o.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	test('500: all templates failed is a state with the API’s error, not a crash', async () => {
		await startSession('visit-failed', { outcome: 'failure' });
		const output = await results('visit-failed', { resultsOutput: 'simple' });
		expect(output[0].json).toMatchObject({
			session_id: 'visit-failed',
			status: 'failed',
			clinical_notes: null,
			transcript: null,
			issues: expect.arrayContaining([
				'The API said: All templates failed',
				expect.stringMatching(/^Clinical Notes: failed \(Could not generate/),
			]),
		});
	});

	test('404: an unknown session is a state', async () => {
		const output = await results('no-such-session');
		expect(output[0].json).toMatchObject({
			session_id: 'no-such-session',
			status: 'not_found',
			http_status: 404,
			error: { code: 'txn_not_found' },
		});
	});

	test('the legacy FHIR form (data.output.fhir) is decoded the same way', async () => {
		await startSession('visit-fhir', { outcome: 'fhir' });
		const output = await results('visit-fhir');
		expect(output[0].json.status).toBe('completed');
		expect(documents(output)).toEqual({ fhir: FHIR_BUNDLE });
	});

	test('one item per template, ready for an e-mail or EHR node', async () => {
		await startSession('visit-templates');
		const output = await results('visit-templates', { resultsOutput: 'templates' });
		expect(output.map((o) => o.json.template_id)).toEqual([
			'clinical_notes_template',
			'svc_emr_template',
			'transcript_template',
			'tpl-soap-note',
		]);
		expect(output[1].json).toMatchObject({
			session_id: 'visit-templates',
			session_status: 'completed',
			name: 'EMR Format',
			format: 'json',
			value: emrDocument(true),
		});
	});

	test('the simple view gives clinical notes and transcript as readable text', async () => {
		await startSession('visit-simple');
		const [{ json }] = await results('visit-simple', { resultsOutput: 'simple' });
		expect(json.status).toBe('completed');
		expect(json.clinical_notes).toContain('Chief complaints:\n  - Fever for 3 days\n  - Dry cough');
		expect(json.clinical_notes).toContain('Vitals:\n  Temperature: 100.8 °F');
		expect(json.clinical_notes).toContain(
			'Medications:\n  - Name: Paracetamol 650 mg\n    Dose: 1 tablet',
		);
		expect(json.clinical_notes).toContain('"मुझे तीन दिन से बुखार है"');
		expect(json.transcript).toBe(TRANSCRIPT_TEXT);
		expect(Object.keys(json.other_documents as object)).toEqual([
			'EMR Format',
			'Custom: tpl-soap-note',
		]);
		expect(json.issues).toBeUndefined();
	});

	test('the public API variant: its action and EMR template id', async () => {
		rig.api.setOptions({ variant: 'public' });
		const credentials = rig.credentials({ apiVariant: 'public' });
		const run = async (parameters: Record<string, unknown>, items?: INodeExecutionData[]) =>
			await rig.run(parameters, { items, credentials });
		const file = rig.audioFile('pub.wav', 1000);
		const upload = await run(
			uploadParameters({ transactionId: 'visit-public', outputTemplates: ALL_TEMPLATES }),
			[item({ data: rig.inMemoryBinary(file) })],
		);
		expect(upload[0].json.init).toMatchObject({ status: 'started' });
		expect(rig.api.requestsTo('/v1/file-upload')[0].query).toMatchObject({
			action: 'ekascribe-v2',
		});
		expect(rig.fake.transaction('visit-public')!.initBody!.output_format_template).toContainEqual({
			template_id: 'eka_emr_template',
			codification_needed: true,
		});
		rig.fake.script('visit-public', { processingPolls: 0 });
		const output = await run(resultsParameters('visit-public'));
		expect(documents(output).eka_emr_template).toEqual(emrDocument(true));
	});

	test('an empty Session ID is refused naming the item, before any request', async () => {
		await expect(results('  ')).rejects.toThrow('The Session ID field of item 0 is empty');
		expect(rig.api.requests).toEqual([]);
	});

	test('a Session ID with a space and a slash reaches that session: the fake resolves the call to it', async () => {
		await startFinishedSession(rig.api.url, rig.api.validCredentials, 'visit 1/2');
		const before = Math.max(0, ...rig.api.requests.map((r) => r.id));
		const output = await results('visit 1/2');
		expect(output[0].json).toMatchObject({
			session_id: 'visit 1/2',
			status: 'completed',
			http_status: 200,
		});
		// What the server resolved, not the string the client built: one status call, on that session.
		const calls = rig.api.requests.filter((r) => r.id > before && r.route !== '/api/v1/auth/token');
		expect(calls.map((r) => [r.method, r.route, r.pathname, r.status])).toEqual([
			['GET', STATUS_PATH, '/voice/api/v3/status/visit 1/2', 200],
		]);
		expect(rig.fake.transaction('visit 1/2')?.statusCalls).toBe(1);
	});
});

describe('Get Results: Wait for Completion', () => {
	test('polls until done (the status call may be held by the server like the real long poll)', async () => {
		await startSession('visit-slow', { processingPolls: 3 });
		rig.fake.setOptions({ holdMs: 150 });
		const output = await results('visit-slow', {
			waitForCompletion: true,
			pollIntervalSeconds: 0.05,
		});
		expect(output[0].json).toMatchObject({ status: 'completed' });
		expect(rig.fake.transaction('visit-slow')!.statusCalls).toBe(4);
		expect(rig.fake.transaction('visit-slow')!.statusCallsAbandoned).toBe(0);
	});

	test('ends on a final state other than completed (failed), without waiting on', async () => {
		await startSession('visit-fails-later', { processingPolls: 1, outcome: 'failure' });
		const output = await results('visit-fails-later', {
			waitForCompletion: true,
			pollIntervalSeconds: 0.05,
		});
		expect(output[0].json.status).toBe('failed');
		expect(rig.fake.transaction('visit-fails-later')!.statusCalls).toBe(2);
	});

	test('gives up at the timeout, saying how long it waited and what to do', async () => {
		await startSession('visit-forever', { processingPolls: 1_000_000 });
		const run = results('visit-forever', {
			waitForCompletion: true,
			timeoutMinutes: 0.01,
			pollIntervalSeconds: 0.1,
		});
		await expect(run).rejects.toThrow(
			/Session "visit-forever" was still being processed after waiting 1 s \(\d+ status checks\)/,
		);
		await expect(run).rejects.toMatchObject({
			description: expect.stringMatching(/Raise "Timeout \(Minutes\)".*Clinic Scribe Trigger/),
		});
	});

	test('under Continue On Fail a timeout is an error item and the next session is still read', async () => {
		await startSession('visit-forever', { processingPolls: 1_000_000 });
		await startSession('visit-ready');
		const ids = ['visit-forever', 'visit-ready'];
		const output = await rig.run(
			resultsParameters((i: number) => ids[i], {
				waitForCompletion: true,
				timeoutMinutes: 0.005,
				pollIntervalSeconds: 0.1,
			}),
			{
				items: [{ json: {} }, { json: {} }],
				continueOnFail: true,
			},
		);
		expect(output[0]).toMatchObject({
			json: { error: expect.stringMatching(/still being processed/) },
			pairedItem: { item: 0 },
		});
		expect(output[1]).toMatchObject({
			json: { session_id: 'visit-ready', status: 'completed' },
			pairedItem: { item: 1 },
		});
	});

	test('stops at once when the execution is cancelled', async () => {
		await startSession('visit-cancel', { processingPolls: 1_000_000 });
		const controller = new AbortController();
		const run = results(
			'visit-cancel',
			{ waitForCompletion: true, timeoutMinutes: 10, pollIntervalSeconds: 60 },
			{ cancelSignal: controller.signal },
		);
		await new Promise((resolve) => setTimeout(resolve, 200));
		controller.abort();
		await expect(run).rejects.toThrow(
			'Stopped waiting for session "visit-cancel" because the execution was cancelled',
		);
		expect(rig.fake.transaction('visit-cancel')!.statusCalls).toBe(1);
	});

	test('transient 500s of the status call during the wait are retried: the session completes with its documents', async () => {
		await startSession('visit-blip', { processingPolls: 1 });
		// Two 500s that are not the documented all-failed answer (no per-template failures), then the API recovers.
		rig.api.injectFault({
			method: 'GET',
			path: '/voice/api/v3/status/visit-blip',
			fault: { kind: 'status', status: 500 },
		});
		rig.api.injectFault({
			method: 'GET',
			path: '/voice/api/v3/status/visit-blip',
			fault: { kind: 'status', status: 500 },
		});
		const output = await results('visit-blip', {
			waitForCompletion: true,
			pollIntervalSeconds: 0.05,
		});
		expect(output[0].json).toMatchObject({
			session_id: 'visit-blip',
			status: 'completed',
			http_status: 200,
		});
		expect(documents(output).clinical_notes_template).toEqual(CLINICAL_NOTES_DOCUMENT);
		expect(statusRequestsOf('visit-blip').map((r) => r.fault ?? r.status)).toEqual([
			'status',
			'status',
			202,
			200,
		]);
	});
});

describe('Get Results: Fail on Incomplete Results', () => {
	test('off (default): failed and partial sessions are output with their status', async () => {
		await startSession('visit-partial-off', { outcome: 'partial' });
		const output = await results('visit-partial-off');
		expect(output[0].json).toMatchObject({ status: 'partial', http_status: 206 });
	});

	test('on, without waiting: a partial session fails the item, naming the failed templates and what to do', async () => {
		await startSession('visit-partial-on', { outcome: 'partial' });
		await expect(results('visit-partial-on', { failIfIncomplete: true })).rejects.toMatchObject({
			message:
				'Session "visit-partial-on" is only partly done (failed: EMR Format (svc_emr_template), Transcript (transcript_template), Custom: tpl-soap-note (tpl-soap-note))',
			description: expect.stringMatching(
				/^The templates that succeeded stay at the API\. Run Get Results with this session ID later.*new Transaction ID/,
			),
			context: { itemIndex: 0 },
		});
	});

	test('on: a completed session is output as usual', async () => {
		await startSession('visit-complete-on');
		const output = await results('visit-complete-on', { failIfIncomplete: true });
		expect(output[0].json).toMatchObject({ status: 'completed' });
	});

	test('Upload Audio with Wait for Completion honours it too', async () => {
		rig.fake.script('visit-upload-failed', { processingPolls: 1, outcome: 'failure' });
		const run = rig.run(
			uploadParameters({
				transactionId: 'visit-upload-failed',
				waitForCompletion: true,
				pollIntervalSeconds: 0.05,
				failIfIncomplete: true,
			}),
			{ items: [item({ data: rig.storedBinary(rig.audioFile('visit.wav', 1200)) })] },
		);
		await expect(run).rejects.toThrow(
			'Session "visit-upload-failed" failed (failed: Clinical Notes (clinical_notes_template))',
		);
	});
});
