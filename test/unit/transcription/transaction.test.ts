import type { IExecuteFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { resultsOutputProperty } from '../../../nodes/ClinicScribe/shared/fields/resultsOutput.description';
import {
	fetchResults,
	initTransaction,
	isTransactionStarted,
	requestUploadTarget,
} from '../../../nodes/ClinicScribe/transport/transcription/transaction';
import { PRODUCTION_POLICY } from '../../../nodes/ClinicScribe/transport/retryPolicy';
import { useTestTransportPolicy } from '../../support/transportPolicy';

const FAILED_TEMPLATE = {
	template_id: 'clinical_notes_template',
	status: 'failure',
	value: '',
	errors: ['no speech'],
};
beforeAll(() => {
	useTestTransportPolicy({ retry: { baseDelayMs: 1, maxDelayMs: 2 } });
});

/** A context whose authenticated helper answers from a list and records what it was asked. */
function apiContext(answers: Array<{ statusCode: number; body: unknown }>) {
	const sent: IHttpRequestOptions[] = [];
	const ctx = {
		getNode: () => ({ name: 'Clinic Scribe' }),
		getCredentials: async () => ({
			environment: 'custom',
			baseUrl: 'https://gw.example.com',
			apiVariant: 'document',
		}),
		getExecutionCancelSignal: () => undefined,
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
				sent.push(options);
				return { headers: {}, ...answers.shift()! };
			},
		},
	} as unknown as IExecuteFunctions;
	return { ctx, sent };
}

/** One status call of a transaction, as every reader of results makes it. */
const fetchTransactionResults = async (ctx: IExecuteFunctions, txnId: string) =>
	await fetchResults(ctx, 'transaction', txnId);

describe('status call', () => {
	test('its timeout outlasts the server’s ~14 s hold', async () => {
		expect(PRODUCTION_POLICY.timeouts.statusMs).toBeGreaterThanOrEqual(20_000);
		const { ctx, sent } = apiContext([{ statusCode: 202, body: {} }]);
		const results = await fetchTransactionResults(ctx, 'visit 1/2');
		expect(results.status).toBe('processing');
		expect(sent[0]).toMatchObject({
			method: 'GET',
			url: 'https://gw.example.com/voice/api/v3/status/visit%201%2F2',
			timeout: 30_000,
		});
	});

	test.each([
		[206, 'partial', { data: { output: [] } }],
		[400, 'not_found', { error: { code: 'x', message: 'y' } }],
		[404, 'not_found', { error: { code: 'x', message: 'y' } }],
		[500, 'failed', { data: { output: [FAILED_TEMPLATE] }, error: { code: 'x', message: 'y' } }],
	])('HTTP %i is the state %s, not an error', async (statusCode, status, body) => {
		const { ctx, sent } = apiContext([{ statusCode, body }]);
		await expect(fetchTransactionResults(ctx, 's')).resolves.toMatchObject({
			status,
			httpStatus: statusCode,
		});
		expect(sent).toHaveLength(1);
	});

	describe('transient failures are retried, never read as a failed session', () => {
		test.each([
			[
				'a 500 without per-template failures',
				{ statusCode: 500, body: { error: { code: 'SERVER_ERROR', message: 'boom' } } },
			],
			[
				'a 500 whose templates did not all fail',
				{
					statusCode: 500,
					body: {
						data: { output: [FAILED_TEMPLATE, { ...FAILED_TEMPLATE, status: 'in-progress' }] },
					},
				},
			],
			['a 200 that is not the documented JSON', { statusCode: 200, body: '{"data": {"outp' }],
			['a 206 that is not the documented JSON', { statusCode: 206, body: '<html>proxy</html>' }],
		])('%s, then the answer', async (_label, transient) => {
			const { ctx, sent } = apiContext([
				transient,
				{ statusCode: 200, body: { data: { output: [] } } },
			]);
			await expect(fetchTransactionResults(ctx, 's')).resolves.toMatchObject({
				status: 'completed',
				httpStatus: 200,
			});
			expect(sent).toHaveLength(2);
		});

		test('a 200 that stays malformed fails after the read’s attempts, as an error, not a state', async () => {
			const { ctx, sent } = apiContext(
				Array.from({ length: 4 }, () => ({ statusCode: 200, body: '<html>proxy</html>' })),
			);
			await expect(fetchTransactionResults(ctx, 's')).rejects.toThrow('not the documented JSON');
			expect(sent).toHaveLength(PRODUCTION_POLICY.retry.attempts);
		});

		test('a 500 that stays undocumented fails as an error saying it was tried', async () => {
			const { ctx, sent } = apiContext(
				Array.from({ length: 4 }, () => ({
					statusCode: 500,
					body: { error: { code: 'SERVER_ERROR', message: 'boom' } },
				})),
			);
			await expect(fetchTransactionResults(ctx, 's')).rejects.toMatchObject({
				message: 'The clinic API refused the results of session "s" (HTTP 500 SERVER_ERROR): boom',
				description: expect.stringContaining('(tried 4 times)'),
			});
			expect(sent).toHaveLength(4);
		});
	});
});

