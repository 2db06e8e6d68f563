import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { buildProfileBody } from '../../shared/answers/patientDirectoryRecords';
import { asRecord, textOf } from '../../shared/values';
import { createPatient } from '../../transport/patientApi';
import { unexpectedBodyError } from '../../transport/errors';
import type { OperationResult } from '../common.execute';
import { badInput, GENDER_OPTIONS, profileFieldOptions, showFor } from './patientFields';

const show = showFor('create');

export const description: INodeProperties[] = [
	{
		displayName: 'First Name',
		name: 'firstName',
		type: 'string',
		default: '',
		required: true,
		description: 'Stored lower-cased by the directory',
		displayOptions: { show },
	},
	{
		displayName: 'Date of Birth',
		name: 'dateOfBirth',
		type: 'dateTime',
		default: '',
		required: true,
		description:
			'Only the date is used (as written, without time zone shifts); an ISO string or YYYY-MM-DD from an expression works too',
		displayOptions: { show },
	},
	{
		displayName: 'Gender',
		name: 'gender',
		type: 'options',
		options: GENDER_OPTIONS,
		default: 'M',
		displayOptions: { show },
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show },
		options: profileFieldOptions(false),
	},
];

/** Returns the new patient's ID only (no patient data comes back). */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as Record<
		string,
		unknown
	>;
	const built = buildProfileBody(
		{
			...additional,
			firstName: this.getNodeParameter('firstName', itemIndex, ''),
			dateOfBirth: this.getNodeParameter('dateOfBirth', itemIndex, ''),
			gender: this.getNodeParameter('gender', itemIndex, ''),
		},
		'create',
	);
	if (!built.ok)
		throw badInput(
			this,
			itemIndex,
			built.problem,
			'Correct the field (dates as YYYY-MM-DD, mobile numbers with 10 digits).',
		);
	const response = await createPatient(this, built.value.body, built.value.sensitive, itemIndex);
	const oid = textOf(asRecord(response.body)?.oid);
	if (oid === undefined)
		throw unexpectedBodyError(this, { purpose: 'the new patient', itemIndex }, response.statusCode);
	return [{ oid }];
}
