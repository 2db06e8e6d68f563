import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { buildProfileBody } from '../../shared/answers/patientDirectoryRecords';
import { asRecord, textOf } from '../../shared/values';
import { updatePatient } from '../../transport/patientApi';
import type { OperationResult } from '../common.execute';
import {
	badInput,
	patientIdField,
	profileFieldOptions,
	readPatientId,
	showFor,
} from './patientFields';

const show = showFor('update');

export const description: INodeProperties[] = [
	patientIdField('update', 'The patient to change'),
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Only the fields given are changed; leave out the names to keep them',
		displayOptions: { show },
		options: profileFieldOptions(true),
	},
];

/** Returns the patient's ID and the directory's message (no patient data comes back). */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const patientId = readPatientId(this, itemIndex);
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as Record<string, unknown>;
	const built = buildProfileBody(fields, 'update');
	if (!built.ok)
		throw badInput(
			this,
			itemIndex,
			built.problem,
			'Add at least one field under Update Fields and correct any bad value.',
		);
	const response = await updatePatient(
		this,
		patientId,
		built.value.body,
		built.value.sensitive,
		itemIndex,
	);
	return [
		{
			oid: patientId,
			updated: true,
			message: textOf(asRecord(response.body)?.message) ?? 'Profile updated',
		},
	];
}
