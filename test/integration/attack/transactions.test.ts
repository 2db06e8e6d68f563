/**
 * Attack-and-fault suite, "Transactions and batches" (test/integration/attack/TABLE.md): Upload Audio
 * over real HTTP against the fake API. Every row asserts its figures and then records them:
 *
 * - items lost: input items without their own output (Continue On Fail), or, when the node stops
 *   with an error, input items the error does not account for (failed, started or not sent);
 * - duplicate inits: transcriptions started more than once for one recording, counted by the fake
 *   (per transaction: inits that started it; per recording: started transactions holding its bytes);
 * - requests for bad input: requests the fake received for input the node must refuse.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { PRODUCTION_POLICY } from '../../../nodes/ClinicScribe/transport/retryPolicy';
import { useTestTransportPolicy } from '../../support/transportPolicy';
import { STORAGE_PATH } from '../../fake-api/routes/transcription';
import { recordAttack } from '../../support/attackLedger';
import { item, TranscriptionRig, uploadParameters } from '../../support/transcriptionRig';

const rig = new TranscriptionRig();
const PRESIGN = '/v1/file-upload';
const INIT = '/voice/api/v2/transaction/init/';
const STATUS = '/voice/api/v3/status/';

beforeAll(async () => {
	await rig.start();
	useTestTransportPolicy({
		retry: { baseDelayMs: 10, maxDelayMs: 50 },
		storageRetry: { baseDelayMs: 10, maxDelayMs: 50 },
		timeouts: { presignMs: 400, initMs: 400 },
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

/** Items of one file each, with their Transaction IDs ('' = generated). */
function recordings(count: number) {
	const files = Array.from({ length: count }, (_, i) => rig.audioFile(`visit-${i}.wav`, 2000 + i));
	return { files, items: files.map((file) => item({ data: rig.storedBinary(file) })) };
}

/** Paid transcriptions started more than once: per transaction, and per recording across transactions. */
function duplicateInits(): number {
	const started = rig.fake.transactions().filter((txn) => txn.initsStarted > 0);
	const perTransaction = started.reduce((sum, txn) => sum + txn.initsStarted - 1, 0);
	const perRecording = new Map<string, number>();
	for (const txn of started) {
		for (const sha of new Set(txn.uploads.map((upload) => upload.sha256)))
			perRecording.set(sha, (perRecording.get(sha) ?? 0) + 1);
	}
	return (
		perTransaction + [...perRecording.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0)
	);
}

/** Input items with no output item paired to them. */
function itemsLostIn(output: INodeExecutionData[], inputCount: number): number {
	const paired = new Set(
		output
			.flatMap((o) => (Array.isArray(o.pairedItem) ? o.pairedItem : [o.pairedItem]))
			.map((p) => (p as { item: number }).item),
	);
	return Array.from({ length: inputCount }, (_, i) => i).filter((i) => !paired.has(i)).length;
}

/** Input items (by their transaction id) the stop error does not name. */
function itemsLostInError(
	error: { message: string; description?: string | null },
	txnIds: string[],
): number {
	const text = `${error.message} ${error.description ?? ''}`;
	return txnIds.filter((id) => !text.includes(`"${id}"`)).length;
}

async function runCaught(
	parameters: Record<string, unknown>,
	options: Parameters<TranscriptionRig['run']>[1],
) {
	try {
		return { output: await rig.run(parameters, options), error: undefined };
	} catch (error) {
		return { output: undefined, error: error as { message: string; description?: string | null } };
	}
}

