import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import { SHARE_WITH_AGENT_PARAMETER } from './common.descriptions';

/** Applies the item's Return All / Limit choice to a list. */
export function applyReturnLimit<T>(ctx: IExecuteFunctions, itemIndex: number, list: T[]): T[] {
	const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false) as boolean;
	if (returnAll) return list;
	const limit = ctx.getNodeParameter('limit', itemIndex, 50) as number;
	return list.slice(0, Math.max(0, limit));
}

export type OperationResult = IDataObject[];

/**
 * Whether n8n runs this node as an AI agent's tool. n8n names a node's tool form `<type>Tool` (n8n
 * 1.x and 2.x); n8n 2.x also says so through isToolExecution(), which n8n 1.x does not have.
 */
export function isToolRun(ctx: IExecuteFunctions): boolean {
	return ctx.isToolExecution?.() === true || ctx.getNode().type.endsWith('Tool');
}

/**
 * A list that needs more pages than a list operation reads for one item (its bound against a service
 * that never ends a list): the item fails and says so, rather than output part of the list as if it
 * were all of it.
 */
export function pageBoundError(
	ctx: IExecuteFunctions,
	itemIndex: number,
	facts: { records: string; pages: number; read: number; narrow: string },
): NodeOperationError {
	const asked =
		ctx.getNodeParameter('returnAll', itemIndex, false) === true ? 'Return All' : 'The Limit';
	const pages = facts.pages.toLocaleString('en-US');
	return new NodeOperationError(
		ctx.getNode(),
		`${asked} needs more than the ${pages} pages of ${facts.records} the node reads for one item (${facts.read.toLocaleString('en-US')} read)`,
		{
			description: `The node stops there so that a list that never ends cannot keep it running, and outputs nothing rather than part of the list. ${facts.narrow}`,
			itemIndex,
		},
	);
}

/** Refuses, before any request, an agent's call the user did not allow to receive patient data. */
export function assertPatientDataMayGoToAgent(
	ctx: IExecuteFunctions,
	itemIndex: number,
	operation: string,
): void {
	if (!isToolRun(ctx)) return;
	if (ctx.getNodeParameter(SHARE_WITH_AGENT_PARAMETER, itemIndex, true) !== false) return;
	throw new NodeOperationError(
		ctx.getNode(),
		`${operation} is not shared with AI agents in this node`,
		{
			description:
				"Share Patient Data With the AI Agent is off, so no patient data goes to the agent's model provider. Turn it on in the node to allow it.",
			itemIndex,
		},
	);
}

/**
 * Turns one input item into any number of output records. The router pairs them with the item and
 * applies Continue On Fail. `runStartedAt`: when the router began this run of the node; waits of all
 * items count from it, so N items wait "Timeout" in all, not N times it.
 */
export interface ItemOperation {
	execute(
		this: IExecuteFunctions,
		itemIndex: number,
		runStartedAt: number,
	): Promise<OperationResult>;
	/**
	 * Set by an operation that only reads (GET calls, no wait, no file): its items go out several
	 * at once, in item order (the router's readItemsAtOnce).
	 */
	readsOnly?: true;
}

/**
 * Like ItemOperation, for an operation whose records carry files (binary): it returns whole output
 * items; the router pairs them with the item and applies Continue On Fail.
 */
export interface ItemDataOperation {
	executeData(
		this: IExecuteFunctions,
		itemIndex: number,
		runStartedAt: number,
	): Promise<INodeExecutionData[]>;
}

/**
 * Must see all items at once because it groups them (Upload Audio: items sharing a transaction ID are
 * one transaction). It pairs its own output and applies Continue On Fail per group.
 */
export interface BatchOperation {
	executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]>;
}
