import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { readDoctorServices } from '../../shared/answers/clinicDirectoryRecords';
import { getDoctorServices } from '../../transport/doctorApi';
import { unexpectedBodyError } from '../../transport/errors';
import { returnAllAndLimit } from '../common.descriptions';
import { applyReturnLimit, type OperationResult } from '../common.execute';

const show = { resource: ['doctor'], operation: ['getServices'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Doctor',
		name: 'doctorId',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'The doctor whose services to list',
		displayOptions: { show },
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchDoctors', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 174157340097045',
			},
		],
	},
	...returnAllAndLimit(show),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Exclude Archived Services',
				name: 'excludeArchived',
				type: 'boolean',
				default: false,
				description: 'Whether to leave out services that are archived (no longer bookable)',
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
	const doctorId = String(
		this.getNodeParameter('doctorId', itemIndex, '', { extractValue: true }) ?? '',
	).trim();
	if (doctorId === '') {
		throw new NodeOperationError(this.getNode(), 'The Doctor field is empty', {
			description:
				'Pick a doctor from the list, or enter a doctor ID (Business → Get Many Entities lists them).',
			itemIndex,
		});
	}
	const options = this.getNodeParameter('options', itemIndex, {}) as { excludeArchived?: boolean };
	const response = await getDoctorServices(this, doctorId, itemIndex);
	const services = readDoctorServices(response.body);
	if (!services)
		throw unexpectedBodyError(
			this,
			{ purpose: "the doctor's services", itemIndex },
			response.statusCode,
		);
	const kept = options.excludeArchived
		? services.filter((service) => service.archive !== true)
		: services;
	return applyReturnLimit(this, itemIndex, kept);
}
