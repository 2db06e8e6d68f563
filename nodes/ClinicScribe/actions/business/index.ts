import type { INodeProperties } from 'n8n-workflow';

import * as getEntities from './getEntities.operation';

export const operations = { getEntities };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['business'] } },
		options: [
			{
				name: 'Get Entities',
				value: 'getEntities',
				action: 'Get clinics and doctors of the business',
				description: 'List the clinics, doctors and business tied to the credential',
			},
		],
		default: 'getEntities',
	},
	...getEntities.description,
];
