import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readTemplateList } from '../../shared/answers/templateRecords';
import { unexpectedBodyError } from '../../transport/errors';
import { listTemplates } from '../../transport/templateApi';
import { returnAllAndLimit } from '../common.descriptions';
import { applyReturnLimit, type OperationResult } from '../common.execute';

const show = { resource: ['template'], operation: ['getAll'] };

// The service answers the whole list at once (no paging), so Limit cuts it here.
export const description: INodeProperties[] = [...returnAllAndLimit(show)];

/** Only reads: the router sends several items at once (ItemOperation.readsOnly). */
export const readsOnly = true;

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const response = await listTemplates(this, itemIndex);
	const templates = readTemplateList(response.body);
	if (!templates)
		throw unexpectedBodyError(
			this,
			{ purpose: "the workspace's templates", itemIndex },
			response.statusCode,
		);
	return applyReturnLimit(this, itemIndex, templates);
}
