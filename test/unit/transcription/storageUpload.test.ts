import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';

import { NodeOperationError, type IExecuteFunctions, type IHttpRequestOptions } from 'n8n-workflow';

import { storageTimeoutMs, uploadToStorage } from '../../../nodes/ClinicScribe/transport/storage';
import { rawFileBody, type StorageFile } from '../../../nodes/ClinicScribe/transport/uploadBody';
import { parseMultipart } from '../../fake-api/multipart';
import { useTestTransportPolicy } from '../../support/transportPolicy';

/** What a file's `open` gives: a stream of n8n's binary store, a buffer, or Base64 text. */
type FileBytes = Awaited<ReturnType<StorageFile['open']>>;

const target = {
	url: 'https://bucket.example.com/',
	fields: { key: 'EC_1/txn/${filename}', policy: 'cG9saWN5', 'x-amz-signature': 'abc' },
	folderPath: 'EC_1/txn/',
};

async function collect(stream: AsyncIterable<Buffer>): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(chunk);
	return Buffer.concat(chunks);
}

/** The body's bytes before the file's, for `target` and a file x.wav: each field, then the file part's header. */
function headOf(boundary: string): string {
	const field = (name: string, value: string) =>
		`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
	return (
		field('key', 'EC_1/txn/x.wav') +
		field('policy', 'cG9saWN5') +
		field('x-amz-signature', 'abc') +
		`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.wav"\r\nContent-Type: audio/wav\r\n\r\n`
	);
}

function tailOf(boundary: string): string {
	return `\r\n--${boundary}--\r\n`;
}

/** The whole body for `target` and a file x.wav of these bytes. */
function bodyOf(boundary: string, content: Buffer): Buffer {
	return Buffer.concat([Buffer.from(headOf(boundary)), content, Buffer.from(tailOf(boundary))]);
}

/**
 * Uploads a file of `size` bytes whose `open` gives `bytes`, and returns what reached n8n's HTTP
 * helper: the body (left unread unless `read`), its boundary and Content-Length, and how many
 * requests were sent. With `read`, the helper reads the body as n8n's HTTP client does, and a
 * failure while reading comes back wrapped, as that client wraps it; the upload's outcome or error
 * is in `outcome`.
 */
async function upload(
	bytes: () => FileBytes,
	size: number,
	options: { read?: boolean; fileName?: string; fields?: Record<string, string> } = {},
) {
	const sent: IHttpRequestOptions[] = [];
	const read: Buffer[] = [];
	const ctx = {
		getNode: () => ({ name: 'Clinic Scribe' }),
		helpers: {
			httpRequest: async (request: IHttpRequestOptions) => {
				sent.push(request);
				if (options.read && !Buffer.isBuffer(request.body)) {
					try {
						for await (const chunk of request.body as unknown as Readable) read.push(chunk);
					} catch (error) {
						throw Object.assign(new Error('Request body stream failed'), { cause: error });
					}
				}
				return { statusCode: 204, body: '' };
			},
		},
	} as unknown as IExecuteFunctions;
	const file = {
		fileName: options.fileName ?? 'x.wav',
		label: 'the recording',
		contentType: 'audio/wav',
		size,
		open: async () => bytes(),
	};
	const outcome = await uploadToStorage(
		ctx,
		{ ...target, fields: options.fields ?? target.fields },
		file,
		0,
	).catch((error: unknown) => error);
	const [request] = sent;
	const headers = (request?.headers ?? {}) as Record<string, string>;
	return {
		outcome,
		requests: sent.length,
		body: request?.body as unknown as Readable | Buffer,
		boundary: /boundary=(.+)$/.exec(headers['Content-Type'] ?? '')?.[1] ?? '',
		contentLength: Number(headers['Content-Length']),
		read: Buffer.concat(read),
	};
}

/** The raw body (a session's upload) of a file whose bytes are `source`, as a call opens it for an attempt. */
async function rawBody(source: FileBytes, size: number) {
	const body = rawFileBody({ open: async () => source, size }, 'audio/wav');
	return { body: (await body.open()) as Readable | Buffer, changedSize: body.changedSize };
}

