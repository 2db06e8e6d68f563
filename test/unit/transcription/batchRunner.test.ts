/**
 * Upload Audio's batch runner (uploadAudio/batchRunner.ts) on its own, with flows the test drives:
 * several uploads at once and never more than the policy, each with its method's flow, the halt on
 * the first failure (or the daily quota's answer under Continue On Fail), which failure was known
 * first, the files of an upload through the run's gate, the stop note, the run's own IDs and what
 * output items say. The flows wait on promises the test settles, so every step happens when the
 * test says and nothing depends on how fast the machine is. The same rules over real HTTP, with the
 * real flows: test/integration/transcription/uploadAudio.test.ts, uploadAudio.session.test.ts and
 * test/integration/attack/transactions.test.ts.
 */
import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
} from 'n8n-workflow';

import {
	errorItems,
	fileFields,
	notSentForQuotaError,
	ownUploadIds,
	pairedItems,
	fileUploads,
	receiptItems,
	startUploads,
	stopNote,
	UploadHalted,
	withBatchNote,
	type BatchResult,
	type BatchRun,
	type UploadFlow,
	type UploadOutcome,
	type UploadProgress,
} from '../../../nodes/ClinicScribe/actions/transcription/uploadAudio/batchRunner';
import type { PlannedFile } from '../../../nodes/ClinicScribe/actions/transcription/uploadAudio/files';
import type { UploadPlan } from '../../../nodes/ClinicScribe/actions/transcription/uploadAudio/plan';
import {
	UNREAD_SETTINGS,
	type UploadMethod,
} from '../../../nodes/ClinicScribe/actions/transcription/uploadAudio/settings';
import { DailyQuotaError } from '../../../nodes/ClinicScribe/transport/errors';
import { useTestTransportPolicy } from '../../support/transportPolicy';

const NODE: INode = {
	id: 'batch-runner-test',
	name: 'Clinic Scribe',
	type: 'n8n-nodes-clinic-scribe.clinicScribe',
	typeVersion: 2,
	position: [0, 0],
	parameters: {},
};

/** What the runner reads of n8n's context: the node, the execution data of the node, the run index. */
function context(
	options: { runIndex?: number; executionData?: IDataObject; noExecutionData?: boolean } = {},
): IExecuteFunctions {
	const executionData = options.executionData ?? {};
	return {
		getNode: () => NODE,
		getContext: () => {
			if (options.noExecutionData) throw new Error('no execution data in this context');
			return executionData;
		},
		getWorkflowDataProxy: () => ({ $runIndex: options.runIndex ?? 0 }),
	} as unknown as IExecuteFunctions;
}

function file(itemIndex: number, name: string): PlannedFile {
	return {
		fileName: name,
		label: `the file in binary field "data" of item ${itemIndex}`,
		contentType: 'audio/mpeg',
		size: 1024,
		open: async () => await Promise.resolve(Buffer.alloc(1024)),
		itemIndex,
		binaryProperty: 'data',
		originalFileName: `patient-${itemIndex}.mp3`,
	};
}

/** One upload of the given items, one file per item unless `files` says how many. */
function plan(
	id: string,
	itemIndexes: number[],
	method: UploadMethod = 'transaction',
	files?: number,
): UploadPlan {
	const planned =
		files === undefined
			? itemIndexes.map((item) => file(item, `${id}-${item}.mp3`))
			: Array.from({ length: files }, (_, n) => file(itemIndexes[0], `${id}-${n}.mp3`));
	return {
		id,
		generatedId: false,
		itemIndexes,
		files: planned,
		settings: { ...UNREAD_SETTINGS, uploadMethod: method },
	};
}

interface Deferred<T> {
	promise: Promise<T>;
	resolve(value: T): void;
	reject(error: unknown): void;
}

function deferred<T = void>(): Deferred<T> {
	let resolve!: (value: T) => void;
	let reject!: (error: unknown) => void;
	const promise = new Promise<T>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return { promise, resolve, reject };
}

/** Lets every promise callback that is ready run (one turn of the event loop), without a timer. */
async function settle(): Promise<void> {
	await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Flows the test drives: each upload's step is a function of the test (by the upload's id), called
 * with the run and the upload's progress. Records which flow ran which upload, and how many ran at once.
 */
