/** The fake storage endpoint's streaming parser: the checks of the upload tests rely on it. */
import { createHash, randomBytes } from 'node:crypto';

import {
	boundaryFromContentType,
	parseDisposition,
	parseMultipart,
} from '../../fake-api/multipart';

function body(
	boundary: string,
	parts: Array<{ name: string; value: Buffer | string; filename?: string }>,
	closing = true,
): Buffer {
	const pieces: Buffer[] = [];
	for (const part of parts) {
		const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
		pieces.push(
			Buffer.from(
				`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.filename ? 'Content-Type: audio/wav\r\n' : ''}\r\n`,
			),
		);
		pieces.push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value));
		pieces.push(Buffer.from('\r\n'));
	}
	if (closing) pieces.push(Buffer.from(`--${boundary}--\r\n`));
	return Buffer.concat(pieces);
}

async function* chunked(buffer: Buffer, sizes: () => number): AsyncGenerator<Buffer> {
	for (let at = 0; at < buffer.length; ) {
		const size = Math.max(1, sizes());
		yield buffer.subarray(at, at + size);
		at += size;
	}
}

describe('parseMultipart', () => {
	const boundary = '----b0undary';
	// The file holds text that looks like a boundary but is not one (no CRLF before it).
	const file = Buffer.concat([
		randomBytes(5000),
		Buffer.from(`--${boundary}`),
		randomBytes(3000),
		Buffer.from('\r\n--'),
		randomBytes(100),
	]);
	const sample = body(boundary, [
		{ name: 'key', value: 'folder/a.wav' },
		{ name: 'policy', value: 'e30=' },
		{ name: 'file', value: file, filename: 'a.wav' },
	]);
	const expectedParts = [
		{ kind: 'field', name: 'key', value: 'folder/a.wav' },
		{ kind: 'field', name: 'policy', value: 'e30=' },
		{
			kind: 'file',
			name: 'file',
			filename: 'a.wav',
			contentType: 'audio/wav',
			size: file.length,
			sha256: createHash('sha256').update(file).digest('hex'),
		},
	];

	test.each([
		['one chunk', () => sample.length],
		['1-byte chunks', () => 1],
		['7-byte chunks', () => 7],
		['random chunks', () => Math.floor(Math.random() * 300)],
	])('same parts whatever the chunking: %s', async (_label, sizes) => {
		const result = await parseMultipart(chunked(sample, sizes), boundary);
		expect(result.error).toBeUndefined();
		expect(result.parts).toEqual(expectedParts);
		expect(result.totalBytes).toBe(sample.length);
		expect(result.preambleBytes).toBe(0);
	});

	test('reports file progress and calls back at each part start with the parts before it', async () => {
		const seen: string[] = [];
		let last = 0;
		await parseMultipart(
			chunked(sample, () => 512),
			boundary,
			{
				onPartStart: (part, before) => seen.push(`${part.name}@${before.length}`),
				onFileBytes: (bytes) => (last = bytes),
			},
		);
		expect(seen).toEqual(['key@0', 'policy@1', 'file@2']);
		expect(last).toBe(file.length);
	});

	test('a body without its closing boundary is an error', async () => {
		const result = await parseMultipart(
			chunked(body(boundary, [{ name: 'a', value: 'b' }], false), () => 5),
			boundary,
		);
		expect(result.error).toMatch(/body ended/);
	});

	test('a preamble is counted; a too-long field is an error', async () => {
		const withPreamble = Buffer.concat([Buffer.from('junk'), sample]);
		expect(
			(
				await parseMultipart(
					chunked(withPreamble, () => 100),
					boundary,
				)
			).preambleBytes,
		).toBe(4);
		const long = await parseMultipart(
			chunked(body(boundary, [{ name: 'big', value: 'x'.repeat(100) }]), () => 10),
			boundary,
			{ maxFieldBytes: 50 },
		);
		expect(long.error).toMatch(/field "big" is longer than 50 bytes/);
	});
});

describe('header helpers', () => {
	test('boundaryFromContentType', () => {
		expect(boundaryFromContentType('multipart/form-data; boundary=abc')).toBe('abc');
		expect(boundaryFromContentType('multipart/form-data; charset=utf-8; boundary="a b"')).toBe(
			'a b',
		);
		expect(boundaryFromContentType('application/json')).toBeUndefined();
		expect(boundaryFromContentType(undefined)).toBeUndefined();
	});

	test('parseDisposition', () => {
		expect(parseDisposition('form-data; name="file"; filename="a %22b%22.wav"')).toEqual({
			type: 'form-data',
			name: 'file',
			filename: 'a "b".wav',
		});
		expect(parseDisposition('form-data; name=key')).toEqual({ type: 'form-data', name: 'key' });
	});
});
