/** Errors as n8n shows them, and as items under Continue On Fail (shared by the router and batch operations). */
import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
} from 'n8n-workflow';

/** The item a failed input becomes under "Continue On Fail": what went wrong and what to do. */
export function errorRecord(error: unknown): IDataObject {
	const record = (typeof error === 'object' && error !== null ? error : {}) as {
		message?: unknown;
		description?: unknown;
		httpCode?: unknown;
	};
	const json: IDataObject = {
		error: typeof record.message === 'string' ? record.message : String(error),
	};
	if (typeof record.description === 'string' && record.description)
		json.description = record.description;
	if (typeof record.httpCode === 'string' && record.httpCode) json.httpCode = record.httpCode;
	return json;
}

/** Errors of the operations are n8n errors already; anything else is wrapped so n8n shows it well. */
export function asNodeError(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(ctx.getNode(), error instanceof Error ? error : String(error), {
		itemIndex,
	});
}
