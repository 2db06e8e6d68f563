import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { readTemplateList } from '../../shared/answers/templateRecords';
import { unexpectedBodyError } from '../../transport/errors';
import { listTemplates } from '../../transport/templateApi';
import type { OperationResult } from '../common.execute';
import { readTemplateId, templateIdField } from './templateFields';

export const description: INodeProperties[] = [templateIdField('get', 'The template to get')];

/** Only reads: the router sends several items at once (ItemOperation.readsOnly). */
export const readsOnly = true;

/** The service has no call for one template ([EKA-OAS] filters the list), so the list is read. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const templateId = readTemplateId(this, itemIndex);
	const response = await listTemplates(this, itemIndex);
	const templates = readTemplateList(response.body);
	if (!templates)
		throw unexpectedBodyError(
			this,
			{ purpose: "the workspace's templates", itemIndex },
			response.statusCode,
		);
	const found = templates.find((template) => template.id === templateId);
	if (!found) {
		throw new NodeOperationError(
			this.getNode(),
			`The workspace has no template "${templateId}" (item ${itemIndex})`,
			{
				description: `It does not exist or was deleted. The workspace has ${templates.length} template(s): pick one from the list, or use Template → Get Many to see their IDs.`,
				itemIndex,
			},
		);
	}
	return [found];
}
