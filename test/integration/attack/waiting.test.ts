/**
 * Attack-and-fault suite, "Waiting and results" (TABLE.md): Get Results with Wait for Completion over
 * real HTTP against the fake API while the status call is stopped, fails once in every transient way,
 * or answers the documented "all templates failed". Every row runs two sessions (two input items):
 * the one under fault and a healthy one, so an item lost or mixed up would show.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import {
	CLINICAL_NOTES_DOCUMENT,
	STATUS_PATH,
	type Outcome,
} from '../../fake-api/routes/transcription';
import type { FaultAction } from '../../fake-api/server';
import { recordAttack } from '../../support/attackLedger';
import {
	item,
	resultsParameters,
	TranscriptionRig,
	uploadParameters,
} from '../../support/transcriptionRig';
import { useTestTransportPolicy } from '../../support/transportPolicy';

const rig = new TranscriptionRig();
const STATUS_PREFIX = STATUS_PATH.replace(':txnId', '');
const TWO_TEMPLATES = {
	templates: [
		{ template: 'clinical_notes_template', customTemplateId: '', codificationNeeded: false },
		{ template: 'transcript_template', customTemplateId: '', codificationNeeded: false },
	],
};

beforeAll(async () => {
	await rig.start();
	useTestTransportPolicy({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
});
afterAll(async () => await rig.stop());
beforeEach(() => rig.reset());

/** The last recorded request id when each session's upload had finished. */
const sessionStartedAfter = new Map<string, number>();

async function startSession(
	txnId: string,
	script: { outcome?: Outcome; processingPolls?: number } = {},
): Promise<void> {
	rig.fake.script(txnId, { processingPolls: 0, ...script });
	await rig.run(uploadParameters({ transactionId: txnId, outputTemplates: TWO_TEMPLATES }), {
		items: [item({ data: rig.storedBinary(rig.audioFile('visit.wav', 1500)) })],
	});
	// Upload Audio asks for the status once before uploading (is the ID used?): later calls are the wait's.
	sessionStartedAfter.set(txnId, Math.max(0, ...rig.api.requests.map((r) => r.id)));
}

const statusCalls = (txnId: string) => rig.fake.transaction(txnId)?.statusCalls ?? 0;
const statusRequests = (txnId: string) =>
	rig.api
		.requestsTo(`${STATUS_PREFIX}${txnId}`, 'GET')
		.filter((r) => r.id > (sessionStartedAfter.get(txnId) ?? 0));

