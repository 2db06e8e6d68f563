/** Fields and input checks the patient directory operations share. */
import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { BLOOD_GROUPS } from '../../shared/answers/patientDirectoryRecords';
import { trimmedString } from '../../shared/values';
import { pathIdProblem } from '../../transport/request';

export function showFor(operation: string) {
	return { resource: ['patient'], operation: [operation] };
}

export function patientIdField(operation: string, description: string): INodeProperties {
	return {
		displayName: 'Patient ID',
		name: 'patientId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 175074536120088',
		description: `${description}. The directory's oid, as Create, Search or Get Many give it.`,
		displayOptions: { show: showFor(operation) },
	};
}

/** The Patient ID of the item, refused (nothing sent) when empty or only dots. */
export function readPatientId(ctx: IExecuteFunctions, itemIndex: number): string {
	const patientId = trimmedString(ctx.getNodeParameter('patientId', itemIndex, ''));
	const problem = pathIdProblem(patientId);
	if (problem) {
		throw new NodeOperationError(ctx.getNode(), `The Patient ID of item ${itemIndex} ${problem}`, {
			description:
				"Enter the patient's ID (oid), for example from Patient → Create, Search or Get Many; nothing was sent.",
			itemIndex,
		});
	}
	return patientId;
}

/** A bad value of the item: the message names the item and field, never the value (patient data). */
export function badInput(
	ctx: IExecuteFunctions,
	itemIndex: number,
	problem: string,
	fix: string,
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `${problem} (item ${itemIndex})`, {
		description: `${fix} Nothing was sent.`,
		itemIndex,
	});
}

export const MOBILE_HINT =
	'The 10-digit number (a +91 country code is added), or the number with its country code, e.g. +919876543210';

/** The optional profile fields, for Create's Additional Fields and Update's Update Fields. */
export function profileFieldOptions(forUpdate: boolean): INodeProperties[] {
	const fields: INodeProperties[] = [
		{
			displayName: 'ABHA Address',
			name: 'abha',
			type: 'string',
			default: '',
			placeholder: 'e.g. name@abdm',
			description: "The patient's ABHA address",
		},
		{
			displayName: 'Blood Group',
			name: 'bloodGroup',
			type: 'options',
			options: BLOOD_GROUPS.map((group) => ({ name: group, value: group })),
			default: 'O+',
		},
		{
			displayName: 'Date of Birth Is From Age',
			name: 'dobFromAge',
			type: 'boolean',
			default: false,
			description: 'Whether the date of birth was worked out from an age the patient gave',
		},
		{
			displayName: 'Email',
			name: 'email',
			type: 'string',
			placeholder: 'name@email.com',
			default: '',
			description: 'Stored lower-cased',
		},
		{
			displayName: 'Full Name',
			name: 'fullName',
			type: 'string',
			default: '',
			description:
				'The name as it should be shown; by default the directory joins first, middle and last name',
		},
		{ displayName: 'Last Name', name: 'lastName', type: 'string', default: '' },
		{ displayName: 'Middle Name', name: 'middleName', type: 'string', default: '' },
		{
			displayName: 'Mobile Number',
			name: 'mobile',
			type: 'string',
			default: '',
			placeholder: 'e.g. 9876543210',
			hint: MOBILE_HINT,
		},
		{
			displayName: 'Salutation',
			name: 'salutation',
			type: 'string',
			default: '',
			placeholder: 'e.g. Mr.',
		},
		{
			displayName: 'Username',
			name: 'username',
			type: 'string',
			default: '',
			placeholder: 'e.g. UHID-0042',
			description: 'Your own ID for the patient (UHID, partner ID); unique in the workspace',
		},
	];
	if (!forUpdate) return fields;
	const updateOnly: INodeProperties[] = [
		{
			displayName: 'Date of Birth',
			name: 'dateOfBirth',
			type: 'dateTime',
			default: '',
			description: 'Only the date is used',
		},
		{ displayName: 'First Name', name: 'firstName', type: 'string', default: '' },
		{
			displayName: 'Gender',
			name: 'gender',
			type: 'options',
			options: GENDER_OPTIONS,
			default: 'M',
		},
	];
	return [...fields, ...updateOnly].sort((a, b) => a.displayName.localeCompare(b.displayName));
}

export const GENDER_OPTIONS = [
	{ name: 'Female', value: 'F' },
	{ name: 'Male', value: 'M' },
	{ name: 'Other', value: 'O' },
];

export const SELECT_FIELD_OPTIONS = [
	{ name: 'ABHA Address', value: 'abha' },
	{ name: 'Created At', value: 'c_ate' },
	{ name: 'Date of Birth', value: 'dob' },
	{ name: 'Gender', value: 'gen' },
	{ name: 'Updated At', value: 'u_ate' },
];
