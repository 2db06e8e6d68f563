import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { readTemplateMessage } from '../../shared/answers/templateRecords';
import { updateTemplate, type TemplateFields } from '../../transport/templateApi';
import type { OperationResult } from '../common.execute';
import {
	INSTRUCTIONS_DESCRIPTION,
	readSectionIds,
	readTemplateId,
	readTitle,
	SECTION_IDS_DESCRIPTION,
	templateIdField,
} from './templateFields';

const show = { resource: ['template'], operation: ['update'] };

export const description: INodeProperties[] = [
	templateIdField(
		'update',
		'The template to change (templates of the service itself cannot be changed)',
	),
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Instructions',
				name: 'instructions',
				type: 'string',
				typeOptions: { rows: 6 },
				default: '',
				description: INSTRUCTIONS_DESCRIPTION,
			},
			{
				displayName: 'Section IDs',
				name: 'sectionIds',
				type: 'string',
				default: '',
				description: SECTION_IDS_DESCRIPTION,
			},
			{
				displayName: 'Title',
				name: 'title',
				type: 'string',
				default: '',
				description: 'The new name of the template',
			},
		],
	},
];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const templateId = readTemplateId(this, itemIndex);
	const given = this.getNodeParameter('updateFields', itemIndex, {}) as {
		title?: unknown;
		instructions?: unknown;
		sectionIds?: unknown;
	};
	const fields: TemplateFields = {};
	if (given.title !== undefined) fields.title = readTitle(this, itemIndex, given.title);
	if (given.instructions !== undefined)
		fields.description =
			typeof given.instructions === 'string'
				? given.instructions
				: String(given.instructions ?? '');
	if (given.sectionIds !== undefined)
		fields.sectionIds = readSectionIds(this, itemIndex, given.sectionIds);
	if (Object.keys(fields).length === 0) {
		throw new NodeOperationError(
			this.getNode(),
			`Nothing to update for template "${templateId}" (item ${itemIndex})`,
			{
				description:
					'Add at least one field under Update Fields (Title, Instructions or Section IDs). Nothing was sent.',
				itemIndex,
			},
		);
	}
	const response = await updateTemplate(this, templateId, fields, itemIndex);
	return [
		{
			id: templateId,
			updated: true,
			...(fields.title !== undefined ? { title: fields.title } : {}),
			...(fields.description !== undefined ? { description: fields.description } : {}),
			...(fields.sectionIds !== undefined ? { sections: fields.sectionIds } : {}),
			message: readTemplateMessage(response.body),
		},
	];
}
