import type { INodeProperties } from 'n8n-workflow';

import * as linkTerms from './linkTerms.operation';

export const operations = { linkTerms };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['medLink'] } },
		options: [
			{
				name: 'Link Terms',
				value: 'linkTerms',
				action: 'Link medical terms to codes',
				description:
					'Code free-text medical terms (symptoms, diagnoses, lab tests, medicines) as SNOMED CT, LOINC, ICD-10-CM or medication codes, with score and whether the service linked them',
			},
		],
		default: 'linkTerms',
	},
	...linkTerms.description,
];