/** Resolves once `condition` holds (checked every 5 ms, bounded so a broken test fails, not hangs). */
async function until(condition: () => boolean, what: string): Promise<void> {
	for (let i = 0; i < 2_000; i++) {
		if (condition()) return;
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
	throw new Error(`never happened: ${what}`);
}

/** Get Results with Wait for Completion for the given sessions, one item each. */
async function waitForSessions(
	ids: string[],
	extra: Record<string, unknown> = {},
	options: { cancelSignal?: AbortSignal; continueOnFail?: boolean } = {},
) {
	return await rig.run(
		resultsParameters((i: number) => ids[i], {
			waitForCompletion: true,
			timeoutMinutes: 1,
			pollIntervalSeconds: 0.5,
			...extra,
		}),
		{
			items: ids.map(() => ({ json: {} })),
			...options,
		},
	);
}

/** Input items without exactly their own output item (paired to them, about their session). */
function itemsLost(output: INodeExecutionData[], ids: string[]): number {
	return ids.filter((id, index) => {
		const own = output.filter((o) => (o.pairedItem as { item: number }).item === index);
		return (
			own.length !== 1 || (own[0].json.session_id !== undefined && own[0].json.session_id !== id)
		);
	}).length;
}

describe('Waiting and results: Stop', () => {
	test('waiting-stop: Stop during a held status call ends the wait, the connection is closed, no further request', async () => {
		await startSession('visit-stop', { processingPolls: 1_000_000 });
		rig.fake.setOptions({ holdMs: 30_000 });
		const stop = new AbortController();
		const run = waitForSessions(
			['visit-stop'],
			{ timeoutMinutes: 10, pollIntervalSeconds: 10 },
			{ cancelSignal: stop.signal },
		).then(
			() => undefined,
			(error: Error) => error,
		);
		await until(() => statusCalls('visit-stop') === 1, 'the first status call reached the fake');
		stop.abort();
		const error = await run;
		expect(error?.message).toBe(
			'Stopped waiting for session "visit-stop" because the execution was cancelled',
		);
		await until(
			() => rig.fake.transaction('visit-stop')!.statusCallsAbandoned === 1,
			'the fake saw the held call closed',
		);
		expect(statusRequests('visit-stop')).toHaveLength(1);
		expect(statusRequests('visit-stop')[0].status).toBeUndefined();
		recordAttack(
			'waiting-stop',
			'wait ends at once; held status call closed; 0 further requests',
			{},
		);
	});

	test('waiting-stop-before: an execution already stopped sends no status call at all', async () => {
		await startSession('visit-stopped');
		const stop = new AbortController();
		stop.abort();
		const error = await waitForSessions(['visit-stopped'], {}, { cancelSignal: stop.signal }).then(
			() => undefined,
			(e: Error) => e,
		);
		expect(error?.message).toBe(
			'Stopped waiting for session "visit-stopped" because the execution was cancelled',
		);
		expect(statusRequests('visit-stopped')).toHaveLength(0);
		recordAttack('waiting-stop-before', 'refused before any request: 0 status calls', {});
	});

	test('a Get Results without waiting is stopped too, and not retried', async () => {
		await startSession('visit-read-stop', { processingPolls: 1_000_000 });
		rig.fake.setOptions({ holdMs: 30_000 });
		const stop = new AbortController();
		const run = rig.run(resultsParameters('visit-read-stop'), { cancelSignal: stop.signal }).then(
			() => undefined,
			(e: Error) => e,
		);
		await until(() => statusCalls('visit-read-stop') === 1, 'the status call reached the fake');
		stop.abort();
		const error = await run;
		expect(error?.message).toBe(
			'Stopped the request for the results of session "visit-read-stop" because the execution was stopped',
		);
		await until(
			() => rig.fake.transaction('visit-read-stop')!.statusCallsAbandoned === 1,
			'the fake saw the call closed',
		);
		expect(statusRequests('visit-read-stop')).toHaveLength(1);
	});
});

describe('Waiting and results: a status call that fails once during a wait', () => {
	const faults: Array<[row: string, label: string, fault: FaultAction]> = [
		['waiting-500-once', 'a 500 without per-template failures', { kind: 'status', status: 500 }],
		[
			'waiting-429-retry-after',
			'a 429 with Retry-After',
			{ kind: 'status', status: 429, headers: { 'retry-after': '1' } },
		],
		['waiting-drop', 'a dropped connection', { kind: 'drop' }],
		['waiting-malformed', 'a malformed JSON answer', { kind: 'malformed' }],
	];

	test.each(faults)(
		'%s: %s is retried; the session completes and both items get their results',
		async (row, _label, fault) => {
			await startSession('visit-faulted', { processingPolls: 1 });
			await startSession('visit-healthy');
			const run = waitForSessions(['visit-faulted', 'visit-healthy']);
			// After the first "still processing", the next status call of the faulted session fails once.
			await until(() => statusCalls('visit-faulted') === 1, 'the first status call was answered');
			rig.api.injectFault({ method: 'GET', path: `${STATUS_PREFIX}visit-faulted`, fault });
			const output = await run;

			expect(output.map((o) => [o.pairedItem, o.json.session_id, o.json.status])).toEqual([
				[{ item: 0 }, 'visit-faulted', 'completed'],
				[{ item: 1 }, 'visit-healthy', 'completed'],
			]);
			expect((output[0].json.documents as Record<string, unknown>).clinical_notes_template).toEqual(
				CLINICAL_NOTES_DOCUMENT,
			);
			const faulted = statusRequests('visit-faulted');
			expect(faulted.map((r) => r.fault ?? r.status)).toEqual([202, fault.kind, 200]);
			const lost = itemsLost(output, ['visit-faulted', 'visit-healthy']);
			expect(lost).toBe(0);
			recordAttack(row, 'retried; session completed with its documents', { itemsLost: lost });
		},
	);

	test('waiting-slow-timeout: a status answer slower than the call’s timeout is given up and asked again', async () => {
		const restore = useTestTransportPolicy({ timeouts: { statusMs: 300 } });
		try {
			await startSession('visit-slow', { processingPolls: 1 });
			await startSession('visit-healthy');
			const run = waitForSessions(['visit-slow', 'visit-healthy']);
			await until(() => statusCalls('visit-slow') === 1, 'the first status call was answered');
			rig.api.injectFault({
				method: 'GET',
				path: `${STATUS_PREFIX}visit-slow`,
				fault: { kind: 'delay', ms: 3_000 },
			});
			const output = await run;
			expect(output.map((o) => [o.json.session_id, o.json.status])).toEqual([
				['visit-slow', 'completed'],
				['visit-healthy', 'completed'],
			]);
			const slow = statusRequests('visit-slow');
			expect(slow.map((r) => r.fault ?? r.status)).toEqual([202, 'delay', 200]);
			const lost = itemsLost(output, ['visit-slow', 'visit-healthy']);
			expect(lost).toBe(0);
			recordAttack('waiting-slow-timeout', 'timed-out call retried; session completed', {
				itemsLost: lost,
			});
		} finally {
			restore();
		}
	});

	test('waiting-token-expiry: the access token expires mid-wait; renewed once, the wait goes on', async () => {
		await startSession('visit-expiry', { processingPolls: 2 });
		await startSession('visit-healthy');
		const run = waitForSessions(['visit-expiry', 'visit-healthy']);
		await until(() => statusCalls('visit-expiry') === 1, 'the first status call was answered');
		rig.api.expireAccessTokens();
		const output = await run;
		expect(output.map((o) => [o.json.session_id, o.json.status])).toEqual([
			['visit-expiry', 'completed'],
			['visit-healthy', 'completed'],
		]);
		const afterFirstStatus = rig.api.requests.slice(
			rig.api.requests.indexOf(statusRequests('visit-expiry')[0]) + 1,
		);
		expect(
			afterFirstStatus
				.filter((r) => /\/(token|refresh-token)$/.test(r.pathname))
				.map((r) => r.status),
		).toEqual([200]);
		// The refused check, then (renewed before it was sent again) the check answered.
		expect(statusRequests('visit-expiry').map((r) => r.status)).toEqual([202, 401, 202, 200]);
		const lost = itemsLost(output, ['visit-expiry', 'visit-healthy']);
		expect(lost).toBe(0);
		recordAttack('waiting-token-expiry', 'one renewal on the 401; session completed', {
			itemsLost: lost,
		});
	});
});

describe('Waiting and results: the documented "all templates failed"', () => {
	test('waiting-all-failed: a 500 with per-template failures is the state "failed", at once', async () => {
		await startSession('visit-failed', { processingPolls: 1, outcome: 'failure' });
		await startSession('visit-healthy');
		const output = await waitForSessions(['visit-failed', 'visit-healthy']);
		expect(output.map((o) => [o.json.session_id, o.json.status, o.json.http_status])).toEqual([
			['visit-failed', 'failed', 500],
			['visit-healthy', 'completed', 200],
		]);
		expect(
			(output[0].json.templates as Array<Record<string, unknown>>).map((t) => [
				t.template_id,
				t.status,
			]),
		).toEqual([
			['clinical_notes_template', 'failure'],
			['transcript_template', 'failure'],
		]);
		expect(statusRequests('visit-failed').map((r) => r.status)).toEqual([202, 500]);
		const lost = itemsLost(output, ['visit-failed', 'visit-healthy']);
		expect(lost).toBe(0);
		recordAttack('waiting-all-failed', 'status "failed" after one answer, not retried', {
			itemsLost: lost,
		});
	});

	test('waiting-fail-if-incomplete: with the option on, failed and partial sessions fail their items (Continue On Fail: error items in place)', async () => {
		await startSession('visit-failed', { outcome: 'failure' });
		await startSession('visit-partial', { outcome: 'partial' });
		await startSession('visit-healthy');
		const ids = ['visit-failed', 'visit-partial', 'visit-healthy'];
		const output = await waitForSessions(ids, { failIfIncomplete: true }, { continueOnFail: true });
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[0].json.error).toBe(
			'Session "visit-failed" failed (failed: Clinical Notes (clinical_notes_template), Transcript (transcript_template))',
		);
		expect(output[1].json.error).toBe(
			'Session "visit-partial" is only partly done (failed: Transcript (transcript_template))',
		);
		expect(output[2].json).toMatchObject({ session_id: 'visit-healthy', status: 'completed' });
		const lost = itemsLost(output, ids);
		expect(lost).toBe(0);
		recordAttack(
			'waiting-fail-if-incomplete',
			'failed/partial sessions are error items naming the failed templates',
			{ itemsLost: lost },
		);
	});
});
