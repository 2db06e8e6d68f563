import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';

import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import {
	FileSizeChanged,
	IN_MEMORY_PIECE_CHARS,
	multipartFrame,
	storageErrorDetail,
	storageTimeoutMs,
	streamedMultipartBody,
	streamedRawBody,
	uploadToStorage,
	type BinaryStream,
} from '../../../nodes/ClinicScribe/transport/storageUpload';
import { parseMultipart } from '../../fake-api/multipart';
import { applyTestTransportPolicy, useTestTransportPolicy } from '../../support/transportPolicy';

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
		const frame = multipartFrame(target, { fileName: 'a "b".wav', contentType: 'audio/wav', size: content.length }, 'XyZ');
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
		const a = multipartFrame({ ...target, fields: { policy: 'p' } }, { fileName: 'x.wav', contentType: 'audio/wav', size: 1 });
		const b = multipartFrame({ ...target, fields: { policy: 'p' } }, { fileName: 'x.wav', contentType: 'audio/wav', size: 1 });
		expect(a.head.toString()).toMatch(/name="key"\r\n\r\nEC_1\/txn\/x\.wav\r\n/);
		expect(a.boundary).not.toBe(b.boundary);
	});
});

describe('streamedMultipartBody', () => {
	const frame = multipartFrame(target, { fileName: 'x.wav', contentType: 'audio/wav', size: 6 }, 'B');

	test('head, the stream’s chunks, tail; the source is closed at the end', async () => {
		const source = Readable.from([Buffer.from('abc'), Buffer.from('def')]);
		const body = streamedMultipartBody(source as unknown as BinaryStream, frame, 6);
		expect(body).toBeInstanceOf(Readable);
		expect((await collect(body)).toString()).toBe(`${frame.head.toString()}abcdef${frame.tail.toString()}`);
		expect(source.destroyed).toBe(true);
	});

	test('the body is a plain Readable whatever class the binary store streams with (file, Transform)', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-unit-'));
		try {
			writeFileSync(join(dir, 'x.wav'), 'abcdef');
			const fromFile = streamedMultipartBody(createReadStream(join(dir, 'x.wav')) as unknown as BinaryStream, frame, 6);
			const passThrough = new PassThrough();
			passThrough.end(Buffer.from('abcdef'));
			const fromTransform = streamedMultipartBody(passThrough as unknown as BinaryStream, frame, 6);
			for (const body of [fromFile, fromTransform]) {
				expect(body.constructor).toBe(Readable);
				expect((await collect(body)).toString()).toBe(`${frame.head.toString()}abcdef${frame.tail.toString()}`);
			}
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	test.each([
		['shorter', ['abc'], 3],
		['longer', ['abcdef', 'g'], 7],
	])('a file %s than announced fails the body and says so', async (_label, chunks, actual) => {
		const reported: FileSizeChanged[] = [];
		const source = Readable.from(chunks.map((c) => Buffer.from(c)));
		const body = streamedMultipartBody(source as unknown as BinaryStream, frame, 6, (error) => reported.push(error));
		await expect(collect(body)).rejects.toThrow(`expected 6 bytes, read ${actual}`);
		expect(reported).toHaveLength(1);
	});
});

describe('in-memory binaries (n8n default mode)', () => {
	/** The chunks as a pipe to a socket sees them (flowing mode: one 'data' event per chunk pushed). */
	async function flowingChunks(body: BinaryStream): Promise<Buffer[]> {
		const chunks: Buffer[] = [];
		body.on('data', (chunk: Buffer) => chunks.push(chunk));
		await new Promise((resolve, reject) => body.once('end', resolve).once('error', reject));
		return chunks;
	}
	const content = randomBytes(2 * 1024 * 1024 + 123);
	const frame = multipartFrame(target, { fileName: 'm.wav', contentType: 'audio/wav', size: content.length }, 'B');

	test('Base64 text: head, the decoded bytes piece by piece (never the whole file at once), tail', async () => {
		const pieces: number[] = [];
		const body = streamedMultipartBody({ base64: content.toString('base64') }, frame, content.length);
		expect(body).toBeInstanceOf(Readable);
		const chunks = await flowingChunks(body);
		pieces.push(...chunks.map((chunk) => chunk.length));
		expect(Buffer.concat(chunks).equals(Buffer.concat([frame.head, content, frame.tail]))).toBe(true);
		expect(Math.max(...pieces)).toBeLessThanOrEqual(IN_MEMORY_PIECE_CHARS);
		expect(pieces.length).toBeGreaterThanOrEqual(4);
	});

	test('a buffer: sent as views of itself, no copy', async () => {
		const seen = await flowingChunks(streamedMultipartBody(content, frame, content.length));
		const fileChunks = seen.slice(1, -1);
		expect(fileChunks.every((chunk) => chunk.buffer === content.buffer)).toBe(true);
		expect(Buffer.concat(fileChunks).equals(content)).toBe(true);
	});

	test('Base64 text that decodes to another size than announced fails, with nothing more than announced sent', async () => {
		const changed: FileSizeChanged[] = [];
		const body = streamedMultipartBody({ base64: content.toString('base64') }, frame, content.length - 10, (error) => changed.push(error));
		await expect(collect(body as AsyncIterable<Buffer>)).rejects.toBeInstanceOf(FileSizeChanged);
		expect(changed).toHaveLength(1);
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
					await collect(options.body as unknown as Readable);
					const answer = answers.shift() ?? 204;
					if (answer instanceof Error) throw answer;
					return { statusCode: answer, body: answer === 403 ? '<Error><Code>AccessDenied</Code><Message>Policy expired.</Message></Error>' : '' };
				},
				httpRequestWithAuthentication: () => {
					throw new Error('the storage upload must not use the authenticated helper');
				},
			},
		} as unknown as IExecuteFunctions;
		applyTestTransportPolicy(ctx);
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
		await expect(uploadToStorage(ctx, target, file, 0)).resolves.toEqual({ kind: 'stored', statusCode: 204, attempts: 1 });
		expect(sent).toHaveLength(1);
		const [options] = sent;
		expect(options).toMatchObject({ method: 'POST', url: target.url, disableFollowRedirect: true, ignoreHttpStatusErrors: true, returnFullResponse: true, abortSignal: signal });
		expect(options.headers).toEqual({ 'Content-Type': expect.stringMatching(/^multipart\/form-data; boundary=/), 'Content-Length': expect.stringMatching(/^\d+$/) });
		expect(options.body).toBeInstanceOf(Readable);
		expect(options.timeout).toBe(storageTimeoutMs(4));
	});

	test('retries 5xx and network errors with the file opened afresh', async () => {
		const { ctx, sent, opened, file } = context([503, Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 201]);
		await expect(uploadToStorage(ctx, target, file, 0)).resolves.toEqual({ kind: 'stored', statusCode: 201, attempts: 3 });
		expect(sent).toHaveLength(3);
		expect(opened).toHaveLength(3);
	});

	test('403 is reported for a fresh presign, not retried', async () => {
		const { ctx, sent, file } = context([403]);
		await expect(uploadToStorage(ctx, target, file, 0)).resolves.toEqual({ kind: 'refused', statusCode: 403, detail: 'AccessDenied: Policy expired.' });
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
	test('storageErrorDetail reads S3 XML, else a short text', () => {
		expect(storageErrorDetail('<?xml?><Error><Code>EntityTooLarge</Code><Message>Too big</Message></Error>')).toBe('EntityTooLarge: Too big');
		expect(storageErrorDetail('  busy \n now ')).toBe('busy now');
		expect(storageErrorDetail(undefined)).toBe('');
	});

	test('storageTimeoutMs grows with the file', () => {
		expect(storageTimeoutMs(0)).toBe(120_000);
		expect(storageTimeoutMs(1024 ** 3)).toBeGreaterThan(2 * 3600_000);
	});
});

describe('streamedRawBody (the session upload body)', () => {
	test('the file bytes alone, from a stream, Base64 text or a buffer; never more than the size', async () => {
		const content = randomBytes(3 * 1024 * 1024 + 7);
		const fromStream = await collect(streamedRawBody(Readable.from([content.subarray(0, 1000), content.subarray(1000)]) as unknown as BinaryStream, content.length));
		expect(fromStream.equals(content)).toBe(true);
		expect((await collect(streamedRawBody({ base64: content.toString('base64') }, content.length))).equals(content)).toBe(true);
		expect((await collect(streamedRawBody(content, content.length))).equals(content)).toBe(true);
		let told: FileSizeChanged | undefined;
		await expect(collect(streamedRawBody(Readable.from([content]) as unknown as BinaryStream, content.length - 1, (error) => (told = error)))).rejects.toBeInstanceOf(FileSizeChanged);
		expect(told?.actual).toBe(content.length);
	});
});