describe('isAllTemplatesFailedAnswer', () => {
	/** Whether a status call's 500 with this body is read as the failed session (else it is retried, then an error). */
	const isAllTemplatesFailedAnswer = async (body: unknown): Promise<boolean> => {
		const { ctx } = apiContext(
			Array.from({ length: PRODUCTION_POLICY.retry.attempts }, () => ({ statusCode: 500, body })),
		);
		return await fetchTransactionResults(ctx, 's').then(
			(results) => results.status === 'failed',
			(error: Error) => {
				if (error.message.includes('(HTTP 500')) return false;
				throw error;
			},
		);
	};

	test.each([
		[
			'every template failed',
			{
				data: {
					output: [FAILED_TEMPLATE, { ...FAILED_TEMPLATE, template_id: 'transcript_template' }],
				},
			},
			true,
		],
		['no templates listed', { data: { output: [] } }, false],
		[
			'one template still in progress',
			{ data: { output: [FAILED_TEMPLATE, { ...FAILED_TEMPLATE, status: 'in-progress' }] } },
			false,
		],
		['an error envelope only', { error: { code: 'SERVER_ERROR', message: 'boom' } }, false],
		['the FHIR object form', { data: { output: { fhir: '' } } }, false],
		['not JSON', '<html>502</html>', false],
	])('%s → %s', async (_label, body, expected) => {
		expect(await isAllTemplatesFailedAnswer(body)).toBe(expected);
	});
});

describe('init', () => {
	const body = {
		mode: 'dictation',
		transfer: 'non-vaded',
		batch_s3_url: 'u',
		client_generated_files: ['a.wav'],
		model_type: 'pro',
		input_language: ['en-IN'],
		output_format_template: [
			{ template_id: 'clinical_notes_template', codification_needed: false },
		],
	};

	test('201 started; a 409 on the first attempt is a used Transaction ID, an error saying the files were not transcribed', async () => {
		const { ctx } = apiContext([
			{ statusCode: 201, body: { status: 'success', txn_id: 't' } },
			{ statusCode: 409, body: { error: { code: 'txn_already_initialised' } } },
		]);
		await expect(initTransaction(ctx, 't', body)).resolves.toMatchObject({
			alreadyInitialised: false,
			statusCode: 201,
		});
		await expect(initTransaction(ctx, 't', body, 3)).rejects.toMatchObject({
			message:
				'The Transaction ID "t" of item 3 was already used: a transcription with this ID was started before',
			description: expect.stringMatching(
				/^The recordings of this item were uploaded but will NOT be transcribed\./,
			),
			httpCode: '409',
			context: { itemIndex: 3 },
		});
	});

	test.each([
		[500, true],
		[502, true],
		[503, true],
		[504, true],
		[429, false],
		[408, false],
	])(
		'a 409 answering the repeat after HTTP %i: our own init (%s)',
		async (firstStatus, ownInit) => {
			const { ctx, sent } = apiContext([
				{ statusCode: firstStatus, body: {} },
				{ statusCode: 409, body: { error: { code: 'txn_already_initialised' } } },
			]);
			const init = initTransaction(ctx, 't', body);
			if (ownInit)
				await expect(init).resolves.toMatchObject({ alreadyInitialised: true, statusCode: 409 });
			else await expect(init).rejects.toThrow('was already used');
			expect(sent).toHaveLength(2);
		},
	);

	test('400 txn_limit_exceeded in plain words; other 400s with the API’s message', async () => {
		const { ctx } = apiContext([
			{ statusCode: 400, body: { error: { code: 'txn_limit_exceeded', message: 'limit' } } },
			{
				statusCode: 400,
				body: {
					error: { code: 'invalid_mode', message: 'mode must be dictation or consultation' },
				},
			},
		]);
		await expect(initTransaction(ctx, 't', body, 2)).rejects.toMatchObject({
			message: expect.stringMatching(
				/^The workspace has used up its daily transcription quota, so transaction "t" was not started/,
			),
			context: { itemIndex: 2 },
		});
		await expect(initTransaction(ctx, 't', body)).rejects.toThrow(
			'(HTTP 400 invalid_mode): mode must be dictation or consultation',
		);
	});
});

