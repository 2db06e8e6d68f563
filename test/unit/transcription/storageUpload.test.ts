import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';

import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import {
	BASE64_PIECE_CHARS,
	FileSizeChanged,
	multipartBody,
	multipartFrame,
	rawFileBody,
	storageTimeoutMs,
	uploadToStorage,
	type BinaryStream,
} from '../../../nodes/ClinicScribe/transport/storage';
import { parseMultipart } from '../../fake-api/multipart';
import { useTestTransportPolicy } from '../../support/transportPolicy';

/** The raw body (a session's upload) of a file whose bytes are `source`, as a call opens it for an attempt. */
async function rawBody(
	source: BinaryStream | Buffer | { base64: string },
	size: number,
	onSizeChanged: (error: FileSizeChanged) => void = () => undefined,
) {
	const body = rawFileBody({ open: async () => source, size }, 'audio/wav');
	const opened = (await body.open()) as BinaryStream | Buffer;
	if (Buffer.isBuffer(opened)) return opened;
	// A size change is thrown while the stream is read; the call tells it apart with changedSize.
	return Readable.from(
		(async function* () {
			try {
				for await (const chunk of opened) yield chunk as Buffer;
			} catch (error) {
				if (body.changedSize(error) && error instanceof FileSizeChanged) onSizeChanged(error);
				throw error;
			}
		})(),
	) as unknown as BinaryStream;
}

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

describe('multipartFrame', () => {
	test('fields in order with key = folder + name, the file part last, exact Content-Length', async () => {
		const content = randomBytes(10_000);
		const frame = multipartFrame(
			target,
			{ fileName: 'a "b".wav', contentType: 'audio/wav', size: content.length },
			'XyZ',
		);
		const body = Buffer.concat([frame.head, content, frame.tail]);
		expect(frame.contentLength).toBe(body.length);
		const parsed = await parseMultipart(Readable.from([body]), 'XyZ');
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
		expect(frame.head.toString()).toContain('filename="a %22b%22.wav"');
	});

	test('adds key when the presign did not send one, and picks a fresh random boundary', () => {
		const a = multipartFrame(
			{ ...target, fields: { policy: 'p' } },
			{ fileName: 'x.wav', contentType: 'audio/wav', size: 1 },
		);
		const b = multipartFrame(
			{ ...target, fields: { policy: 'p' } },
			{ fileName: 'x.wav', contentType: 'audio/wav', size: 1 },
		);
		expect(a.head.toString()).toMatch(/name="key"\r\n\r\nEC_1\/txn\/x\.wav\r\n/);
		expect(a.boundary).not.toBe(b.boundary);
	});
});

