/**
 * Wait for Completion: how soon the results arrive after the session completes, how many status
 * requests that takes, and how fast Stop ends a wait (issue 10, goal 4). Prints figures; asserts
 * nothing (tests prove behaviour, not speed).
 *
 * The node runs in this process (test/support/nodeContext.ts: real HTTP, n8n-core's credential
 * semantics) against the fake clinic API on loopback. Each session completes 20 s after its init;
 * Get Results waits with the default 10 s poll interval. Two fake APIs run side by side: one holds
 * every "still processing" status call up to 14 s and answers as soon as the session is done (as the
 * real service does), one answers at once. Three rounds of each run at the same time.
 *
 *   node --import tsx bench/wait-latency.ts          (run it under the Node n8n runs on: the cached Node 24)
 */
import { randomBytes } from 'node:crypto';

import type { INodeExecutionData } from 'n8n-workflow';

// `.js`: tsx would otherwise resolve "ClinicScribe.node" to the codex file ClinicScribe.node.json.
import { ClinicScribe } from '../nodes/ClinicScribe/ClinicScribe.node.js';
import {
	fakeTranscription,
	INIT_PATH,
	type FakeTranscription,
} from '../test/fake-api/routes/transcription';
import { startFakeClinicApi, type FakeClinicApi } from '../test/fake-api/server';
import { createExecuteContext, fakeApiCredentials } from '../test/support/nodeContext';

/** The fake API and a way to run the node against it (the integration tests' rig, without its audio files). */
class Rig {
	api!: FakeClinicApi;
	fake!: FakeTranscription;
	private readonly node = new ClinicScribe();

	async start(): Promise<void> {
		this.api = await startFakeClinicApi();
		this.fake = fakeTranscription(this.api);
	}

	async stop(): Promise<void> {
		await this.api.close();
	}

	async run(
		parameters: Record<string, unknown>,
		options: { items?: INodeExecutionData[]; cancelSignal?: AbortSignal } = {},
	): Promise<INodeExecutionData[]> {
		const { context } = createExecuteContext({
			credentials: fakeApiCredentials(this.api.url, this.api.validCredentials),
			parameters,
			items: options.items,
			cancelSignal: options.cancelSignal,
		});
		const [output] = await this.node.execute.call(context);
		return output;
	}

	async upload(txnId: string): Promise<void> {
		const data = {
			data: randomBytes(2048).toString('base64'),
			mimeType: 'audio/wav',
			fileName: 'visit.wav',
		};
		await this.run(
			{
				resource: 'transcription',
				operation: 'uploadAudio',
				binaryPropertyName: 'data',
				transactionId: txnId,
				inputLanguages: ['en-IN'],
				outputTemplates: {
					templates: [
						{
							template: 'clinical_notes_template',
							customTemplateId: '',
							codificationNeeded: false,
						},
					],
				},
				waitForCompletion: false,
				options: {},
			},
			{ items: [{ json: {}, binary: { data } }] },
		);
	}
}

function waitParameters(txnId: string): Record<string, unknown> {
	return {
		resource: 'transcription',
		operation: 'getResults',
		sessionId: txnId,
		waitForCompletion: true,
		timeoutMinutes: 2,
		pollIntervalSeconds: POLL_INTERVAL_SECONDS,
		resultsOutput: 'session',
	};
}

const ROUNDS = 3;
const COMPLETES_AFTER_MS = 20_000;
const POLL_INTERVAL_SECONDS = 10;
const HOLD_MS = 14_000;
const LAG_GOAL_MS = 1_000;
const STOP_GOAL_MS = 1_000;

interface Round {
	statusRequests: number;
	lagMs: number;
}

async function startSession(rig: Rig, txnId: string): Promise<number> {
	rig.fake.script(txnId, { processingPolls: 0, processingMs: COMPLETES_AFTER_MS });
	await rig.upload(txnId);
	const init = rig.api.requestsTo(INIT_PATH.replace(':txnId', txnId), 'POST')[0];
	return init.time + COMPLETES_AFTER_MS;
}