describe('the multipart frame', () => {
	test('fields in order with key = folder + name, the file part last, exact Content-Length', async () => {
		const content = randomBytes(10_000);
		const sent = await upload(() => content, content.length, { fileName: 'a "b".wav' });
		const body = sent.body as Buffer;
		expect(sent.contentLength).toBe(body.length);
		const parsed = await parseMultipart(Readable.from([body]), sent.boundary);
		expect(parsed.error).toBeUndefined();
		expect(parsed.parts).toEqual([
			{ kind: 'field', name: 'key', value: 'EC_1/txn/a "b".wav' },
			{ kind: 'field', name: 'policy', value: 'cG9saWN5' },
			{ kind: 'field', name: 'x-amz-signature', value: 'abc' },
			{
				kind: 'file',
				name: 'file',
				filename: 'a "b".wav',
				contentType: 'audio/wav',
				size: content.length,
				sha256: createHash('sha256').update(content).digest('hex'),
			},
		]);
		expect(body.toString('latin1')).toContain('filename="a %22b%22.wav"');
	});

	test('the exact bytes: each field, the file part, the tail', async () => {
		const sent = await upload(() => Buffer.from('abcdef'), 6);
		expect((sent.body as Buffer).toString()).toBe(
			`${headOf(sent.boundary)}abcdef${tailOf(sent.boundary)}`,
		);
	});

	test('adds key when the presign did not send one, and picks a fresh random boundary', async () => {
		const a = await upload(() => Buffer.from('a'), 1, { fields: { policy: 'p' } });
		const b = await upload(() => Buffer.from('a'), 1, { fields: { policy: 'p' } });
		expect((a.body as Buffer).toString()).toMatch(/name="key"\r\n\r\nEC_1\/txn\/x\.wav\r\n/);
		expect(a.boundary).toMatch(/^-*\w{16,}$/);
		expect(a.boundary).not.toBe(b.boundary);
	});
});