function drivenFlows(
	steps: Record<
		string,
		(run: BatchRun, progress: UploadProgress, plan: UploadPlan) => Promise<IDataObject[]>
	>,
) {
	const begun: Array<{ id: string; flow: UploadMethod }> = [];
	let inFlight = 0;
	let mostAtOnce = 0;
	const flow =
		(method: UploadMethod): UploadFlow =>
		async (_ctx, uploadPlan, run, progress) => {
			begun.push({ id: uploadPlan.id, flow: method });
			inFlight++;
			mostAtOnce = Math.max(mostAtOnce, inFlight);
			try {
				return await steps[uploadPlan.id](run, progress, uploadPlan);
			} finally {
				inFlight--;
			}
		};
	return {
		flows: { transaction: flow('transaction'), session: flow('session') },
		begun,
		inFlight: () => inFlight,
		mostAtOnce: () => mostAtOnce,
	};
}

/** The runner as executeBatch drives it: start the uploads, await every worker, read the result. */
async function sendUploads(
	ctx: IExecuteFunctions,
	plans: UploadPlan[],
	continueOnFail: boolean,
	flows: Record<UploadMethod, UploadFlow>,
): Promise<BatchResult> {
	const batch = startUploads(ctx, plans, continueOnFail, flows);
	await Promise.all(batch.workers);
	return batch.result();
}

const outcomeKinds = (result: BatchResult, plans: UploadPlan[]) =>
	plans.map((p) => result.outcomes.get(p)?.kind ?? 'none');

describe('startUploads: several uploads at once', () => {
	test('at most uploadConcurrency uploads in flight, begun in input order, each with the flow of its Upload Method', async () => {
		useTestTransportPolicy({ uploadConcurrency: 2 });
		const plans = [
			plan('a', [0]),
			plan('b', [1], 'session'),
			plan('c', [2]),
			plan('d', [3], 'session'),
		];
		const ends = Object.fromEntries(plans.map((p) => [p.id, deferred()]));
		const driven = drivenFlows(
			Object.fromEntries(
				plans.map((p) => [
					p.id,
					async () => {
						await ends[p.id].promise;
						return [{ receipt: p.id }];
					},
				]),
			),
		);
		const running = sendUploads(context(), plans, false, driven.flows);
		await settle();
		expect(driven.begun).toEqual([
			{ id: 'a', flow: 'transaction' },
			{ id: 'b', flow: 'session' },
		]);

		ends.b.resolve();
		await settle();
		expect(driven.begun.map((entry) => entry.id)).toEqual(['a', 'b', 'c']);
		expect(driven.inFlight()).toBe(2);

		ends.a.resolve();
		ends.c.resolve();
		await settle();
		expect(driven.begun).toContainEqual({ id: 'd', flow: 'session' });
		ends.d.resolve();

		const result = await running;
		expect(driven.mostAtOnce()).toBe(2);
		expect(plans.map((p) => result.outcomes.get(p))).toEqual(
			plans.map((p) => ({ kind: 'started', receipts: [{ receipt: p.id }] })),
		);
		expect(result.firstFailure).toBeUndefined();
	});

	test('with no uploads it sends nothing and reports no failure', async () => {
		const driven = drivenFlows({});
		const result = await sendUploads(context(), [], false, driven.flows);
		expect(result.outcomes.size).toBe(0);
		expect(result.firstFailure).toBeUndefined();
		expect(driven.begun).toEqual([]);
	});
});

