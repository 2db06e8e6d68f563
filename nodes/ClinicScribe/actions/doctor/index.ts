import type { INodeProperties } from 'n8n-workflow';

import * as getServices from './getServices.operation';

export const operations = { getServices };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['doctor'] } },
		options: [
			{
				name: 'Get Many Services',
				value: 'getServices',
				action: 'Get many services of a doctor',
				description: 'Get many appointment types a doctor offers, with price, duration and mode',
			},
		],
		default: 'getServices',
	},
	...getServices.description,
];
