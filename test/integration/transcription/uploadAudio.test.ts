/**
 * Transcription → Upload Audio over real HTTP against the fake API: presign, the streamed storage
 * POST (checked by the fake's streaming multipart parser), init; grouping, validation, failures.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { DATABASE_MODE_READ_MAX_BYTES } from '../../../nodes/ClinicScribe/actions/transcription/uploadAudio/inputBinary';
import { API_VARIANT_OPTIONS } from '../../../nodes/ClinicScribe/transport/authentication';
import { PRODUCTION_POLICY } from '../../../nodes/ClinicScribe/transport/retryPolicy';
import { useTestTransportPolicy } from '../../support/transportPolicy';
import { CLINICAL_NOTES_DOCUMENT, STORAGE_PATH } from '../../fake-api/routes/transcription';
import {
	item,
	TranscriptionRig,
	uploadParameters,
	type AudioFile,
} from '../../support/transcriptionRig';
import { loadN8nHttpRequest } from '../../support/n8nHttpRequest';

const rig = new TranscriptionRig();
/** n8n's own HTTP client when the cached n8n is installed; the test context's axios otherwise. */
const n8nHttp = loadN8nHttpRequest() !== undefined;

beforeAll(async () => {
	await rig.start();
	useTestTransportPolicy({
		retry: { baseDelayMs: 10, maxDelayMs: 50 },
		storageRetry: { baseDelayMs: 10, maxDelayMs: 50 },
	});
});
afterAll(async () => await rig.stop());
beforeEach(() => rig.reset());
/** Puts the file's policy back after a test that sent one transaction at a time. */
let restorePolicy: (() => void) | undefined;
afterEach(() => {
	restorePolicy?.();
	restorePolicy = undefined;
});
/** One transaction at a time: the order rule, where a test's faults hit "the next request" (concurrency: test/integration/attack/transactions.test.ts). */
const oneAtATime = () => (restorePolicy = useTestTransportPolicy({ uploadConcurrency: 1 }));

function expectStoredIntact(file: AudioFile, txnId: string) {
	const upload = rig.fake.uploads().find((u) => u.txnId === txnId && u.sha256 === file.sha256);
	expect(upload).toMatchObject({
		txnId,
		sha256: file.sha256,
		size: file.size,
		fileName: expect.any(String),
	});
	expect(upload!.partOrder[upload!.partOrder.length - 1]).toBe('file');
	return upload!;
}