describe('startUploads: the halt and the first failure', () => {
	test('without Continue On Fail the first failure halts the run: an upload in flight stops before its next request, none begins after it', async () => {
		useTestTransportPolicy({ uploadConcurrency: 2 });
		const plans = [plan('a', [0]), plan('b', [1, 2]), plan('c', [3])];
		const aMayGoOn = deferred();
		let run: BatchRun | undefined;
		const driven = drivenFlows({
			a: async (batchRun, progress) => {
				run = batchRun;
				progress.uploadsSent = 1;
				await aMayGoOn.promise;
				batchRun.throwIfHalted();
				return [{ receipt: 'a' }];
			},
			b: async () => {
				await settle();
				throw new Error('presign refused');
			},
			c: async () => [{ receipt: 'c' }],
		});
		const running = sendUploads(context(), plans, false, driven.flows);
		await settle();
		await settle();
		const haltedWhenBFailed = run?.halted();
		aMayGoOn.resolve();
		const result = await running;

		expect(haltedWhenBFailed).toBe(true);
		expect(driven.begun.map((entry) => entry.id)).toEqual(['a', 'b']);
		expect(result.outcomes.get(plans[0])).toEqual({ kind: 'halted', uploadsSent: 1 });
		expect(outcomeKinds(result, plans)).toEqual(['halted', 'failed', 'none']);
		expect(result.firstFailure?.plan).toBe(plans[1]);
		// Not an n8n error yet: made one, for the upload's first item.
		expect(result.firstFailure?.error).toBeInstanceOf(NodeOperationError);
		expect(result.firstFailure?.error.message).toBe('presign refused');
		expect(result.firstFailure?.error.context.itemIndex).toBe(1);
	});

	test('the failure reported is the one known first, not the first in input order; an upload whose start request was sent finishes', async () => {
		useTestTransportPolicy({ uploadConcurrency: 3 });
		const plans = [plan('a', [0]), plan('b', [1]), plan('c', [2])];
		const aAnswer = deferred<IDataObject[]>();
		const cAnswer = deferred<IDataObject[]>();
		const driven = drivenFlows({
			// a's and c's start requests are out: they finish whatever happens meanwhile.
			a: async (_run, progress) => {
				progress.startRequestSent = true;
				return await aAnswer.promise;
			},
			b: async () => {
				throw new NodeApiError(NODE, {}, { message: 'storage refused the file', httpCode: '403' });
			},
			c: async (_run, progress) => {
				progress.startRequestSent = true;
				return await cAnswer.promise;
			},
		});
		const running = sendUploads(context(), plans, false, driven.flows);
		await settle();
		aAnswer.reject(new NodeApiError(NODE, {}, { message: 'init got no answer', httpCode: '504' }));
		cAnswer.resolve([{ receipt: 'c' }]);
		const result = await running;

		expect(result.firstFailure?.plan).toBe(plans[1]);
		expect(result.firstFailure?.error.message).toBe('storage refused the file');
		const a = result.outcomes.get(plans[0]) as Extract<UploadOutcome, { kind: 'failed' }>;
		expect([a.kind, a.startRequestSent, a.error.message]).toEqual([
			'failed',
			true,
			'init got no answer',
		]);
		expect(result.outcomes.get(plans[2])).toEqual({
			kind: 'started',
			receipts: [{ receipt: 'c' }],
		});
	});

	test('with Continue On Fail a failed upload does not stop the others', async () => {
		useTestTransportPolicy({ uploadConcurrency: 1 });
		const plans = [plan('a', [0]), plan('b', [1]), plan('c', [2])];
		const driven = drivenFlows({
			a: async () => [{ receipt: 'a' }],
			b: async () => {
				throw new NodeApiError(NODE, {}, { message: 'init refused', httpCode: '422' });
			},
			c: async () => [{ receipt: 'c' }],
		});
		const result = await sendUploads(context(), plans, true, driven.flows);

		expect(driven.begun.map((entry) => entry.id)).toEqual(['a', 'b', 'c']);
		expect(outcomeKinds(result, plans)).toEqual(['started', 'failed', 'started']);
		expect(result.firstFailure?.plan).toBe(plans[1]);
	});

	test("with Continue On Fail the daily quota's answer halts the run: nothing more begins, an upload in flight stops before its next request", async () => {
		useTestTransportPolicy({ uploadConcurrency: 2 });
		const plans = [plan('a', [0]), plan('b', [1]), plan('c', [2])];
		const aMayGoOn = deferred();
		const driven = drivenFlows({
			a: async (run) => {
				await aMayGoOn.promise;
				run.throwIfHalted();
				return [{ receipt: 'a' }];
			},
			b: async () => {
				throw new DailyQuotaError(context().getNode(), { transaction: 'b' }, 'beforeUpload', 1);
			},
			c: async () => [{ receipt: 'c' }],
		});
		const running = sendUploads(context(), plans, true, driven.flows);
		await settle();
		aMayGoOn.resolve();
		const result = await running;

		expect(driven.begun.map((entry) => entry.id)).toEqual(['a', 'b']);
		expect(outcomeKinds(result, plans)).toEqual(['halted', 'failed', 'none']);
		expect(result.firstFailure?.error.message).toContain('daily transcription quota');
	});

	test('an upload that stops itself (UploadHalted) while the run goes on is no failure', async () => {
		useTestTransportPolicy({ uploadConcurrency: 1 });
		const plans = [plan('a', [0]), plan('b', [1])];
		const driven = drivenFlows({
			a: async (_run, progress) => {
				progress.uploadsSent = 2;
				throw new UploadHalted();
			},
			b: async (run) => {
				expect(run.halted()).toBe(false);
				return [{ receipt: 'b' }];
			},
		});
		const result = await sendUploads(context(), plans, false, driven.flows);

		expect(result.outcomes.get(plans[0])).toEqual({ kind: 'halted', uploadsSent: 2 });
		expect(outcomeKinds(result, plans)).toEqual(['halted', 'started']);
		expect(result.firstFailure).toBeUndefined();
	});
});

