import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/** Applies the item's Return All / Limit choice to a list. */
export function applyReturnLimit<T>(ctx: IExecuteFunctions, itemIndex: number, list: T[]): T[] {
	const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false) as boolean;
	if (returnAll) return list;
	const limit = ctx.getNodeParameter('limit', itemIndex, 50) as number;
	return list.slice(0, Math.max(0, limit));
}

export type OperationResult = IDataObject[];