describe("reused Transaction ID (a clinic never gets another visit's notes)", () => {
	test("txn-reused-id: a second recording with a used Transaction ID fails before upload; none of the other visit's notes come out", async () => {
		const first = recordings(1);
		await rig.run(uploadParameters({ transactionId: 'visit-42' }), { items: first.items });
		const storageBefore = rig.api.requestsTo(STORAGE_PATH, 'POST').length;

		const second = recordings(1);
		const output = await rig.run(
			uploadParameters({
				transactionId: 'visit-42',
				waitForCompletion: true,
				pollIntervalSeconds: 0.05,
			}),
			{
				items: second.items,
				continueOnFail: true,
			},
		);
		expect(output).toHaveLength(1);
		expect(output[0].json.error).toBe(
			'The Transaction ID "visit-42" of item 0 was already used: a transcription with this ID was started before',
		);
		expect(output[0].json.documents).toBeUndefined();
		const documentsOfOtherVisit = output.filter((o) => o.json.documents !== undefined).length;
		expect(documentsOfOtherVisit).toBe(0);
		expect(rig.api.requestsTo(STORAGE_PATH, 'POST').length - storageBefore).toBe(0);
		expect(rig.api.requestsTo(PRESIGN, 'POST')).toHaveLength(1);
		expect(rig.fake.transaction('visit-42')).toMatchObject({ initAttempts: 1, initsStarted: 1 });
		const figures = { itemsLost: itemsLostIn(output, 1), duplicateInits: duplicateInits() };
		expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
		recordAttack(
			'txn-reused-id',
			'refused before upload (status check): "already used", 0 documents of the other visit',
			figures,
		);
	});

	test('txn-reused-id-init-409: when only the init tells (409 on its first attempt), the item fails and says the files were not transcribed', async () => {
		await rig.run(uploadParameters({ transactionId: 'visit-43' }), { items: recordings(1).items });
		// The check does not see it (another upload started it in between): the init's 409 is where it shows.
		rig.api.injectFault({
			method: 'GET',
			path: `${STATUS}visit-43`,
			fault: { kind: 'status', status: 404 },
		});
		const output = await rig.run(
			uploadParameters({
				transactionId: 'visit-43',
				waitForCompletion: true,
				pollIntervalSeconds: 0.05,
			}),
			{
				items: recordings(1).items,
				continueOnFail: true,
			},
		);
		expect(output).toHaveLength(1);
		expect(output[0].json).toMatchObject({
			error:
				'The Transaction ID "visit-43" of item 0 was already used: a transcription with this ID was started before',
			description: expect.stringMatching(
				/^The recordings of this item were uploaded but will NOT be transcribed\..*Get Results with session ID "visit-43"/,
			),
			httpCode: '409',
		});
		expect(output.filter((o) => o.json.documents !== undefined)).toHaveLength(0);
		expect(rig.fake.transaction('visit-43')).toMatchObject({ initAttempts: 2, initsStarted: 1 });
		const figures = { itemsLost: itemsLostIn(output, 1), duplicateInits: duplicateInits() };
		expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
		recordAttack(
			'txn-reused-id-init-409',
			'first-attempt 409 fails the item: "uploaded but NOT transcribed"',
			figures,
		);
	});
});

describe('init whose first outcome was unknown: the 409 of the repeat is our own init', () => {
	test.each([
		['txn-init-lost-500', 'status500' as const],
		['txn-init-lost-drop', 'drop' as const],
		['txn-init-lost-slow', 'slow' as const],
	])(
		'%s: init carried out, answer lost (%s); the repeat answers 409, read as success, one transcription',
		async (row, kind) => {
			rig.fake.loseInitAnswer({ txnId: 'visit-lost', kind, ms: 1_500 });
			const output = await rig.run(uploadParameters({ transactionId: 'visit-lost' }), {
				items: recordings(1).items,
				continueOnFail: true,
			});
			expect(output).toHaveLength(1);
			expect(output[0].json).toMatchObject({
				transaction_id: 'visit-lost',
				upload_status: 'uploaded',
				init: { status: 'already_started', http_status: 409 },
			});
			expect(rig.fake.transaction('visit-lost')).toMatchObject({
				initAttempts: 2,
				initsStarted: 1,
			});
			const figures = { itemsLost: itemsLostIn(output, 1), duplicateInits: duplicateInits() };
			expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
			recordAttack(
				row,
				`init answer lost (${kind}); repeat's 409 = own init, success; 2 init requests, 1 started`,
				figures,
			);
		},
	);
});