describe("fileUploads: the files of one upload, through the run's gate", () => {
	/** A flow step that sends the upload's files with `send` as the flows do, and returns what came of it. */
	const sendFiles =
		(send: (f: PlannedFile) => Promise<string>) =>
		async (
			run: BatchRun,
			progress: UploadProgress,
			uploadPlan: UploadPlan,
		): Promise<IDataObject[]> => {
			const uploads = fileUploads(run, uploadPlan, progress);
			const answers = uploads.answers(
				await Promise.all(uploadPlan.files.map((f) => uploads.send(() => send(f)))),
			);
			return [{ answers, uploadsSent: progress.uploadsSent }];
		};

	test("never more files in flight than the gate lets through, across the run's uploads; the answers in file order", async () => {
		useTestTransportPolicy({ uploadConcurrency: 2 });
		const plans = [plan('a', [0], 'transaction', 3), plan('b', [1], 'session', 3)];
		const ends = new Map<string, Deferred<string>>(
			plans.flatMap((p) => p.files.map((f) => [f.fileName, deferred<string>()])),
		);
		const sent: string[] = [];
		let filesInFlight = 0;
		let mostFilesAtOnce = 0;
		const send = async (f: PlannedFile) => {
			sent.push(f.fileName);
			filesInFlight++;
			mostFilesAtOnce = Math.max(mostFilesAtOnce, filesInFlight);
			try {
				return await ends.get(f.fileName)!.promise;
			} finally {
				filesInFlight--;
			}
		};
		const driven = drivenFlows({ a: sendFiles(send), b: sendFiles(send) });
		const running = sendUploads(context(), plans, false, driven.flows);
		await settle();
		expect(sent).toEqual(['a-0.mp3', 'a-1.mp3']);

		// Answered last file first: the answers still come in file order.
		for (const name of ['a-1.mp3', 'a-0.mp3', 'b-0.mp3', 'a-2.mp3', 'b-2.mp3', 'b-1.mp3']) {
			for (let turn = 0; turn < 20 && !sent.includes(name); turn++) await settle();
			ends.get(name)!.resolve(`stored ${name}`);
			await settle();
		}
		const result = await running;

		expect(mostFilesAtOnce).toBe(2);
		expect(sent.sort()).toEqual(['a-0.mp3', 'a-1.mp3', 'a-2.mp3', 'b-0.mp3', 'b-1.mp3', 'b-2.mp3']);
		expect(result.outcomes.get(plans[0])).toEqual({
			kind: 'started',
			receipts: [
				{ answers: ['stored a-0.mp3', 'stored a-1.mp3', 'stored a-2.mp3'], uploadsSent: 3 },
			],
		});
		expect(result.outcomes.get(plans[1])).toEqual({
			kind: 'started',
			receipts: [
				{ answers: ['stored b-0.mp3', 'stored b-1.mp3', 'stored b-2.mp3'], uploadsSent: 3 },
			],
		});
	});

	test('a file that fails: the run hears of it at once, the files not begun are not sent, and its error is thrown once the begun ones ended', async () => {
		useTestTransportPolicy({ uploadConcurrency: 2 });
		const plans = [plan('a', [0], 'transaction', 4)];
		const first = deferred<string>();
		const sent: string[] = [];
		let run: BatchRun | undefined;
		const send = async (f: PlannedFile) => {
			sent.push(f.fileName);
			if (f.fileName === 'a-0.mp3') return await first.promise;
			throw new NodeApiError(
				NODE,
				{},
				{ message: `storage failed for ${f.fileName}`, httpCode: '500' },
			);
		};
		const driven = drivenFlows({
			a: async (batchRun, progress, uploadPlan) => {
				run = batchRun;
				return await sendFiles(send)(batchRun, progress, uploadPlan);
			},
		});
		const running = sendUploads(context(), plans, false, driven.flows);
		await settle();
		const haltedWhileFirstFileInFlight = run?.halted();
		first.resolve('stored a-0.mp3');
		const result = await running;

		expect(haltedWhileFirstFileInFlight).toBe(true);
		expect(sent).toEqual(['a-0.mp3', 'a-1.mp3']);
		expect(result.firstFailure?.error.message).toBe('storage failed for a-1.mp3');
		expect(result.outcomes.get(plans[0])).toMatchObject({
			kind: 'failed',
			startRequestSent: false,
		});
	});

	test('with Continue On Fail a failed file still stops the files of its own upload, not the run', async () => {
		useTestTransportPolicy({ uploadConcurrency: 1 });
		const plans = [plan('a', [0], 'transaction', 3), plan('b', [1], 'transaction', 1)];
		const sent: string[] = [];
		const send = async (f: PlannedFile) => {
			sent.push(f.fileName);
			if (f.fileName === 'a-0.mp3')
				throw new NodeApiError(NODE, {}, { message: 'storage failed', httpCode: '500' });
			return await Promise.resolve(`stored ${f.fileName}`);
		};
		const driven = drivenFlows({ a: sendFiles(send), b: sendFiles(send) });
		const result = await sendUploads(context(), plans, true, driven.flows);

		expect(sent).toEqual(['a-0.mp3', 'b-0.mp3']);
		expect(outcomeKinds(result, plans)).toEqual(['failed', 'started']);
	});

	test('a file whose send stops itself (UploadHalted) is no failure the run hears of: the next upload still begins', async () => {
		useTestTransportPolicy({ uploadConcurrency: 1 });
		const plans = [plan('a', [0], 'transaction', 1), plan('b', [1], 'transaction', 1)];
		const send = async (f: PlannedFile) => {
			if (f.fileName === 'a-0.mp3') throw new UploadHalted();
			return await Promise.resolve(`stored ${f.fileName}`);
		};
		const driven = drivenFlows({ a: sendFiles(send), b: sendFiles(send) });
		const result = await sendUploads(context(), plans, false, driven.flows);

		expect(driven.begun.map((entry) => entry.id)).toEqual(['a', 'b']);
		expect(result.outcomes.get(plans[0])).toEqual({ kind: 'halted', uploadsSent: 1 });
		expect(outcomeKinds(result, plans)).toEqual(['halted', 'started']);
		expect(result.firstFailure).toBeUndefined();
	});

	test('files not begun because another upload halted the run: UploadHalted, with the files already sent counted', async () => {
		useTestTransportPolicy({ uploadConcurrency: 2 });
		const plans = [plan('a', [0], 'transaction', 3), plan('b', [1])];
		const ends = [deferred<string>(), deferred<string>()];
		const sent: string[] = [];
		const send = async (f: PlannedFile) => {
			sent.push(f.fileName);
			return await ends[sent.length - 1].promise;
		};
		const driven = drivenFlows({
			a: sendFiles(send),
			b: async () => {
				throw new NodeOperationError(NODE, 'session create refused', { itemIndex: 1 });
			},
		});
		const running = sendUploads(context(), plans, false, driven.flows);
		await settle();
		ends[0].resolve('stored a-0.mp3');
		ends[1].resolve('stored a-1.mp3');
		const result = await running;

		expect(sent).toEqual(['a-0.mp3', 'a-1.mp3']);
		expect(result.outcomes.get(plans[0])).toEqual({ kind: 'halted', uploadsSent: 2 });
		expect(result.firstFailure?.plan).toBe(plans[1]);
	});
});

