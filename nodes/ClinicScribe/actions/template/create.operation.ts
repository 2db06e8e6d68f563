import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readCreatedTemplateId, readTemplateMessage } from '../../shared/answers/templateRecords';
import { unexpectedBodyError } from '../../transport/errors';
import { createTemplate } from '../../transport/templateApi';
import type { OperationResult } from '../common.execute';
import {
	INSTRUCTIONS_DESCRIPTION,
	readSectionIds,
	readTitle,
	SECTION_IDS_DESCRIPTION,
} from './templateFields';

const show = { resource: ['template'], operation: ['create'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Title',
		name: 'title',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Cardiology OPD Note',
		description: 'The name of the template, as the workspace lists it',
		displayOptions: { show },
	},
	{
		displayName: 'Instructions',
		name: 'instructions',
		type: 'string',
		typeOptions: { rows: 6 },
		default: '',
		placeholder: 'e.g. Write a cardiology outpatient note with ## Complaints, ## Findings, ## Plan',
		description: INSTRUCTIONS_DESCRIPTION,
		displayOptions: { show },
	},
	{
		displayName: 'Section IDs',
		name: 'sectionIds',
		type: 'string',
		default: '',
		placeholder: 'e.g. sec_history, sec_plan',
		description: SECTION_IDS_DESCRIPTION,
		displayOptions: { show },
	},
];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const title = readTitle(this, itemIndex, this.getNodeParameter('title', itemIndex, ''));
	const instructions = this.getNodeParameter('instructions', itemIndex, '');
	const description = typeof instructions === 'string' ? instructions : String(instructions ?? '');
	const sectionIds = readSectionIds(
		this,
		itemIndex,
		this.getNodeParameter('sectionIds', itemIndex, ''),
	);
	const response = await createTemplate(this, { title, description, sectionIds }, itemIndex);
	const id = readCreatedTemplateId(response.body);
	if (!id)
		throw unexpectedBodyError(
			this,
			{ purpose: 'the new template', itemIndex },
			response.statusCode,
		);
	return [
		{
			id,
			title,
			description,
			sections: sectionIds,
			default: false,
			message: readTemplateMessage(response.body),
		},
	];
}