describe('the body from a binary stream', () => {
	test('head, the stream’s chunks as they come, tail; the source is closed at the end', async () => {
		const source = Readable.from([Buffer.from('abc'), Buffer.from('def')]);
		const sent = await upload(() => source, 6);
		expect(sent.body).toBeInstanceOf(Readable);
		const chunks: Buffer[] = [];
		for await (const chunk of sent.body as Readable) chunks.push(chunk);
		expect(chunks.map(String)).toEqual([
			headOf(sent.boundary),
			'abc',
			'def',
			tailOf(sent.boundary),
		]);
		expect(source.destroyed).toBe(true);
	});

	test('whatever class the binary store streams with (a file, a Transform)', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-unit-'));
		try {
			writeFileSync(join(dir, 'x.wav'), 'abcdef');
			const passThrough = new PassThrough();
			passThrough.end(Buffer.from('abcdef'));
			for (const source of [createReadStream(join(dir, 'x.wav')), passThrough]) {
				const sent = await upload(() => source, 6);
				expect((await collect(sent.body as Readable)).toString()).toBe(
					`${headOf(sent.boundary)}abcdef${tailOf(sent.boundary)}`,
				);
			}
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	test('reads the source only as the body is read (bounded memory)', async () => {
		let pulled = 0;
		async function* endless(): AsyncGenerator<Buffer> {
			for (;;) {
				pulled++;
				yield Buffer.alloc(64 * 1024);
			}
		}
		const sent = await upload(() => Readable.from(endless(), { objectMode: false }), 1024 ** 3);
		const iterator = (sent.body as Readable)[Symbol.asyncIterator]();
		for (let i = 0; i < 4; i++) await iterator.next();
		await new Promise((resolve) => setImmediate(resolve));
		// A 1 GiB file (16,384 such chunks), a few chunks read ahead: the rest waits for the socket.
		expect(pulled).toBeLessThan(64);
		await iterator.return?.();
	});

	async function fileItemsOf(chunk: Buffer): Promise<Buffer[]> {
		const items: Buffer[] = [];
		const sent = await upload(() => Readable.from([chunk]), chunk.length);
		for await (const item of sent.body as Readable) items.push(item);
		return items.slice(1, -1);
	}

	test('a chunk read from a file (up to a few MiB) goes on as small views of itself, not copies', async () => {
		const chunk = randomBytes(1024 * 1024 + 5);
		const fileItems = await fileItemsOf(chunk);
		expect(Buffer.concat(fileItems).equals(chunk)).toBe(true);
		expect(Math.max(...fileItems.map((item) => item.length))).toBeLessThanOrEqual(128 * 1024);
		expect(fileItems.every((item) => item.buffer === chunk.buffer)).toBe(true);
	});

	test('the whole file as one chunk (the database mode) goes on as it is: one item, the same buffer', async () => {
		const whole = randomBytes(9 * 1024 * 1024);
		const fileItems = await fileItemsOf(whole);
		expect(fileItems).toHaveLength(1);
		expect(fileItems[0]).toBe(whole);
	});

	test.each([
		['shorter', ['abc']],
		['longer', ['abcdef', 'g']],
	])(
		'a file %s than announced fails the upload, and says so though the HTTP client wrapped the failure',
		async (_label, chunks) => {
			const source = Readable.from(chunks.map((c) => Buffer.from(c)));
			const sent = await upload(() => source, 6, { read: true });
			expect(sent.outcome).toBeInstanceOf(NodeOperationError);
			expect(sent.outcome).toMatchObject({
				message: 'The recording changed size while it was uploaded',
			});
			// Not sent again: the file changed, not the connection.
			expect(sent.requests).toBe(1);
			expect(source.destroyed).toBe(true);
		},
	);

	test('a longer file: no byte past the announced size leaves the body', async () => {
		const source = Readable.from([Buffer.from('abcdef'), Buffer.from('ghi')]);
		const sent = await upload(() => source, 6, { read: true });
		expect(sent.outcome).toBeInstanceOf(NodeOperationError);
		expect(sent.read.toString()).toBe(`${headOf(sent.boundary)}abcdef`);
	});
});

describe('in-memory binaries (n8n default mode): no stream to compose with', () => {
	// More than one piece of Base64 text decoded at a time (1 MiB of text).
	const content = randomBytes(2 * 1024 * 1024 + 123);

	test('Base64 text: one buffer of exactly the Content-Length, decoded a piece at a time into place', async () => {
		const sent = await upload(() => ({ base64: content.toString('base64') }), content.length);
		expect(Buffer.isBuffer(sent.body)).toBe(true);
		expect((sent.body as Buffer).length).toBe(sent.contentLength);
		expect((sent.body as Buffer).equals(bodyOf(sent.boundary, content))).toBe(true);
	});

	test('a buffer: the multipart body is one copy; the raw body is the buffer itself', async () => {
		const sent = await upload(() => content, content.length);
		expect((sent.body as Buffer).equals(bodyOf(sent.boundary, content))).toBe(true);
		expect((await rawBody(content, content.length)).body).toBe(content);
	});

	test('Base64 text or a buffer of another size than announced fails before anything is sent', async () => {
		for (const announced of [content.length - 10, content.length + 10]) {
			const sent = await upload(() => ({ base64: content.toString('base64') }), announced);
			expect(sent.outcome).toBeInstanceOf(NodeOperationError);
			expect(sent.outcome).toMatchObject({
				message: 'The recording changed size while it was uploaded',
			});
			expect(sent.requests).toBe(0);
		}
		const shorter = await upload(() => content.subarray(1), content.length);
		expect(shorter.outcome).toMatchObject({
			message: 'The recording changed size while it was uploaded',
		});
		expect(shorter.requests).toBe(0);
	});
});

describe('rawFileBody (the session upload body)', () => {
	test('the file bytes alone, from a stream, Base64 text or a buffer; never more than the size', async () => {
		const content = randomBytes(3 * 1024 * 1024 + 7);
		const asBytes = async (pending: ReturnType<typeof rawBody>) => {
			const { body } = await pending;
			return Buffer.isBuffer(body) ? body : await collect(body);
		};
		const fromStream = await asBytes(
			rawBody(Readable.from([content.subarray(0, 1000), content.subarray(1000)]), content.length),
		);
		expect(fromStream.equals(content)).toBe(true);
		expect(
			(await asBytes(rawBody({ base64: content.toString('base64') }, content.length))).equals(
				content,
			),
		).toBe(true);
		expect((await asBytes(rawBody(content, content.length))).equals(content)).toBe(true);
		// One byte longer than announced: the bytes up to the size go, then the body fails, and the
		// call can tell that failure apart from a network one, however its HTTP client wrapped it.
		const longer = await rawBody(Readable.from([content]), content.length - 1);
		const passed: Buffer[] = [];
		const failure = await (async () => {
			for await (const chunk of longer.body as Readable) passed.push(chunk);
		})().catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(Error);
		expect(Buffer.concat(passed).length).toBeLessThanOrEqual(content.length - 1);
		expect(longer.changedSize(new Error('Request body stream failed', { cause: failure }))).toBe(
			true,
		);
		const unchanged = await rawBody(content, content.length);
		expect(unchanged.changedSize(new Error('socket hang up'))).toBe(false);
	});
});

describe('uploadToStorage', () => {
	function context(answers: Array<number | Error>) {
		const sent: IHttpRequestOptions[] = [];
		const opened: number[] = [];
		const signal = new AbortController().signal;
		const ctx = {
			getNode: () => ({ name: 'Clinic Scribe' }),
			getExecutionCancelSignal: () => signal,
			helpers: {
				httpRequest: async (options: IHttpRequestOptions) => {
					sent.push(options);
					if (!Buffer.isBuffer(options.body)) await collect(options.body as unknown as Readable);
					const answer = answers.shift() ?? 204;
					if (answer instanceof Error) throw answer;
					return {
						statusCode: answer,
						body:
							answer === 403
								? '<Error><Code>AccessDenied</Code><Message>Policy expired.</Message></Error>'
								: '',
					};
				},
				httpRequestWithAuthentication: () => {
					throw new Error('the storage upload must not use the authenticated helper');
				},
			},
		} as unknown as IExecuteFunctions;
		const file = {
			fileName: 'x.wav',
			label: 'the recording',
			contentType: 'audio/wav',
			size: 4,
			open: async () => {
				opened.push(1);
				return Readable.from([Buffer.from('abcd')]);
			},
		};
		return { ctx, sent, opened, file, signal };
	}

	beforeAll(() => {
		useTestTransportPolicy({ storageRetry: { baseDelayMs: 1, maxDelayMs: 2 } });
	});

	test('one plain POST: streamed body, known length, no redirects, no auth, the cancel signal', async () => {
		const { ctx, sent, file, signal } = context([204]);
		await expect(uploadToStorage(ctx, target, file, 0)).resolves.toEqual({
			kind: 'stored',
			statusCode: 204,
			attempts: 1,
		});
		expect(sent).toHaveLength(1);
		const [options] = sent;
		expect(options).toMatchObject({
			method: 'POST',
			url: target.url,
			disableFollowRedirect: true,
			ignoreHttpStatusErrors: true,
			returnFullResponse: true,
			abortSignal: signal,
		});
		expect(options.headers).toEqual({
			'Content-Type': expect.stringMatching(/^multipart\/form-data; boundary=/),
			'Content-Length': expect.stringMatching(/^\d+$/),
		});
		expect(options.body).toBeInstanceOf(Readable);
		expect(options.timeout).toBe(storageTimeoutMs(4));
	});

	test('retries 5xx and network errors with the file opened afresh', async () => {
		const { ctx, sent, opened, file } = context([
			503,
			Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
			201,
		]);
		await expect(uploadToStorage(ctx, target, file, 0)).resolves.toEqual({
			kind: 'stored',
			statusCode: 201,
			attempts: 3,
		});
		expect(sent).toHaveLength(3);
		expect(opened).toHaveLength(3);
	});

	test('403 is reported for a fresh presign, not retried', async () => {
		const { ctx, sent, file } = context([403]);
		await expect(uploadToStorage(ctx, target, file, 0)).resolves.toEqual({
			kind: 'refused',
			statusCode: 403,
			detail: 'AccessDenied: Policy expired.',
		});
		expect(sent).toHaveLength(1);
	});

	test('gives up after the attempts, naming the file and the status', async () => {
		const { ctx, file } = context([500, 500, 500]);
		await expect(uploadToStorage(ctx, target, file, 3)).rejects.toMatchObject({
			message: 'The storage service refused the recording (HTTP 500)',
			context: { itemIndex: 3 },
		});
	});

	test('other 4xx fail at once', async () => {
		const { ctx, sent, file } = context([400]);
		await expect(uploadToStorage(ctx, target, file, 0)).rejects.toThrow('(HTTP 400)');
		expect(sent).toHaveLength(1);
	});
});

describe('helpers', () => {
	test('storageErrorDetail reads S3 XML, else a short text', async () => {
		/** The detail of a refusal (403) whose body is this, as the upload reports it for a fresh presign. */
		const storageErrorDetail = async (body: unknown) => {
			const ctx = {
				getNode: () => ({ name: 'Clinic Scribe' }),
				helpers: {
					httpRequest: async (options: IHttpRequestOptions) => {
						if (!Buffer.isBuffer(options.body)) await collect(options.body as unknown as Readable);
						return { statusCode: 403, body };
					},
				},
			} as unknown as IExecuteFunctions;
			const file = {
				fileName: 'x.wav',
				label: 'the recording',
				contentType: 'audio/wav',
				size: 4,
				open: async () => Readable.from([Buffer.from('abcd')]),
			};
			const outcome = await uploadToStorage(ctx, target, file, 0);
			return outcome.kind === 'refused' ? outcome.detail : outcome;
		};
		expect(
			await storageErrorDetail(
				'<?xml?><Error><Code>EntityTooLarge</Code><Message>Too big</Message></Error>',
			),
		).toBe('EntityTooLarge: Too big');
		expect(await storageErrorDetail('  busy \n now ')).toBe('busy now');
		expect(await storageErrorDetail(undefined)).toBe('');
	});

	test('storageTimeoutMs grows with the file', () => {
		expect(storageTimeoutMs(0)).toBe(120_000);
		expect(storageTimeoutMs(1024 ** 3)).toBeGreaterThan(2 * 3600_000);
	});
});