describe('multipartBody from a binary stream', () => {
	const frame = multipartFrame(
		target,
		{ fileName: 'x.wav', contentType: 'audio/wav', size: 6 },
		'B',
	);

	test('head, the stream’s chunks as they come, tail; the source is closed at the end', async () => {
		const source = Readable.from([Buffer.from('abc'), Buffer.from('def')]);
		const body = multipartBody(source as unknown as BinaryStream, frame, 6);
		expect(body).toBeInstanceOf(Readable);
		const chunks: Buffer[] = [];
		for await (const chunk of body as BinaryStream) chunks.push(chunk);
		expect(chunks.map(String)).toEqual([
			frame.head.toString(),
			'abc',
			'def',
			frame.tail.toString(),
		]);
		expect(source.destroyed).toBe(true);
	});

	test('whatever class the binary store streams with (a file, a Transform)', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-unit-'));
		try {
			writeFileSync(join(dir, 'x.wav'), 'abcdef');
			const fromFile = multipartBody(
				createReadStream(join(dir, 'x.wav')) as unknown as BinaryStream,
				frame,
				6,
			);
			const passThrough = new PassThrough();
			passThrough.end(Buffer.from('abcdef'));
			const fromTransform = multipartBody(passThrough as unknown as BinaryStream, frame, 6);
			for (const body of [fromFile, fromTransform]) {
				expect((await collect(body as BinaryStream)).toString()).toBe(
					`${frame.head.toString()}abcdef${frame.tail.toString()}`,
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
		const size = 1024 ** 3;
		const body = multipartBody(
			Readable.from(endless(), { objectMode: false }) as unknown as BinaryStream,
			multipartFrame(target, { fileName: 'x.wav', contentType: 'audio/wav', size }, 'B'),
			size,
		) as BinaryStream;
		const iterator = body[Symbol.asyncIterator]();
		for (let i = 0; i < 4; i++) await iterator.next();
		await new Promise((resolve) => setImmediate(resolve));
		// A 1 GiB file (16,384 such chunks), a few chunks read ahead: the rest waits for the socket.
		expect(pulled).toBeLessThan(64);
		await iterator.return?.();
	});

	async function fileItemsOf(chunk: Buffer): Promise<Buffer[]> {
		const items: Buffer[] = [];
		const body = multipartBody(
			Readable.from([chunk]) as unknown as BinaryStream,
			multipartFrame(
				target,
				{ fileName: 'x.wav', contentType: 'audio/wav', size: chunk.length },
				'B',
			),
			chunk.length,
		);
		for await (const item of body as BinaryStream) items.push(item);
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
		['shorter', ['abc'], 3],
		['longer', ['abcdef', 'g'], 7],
	])('a file %s than announced fails the body and says so', async (_label, chunks, actual) => {
		const reported: FileSizeChanged[] = [];
		const source = Readable.from(chunks.map((c) => Buffer.from(c)));
		const body = multipartBody(source as unknown as BinaryStream, frame, 6, (error) =>
			reported.push(error),
		);
		await expect(collect(body as BinaryStream)).rejects.toThrow(`expected 6 bytes, read ${actual}`);
		expect(reported).toHaveLength(1);
		expect(source.destroyed).toBe(true);
	});

	test('a longer file: no byte past the announced size leaves the body', async () => {
		const source = Readable.from([Buffer.from('abcdef'), Buffer.from('ghi')]);
		const sent: Buffer[] = [];
		await expect(
			(async () => {
				for await (const chunk of multipartBody(
					source as unknown as BinaryStream,
					frame,
					6,
				) as BinaryStream)
					sent.push(chunk);
			})(),
		).rejects.toBeInstanceOf(FileSizeChanged);
		expect(Buffer.concat(sent).toString()).toBe(`${frame.head.toString()}abcdef`);
	});
});

describe('in-memory binaries (n8n default mode): no stream to compose with', () => {
	const content = randomBytes(2 * 1024 * 1024 + 123);
	const frame = multipartFrame(
		target,
		{ fileName: 'm.wav', contentType: 'audio/wav', size: content.length },
		'B',
	);

	test('Base64 text: one buffer of exactly the Content-Length, decoded a piece at a time into place', () => {
		const body = multipartBody({ base64: content.toString('base64') }, frame, content.length);
		expect(Buffer.isBuffer(body)).toBe(true);
		expect((body as Buffer).length).toBe(frame.contentLength);
		expect((body as Buffer).equals(Buffer.concat([frame.head, content, frame.tail]))).toBe(true);
		expect(BASE64_PIECE_CHARS % 4).toBe(0);
	});

	test('a buffer: the multipart body is one copy; the raw body is the buffer itself', async () => {
		expect(
			(multipartBody(content, frame, content.length) as Buffer).equals(
				Buffer.concat([frame.head, content, frame.tail]),
			),
		).toBe(true);
		expect(await rawBody(content, content.length)).toBe(content);
	});

	test('Base64 text that decodes to another size than announced fails before anything is sent', () => {
		for (const announced of [content.length - 10, content.length + 10]) {
			const changed: FileSizeChanged[] = [];
			expect(() =>
				multipartBody({ base64: content.toString('base64') }, frame, announced, (error) =>
					changed.push(error),
				),
			).toThrow(FileSizeChanged);
			expect(changed).toHaveLength(1);
		}
		expect(() => multipartBody(content.subarray(1), frame, content.length)).toThrow('expected');
	});
});

describe('rawBody (the session upload body)', () => {
	test('the file bytes alone, from a stream, Base64 text or a buffer; never more than the size', async () => {
		const content = randomBytes(3 * 1024 * 1024 + 7);
		const asBytes = async (pending: Promise<BinaryStream | Buffer>) => {
			const body = await pending;
			return Buffer.isBuffer(body) ? body : await collect(body);
		};
		const fromStream = await asBytes(
			rawBody(
				Readable.from([
					content.subarray(0, 1000),
					content.subarray(1000),
				]) as unknown as BinaryStream,
				content.length,
			),
		);
		expect(fromStream.equals(content)).toBe(true);
		expect(
			(await asBytes(rawBody({ base64: content.toString('base64') }, content.length))).equals(
				content,
			),
		).toBe(true);
		expect((await asBytes(rawBody(content, content.length))).equals(content)).toBe(true);
		let told: FileSizeChanged | undefined;
		await expect(
			asBytes(
				rawBody(
					Readable.from([content]) as unknown as BinaryStream,
					content.length - 1,
					(error) => (told = error),
				),
			),
		).rejects.toBeInstanceOf(FileSizeChanged);
		expect(told?.actual).toBe(content.length);
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
				return Readable.from([Buffer.from('abcd')]) as unknown as BinaryStream;
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
				open: async () => Readable.from([Buffer.from('abcd')]) as unknown as BinaryStream,
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
