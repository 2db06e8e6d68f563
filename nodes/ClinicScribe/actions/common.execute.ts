import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/** Applies the item's Return All / Limit choice to a list. */
export function applyReturnLimit<T>(ctx: IExecuteFunctions, itemIndex: number, list: T[]): T[] {
	const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false) as boolean;
	if (returnAll) return list;
	const limit = ctx.getNodeParameter('limit', itemIndex, 50) as number;
	return list.slice(0, Math.max(0, limit));
}

export type OperationResult = IDataObject[];

/** What all items of one run of the node share; the router makes one per run. */
export interface OperationRun {
	/** When the run started: waits of all items count from it, so N items wait "Timeout" in all, not N times it. */
	readonly startedAt: number;
}

/**
 * Turns one input item into any number of output records. The router pairs them with the item and
 * applies Continue On Fail.
 */
export interface ItemOperation {
	execute(this: IExecuteFunctions, itemIndex: number, run: OperationRun): Promise<OperationResult>;
}

/**
 * Must see all items at once because it groups them (Upload Audio: items sharing a transaction ID are
 * one transaction). It pairs its own output and applies Continue On Fail per group.
 */
export interface BatchOperation {
	executeBatch(this: IExecuteFunctions, items: INodeExecutionData[], run: OperationRun): Promise<INodeExecutionData[]>;
}
