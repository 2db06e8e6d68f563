import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as deleteTemplate from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export const operations = { create, delete: deleteTemplate, get, getAll, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['template'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create a template',
				description: 'Create a document template of the workspace from a title and instructions',
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete a template',
				description: 'Delete (archive) a template of the workspace',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get a template',
				description: 'Get one template of the workspace by its ID',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many templates',
				description:
					"Get many of the workspace's templates, with title, description, sections and whether each is a default",
			},
			{
				name: 'Update',
				value: 'update',
				action: 'Update a template',
				description: "Change a template's title, instructions or sections",
			},
		],
		default: 'getAll',
	},
	...create.description,
	...deleteTemplate.description,
	...get.description,
	...getAll.description,
	...update.description,
];