async function waitRound(rig: Rig, txnId: string): Promise<Round> {
	const completesAt = await startSession(rig, txnId);
	const output = await rig.run(waitParameters(txnId));
	const arrivedAt = Date.now();
	if (output[0].json.status !== 'completed')
		throw new Error(`round ${txnId}: status ${String(output[0].json.status)}`);
	return {
		statusRequests: rig.fake.transaction(txnId)!.statusCalls,
		lagMs: arrivedAt - completesAt,
	};
}

async function stopRound(rig: Rig, txnId: string): Promise<{ endedMs: number; closedMs: number }> {
	rig.fake.script(txnId, { processingPolls: 1_000_000 });
	await rig.upload(txnId);
	const stop = new AbortController();
	const wait = rig.run(waitParameters(txnId), { cancelSignal: stop.signal }).then(
		() => 'completed',
		(error: Error) => error.message,
	);
	await sleep(3_000); // inside the first held status call
	const stoppedAt = Date.now();
	stop.abort();
	const outcome = await wait;
	const endedMs = Date.now() - stoppedAt;
	if (!outcome.startsWith('Stopped waiting')) throw new Error(`stop round ${txnId}: ${outcome}`);
	while (rig.fake.transaction(txnId)!.statusCallsAbandoned === 0 && Date.now() - stoppedAt < 10_000)
		await sleep(5);
	return { endedMs, closedMs: Date.now() - stoppedAt };
}

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

function stats(values: number[]): string {
	const sorted = [...values].sort((a, b) => a - b);
	return `${sorted[0]} / ${sorted[Math.floor(sorted.length / 2)]} / ${sorted[sorted.length - 1]}`;
}

async function main(): Promise<void> {
	const held = new Rig();
	const immediate = new Rig();
	await Promise.all([held.start(), immediate.start()]);
	held.fake.setOptions({ holdMs: HOLD_MS });
	try {
		console.log(
			`Wait for Completion under Node ${process.version}: session completes ${COMPLETES_AFTER_MS / 1000} s after init, poll interval ${POLL_INTERVAL_SECONDS} s, ${ROUNDS} rounds each (min / median / max)`,
		);
		const rounds = Array.from({ length: ROUNDS }, (_, i) => i);
		const [withHold, withoutHold] = await Promise.all([
			Promise.all(rounds.map((i) => waitRound(held, `bench-held-${i}`))),
			Promise.all(rounds.map((i) => waitRound(immediate, `bench-immediate-${i}`))),
		]);
		let pass = true;
		for (const [label, results] of [
			[`status held up to ${HOLD_MS / 1000} s`, withHold],
			['status answered at once', withoutHold],
		] as const) {
			const worstLag = Math.max(...results.map((r) => r.lagMs));
			const verdict = worstLag <= LAG_GOAL_MS ? 'PASS' : 'MISS';
			if (verdict === 'MISS' && label.startsWith('status held')) pass = false;
			console.log(
				`  ${label.padEnd(26)} status requests ${stats(results.map((r) => r.statusRequests))}; lag behind completion ${stats(results.map((r) => r.lagMs))} ms  ${verdict} (goal ≤ ${LAG_GOAL_MS} ms)`,
			);
		}
		const stops = await Promise.all(rounds.map((i) => stopRound(held, `bench-stop-${i}`)));
		const worstStop = Math.max(...stops.map((s) => s.endedMs));
		console.log(
			`  Stop during a held status call: wait ended after ${stats(stops.map((s) => s.endedMs))} ms, held call closed at the fake after ${stats(stops.map((s) => s.closedMs))} ms  ${worstStop <= STOP_GOAL_MS ? 'PASS' : 'MISS'} (goal ≤ ${STOP_GOAL_MS} ms)`,
		);
		console.log(
			'  (without a hold the lag depends on where completion falls between two polls: up to one poll interval)',
		);
		if (!pass || worstStop > STOP_GOAL_MS) process.exitCode = 1;
	} finally {
		await Promise.all([held.stop(), immediate.stop()]);
	}
}

void main();