describe('stopNote: what a stopped run leaves behind', () => {
	const failed = (
		error: NodeApiError | NodeOperationError,
		startRequestSent: boolean,
	): UploadOutcome => ({ kind: 'failed', error, startRequestSent });
	const apiError = (message: string, httpCode: string) =>
		new NodeApiError(NODE, {}, { message, httpCode });

	test('every upload but the one that failed first: started, possibly started, also failed, not sent', () => {
		const plans = [
			plan('v1', [0, 1]),
			plan('v2', [2]),
			plan('v3', [3]),
			plan('v4', [4]),
			plan('v5', [5]),
			plan('v6', [6]),
			plan('v7', [7]),
		];
		const outcomes = new Map<UploadPlan, UploadOutcome>([
			[plans[0], { kind: 'started', receipts: [] }],
			// The first failure: its own error says what happened to it.
			[plans[1], failed(apiError('storage refused', '403'), false)],
			// Start request sent, no clear answer: it may be running.
			[plans[2], failed(apiError('init timed out', '504'), true)],
			// Start request sent and refused (a 4xx, or the node's own check): nothing was started.
			[plans[3], failed(apiError('init refused', '409'), true)],
			[plans[4], failed(new NodeOperationError(NODE, 'session is expired'), true)],
			[plans[5], { kind: 'halted', uploadsSent: 1 }],
			// plans[6]: never begun.
		]);

		expect(stopNote(plans, outcomes, plans[1])).toBe(
			'Nothing more was sent after this failure. ' +
				'Already started in this run (running, and counted): "v1" (items 0, 1). Get their results with Get Results; do not upload those recordings again, or they are transcribed twice (n8n\'s Retry On Fail does not start them again). ' +
				'Possibly started (the start request got no clear answer): "v3" (item 3). Check with Get Results before sending it again. ' +
				'Also failed, not started: "v4" (item 4): init refused; "v5" (item 5): session is expired. ' +
				'Not sent: "v6" (item 6), "v7" (item 7).',
		);
	});

	test('a first failure whose start request got no clear answer is itself named as possibly started', () => {
		const plans = [plan('v1', [0]), plan('v2', [1])];
		const outcomes = new Map<UploadPlan, UploadOutcome>([
			[plans[0], failed(apiError('init got no answer', '502'), true)],
		]);
		expect(stopNote(plans, outcomes, plans[0])).toBe(
			'Nothing more was sent after this failure. Possibly started (the start request got no clear answer): "v1" (item 0). Check with Get Results before sending it again. Not sent: "v2" (item 1).',
		);
	});

	test('a run of one upload: only that nothing more was sent', () => {
		const plans = [plan('v1', [0])];
		const outcomes = new Map<UploadPlan, UploadOutcome>([
			[plans[0], failed(apiError('presign refused', '400'), false)],
		]);
		expect(stopNote(plans, outcomes, plans[0])).toBe('Nothing more was sent after this failure.');
	});
});