describe('Upload Audio', () => {
	test('items sharing a transaction ID form one transaction: one presign, every file, one init', async () => {
		const a = rig.audioFile('first.wav', 300_000);
		const b = rig.audioFile('second.mp3', 120_000);
		const c = rig.audioFile('other.m4a', 50_000);
		const d = rig.audioFile('alone.ogg', 70_000);
		const items = [
			item({ data: rig.storedBinary(a) }),
			item({ data: rig.storedBinary(b), extra: rig.storedBinary(c) }),
			item({ data: rig.storedBinary(d) }),
		];
		const txnIds = ['visit-1', 'visit-1', 'visit-2'];
		const output = await rig.run(
			uploadParameters({
				transactionId: (i: number) => txnIds[i],
				binaryPropertyName: (i: number) => (i === 1 ? 'data, extra' : 'data'),
			}),
			{ items, n8nHttp },
		);

		expect(rig.api.requestsTo('/v1/file-upload', 'POST')).toHaveLength(2);
		expect(rig.api.requestsTo('/voice/api/v2/transaction/init/', 'POST')).toHaveLength(2);
		expect(rig.fake.rejectedUploads()).toEqual([]);

		const visit1 = rig.fake.transaction('visit-1')!;
		expect(visit1.uploads).toHaveLength(3);
		for (const file of [a, b, c]) expectStoredIntact(file, 'visit-1');
		expectStoredIntact(d, 'visit-2');
		expect(visit1.initBody).toEqual({
			mode: 'dictation',
			transfer: 'non-vaded',
			batch_s3_url: `${rig.api.url}${STORAGE_PATH}${visit1.folderPath}`,
			client_generated_files: ['first.wav', 'second.mp3', 'other.m4a'],
			model_type: 'pro',
			input_language: ['en-IN'],
			output_format_template: [
				{ template_id: 'clinical_notes_template', codification_needed: false },
			],
		});
		expect(rig.fake.transaction('visit-2')!.initBody!.client_generated_files).toEqual([
			'alone.ogg',
		]);

		// One item per file, paired to the item the file came from.
		expect(output.map((o) => [o.json.transaction_id, o.json.file_name, o.pairedItem])).toEqual([
			['visit-1', 'first.wav', { item: 0 }],
			['visit-1', 'second.mp3', { item: 1 }],
			['visit-1', 'other.m4a', { item: 1 }],
			['visit-2', 'alone.ogg', { item: 2 }],
		]);
		expect(output[1].json).toMatchObject({
			file_size: b.size,
			content_type: 'audio/mpeg',
			binary_property: 'data',
			upload_status: 'uploaded',
			storage_status_code: 204,
			init: { status: 'started', http_status: 201, txn_id: 'visit-1' },
		});
		expect(output[2].json).toMatchObject({ content_type: 'audio/mp4', binary_property: 'extra' });
	});

	test('the storage POST carries every presigned field, key = folder + file name, file last, Content-Length, and no token', async () => {
		const file = rig.audioFile('consult.wav', 200_000);
		await rig.run(uploadParameters({ transactionId: 'visit-fields' }), {
			items: [item({ data: rig.storedBinary(file) })],
			n8nHttp,
		});
		const upload = expectStoredIntact(file, 'visit-fields');
		const txn = rig.fake.transaction('visit-fields')!;
		expect(upload.key).toBe(`${txn.folderPath}consult.wav`);
		expect(upload.partOrder).toEqual([
			'key',
			'x-amz-algorithm',
			'x-amz-credential',
			'x-amz-date',
			'x-amz-security-token',
			'policy',
			'x-amz-signature',
			'file',
		]);
		expect(upload.contentType).toBe('audio/wav');
		expect(upload.contentLength).toBe(upload.bodyBytes);
		expect(upload.headerNames).not.toContain('authorization');
		expect(upload.headerNames).not.toContain('auth');
		expect(upload.headerNames).not.toContain('transfer-encoding');
		// And the API calls around it did carry the token.
		const [storageRequest] = rig.api.requestsTo(STORAGE_PATH, 'POST');
		expect(storageRequest.headers['content-length']).toBe(String(upload.contentLength));
		expect(rig.api.requestsTo('/v1/file-upload')[0].headers.authorization).toMatch(/^Bearer /);
	});

	test('in-memory binaries (n8n default mode) are sent from their buffer', async () => {
		const stored = rig.audioFile('stored.wav', 40_000);
		const inMemory = rig.audioFile('memory.webm', 30_000);
		const output = await rig.run(uploadParameters({ transactionId: 'visit-mixed' }), {
			items: [
				item({ data: rig.storedBinary(stored) }),
				item({ data: rig.inMemoryBinary(inMemory) }),
			],
			n8nHttp,
		});
		expectStoredIntact(stored, 'visit-mixed');
		expectStoredIntact(inMemory, 'visit-mixed');
		expect(output.map((o) => o.json.content_type)).toEqual(['audio/wav', 'audio/webm']);
	});

	test('an empty Transaction ID gets a generated one per item', async () => {
		const output = await rig.run(uploadParameters({ transactionId: '' }), {
			items: [
				item({ data: rig.storedBinary(rig.audioFile('a.wav', 1000)) }),
				item({ data: rig.storedBinary(rig.audioFile('b.wav', 1000)) }),
			],
		});
		const ids = output.map((o) => o.json.transaction_id as string);
		expect(ids[0]).toMatch(/^n8n-[0-9a-f-]{36}$/);
		expect(ids[1]).toMatch(/^n8n-[0-9a-f-]{36}$/);
		expect(ids[0]).not.toBe(ids[1]);
		expect(rig.fake.transactions().filter((t) => t.initialised)).toHaveLength(2);
	});

	test('generated ids are the same for the same execution, node run and item, and new for a new execution', async () => {
		const items = [
			item({ data: rig.storedBinary(rig.audioFile('a.wav', 1000)) }),
			item({ data: rig.storedBinary(rig.audioFile('b.wav', 1000)) }),
		];
		const presignedIds = () =>
			rig.api.requestsTo('/v1/file-upload', 'POST').map((r) => r.query.txn_id);
		await rig.run(uploadParameters(), { items, executionId: 'exec-7' });
		const first = presignedIds();
		rig.reset();
		await rig.run(uploadParameters(), { items, executionId: 'exec-7' });
		expect(presignedIds()).toEqual(first);
		rig.reset();
		await rig.run(uploadParameters(), { items, executionId: 'exec-8' });
		const fresh = presignedIds();
		expect(fresh).toHaveLength(2);
		expect(fresh.filter((id) => first.includes(id))).toEqual([]);
		rig.reset();
		await rig.run(uploadParameters(), { items, executionId: 'exec-7', runIndex: 1 });
		expect(presignedIds().filter((id) => first.includes(id))).toEqual([]);
	});

	test("an in-memory binary of several MiB (Base64 in the item) arrives intact, sent piece by piece through n8n's HTTP helper", async () => {
		const big = rig.audioFile('long.wav', 5 * 1024 * 1024 + 7);
		const output = await rig.run(uploadParameters({ transactionId: 'visit-memory' }), {
			items: [item({ data: rig.inMemoryBinary(big) })],
			n8nHttp,
		});
		expectStoredIntact(big, 'visit-memory');
		expect(output[0].json).toMatchObject({ file_size: big.size, init: { status: 'started' } });
		expect(rig.fake.rejectedUploads()).toEqual([]);
	});

	test('files with the same name in one transaction get distinct names; the type comes from n8n when the name has no extension, and gives the stored name its extension', async () => {
		const one = rig.audioFile('note.wav', 1000);
		const two = rig.audioFile('note.wav', 2000);
		const bare = rig.audioFile('recording', 3000);
		const binaryOne = rig.storedBinary(one);
		const binaryTwo = rig.storedBinary(two);
		const binaryBare = {
			...rig.storedBinary(bare),
			fileName: 'recording',
			mimeType: 'audio/x-m4a',
		};
		const output = await rig.run(uploadParameters({ transactionId: 'visit-names' }), {
			items: [item({ data: binaryOne }), item({ data: binaryTwo }), item({ data: binaryBare })],
		});
		expect(output.map((o) => o.json.file_name)).toEqual([
			'note.wav',
			'note-2.wav',
			'recording.m4a',
		]);
		expect(output[2].json.content_type).toBe('audio/mp4');
		expect(rig.fake.transaction('visit-names')!.initBody!.client_generated_files).toEqual([
			'note.wav',
			'note-2.wav',
			'recording.m4a',
		]);
	});

	test('options reach the API: mode, model, languages per item by expression, templates with the variant EMR id, custom template, additional data', async () => {
		const file = rig.audioFile('c.mp4', 5000);
		await rig.run(
			uploadParameters({
				transactionId: 'visit-options',
				inputLanguages: () => 'en-IN, hi',
				outputTemplates: {
					templates: [
						{ template: 'clinical_notes_template', customTemplateId: '', codificationNeeded: true },
						{ template: 'emr', customTemplateId: '', codificationNeeded: false },
						{ template: 'transcript_template', customTemplateId: '', codificationNeeded: false },
						{ template: 'custom', customTemplateId: 'tpl-soap-note', codificationNeeded: false },
					],
				},
				options: {
					mode: 'consultation',
					modelType: 'lite',
					additionalData: '{"visit": {"id": "V-42"}}',
					outputLanguage: 'en-IN',
				},
			}),
			{ items: [item({ data: rig.storedBinary(file) })] },
		);
		const txn = rig.fake.transaction('visit-options')!;
		expect(txn.initBody).toMatchObject({
			mode: 'consultation',
			model_type: 'lite',
			input_language: ['en-IN', 'hi'],
			output_format_template: [
				{ template_id: 'clinical_notes_template', codification_needed: true },
				{ template_id: 'svc_emr_template', codification_needed: false },
				{ template_id: 'transcript_template', codification_needed: false },
				{ template_id: 'tpl-soap-note', codification_needed: false },
			],
			additional_data: { visit: { id: 'V-42' } },
			output_language: 'en-IN',
		});
		expect(rig.api.requestsTo('/v1/file-upload')[0].query).toEqual({
			txn_id: 'visit-options',
			action: 'scribe-v2',
		});
		expect(rig.api.requestsTo('/v1/file-upload')[0].body).toEqual({
			mode: 'consultation',
			model_type: 'lite',
		});
	});

	test('items of one transaction whose Additional Data has the same keys and values in another order are one transaction', async () => {
		const items = [
			item({ data: rig.storedBinary(rig.audioFile('a.wav', 100)) }),
			item({ data: rig.storedBinary(rig.audioFile('b.wav', 100)) }),
		];
		const additionalData = [
			'{"visit": {"id": "V-42", "room": 3}, "doctor": "do1001", "tags": ["a", "b"]}',
			// An expression may give the object itself.
			{ tags: ['a', 'b'], doctor: 'do1001', visit: { room: 3, id: 'V-42' } },
		];
		const output = await rig.run(
			uploadParameters({
				transactionId: 'visit-data',
				options: (i: number) => ({ additionalData: additionalData[i] }),
			}),
			{ items },
		);
		expect(output.map((o) => [o.json.transaction_id, o.json.upload_status, o.pairedItem])).toEqual([
			['visit-data', 'uploaded', { item: 0 }],
			['visit-data', 'uploaded', { item: 1 }],
		]);
		expect(rig.api.requestsTo('/voice/api/v2/transaction/init/', 'POST')).toHaveLength(1);
		expect(rig.fake.transaction('visit-data')!.initBody!.additional_data).toEqual({
			visit: { id: 'V-42', room: 3 },
			doctor: 'do1001',
			tags: ['a', 'b'],
		});
	});

	test('with Wait for Completion the decoded results come out, paired to every item of the transaction', async () => {
		rig.fake.setOptions({ processingPolls: 2 });
		const output = await rig.run(
			uploadParameters({
				transactionId: 'visit-wait',
				waitForCompletion: true,
				pollIntervalSeconds: 0.05,
			}),
			{
				items: [
					item({ data: rig.storedBinary(rig.audioFile('a.wav', 1000)) }),
					item({ data: rig.storedBinary(rig.audioFile('b.wav', 1000)) }),
				],
				n8nHttp,
			},
		);
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual([{ item: 0 }, { item: 1 }]);
		expect(output[0].json).toMatchObject({
			session_id: 'visit-wait',
			status: 'completed',
			http_status: 200,
		});
		expect((output[0].json.documents as Record<string, unknown>).clinical_notes_template).toEqual(
			CLINICAL_NOTES_DOCUMENT,
		);
		expect(rig.fake.transaction('visit-wait')!.statusCalls).toBe(3);
	});

	test('a second upload with an already used Transaction ID fails before anything is uploaded (no longer read as success)', async () => {
		const params = uploadParameters({ transactionId: 'visit-twice' });
		await rig.run(params, {
			items: [item({ data: rig.storedBinary(rig.audioFile('first.wav', 1000)) })],
		});
		const run = rig.run(params, {
			items: [item({ data: rig.storedBinary(rig.audioFile('second.wav', 1000)) })],
		});
		await expect(run).rejects.toThrow(
			'The Transaction ID "visit-twice" of item 0 was already used: a transcription with this ID was started before',
		);
		await expect(run).rejects.toMatchObject({
			description: expect.stringMatching(
				/^Nothing of this item was uploaded\..*Get Results with session ID "visit-twice"/,
			),
		});
		expect(rig.fake.transaction('visit-twice')).toMatchObject({ initAttempts: 1, presigns: 1 });
		expect(rig.fake.uploads().map((u) => u.fileName)).toEqual(['first.wav']);
	});

	test('the daily quota (txn_limit_exceeded) is said in plain words', async () => {
		rig.fake.setOptions({ dailyTransactionLimit: 0 });
		const run = rig.run(uploadParameters({ transactionId: 'visit-quota' }), {
			items: [item({ data: rig.storedBinary(rig.audioFile('q.wav', 1000)) })],
		});
		await expect(run).rejects.toThrow(/daily transcription quota.*txn_limit_exceeded/);
		await expect(run).rejects.toMatchObject({
			description: expect.stringMatching(/Run again tomorrow/),
		});
	});

	test('a 403 from storage (policy expired) gets one fresh presign and the upload goes on', async () => {
		rig.api.injectFault({
			method: 'POST',
			path: STORAGE_PATH,
			fault: {
				kind: 'status',
				status: 403,
				body: '<Error><Code>AccessDenied</Code><Message>Invalid according to Policy: Policy expired.</Message></Error>',
			},
		});
		const file = rig.audioFile('slow.wav', 4000);
		await rig.run(uploadParameters({ transactionId: 'visit-expired' }), {
			items: [item({ data: rig.storedBinary(file) })],
		});
		expect(rig.fake.transaction('visit-expired')).toMatchObject({ presigns: 2, initialised: true });
		expectStoredIntact(file, 'visit-expired');
	});

	test('a refused policy even after a fresh presign fails with advice', async () => {
		rig.fake.setOptions({ presignTtlMs: 0 });
		const run = rig.run(uploadParameters({ transactionId: 'visit-refused' }), {
			items: [item({ data: rig.storedBinary(rig.audioFile('x.wav', 1000)) })],
		});
		await expect(run).rejects.toThrow(
			/storage service refused the file in binary field "data" of item 0 \(HTTP 403\): AccessDenied: Invalid according to Policy: Policy expired/,
		);
		// Recordings are often named after the patient: the name stays out of messages.
		await expect(run).rejects.not.toThrow(/x\.wav/);
		expect(rig.fake.transaction('visit-refused')!.initialised).toBe(false);
	});

	test('a wrong API Variant (the API takes the other upload action): the error names the option to set, nothing is uploaded', async () => {
		rig.api.setOptions({ variant: 'public' });
		const run = rig.run(uploadParameters({ transactionId: 'visit-variant' }), {
			items: [item({ data: rig.storedBinary(rig.audioFile('x.wav', 1000)) })],
		});
		await expect(run).rejects.toThrow(
			'The clinic API refused the upload action "scribe-v2" (HTTP 400 invalid_action: action must be ekascribe-v2)',
		);
		await expect(run).rejects.toMatchObject({
			description: expect.stringContaining(
				`set API Variant to "${API_VARIANT_OPTIONS.public.name}" in the credential (and leave Options → Action empty), then run again. Nothing was uploaded.`,
			),
		});
		expect(rig.fake.uploads()).toEqual([]);
	});

	test('a typed Action the API does not take: the error says to leave Options → Action empty', async () => {
		const run = rig.run(
			uploadParameters({ transactionId: 'visit-action', options: { action: 'scribe-v9' } }),
			{
				items: [item({ data: rig.storedBinary(rig.audioFile('x.wav', 1000)) })],
			},
		);
		await expect(run).rejects.toMatchObject({
			description: expect.stringContaining(
				'Options → Action holds a value the API does not take: leave it empty',
			),
		});
	});

	test('a failed transaction stops the run: no further transaction is sent, and the error says which were started and which not', async () => {
		oneAtATime();
		rig.api.injectFault({
			method: 'POST',
			path: '/voice/api/v2/transaction/init/visit-bad',
			fault: { kind: 'status', status: 422 },
		});
		const items = [
			item({ data: rig.storedBinary(rig.audioFile('done.wav', 1000)) }),
			item({ data: rig.storedBinary(rig.audioFile('bad.wav', 1000)) }),
			item({ data: rig.storedBinary(rig.audioFile('good.wav', 1000)) }),
		];
		const txnIds = ['visit-done', 'visit-bad', 'visit-good'];
		const run = rig.run(uploadParameters({ transactionId: (i: number) => txnIds[i] }), { items });
		await expect(run).rejects.toThrow(
			/refused starting the transcription of transaction "visit-bad" \(HTTP 422/,
		);
		await expect(run).rejects.toMatchObject({
			description: expect.stringContaining(
				'Nothing more was sent after this failure. Already started in this run (running, and counted): "visit-done" (item 0).',
			),
		});
		await expect(run).rejects.toMatchObject({
			description: expect.stringMatching(/Not sent: "visit-good" \(item 2\)\.$/),
		});
		expect(rig.fake.transaction('visit-done')!.initialised).toBe(true);
		expect(rig.fake.transaction('visit-good')).toBeUndefined();
	});

	test('a failed upload (storage 500 on every attempt) stops its transaction before init', async () => {
		oneAtATime();
		rig.api.injectFault({
			method: 'POST',
			path: STORAGE_PATH,
			times: PRODUCTION_POLICY.storageRetry.attempts,
			fault: { kind: 'status', status: 500, body: 'busy' },
		});
		const items = [
			item({ data: rig.storedBinary(rig.audioFile('bad.wav', 1000)) }),
			item({ data: rig.storedBinary(rig.audioFile('good.wav', 1000)) }),
		];
		const run = rig.run(
			uploadParameters({ transactionId: (i: number) => ['visit-bad', 'visit-good'][i] }),
			{ items },
		);
		await expect(run).rejects.toThrow(
			/storage service refused the file in binary field "data" of item 0 \(HTTP 500\)/,
		);
		await expect(run).rejects.toMatchObject({
			description: expect.stringContaining('Not sent: "visit-good" (item 1).'),
		});
		expect(rig.fake.transaction('visit-bad')!.initialised).toBe(false);
		expect(rig.fake.transaction('visit-good')).toBeUndefined();
	});

	test('under Continue On Fail the failed transaction becomes error items in input order, the others output normally', async () => {
		oneAtATime();
		rig.api.injectFault({
			method: 'POST',
			path: STORAGE_PATH,
			times: PRODUCTION_POLICY.storageRetry.attempts,
			fault: { kind: 'status', status: 503 },
		});
		const items = [
			item({ data: rig.storedBinary(rig.audioFile('bad1.wav', 1000)) }),
			item({ data: rig.storedBinary(rig.audioFile('good.wav', 1000)) }),
			item({ data: rig.storedBinary(rig.audioFile('bad2.wav', 1000)) }),
		];
		const txnIds = ['visit-bad', 'visit-good', 'visit-bad'];
		const output = await rig.run(uploadParameters({ transactionId: (i: number) => txnIds[i] }), {
			items,
			continueOnFail: true,
		});
		expect(
			output.map((o) => [
				o.json.transaction_id,
				o.json.error === undefined ? 'ok' : 'error',
				o.pairedItem,
			]),
		).toEqual([
			['visit-bad', 'error', { item: 0 }],
			['visit-good', 'ok', { item: 1 }],
			['visit-bad', 'error', { item: 2 }],
		]);
		expect(rig.fake.transaction('visit-bad')!.initialised).toBe(false);
	});
});

describe("Upload Audio from n8n's database binary mode", () => {
	test('a recording within the limit is read by its id and stored intact', async () => {
		const file = rig.audioFile('visit.wav', 4096);
		await rig.run(uploadParameters({ transactionId: 'visit-db' }), {
			items: [item({ data: rig.databaseBinary(file) })],
		});
		expectStoredIntact(file, 'visit-db');
	});
});

describe('Upload Audio: bad input is refused before anything is sent', () => {
	async function expectRefused(
		parameters: Record<string, unknown>,
		items: ReturnType<typeof item>[],
		message: RegExp,
	) {
		const run = rig.run(uploadParameters(parameters), { items });
		await expect(run).rejects.toThrow(message);
		await expect(run).rejects.toBeInstanceOf(NodeOperationError);
		expect(rig.api.requests).toEqual([]);
	}

	test('a missing binary field', async () => {
		await expectRefused(
			{ binaryPropertyName: 'audio' },
			[item({ data: rig.storedBinary(rig.audioFile('a.wav', 10)) })],
			/Item 0 has no binary field "audio"/,
		);
	});

	test('an empty file', async () => {
		await expectRefused(
			{},
			[item({ data: rig.storedBinary(rig.audioFile('empty.wav', 0)) })],
			/binary field "data" of item 0 is empty \(0 bytes\)$/,
		);
	});

	test('a file that is not audio', async () => {
		const binary = { ...rig.storedBinary(rig.audioFile('notes.txt', 10)), mimeType: 'text/plain' };
		await expectRefused(
			{},
			[item({ data: binary })],
			/binary field "data" of item 0 is not an audio file the service accepts \(extension ".txt", type text\/plain\)/,
		);
	});

	test('no output template', async () => {
		await expectRefused(
			{ outputTemplates: {} },
			[item({ data: rig.storedBinary(rig.audioFile('a.wav', 10)) })],
			/No output template is chosen for item 0/,
		);
	});

	test('an unknown language ID', async () => {
		await expectRefused(
			{ inputLanguages: ['en-IN', 'fr'] },
			[item({ data: rig.storedBinary(rig.audioFile('a.wav', 10)) })],
			/unknown language ID: "fr"/,
		);
	});

	test('a transaction ID that cannot be a path segment', async () => {
		await expectRefused(
			{ transactionId: 'visit/1' },
			[item({ data: rig.storedBinary(rig.audioFile('a.wav', 10)) })],
			/Transaction ID of item 0 contains one of/,
		);
	});

	test("a recording in n8n's database binary mode too large for it to give back (over 256 MiB) names the limit and what to change", async () => {
		const binary = rig.databaseBinary(
			rig.audioFile('long-visit.wav', 10),
			DATABASE_MODE_READ_MAX_BYTES + 1,
		);
		const run = rig.run(uploadParameters({ transactionId: 'visit-long' }), {
			items: [item({ data: binary })],
		});
		await expect(run).rejects.toThrow(
			'The file in binary field "data" of item 0 has 256.0 MiB, more than n8n\'s database binary mode can give back to a node (256 MiB)',
		);
		await expect(run).rejects.toMatchObject({
			description: expect.stringContaining(
				'Split the recording into parts under 256 MiB and give them one Transaction ID',
			),
		});
		expect(rig.api.requests).toEqual([]);
	});

	test('one bad file of a transaction stops the whole transaction, and the error names its item', async () => {
		const items = [
			item({ data: rig.storedBinary(rig.audioFile('ok.wav', 10)) }),
			item({ data: rig.storedBinary(rig.audioFile('empty.wav', 0)) }),
		];
		await expectRefused(
			{ transactionId: 'visit-1' },
			items,
			/binary field "data" of item 1 is empty/,
		);
	});

	test('items of one transaction asking for different options', async () => {
		const items = [
			item({ data: rig.storedBinary(rig.audioFile('a.wav', 10)) }),
			item({ data: rig.storedBinary(rig.audioFile('b.wav', 10)) }),
		];
		await expectRefused(
			{ transactionId: 'visit-1', inputLanguages: (i: number) => (i === 0 ? ['en-IN'] : ['hi']) },
			items,
			/Items 0 and 1 share transaction "visit-1" but ask for a different Input Languages/,
		);
	});

	test('items of one transaction asking for different Additional Data (the same keys, another value; an array in another order)', async () => {
		const items = () => [
			item({ data: rig.storedBinary(rig.audioFile('a.wav', 10)) }),
			item({ data: rig.storedBinary(rig.audioFile('b.wav', 10)) }),
		];
		for (const other of [
			'{"tags": ["a", "b"], "visit": {"id": "V-43"}}',
			'{"visit": {"id": "V-42"}, "tags": ["b", "a"]}',
		]) {
			const additionalData = ['{"visit": {"id": "V-42"}, "tags": ["a", "b"]}', other];
			await expectRefused(
				{
					transactionId: 'visit-1',
					options: (i: number) => ({ additionalData: additionalData[i] }),
				},
				items(),
				/Items 0 and 1 share transaction "visit-1" but ask for a different Additional Data/,
			);
		}
	});

	test('under Continue On Fail only the bad transaction is left out', async () => {
		const good = rig.audioFile('good.wav', 100);
		const items = [
			item({ data: rig.storedBinary(rig.audioFile('empty.wav', 0)) }),
			item({ data: rig.storedBinary(good) }),
		];
		const txnIds = ['visit-bad', 'visit-good'];
		const output = await rig.run(uploadParameters({ transactionId: (i: number) => txnIds[i] }), {
			items,
			continueOnFail: true,
		});
		expect(output[0]).toMatchObject({
			json: { transaction_id: 'visit-bad', error: expect.stringMatching(/is empty/) },
			pairedItem: { item: 0 },
		});
		expect(output[1]).toMatchObject({
			json: { transaction_id: 'visit-good', upload_status: 'uploaded' },
			pairedItem: { item: 1 },
		});
		expect(rig.fake.transaction('visit-bad')).toBeUndefined();
	});

	test('errors of the API are NodeApiErrors with the item index', async () => {
		rig.api.injectFault({
			method: 'POST',
			path: '/v1/file-upload',
			times: Infinity,
			fault: { kind: 'status', status: 422 },
		});
		const run = rig.run(uploadParameters({ transactionId: 'visit-422' }), {
			items: [item({ data: rig.storedBinary(rig.audioFile('a.wav', 10)) })],
		});
		await expect(run).rejects.toBeInstanceOf(NodeApiError);
		await expect(run).rejects.toMatchObject({ context: { itemIndex: 0 } });
	});
});
