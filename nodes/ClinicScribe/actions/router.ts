import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import type {
	BatchOperation,
	ItemDataOperation,
	ItemOperation,
	OperationResult,
} from './common.execute';
import { asNodeError, errorRecord } from './errorItems';
import * as appointment from './appointment';
import * as business from './business';
import * as doctor from './doctor';
import * as medLink from './medLink';
import * as patient from './patient';
import * as prescription from './prescription';
import * as template from './template';
import * as transcription from './transcription';
import { concurrencyGate } from '../shared/concurrencyGate';
import { PRODUCTION_POLICY } from '../transport/retryPolicy';
import { scrubCredentialSecrets } from '../transport/runCredential';

type Operation = ItemOperation | ItemDataOperation | BatchOperation;

const operationsByResource: Record<string, Record<string, Operation>> = {
	appointment: appointment.operations,
	business: business.operations,
	doctor: doctor.operations,
	medLink: medLink.operations,
	patient: patient.operations,
	prescription: prescription.operations,
	template: template.operations,
	transcription: transcription.operations,
};

export async function route(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation =
		ownEntry(operationsByResource, resource) &&
		ownEntry(operationsByResource[resource], operationName)
			? operationsByResource[resource][operationName]
			: undefined;
	if (!operation) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operationName}" of "${resource}" is not supported`,
		);
	}
	if ('executeBatch' in operation) return [await operation.executeBatch.call(this, items)];
	const runStartedAt = Date.now();
	if ('execute' in operation && operation.readsOnly)
		return [await readItemsAtOnce(this, operation, items.length, runStartedAt)];

	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			if ('executeData' in operation) {
				const data = await operation.executeData.call(this, itemIndex, runStartedAt);
				for (const entry of data) output.push({ ...entry, pairedItem: { item: itemIndex } });
				continue;
			}
			const records = await operation.execute.call(this, itemIndex, runStartedAt);
			for (const json of records) output.push({ json, pairedItem: { item: itemIndex } });
		} catch (error) {
			// Errors of API calls are scrubbed where they are made; this covers any other error.
			await scrubCredentialSecrets(this, error);
			if (!this.continueOnFail()) throw asNodeError(this, error, itemIndex);
			output.push({ json: errorRecord(error), pairedItem: { item: itemIndex } });
		}
	}
	return [output];
}

/**
 * An operation that only reads (`readsOnly`): up to `readConcurrency` items at once, so the round
 * trips overlap (as n8n's HTTP Request node sends its items). The output is what one item after
 * another gives: in item order, and without Continue On Fail the error of the first failed item,
 * with no item after it started once it failed (items already sent only read).
 */
async function readItemsAtOnce(
	ctx: IExecuteFunctions,
	operation: ItemOperation,
	itemCount: number,
	runStartedAt: number,
): Promise<INodeExecutionData[]> {
	const gate = concurrencyGate(PRODUCTION_POLICY.readConcurrency);
	const outcomes: Array<{ records: OperationResult } | { error: unknown }> = new Array(itemCount);
	let firstFailure = Infinity;
	await Promise.all(
		Array.from({ length: itemCount }, async (_, itemIndex) => {
			const release = await gate.acquire();
			try {
				if (itemIndex > firstFailure) return;
				outcomes[itemIndex] = {
					records: await operation.execute.call(ctx, itemIndex, runStartedAt),
				};
			} catch (error) {
				outcomes[itemIndex] = { error };
				if (!ctx.continueOnFail()) firstFailure = Math.min(firstFailure, itemIndex);
				await scrubCredentialSecrets(ctx, error);
			} finally {
				release();
			}
		}),
	);
	const output: INodeExecutionData[] = [];
	outcomes.forEach((outcome, itemIndex) => {
		if ('records' in outcome) {
			for (const json of outcome.records) output.push({ json, pairedItem: { item: itemIndex } });
			return;
		}
		if (itemIndex === firstFailure) throw asNodeError(ctx, outcome.error, itemIndex);
		output.push({ json: errorRecord(outcome.error), pairedItem: { item: itemIndex } });
	});
	return output;
}

function ownEntry(record: object, key: string): boolean {
	return Object.prototype.hasOwnProperty.call(record, key);
}