describe('the used-id check before upload', () => {
	test.each([
		[400, false],
		[404, false],
		[200, true],
		[202, true],
		[206, true],
	])('the status call answering %i: started %s', async (statusCode, started) => {
		const { ctx, sent } = apiContext([{ statusCode, body: {} }]);
		await expect(isTransactionStarted(ctx, 'visit 1')).resolves.toBe(started);
		expect(sent[0]).toMatchObject({
			method: 'GET',
			url: 'https://gw.example.com/voice/api/v3/status/visit%201',
		});
	});
});

describe('readUploadTarget', () => {
	/** The presign answer (HTTP 200 with this body) read as an upload target; undefined when it is not one. */
	const readUploadTarget = async (body: unknown, txnId: string) => {
		const { ctx } = apiContext([{ statusCode: 200, body }]);
		return await requestUploadTarget(ctx, { txnId, action: 'scribe-v2' }).catch((error: Error) => {
			if (error.message.includes('not the documented JSON')) return undefined;
			throw error;
		});
	};
	test('the documented shape', async () => {
		expect(
			await readUploadTarget(
				{
					uploadData: { url: 'https://b.example.com/', fields: { key: 'f/${filename}', n: 1 } },
					folderPath: 'f/',
					txn_id: 't',
				},
				'x',
			),
		).toEqual({
			url: 'https://b.example.com/',
			fields: { key: 'f/${filename}', n: '1' },
			folderPath: 'f/',
			txnId: 't',
		});
	});
	test('without folderPath the folder comes from the key placeholder', async () => {
		expect(
			(
				await readUploadTarget(
					{ uploadData: { url: 'https://b/', fields: { key: 'a/b/${filename}' } } },
					'x',
				)
			)?.folderPath,
		).toBe('a/b/');
	});
	test('anything else is not an upload target', async () => {
		expect(
			await readUploadTarget({ uploadData: { url: 'ftp://b/', fields: {} }, folderPath: '' }, 'x'),
		).toBeUndefined();
		expect(
			await readUploadTarget(
				{ uploadData: { url: 'https://b/', fields: { key: 'no-placeholder' } } },
				'x',
			),
		).toBeUndefined();
		expect(
			await readUploadTarget(
				{ uploadData: { url: 'https://b/', fields: { nested: {} } }, folderPath: 'f/' },
				'x',
			),
		).toBeUndefined();
		expect(await readUploadTarget('nope', 'x')).toBeUndefined();
	});
});

describe('node description', () => {
	const properties = new ClinicScribe().description.properties;
	const operationsFor = (tool: boolean) =>
		properties
			.filter(
				(p) =>
					p.name === 'operation' &&
					p.displayOptions?.show?.resource?.includes('transcription') &&
					p.displayOptions?.show?.['@tool']?.includes(tool),
			)
			.flatMap((p) => (p.options as Array<{ value: string }>).map((o) => o.value));

	test('the Transcription resource is offered', () => {
		const resource = properties.find((p) => p.name === 'resource') as INodeProperties;
		expect((resource.options as Array<{ value: string }>).map((o) => o.value)).toContain(
			'transcription',
		);
	});

	test('Upload Audio is not offered to AI agents; Get Results and Convert Transcript (text in, text out) are', () => {
		expect(operationsFor(false).sort()).toEqual([
			'cancelSession',
			'convertTranscript',
			'getResults',
			'getSessionAudio',
			'saveEditedNotes',
			'uploadAudio',
		]);
		expect(operationsFor(true)).toEqual(['convertTranscript', 'getResults']);
	});

	test('run as a tool anyway, Upload Audio refuses before anything is sent', async () => {
		const ctx = {
			getNode: () => ({ name: 'Clinic Scribe' }),
			isToolExecution: () => true,
			getInputData: () => [{ json: {} }],
			getNodeParameter: (name: string) =>
				({ resource: 'transcription', operation: 'uploadAudio' })[name],
			getCredentials: async () => {
				throw new Error('must not be reached');
			},
		} as unknown as IExecuteFunctions;
		await expect(new ClinicScribe().execute.call(ctx)).rejects.toThrow(
			'Upload Audio cannot be used as an AI agent tool',
		);
	});

	test('the Output choice fragment is reusable with its own display condition', () => {
		expect(resultsOutputProperty({ includeResults: [true] })).toMatchObject({
			name: 'resultsOutput',
			default: 'session',
			displayOptions: { show: { includeResults: [true] } },
		});
		expect(
			(resultsOutputProperty().options as Array<{ value: string }>).map((o) => o.value),
		).toEqual(['fhirBundle', 'session', 'templates', 'simple']);
	});
});
