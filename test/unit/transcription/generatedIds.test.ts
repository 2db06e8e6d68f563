import type { IExecuteFunctions } from 'n8n-workflow';

import {
	generatedIdSeed,
	generateTransactionId,
	runIndexOf,
} from '../../../nodes/ClinicScribe/actions/transcription/uploadAudio/ids';

function context(executionId: string | undefined, runIndex = 0, nodeId = 'node-1') {
	return {
		getExecutionId: () => executionId,
		getInstanceId: () => 'instance-a',
		getWorkflow: () => ({ id: 'wf-1' }),
		getNode: () => ({ id: nodeId, name: 'Clinic Scribe' }),
		getWorkflowDataProxy: () => ({ $runIndex: runIndex }),
	} as unknown as IExecuteFunctions;
}

describe('generated Transaction IDs', () => {
	test('the same execution, node, run and item give the same id (n8n Retry On Fail runs the node again with these)', () => {
		const a = generateTransactionId(generatedIdSeed(context('101')), 3);
		const b = generateTransactionId(generatedIdSeed(context('101')), 3);
		expect(a).toBe(b);
		expect(a).toMatch(/^n8n-[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
	});

	test('another item, run, node or execution gives another id', () => {
		const base = generateTransactionId(generatedIdSeed(context('101')), 3);
		const others = [
			generateTransactionId(generatedIdSeed(context('101')), 4),
			generateTransactionId(generatedIdSeed(context('101', 1)), 3),
			generateTransactionId(generatedIdSeed(context('101', 0, 'node-2')), 3),
			generateTransactionId(generatedIdSeed(context('102')), 3),
		];
		expect(new Set([base, ...others]).size).toBe(5);
	});

	test('without an execution id the ids are random', () => {
		expect(generatedIdSeed(context(undefined))).not.toBe(generatedIdSeed(context(undefined)));
	});

	test('the run index comes from $runIndex; 0 when the context cannot tell', () => {
		expect(runIndexOf(context('1', 4))).toBe(4);
		expect(runIndexOf({} as IExecuteFunctions)).toBe(0);
	});
});