describe("n8n's Retry On Fail of the node (same execution, same run)", () => {
	/** First try: every init attempt fails; the last one was carried out but its answer was lost, so the node fails. */
	function failEveryInitAnswer(txnId?: string) {
		rig.api.injectFault({
			method: 'POST',
			path: INIT,
			times: PRODUCTION_POLICY.retry.attempts - 1,
			fault: { kind: 'status', status: 503 },
		});
		rig.fake.loseInitAnswer({ txnId, kind: 'status500' });
	}

	test('txn-retry-on-fail-generated: a generated Transaction ID is the same on the retry, which finds its transcription started and sends nothing again', async () => {
		const { items } = recordings(1);
		const execution = { executionId: 'exec-1001', runIndex: 0, executionContextData: {} };
		failEveryInitAnswer();
		const first = await runCaught(uploadParameters(), { items, ...execution });
		expect(first.error?.message).toMatch(
			/refused starting the transcription of transaction "n8n-[0-9a-f-]{36}" \(HTTP 500/,
		);
		expect(first.error?.description).toMatch(
			/Possibly started \(the start request got no clear answer\): "n8n-[0-9a-f-]{36}" \(item 0\)/,
		);
		const storageAfterFirst = rig.api.requestsTo(STORAGE_PATH, 'POST').length;

		const retry = await rig.run(uploadParameters(), { items, ...execution });
		expect(retry).toHaveLength(1);
		expect(retry[0].json).toMatchObject({
			upload_status: 'already_uploaded',
			init: { status: 'already_started' },
		});
		expect(rig.fake.transactions()).toHaveLength(1);
		expect(retry[0].json.transaction_id).toBe(rig.fake.transactions()[0].txnId);
		expect(rig.api.requestsTo(STORAGE_PATH, 'POST')).toHaveLength(storageAfterFirst);
		expect(rig.fake.transactions()[0]).toMatchObject({ initsStarted: 1, initAttempts: 1 });
		const figures = { itemsLost: itemsLostIn(retry, 1), duplicateInits: duplicateInits() };
		expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
		recordAttack(
			'txn-retry-on-fail-generated',
			'same generated id on the retry; found started, nothing re-sent; 1 transaction',
			figures,
		);
	});

	test('txn-retry-on-fail-given-id: a given Transaction ID whose init this node run sent is its own on the retry (kept in the execution context)', async () => {
		const { items } = recordings(1);
		const execution = { executionId: 'exec-1002', runIndex: 0, executionContextData: {} };
		failEveryInitAnswer('visit-77');
		const first = await runCaught(uploadParameters({ transactionId: 'visit-77' }), {
			items,
			...execution,
		});
		expect(first.error?.message).toMatch(/"visit-77" \(HTTP 500/);
		const retry = await rig.run(uploadParameters({ transactionId: 'visit-77' }), {
			items,
			...execution,
		});
		expect(retry[0].json).toMatchObject({
			transaction_id: 'visit-77',
			init: { status: 'already_started' },
		});
		// Another execution with the same id is a reuse, not a retry.
		const other = await runCaught(uploadParameters({ transactionId: 'visit-77' }), {
			items,
			executionId: 'exec-1003',
		});
		expect(other.error?.message).toBe(
			'The Transaction ID "visit-77" of item 0 was already used: a transcription with this ID was started before',
		);
		const figures = { itemsLost: itemsLostIn(retry, 1), duplicateInits: duplicateInits() };
		expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
		recordAttack(
			'txn-retry-on-fail-given-id',
			'retry of the same node run treats its own init as done; another execution is refused',
			figures,
		);
	});
});

describe('a failed batch loses nothing and duplicates nothing', () => {
	test('batch-stop-no-cof: without Continue On Fail the run stops at the first failure; the error names started, failed and unsent transactions', async () => {
		// One transaction at a time: the exact order rule (with several at once, see "several at once" below).
		restorePolicy = useTestTransportPolicy({ uploadConcurrency: 1 });
		const { items } = recordings(4);
		const txnIds = ['visit-a', 'visit-b', 'visit-c', 'visit-d'];
		rig.api.injectFault({
			method: 'POST',
			path: `${INIT}visit-b`,
			fault: { kind: 'status', status: 422 },
		});
		const { error } = await runCaught(
			uploadParameters({ transactionId: (i: number) => txnIds[i] }),
			{ items },
		);
		expect(error?.message).toMatch(
			/refused starting the transcription of transaction "visit-b" \(HTTP 422/,
		);
		expect(error?.description).toContain(
			'Already started in this run (running, and counted): "visit-a" (item 0).',
		);
		expect(error?.description).toContain('Not sent: "visit-c" (item 2), "visit-d" (item 3).');
		expect(rig.fake.transaction('visit-c')).toBeUndefined();
		expect(rig.fake.transaction('visit-d')).toBeUndefined();
		const figures = {
			itemsLost: itemsLostInError(error!, txnIds),
			duplicateInits: duplicateInits(),
		};
		expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
		recordAttack(
			'batch-stop-no-cof',
			'stops before the next transaction; error lists started, failed, not sent',
			figures,
		);
	});

	test('batch-cof-order: with Continue On Fail every item has its output, in input order', async () => {
		const { items } = recordings(4);
		const txnIds = ['visit-a', 'visit-b', 'visit-c', 'visit-b'];
		rig.api.injectFault({
			method: 'POST',
			path: `${INIT}visit-b`,
			fault: { kind: 'status', status: 422 },
		});
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
			['visit-a', 'ok', { item: 0 }],
			['visit-b', 'error', { item: 1 }],
			['visit-c', 'ok', { item: 2 }],
			['visit-b', 'error', { item: 3 }],
		]);
		const figures = { itemsLost: itemsLostIn(output, 4), duplicateInits: duplicateInits() };
		expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
		recordAttack(
			'batch-cof-order',
			'one output per item, in input order; the failed transaction gives error items',
			figures,
		);
	});

	test('batch-quota: the daily quota answer stops every further upload at once; later items say they were not sent', async () => {
		// One transaction at a time: the exact order rule (with several at once, see "several at once" below).
		restorePolicy = useTestTransportPolicy({ uploadConcurrency: 1 });
		rig.fake.setOptions({ dailyTransactionLimit: 1 });
		const { items } = recordings(4);
		const txnIds = ['visit-a', 'visit-b', 'visit-c', 'visit-d'];
		const output = await rig.run(uploadParameters({ transactionId: (i: number) => txnIds[i] }), {
			items,
			continueOnFail: true,
		});
		expect(output.map((o) => [o.json.transaction_id, o.pairedItem])).toEqual(
			txnIds.map((id, i) => [id, { item: i }]),
		);
		expect(output[0].json).toMatchObject({ init: { status: 'started' } });
		expect(output[1].json.error).toMatch(
			/daily transcription quota.*transaction "visit-b" was not started \(txn_limit_exceeded\)/,
		);
		expect(output[2].json.error).toBe(
			'Transaction "visit-c" of item 2 was not sent: the workspace\'s daily transcription quota was used up earlier in this run (txn_limit_exceeded)',
		);
		expect(output[3].json.error).toMatch(/^Transaction "visit-d" of item 3 was not sent/);
		const quotaAnswer = rig.api.requests.find((r) => r.pathname === `${INIT}visit-b`)!;
		const laterTranscriptionCalls = rig.api.requests.filter((r) => r.id > quotaAnswer.id);
		expect(laterTranscriptionCalls).toEqual([]);
		const figures = { itemsLost: itemsLostIn(output, 4), duplicateInits: duplicateInits() };
		expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
		recordAttack(
			'batch-quota',
			'no request at all after the quota answer; later items: "not sent (quota)"',
			figures,
		);
	});

	test('batch-quota-no-cof: without Continue On Fail the quota answer stops the run and the error lists what was started', async () => {
		// One transaction at a time: the exact order rule (with several at once, see "several at once" below).
		restorePolicy = useTestTransportPolicy({ uploadConcurrency: 1 });
		rig.fake.setOptions({ dailyTransactionLimit: 1 });
		const { items } = recordings(3);
		const txnIds = ['visit-a', 'visit-b', 'visit-c'];
		const { error } = await runCaught(
			uploadParameters({ transactionId: (i: number) => txnIds[i] }),
			{ items },
		);
		expect(error?.message).toMatch(/daily transcription quota/);
		expect(error?.description).toContain('"visit-a" (item 0)');
		expect(error?.description).toContain('Not sent: "visit-c" (item 2).');
		expect(rig.api.requestsTo(`${STATUS}visit-c`)).toHaveLength(0);
		const figures = {
			itemsLost: itemsLostInError(error!, txnIds),
			duplicateInits: duplicateInits(),
		};
		expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
		recordAttack(
			'batch-quota-no-cof',
			'stops at the quota answer; error lists started and not sent',
			figures,
		);
	});
});

/** One HTTP call as the node made it: `sent` before it goes out, `answered` when its promise settled. */
interface CallEvent {
	event: 'sent' | 'answered';
	route: 'check' | 'presign' | 'storage' | 'init' | 'other';
	path: string;
}

function routeOf(path: string): CallEvent['route'] {
	if (path.startsWith(STATUS)) return 'check';
	if (path.startsWith(PRESIGN)) return 'presign';
	if (path.startsWith(STORAGE_PATH)) return 'storage';
	if (path.startsWith(INIT)) return 'init';
	return 'other';
}

/**
 * Runs Upload Audio with every HTTP call of the node logged in the order the node made and saw
 * them (both of n8n's helpers it uses), to prove what it sends after a failure is known and how
 * many storage uploads it has in flight at once.
 */
async function runLogged(
	parameters: Record<string, unknown>,
	options: Parameters<TranscriptionRig['run']>[1],
) {
	const log: CallEvent[] = [];
	const context = rig.context(parameters, options);
	const helpers = context.helpers as unknown as Record<
		string,
		(...args: unknown[]) => Promise<unknown>
	>;
	for (const name of ['httpRequest', 'httpRequestWithAuthentication']) {
		const original = helpers[name];
		helpers[name] = async function (this: unknown, ...args: unknown[]) {
			const request = (name === 'httpRequest' ? args[0] : args[1]) as {
				url: string;
				baseURL?: string;
			};
			const path = new URL(request.url, request.baseURL ?? 'http://relative.invalid').pathname;
			log.push({ event: 'sent', route: routeOf(path), path });
			try {
				return await original.apply(this, args);
			} finally {
				log.push({ event: 'answered', route: routeOf(path), path });
			}
		};
	}
	try {
		const [output] = await rig.node.execute.call(context);
		return { output, error: undefined, log };
	} catch (error) {
		return {
			output: undefined,
			error: error as { message: string; description?: string | null },
			log,
		};
	}
}

/** Most storage uploads the node had in flight at once. */
function peakStorageUploads(log: CallEvent[]): number {
	let open = 0;
	let peak = 0;
	for (const event of log.filter((e) => e.route === 'storage')) {
		open += event.event === 'sent' ? 1 : -1;
		peak = Math.max(peak, open);
	}
	return peak;
}

/** Calls the node sent after the last answer to `path` (the failure became known with it). */
function sentAfterLastAnswerTo(log: CallEvent[], path: string): CallEvent[] {
	const known = log.map((e) => e.event === 'answered' && e.path === path).lastIndexOf(true);
	if (known === -1) throw new Error(`no answer to ${path} in the log`);
	return log.slice(known + 1).filter((e) => e.event === 'sent');
}

/** Transaction ids named in each part of a stop error's description. */
function stopSections(
	description: string,
): Record<'started' | 'maybe' | 'alsoFailed' | 'notSent', string[]> {
	const idsIn = (label: string) => {
		const at = description.indexOf(label);
		if (at === -1) return [];
		const rest = description.slice(at + label.length);
		const end = rest.search(/ (Possibly started|Also failed|Not sent)\b/);
		return [...(end === -1 ? rest : rest.slice(0, end)).matchAll(/"([^"]+)" \(item/g)].map(
			(m) => m[1],
		);
	};
	return {
		started: idsIn('Already started in this run'),
		maybe: idsIn('Possibly started'),
		alsoFailed: idsIn('Also failed, not started:'),
		notSent: idsIn('Not sent:'),
	};
}

