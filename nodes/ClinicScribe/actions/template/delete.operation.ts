import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readTemplateMessage } from '../../shared/answers/templateRecords';
import { deleteTemplate } from '../../transport/templateApi';
import type { OperationResult } from '../common.execute';
import { readTemplateId, templateIdField } from './templateFields';

export const description: INodeProperties[] = [
	templateIdField(
		'delete',
		'The template to delete. The service archives it: it is no longer listed or usable.',
	),
];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const templateId = readTemplateId(this, itemIndex);
	const response = await deleteTemplate(this, templateId, itemIndex);
	return [{ id: templateId, deleted: true, message: readTemplateMessage(response.body) }];
}
