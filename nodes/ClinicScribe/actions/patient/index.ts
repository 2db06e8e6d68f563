import type { INodeProperties } from 'n8n-workflow';

import * as searchByMobile from './searchByMobile.operation';

export const operations = { searchByMobile };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['patient'] } },
		options: [
			{
				name: 'Search by Mobile (Deprecated)',
				value: 'searchByMobile',
				action: 'Search patients by mobile number',
				description:
					'Find the patient profiles registered with a 10-digit mobile number. As an AI agent tool, the profiles go to the agent\'s model provider.',
			},
		],
		default: 'searchByMobile',
	},
	...searchByMobile.description,
];