describe('the errors of a batch', () => {
	test("notSentForQuotaError: the upload the quota's answer kept from being sent, and what of it is in storage", () => {
		const nothingSent = notSentForQuotaError(context(), plan('v9', [4, 5]), 0);
		expect(nothingSent.message).toBe(
			'Transaction "v9" of items 4, 5 was not sent: the workspace\'s daily transcription quota was used up earlier in this run (txn_limit_exceeded)',
		);
		expect(nothingSent.description).toBe(
			'Nothing of it was uploaded. Send it again tomorrow (the quota resets daily), or ask the API provider to raise the limit.',
		);
		expect(nothingSent.context.itemIndex).toBe(4);

		const someSent = notSentForQuotaError(context(), plan('v9', [4]), 2);
		expect(someSent.description).toBe(
			'Its transcription was not requested (files already in storage start nothing). Send it again tomorrow (the quota resets daily), or ask the API provider to raise the limit.',
		);
	});

	test("withBatchNote: the note follows the error's own description, or is the description", () => {
		const described = new NodeOperationError(NODE, 'init refused', {
			description: 'The API refused the template.',
		});
		expect(withBatchNote(described, 'Not sent: "v2" (item 1).').description).toBe(
			'The API refused the template. Not sent: "v2" (item 1).',
		);
		const bare = new NodeOperationError(NODE, 'init refused');
		expect(withBatchNote(bare, 'Not sent: "v2" (item 1).').description).toBe(
			'Not sent: "v2" (item 1).',
		);
	});
});

