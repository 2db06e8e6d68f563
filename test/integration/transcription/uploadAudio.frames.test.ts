/**
 * How deep one Upload Audio call is: the stack trace at n8n's HTTP helper (the test context's, over
 * real HTTP to the fake API) for each request of one transaction and one session upload, printed
 * from the helper's caller down to the operation's executeBatch. Counted are the frames of the
 * package's own code (Node's `async Promise.all` and task-queue frames are printed, not counted).
 *
 * Every call spends at most 4 frames in transport/ (the API area's function, clinicApiRequest, the
 * retry loop and its attempt; a storage upload 3). Every call, the file uploads included, is at
 * most 8 frames from executeBatch: executeBatch and the runner's worker, the flow, and for a file
 * its send through the run's gate (fileUploads) and, in a transaction, storeFiles (one fresh
 * presign on a 403). Before the transport was reshaped: 14 to 19.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { useTestTransportPolicy } from '../../support/transportPolicy';
import { item, TranscriptionRig, uploadParameters } from '../../support/transcriptionRig';

const rig = new TranscriptionRig();

/** Frames of the package from executeBatch to the helper call, both ends counted, for every call. */
const MAX_FRAMES = 8;
/** Frames of transport/ in any call. */
const MAX_TRANSPORT_FRAMES = 4;

beforeAll(async () => {
	await rig.start();
	useTestTransportPolicy({
		retry: { baseDelayMs: 10, maxDelayMs: 50 },
		storageRetry: { baseDelayMs: 10, maxDelayMs: 50 },
	});
});
afterAll(async () => await rig.stop());
beforeEach(() => rig.reset());

interface CapturedCall {
	helper: string;
	method: string;
	path: string;
	/** Every frame from the helper's caller to executeBatch. */
	frames: string[];
}

const PACKAGE_CODE = /[\\/]nodes[\\/]ClinicScribe[\\/]/;
const TRANSPORT_CODE = /[\\/]nodes[\\/]ClinicScribe[\\/]transport[\\/]/;
const packageFrames = (call: CapturedCall) =>
	call.frames.filter((frame) => PACKAGE_CODE.test(frame));
/** The call's own frames in transport/: from the helper's caller to the first frame outside it. */
function transportFrames(call: CapturedCall): string[] {
	const own = call.frames.filter((frame) => !/\(node:internal\//.test(frame));
	const end = own.findIndex((frame) => !TRANSPORT_CODE.test(frame));
	return end === -1 ? own : own.slice(0, end);
}

/** The frames below the helper's own, up to and including executeBatch (or all, when it is missing). */
function framesToExecuteBatch(stack: string): string[] {
	const lines = stack
		.split('\n')
		.slice(2)
		.map((line) => line.trim())
		.filter((line) => line.startsWith('at '));
	const end = lines.findIndex((line) => /\bexecuteBatch\b/.test(line));
	return end === -1 ? lines : lines.slice(0, end + 1);
}

/** Wraps both of n8n's HTTP helpers so each call records where it was made from. */
function captureStacks(context: IExecuteFunctions): CapturedCall[] {
	const captured: CapturedCall[] = [];
	const helpers = context.helpers as unknown as Record<
		string,
		(...args: unknown[]) => Promise<unknown>
	>;
	for (const helper of ['httpRequest', 'httpRequestWithAuthentication'] as const) {
		const original = helpers[helper];
		helpers[helper] = async function (this: unknown, ...args: unknown[]) {
			const options = (helper === 'httpRequest' ? args[0] : args[1]) as {
				method?: string;
				url: string;
			};
			captured.push({
				helper,
				method: options.method ?? 'GET',
				path: new URL(options.url).pathname,
				frames: framesToExecuteBatch(new Error('stack').stack ?? ''),
			});
			return await original.apply(this, args);
		};
	}
	return captured;
}

async function runCapturing(
	parameters: Record<string, unknown>,
	file: { size: number; name: string },
): Promise<CapturedCall[]> {
	const audio = rig.audioFile(file.name, file.size);
	const context = rig.context(parameters, {
		items: [item({ data: rig.storedBinary(audio, 'audio/wav') })],
	});
	const captured = captureStacks(context);
	const limit = Error.stackTraceLimit;
	Error.stackTraceLimit = 100;
	try {
		await rig.node.execute.call(context);
	} finally {
		Error.stackTraceLimit = limit;
	}
	return captured;
}

function report(title: string, calls: CapturedCall[]): void {
	const lines = calls.map(
		(call) =>
			`${call.method} ${call.path} (${call.helper}): ${packageFrames(call).length} frames of the package (${transportFrames(call).length} in transport/), ${call.frames.length} in all\n    ${call.frames.join('\n    ')}`,
	);
	process.stdout.write(`\n${title}\n${lines.join('\n')}\n`);
}

function expectWithinBounds(calls: CapturedCall[]): void {
	for (const call of calls) {
		expect(call.frames.at(-1)).toMatch(/\bexecuteBatch\b/);
		expect(transportFrames(call).length).toBeLessThanOrEqual(MAX_TRANSPORT_FRAMES);
		expect(packageFrames(call).length).toBeLessThanOrEqual(MAX_FRAMES);
	}
}

describe("Upload Audio: frames from executeBatch to n8n's HTTP helper", () => {
	test(`a transaction upload: at most ${MAX_TRANSPORT_FRAMES} frames in transport/, every call (file uploads too) at most ${MAX_FRAMES} from executeBatch`, async () => {
		const calls = await runCapturing(uploadParameters({ transactionId: 'frames-transaction-1' }), {
			name: 'visit.wav',
			size: 40_000,
		});
		report('Upload Audio, Upload Method "Transaction"', calls);
		expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual([
			'GET /voice/api/v3/status/frames-transaction-1',
			'POST /v1/file-upload',
			expect.stringMatching(/^POST \//),
			'POST /voice/api/v2/transaction/init/frames-transaction-1',
		]);
		expectWithinBounds(calls);
	});

	test(`a session upload: at most ${MAX_TRANSPORT_FRAMES} frames in transport/, every call (file uploads too) at most ${MAX_FRAMES} from executeBatch`, async () => {
		const calls = await runCapturing(
			uploadParameters({ transactionId: 'frames-session-00001', uploadMethod: 'session' }),
			{
				name: 'visit.wav',
				size: 40_000,
			},
		);
		report('Upload Audio, Upload Method "Session"', calls);
		expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual([
			'POST /voice/v1/sessions',
			'POST /voice/v1/sessions/frames-session-00001/audio/audio_0.wav',
			'POST /voice/v1/sessions/frames-session-00001/end',
		]);
		expectWithinBounds(calls);
	});
});
