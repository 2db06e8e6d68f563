/**
 * Proof, with n8n's own HTTP helper (n8n-core 2.41.1's `httpRequest`, loaded from the cached n8n),
 * that the storage upload is streamed:
 *
 * - The recording is produced chunk by chunk, and chunk k+1 is only produced once the fake storage
 *   endpoint has received (parsed, hashed) the bytes of chunk k minus a small allowance for buffers
 *   on the way. A client that collected the body before sending it would never get past the first
 *   gate (the test fails with "gate … not reached", not by timing).
 * - Every chunk is a fresh buffer; a client that kept them (as a redirect-following client does, to
 *   resend the body) would hold the whole file: the peak growth of Buffer memory must stay far
 *   below the file size.
 * - The fake checks fields, `file` last, Content-Length, byte count and SHA-256; no auth header.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

import type { IExecuteFunctions } from 'n8n-workflow';

import { uploadToStorage } from '../../../nodes/ClinicScribe/transport/storage';
import { fakeTranscription, type FakeTranscription } from '../../fake-api/routes/transcription';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import {
	loadN8nHttpRequest,
	n8nRequired,
	type HttpRequestHelper,
} from '../../support/n8nHttpRequest';

const MiB = 1024 * 1024;
const CHUNK = MiB;
const CHUNKS = 160;
/** Bytes that may sit in buffers between the producer and the parser (readable, sockets, parser). */
const IN_FLIGHT_ALLOWANCE = 12 * MiB;
const GATE_TIMEOUT_MS = 20_000;

const n8nHttpRequest = loadN8nHttpRequest();
const describeWithN8n = n8nHttpRequest || n8nRequired() ? describe : describe.skip;
if (!n8nHttpRequest && !n8nRequired()) {
	process.stderr.write(
		'uploadAudio.n8nStreaming.test.ts skipped: n8n is not in the cache (run scripts/install-n8n.sh)\n',
	);
}

let api: FakeClinicApi;
let fake: FakeTranscription;

beforeAll(async () => {
	api = await startFakeClinicApi();
	fake = fakeTranscription(api);
});
afterAll(async () => await api?.close());

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(
			() =>
				reject(
					new Error(
						`${what} not reached within ${GATE_TIMEOUT_MS} ms: the body is not being streamed`,
					),
				),
			GATE_TIMEOUT_MS,
		);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describeWithN8n("n8n's httpRequest helper streams the storage upload", () => {
	test(`${CHUNKS} MiB go out while they are still being read, with bounded memory, intact`, async () => {
		if (!n8nHttpRequest)
			throw new Error('n8n is not installed in the cache: run scripts/install-n8n.sh');
		const hash = createHash('sha256');
		const baseline = process.memoryUsage().arrayBuffers;
		let peak = baseline;
		const sample = () => {
			peak = Math.max(peak, process.memoryUsage().arrayBuffers);
		};

		async function* recording(): AsyncGenerator<Buffer> {
			for (let k = 0; k < CHUNKS; k++) {
				if (k > 0) {
					const wanted = Math.max(0, k * CHUNK - IN_FLIGHT_ALLOWANCE);
					await withTimeout(
						fake.waitForFileBytes(wanted),
						`gate ${k} (${wanted} bytes at the server)`,
					);
				}
				sample();
				const chunk = randomBytes(CHUNK);
				hash.update(chunk);
				yield chunk;
			}
		}

		const ctx = {
			getNode: () => ({
				name: 'Clinic Scribe',
				type: 'test',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			}),
			getExecutionCancelSignal: () => undefined,
			helpers: { httpRequest: n8nHttpRequest as HttpRequestHelper },
		} as unknown as IExecuteFunctions;
		const answer = fake.presign('txn-stream', api.url);
		const outcome = await uploadToStorage(
			ctx,
			{
				url: answer.uploadData.url,
				fields: answer.uploadData.fields,
				folderPath: answer.folderPath,
			},
			{
				fileName: 'long-consult.wav',
				label: 'the recording',
				contentType: 'audio/wav',
				size: CHUNKS * CHUNK,
				open: async () => Readable.from(recording()),
			},
			0,
		);
		sample();

		expect(outcome).toEqual({ kind: 'stored', statusCode: 204, attempts: 1 });
		expect(fake.rejectedUploads()).toEqual([]);
		const [upload] = fake.uploads();
		expect(upload).toMatchObject({
			fileName: 'long-consult.wav',
			size: CHUNKS * CHUNK,
			sha256: hash.digest('hex'),
		});
		expect(upload.partOrder[upload.partOrder.length - 1]).toBe('file');
		expect(upload.contentLength).toBe(upload.bodyBytes);
		expect(upload.headerNames).not.toContain('authorization');
		expect(upload.headerNames).not.toContain('transfer-encoding');
		const growthMiB = (peak - baseline) / MiB;
		process.stderr.write(
			`n8n httpRequest streaming: ${CHUNKS} MiB sent, peak Buffer memory growth ${growthMiB.toFixed(1)} MiB\n`,
		);
		// A client keeping the body (to resend it on a redirect) holds all of it: >= CHUNKS MiB.
		expect(growthMiB).toBeLessThan(CHUNKS / 2);
	}, 120_000);
});
