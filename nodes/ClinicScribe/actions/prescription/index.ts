import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';

export const operations = { get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['prescription'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				action: 'Get a prescription',
				description:
					"Get a prescription (medicines, diagnoses, advice) by its ID, optionally with its PDF. As an AI agent tool, it goes to the agent's model provider.",
			},
		],
		default: 'get',
	},
	...get.description,
];
