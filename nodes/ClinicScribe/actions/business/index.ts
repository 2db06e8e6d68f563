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
				name: 'Get Many Entities',
				value: 'getEntities',
				action: 'Get many entities',
				description:
					'Get many clinics and doctors of the business tied to the credential, with the business itself',
			},
		],
		default: 'getEntities',
	},
	...getEntities.description,
];
