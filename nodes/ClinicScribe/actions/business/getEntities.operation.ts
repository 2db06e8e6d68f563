import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readBusinessEntities } from '../../shared/answers/clinicDirectoryRecords';
import { getBusinessEntities } from '../../transport/businessApi';
import { unexpectedBodyError } from '../../transport/errors';
import type { OperationResult } from '../common.execute';

const show = { resource: ['business'], operation: ['getEntities'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		default: 'entities',
		displayOptions: { show },
		options: [
			{
				name: 'One Item',
				value: 'entities',
				description: 'One item with the clinics, the doctors and the business',
			},
			{
				name: 'One Item per Clinic',
				value: 'clinics',
				description: 'Clinic ID, name and its doctor IDs',
			},
			{
				name: 'One Item per Doctor',
				value: 'doctors',
				description: 'Doctor ID, name and picture URL',
			},
		],
	},
];

/** Only reads: the router sends several items at once (ItemOperation.readsOnly). */
export const readsOnly = true;

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const output = this.getNodeParameter('output', itemIndex, 'entities') as
		| 'entities'
		| 'clinics'
		| 'doctors';
	const response = await getBusinessEntities(this, itemIndex);
	const entities = readBusinessEntities(response.body);
	if (!entities) {
		throw unexpectedBodyError(
			this,
			{ purpose: "the business's clinics and doctors", itemIndex },
			response.statusCode,
		);
	}
	if (output === 'clinics') return entities.clinics;
	if (output === 'doctors') return entities.doctors;
	return [{ clinics: entities.clinics, doctors: entities.doctors, business: entities.business }];
}
