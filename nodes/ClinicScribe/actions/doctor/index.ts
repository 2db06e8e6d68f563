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
				name: 'Get Services',
				value: 'getServices',
				action: 'Get services of a doctor',
				description: 'List the appointment types a doctor offers, with price, duration and mode',
			},
		],
		default: 'getServices',
	},
	...getServices.description,
];