describe("ownUploadIds: the IDs this node run sent a start for, in the execution's data", () => {
	test("a retry of the same run (n8n's Retry On Fail) sees them; another run of the node does not", () => {
		const executionData: IDataObject = {};
		const firstTry = ownUploadIds(context({ executionData, runIndex: 0 }));
		firstTry.add('visit-1');
		firstTry.add('visit-1');
		firstTry.add('visit-2');

		const retry = ownUploadIds(context({ executionData, runIndex: 0 }));
		expect([retry.has('visit-1'), retry.has('visit-2'), retry.has('visit-3')]).toEqual([
			true,
			true,
			false,
		]);
		retry.forget('visit-1');
		expect(ownUploadIds(context({ executionData, runIndex: 0 })).has('visit-1')).toBe(false);

		expect(ownUploadIds(context({ executionData, runIndex: 1 })).has('visit-2')).toBe(false);
		expect(executionData).toEqual({ clinicScribeInitSent: { '0': ['visit-2'] } });
	});

	test('without execution data they are remembered for this run only', () => {
		const ids = ownUploadIds(context({ noExecutionData: true }));
		ids.add('visit-1');
		expect(ids.has('visit-1')).toBe(true);
		expect(ownUploadIds(context({ noExecutionData: true })).has('visit-1')).toBe(false);
	});

	test("the runner hands each flow the run's own IDs from the execution data", async () => {
		const executionData: IDataObject = { clinicScribeInitSent: { '0': ['visit-1'] } };
		let seen: boolean | undefined;
		const driven = drivenFlows({
			'visit-1': async (run) => {
				seen = run.ownIds.has('visit-1');
				return [];
			},
		});
		await sendUploads(context({ executionData }), [plan('visit-1', [0])], false, driven.flows);
		expect(seen).toBe(true);
	});
});

describe('what output items say of an upload', () => {
	const transaction = plan('visit-7', [2, 5]);
	const session = plan('sess_0123456789abcdef', [1], 'session');

	test('fileFields: the ID under the name Get Results and the trigger know it by, the flow, and the file', () => {
		expect(fileFields(transaction, transaction.files[1])).toEqual({
			transaction_id: 'visit-7',
			upload_method: 'transaction',
			file_name: 'visit-7-5.mp3',
			original_file_name: 'patient-5.mp3',
			binary_property: 'data',
			file_size: 1024,
			content_type: 'audio/mpeg',
		});
		expect(fileFields(session, session.files[0])).toMatchObject({
			session_id: 'sess_0123456789abcdef',
			upload_method: 'session',
		});
		expect(fileFields(session, session.files[0])).not.toHaveProperty('transaction_id');
	});

	test('receiptItems: one item per file receipt, paired to the item the file came from', () => {
		expect(receiptItems(transaction, [{ n: 1 }, { n: 2 }])).toEqual([
			{ order: 2, data: { json: { n: 1 }, pairedItem: { item: 2 } } },
			{ order: 5, data: { json: { n: 2 }, pairedItem: { item: 5 } } },
		]);
	});

	test('errorItems: one error item per input item of the failed upload, with its ID', () => {
		const error = new NodeApiError(
			NODE,
			{},
			{ message: 'init refused', description: 'Try another template.', httpCode: '422' },
		);
		expect(errorItems(transaction, error)).toEqual([
			{
				order: 2,
				data: {
					json: {
						error: 'init refused',
						description: 'Try another template.',
						httpCode: '422',
						transaction_id: 'visit-7',
						upload_method: 'transaction',
					},
					pairedItem: { item: 2 },
				},
			},
			{
				order: 5,
				data: {
					json: {
						error: 'init refused',
						description: 'Try another template.',
						httpCode: '422',
						transaction_id: 'visit-7',
						upload_method: 'transaction',
					},
					pairedItem: { item: 5 },
				},
			},
		]);
	});

	test('pairedItems: every input item of the upload', () => {
		expect(pairedItems(transaction)).toEqual([{ item: 2 }, { item: 5 }]);
	});
});