describe(`several at once (uploadConcurrency = ${PRODUCTION_POLICY.uploadConcurrency})`, () => {
	/** 8 transactions of one file and one of 6 files (items 8..13 share "visit-multi"). */
	function mixedBatch(prefix: string) {
		const { files, items } = recordings(14);
		const txnIds = items.map((_, i) => (i < 8 ? `${prefix}-${i}` : `${prefix}-multi`));
		return { files, items, txnIds };
	}

	test('batch-concurrent-bounded: transactions and files go up several at a time, never more than the bound; the same requests as one at a time', async () => {
		// A far region: every storage POST waits 100 ms, so uploads in flight overlap visibly.
		rig.api.injectFault({
			method: 'POST',
			path: STORAGE_PATH,
			times: Infinity,
			fault: { kind: 'delay', ms: 100 },
		});
		const requestsOf = (log: CallEvent[]) => {
			const counts: Record<string, number> = {};
			for (const e of log.filter((entry) => entry.event === 'sent'))
				counts[e.route] = (counts[e.route] ?? 0) + 1;
			return counts;
		};

		restorePolicy = useTestTransportPolicy({ uploadConcurrency: 1 });
		const serial = mixedBatch('one');
		const one = await runLogged(
			uploadParameters({ transactionId: (i: number) => serial.txnIds[i] }),
			{ items: serial.items },
		);
		restorePolicy?.();
		restorePolicy = undefined;
		const batch = mixedBatch('many');
		const many = await runLogged(
			uploadParameters({ transactionId: (i: number) => batch.txnIds[i] }),
			{ items: batch.items },
		);

		expect(one.error).toBeUndefined();
		expect(many.error).toBeUndefined();
		expect(requestsOf(one.log)).toEqual({ check: 9, presign: 9, storage: 14, init: 9 });
		expect(requestsOf(many.log)).toEqual(requestsOf(one.log));
		expect(peakStorageUploads(one.log)).toBe(1);
		expect(peakStorageUploads(many.log)).toBeGreaterThan(1);
		expect(peakStorageUploads(many.log)).toBeLessThanOrEqual(PRODUCTION_POLICY.uploadConcurrency);
		// Output in input order, each item its own receipt; every file arrived intact, once.
		expect(
			many.output!.map((o) => [o.json.transaction_id, o.json.upload_status, o.pairedItem]),
		).toEqual(batch.txnIds.map((id, i) => [id, 'uploaded', { item: i }]));
		const arrived = rig.fake.uploads().filter((u) => u.txnId.startsWith('many-'));
		expect(arrived.map((u) => u.sha256).sort()).toEqual(batch.files.map((f) => f.sha256).sort());
		expect(rig.fake.transaction('many-multi')).toMatchObject({ initsStarted: 1, presigns: 1 });
		expect(rig.fake.transaction('many-multi')!.uploads).toHaveLength(6);
		const figures = { itemsLost: itemsLostIn(many.output!, 14), duplicateInits: duplicateInits() };
		expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
		recordAttack(
			'batch-concurrent-bounded',
			`at most ${PRODUCTION_POLICY.uploadConcurrency} storage uploads at once, more than 1; same requests as one at a time`,
			figures,
		);
	});

	test('batch-concurrent-stop-no-cof: once a failure is known nothing more is sent; the error accounts for every transaction as the API saw it', async () => {
		const { items } = recordings(8);
		const txnIds = items.map((_, i) => `visit-${i}`);
		rig.api.injectFault({
			method: 'POST',
			path: `${INIT}visit-1`,
			fault: { kind: 'status', status: 422 },
		});
		const { error, log } = await runLogged(
			uploadParameters({ transactionId: (i: number) => txnIds[i] }),
			{ items },
		);
		expect(error?.message).toMatch(
			/refused starting the transcription of transaction "visit-1" \(HTTP 422/,
		);
		expect(sentAfterLastAnswerTo(log, `${INIT}visit-1`)).toEqual([]);
		const sections = stopSections(error!.description ?? '');
		const startedAtApi = rig.fake
			.transactions()
			.filter((t) => t.initsStarted > 0)
			.map((t) => t.txnId)
			.sort();
		expect(sections.started.sort()).toEqual(startedAtApi);
		expect(sections.maybe).toEqual([]);
		expect(sections.alsoFailed).toEqual([]);
		// Every other transaction is either started (and named so) or not sent (and has no init at the API).
		expect([...sections.started, ...sections.notSent].sort()).toEqual(
			txnIds.filter((id) => id !== 'visit-1').sort(),
		);
		for (const id of sections.notSent) expect(rig.fake.transaction(id)?.initAttempts ?? 0).toBe(0);
		const figures = {
			itemsLost: itemsLostInError(error!, txnIds),
			duplicateInits: duplicateInits(),
		};
		expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
		recordAttack(
			'batch-concurrent-stop-no-cof',
			'no request sent once the failure is known; error names each transaction as started or not sent, as the API saw it',
			figures,
		);
	});

	test('batch-concurrent-quota: once the quota answer is known nothing more is sent; every item still has its output, in input order', async () => {
		rig.fake.setOptions({ dailyTransactionLimit: 2 });
		const { items } = recordings(8);
		const txnIds = items.map((_, i) => `visit-${i}`);
		const { output, log } = await runLogged(
			uploadParameters({ transactionId: (i: number) => txnIds[i] }),
			{ items, continueOnFail: true },
		);
		expect(output!.map((o) => [o.json.transaction_id, o.pairedItem])).toEqual(
			txnIds.map((id, i) => [id, { item: i }]),
		);
		const started = output!.filter((o) => o.json.error === undefined);
		expect(started).toHaveLength(2);
		for (const o of output!.filter((entry) => entry.json.error !== undefined))
			expect(o.json.error).toMatch(/daily transcription quota/);
		const firstQuotaAnswer = rig.api.requests.find(
			(r) => r.pathname.startsWith(INIT) && r.status === 400,
		)!;
		expect(
			sentAfterLastAnswerTo(log, firstQuotaAnswer.pathname).filter((e) => e.route !== 'other'),
		).toEqual([]);
		const figures = { itemsLost: itemsLostIn(output!, 8), duplicateInits: duplicateInits() };
		expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
		recordAttack(
			'batch-concurrent-quota',
			'no request sent once the quota answer is known; 2 started, the rest "quota", in input order',
			figures,
		);
	});
});

describe('transcription call family (presign, init) under faults', () => {
	const cases: Array<[string, string, () => void]> = [
		[
			'presign-500-once',
			'presign 500 once: retried',
			() =>
				rig.api.injectFault({
					method: 'POST',
					path: PRESIGN,
					fault: { kind: 'status', status: 500 },
				}),
		],
		[
			'presign-429-retry-after',
			'presign 429 + Retry-After: retried after the wait',
			() =>
				rig.api.injectFault({
					method: 'POST',
					path: PRESIGN,
					fault: { kind: 'status', status: 429, headers: { 'retry-after': '1' } },
				}),
		],
		[
			'presign-drop',
			'presign connection dropped: retried (same policy again)',
			() => rig.api.injectFault({ method: 'POST', path: PRESIGN, fault: { kind: 'drop' } }),
		],
		[
			'presign-slow',
			'presign answer past the timeout: retried',
			() =>
				rig.api.injectFault({ method: 'POST', path: PRESIGN, fault: { kind: 'delay', ms: 1_500 } }),
		],
		[
			'init-500-once',
			'init 500 once (not carried out): retried, 201',
			() =>
				rig.api.injectFault({ method: 'POST', path: INIT, fault: { kind: 'status', status: 500 } }),
		],
		[
			'init-429-retry-after',
			'init 429 + Retry-After: retried, 201',
			() =>
				rig.api.injectFault({
					method: 'POST',
					path: INIT,
					fault: { kind: 'status', status: 429, headers: { 'retry-after': '1' } },
				}),
		],
		[
			'init-drop',
			'init dropped before it was carried out: retried, 201',
			() => rig.api.injectFault({ method: 'POST', path: INIT, fault: { kind: 'drop' } }),
		],
		[
			'init-malformed',
			'init carried out, 201 with broken JSON: started, not repeated',
			() => rig.fake.loseInitAnswer({ kind: 'malformed' }),
		],
		[
			'init-slow',
			'init delayed past the timeout before it was carried out: retried, 201',
			() =>
				rig.api.injectFault({ method: 'POST', path: INIT, fault: { kind: 'delay', ms: 1_500 } }),
		],
		[
			'check-500-once',
			'the used-id check 500 once: retried',
			() =>
				rig.api.injectFault({
					method: 'GET',
					path: STATUS,
					fault: { kind: 'status', status: 500 },
				}),
		],
		[
			'expiry-mid-run',
			'token expires between items: renewed once, every item goes on',
			() => {
				let expired = false;
				rig.fake.onInitStarted(() => {
					if (!expired) rig.api.expireAccessTokens();
					expired = true;
				});
			},
		],
	];

	test.each(cases)('%s: %s; every item uploaded and started once', async (row, what, arrange) => {
		arrange();
		const { items } = recordings(3);
		const txnIds = ['visit-a', 'visit-b', 'visit-c'];
		const output = await rig.run(uploadParameters({ transactionId: (i: number) => txnIds[i] }), {
			items,
			continueOnFail: true,
		});
		expect(output.map((o) => [o.json.transaction_id, o.json.error ?? 'ok', o.pairedItem])).toEqual(
			txnIds.map((id, i) => [id, 'ok', { item: i }]),
		);
		// Sorted: the fake lists transactions in arrival order, which sending several at once changes.
		expect(
			rig.fake
				.transactions()
				.map((txn) => [txn.txnId, txn.initsStarted])
				.sort(),
		).toEqual(txnIds.map((id) => [id, 1]));
		expect(rig.fake.rejectedUploads()).toEqual([]);
		const figures = { itemsLost: itemsLostIn(output, 3), duplicateInits: duplicateInits() };
		expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
		recordAttack(`upload-${row}`, what, figures);
	});

	test('upload-presign-malformed: a presign answer that is not JSON fails that transaction with nothing uploaded; the others go on', async () => {
		rig.api.injectFault({ method: 'POST', path: PRESIGN, times: 1, fault: { kind: 'malformed' } });
		const { items } = recordings(2);
		const output = await rig.run(
			uploadParameters({ transactionId: (i: number) => ['visit-a', 'visit-b'][i] }),
			{ items, continueOnFail: true },
		);
		expect(output[0].json.error).toBe(
			'The clinic API answered the upload address for the recordings with a body that is not the documented JSON (HTTP 200)',
		);
		expect(output[1].json).toMatchObject({
			transaction_id: 'visit-b',
			init: { status: 'started' },
		});
		expect(rig.fake.uploads().map((u) => u.txnId)).toEqual(['visit-b']);
		const figures = { itemsLost: itemsLostIn(output, 2), duplicateInits: duplicateInits() };
		expect(figures).toEqual({ itemsLost: 0, duplicateInits: 0 });
		recordAttack(
			'upload-presign-malformed',
			'that transaction fails clearly, nothing uploaded; the others go on',
			figures,
		);
	});
});

describe('bad input sends nothing', () => {
	test('upload-bad-template-value: a template value set by an expression that is not an offered choice is refused before any request', async () => {
		const run = rig.run(
			uploadParameters({
				outputTemplates: {
					templates: [
						{ template: 'soap_notes_templat', customTemplateId: '', codificationNeeded: false },
					],
				},
			}),
			{ items: recordings(1).items },
		);
		await expect(run).rejects.toThrow(
			'Output Templates › Template 1 of item 0 is "soap_notes_templat", which is not one of the offered templates',
		);
		await expect(run).rejects.toMatchObject({
			description: expect.stringContaining('Custom Template ID'),
		});
		const figures = { requestsForBadInput: rig.api.requests.length };
		expect(figures).toEqual({ requestsForBadInput: 0 });
		recordAttack('upload-bad-template-value', 'refused naming item and field; 0 requests', figures);
	});
});
