/**
 * The directory benches' shared workflow and timing (bench/directory.ts, bench/oauth2-directory.ts):
 * Webhook → one item per doctor → a node named "Call" that makes one directory call per item.
 */
import { randomUUID } from 'node:crypto';

import type { FakeClinicApi } from '../../test/fake-api/server';
import {
	ACTION_NODE_TYPE,
	chain,
	type WorkflowJson,
	type WorkflowNode,
} from '../../test/support/n8n/workflows';
import { cpuSecondsOf, webhookNode, type BenchN8n } from './inN8n';

const DOCTORS = ['do1001', 'do1002', 'do1003', 'do1004'];

/** The doctor ids the webhook is sent: one item (and one directory call) each. */
export function doctorIdsFor(items: number): string[] {
	return Array.from({ length: items }, (_, i) => DOCTORS[i % DOCTORS.length]);
}

/** This package's Doctor → Get Services as the "Call" node, with the given credential. */
export function packageDirectoryCall(
	credentials: WorkflowNode['credentials'],
	extraParameters: Record<string, unknown> = {},
): WorkflowNode {
	return {
		name: 'Call',
		type: ACTION_NODE_TYPE,
		typeVersion: 1,
		position: [400, 0],
		parameters: {
			...extraParameters,
			resource: 'doctor',
			operation: 'getServices',
			doctorId: { __rl: true, mode: 'id', value: '={{ $json.doctorId }}' },
			returnAll: true,
			options: {},
		},
		credentials,
	};
}

/** Webhook (at `path`) → Split Out of body.doctorIds → the given "Call" node. */
export function directoryWorkflow(path: string, call: WorkflowNode): WorkflowJson {
	return {
		name: path,
		nodes: [
			webhookNode(path, randomUUID()),
			{
				name: 'One Item per Doctor',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [200, 0],
				parameters: {
					fieldToSplitOut: 'body.doctorIds',
					options: { destinationFieldName: 'doctorId' },
				},
			},
			call,
		],
		connections: chain('Webhook', 'One Item per Doctor', 'Call'),
		settings: { executionOrder: 'v1' },
	};
}

/** One timed run: the Call node's own time per item, and n8n's CPU per item over the whole run. */
export interface DirectoryRunFigures {
	/** The Call node's execution time (n8n's run data) over the items, ms. */
	msPerItem: number;
	/**
	 * The n8n process's CPU time (user + system) from the webhook call to its answer, over the items,
	 * ms: the work each call costs n8n, which a busy machine changes less than the wall clock.
	 */
	cpuMsPerItem: number;
}

/**
 * Runs a directory workflow once and returns its figures. Fails unless the run succeeded and the
 * fake answered exactly one call to `path` per item. With `answerDelayMs`, the fake answers each of
 * those calls that much later (a far API's round trip).
 */
export async function timedDirectoryRun(
	bench: BenchN8n,
	api: FakeClinicApi,
	workflowName: string,
	doctorIds: string[],
	path = '/dr/v1/doctor/service/',
	answerDelayMs = 0,
): Promise<DirectoryRunFigures> {
	api.reset();
	if (answerDelayMs > 0)
		api.injectFault({ path, times: Infinity, fault: { kind: 'delay', ms: answerDelayMs } });
	const cpuBefore = cpuSecondsOf(bench.n8n.serverPid!);
	const answer = await bench.trigger(workflowName, { doctorIds });
	const cpuSeconds = cpuSecondsOf(bench.n8n.serverPid!) - cpuBefore;
	if (answer.status !== 200)
		throw new Error(
			`${workflowName}: webhook answered ${answer.status}: ${answer.text.slice(0, 500)}`,
		);
	const execution = await bench.lastExecution(workflowName);
	const run = execution.runData.Call?.[0];
	if (!run || run.error || execution.status !== 'success') {
		throw new Error(
			`${workflowName}: the run failed: ${run?.error?.message ?? execution.error?.message ?? execution.status}`,
		);
	}
	const calls = api.requestsTo(path, 'GET').filter((r) => r.status === 200).length;
	if (calls !== doctorIds.length)
		throw new Error(
			`${workflowName}: ${calls} successful calls to ${path}, expected ${doctorIds.length}`,
		);
	return {
		msPerItem: Number(run.executionTime) / doctorIds.length,
		cpuMsPerItem: (cpuSeconds * 1000) / doctorIds.length,
	};
}
