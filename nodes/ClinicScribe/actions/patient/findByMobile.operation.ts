import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import {
	checkDirectoryMobile,
	readDirectoryProfiles,
} from '../../shared/answers/patientDirectoryRecords';
import { clinicApiError, readErrorFields, unexpectedBodyError } from '../../transport/errors';
import { findPatientsByMobile } from '../../transport/patientApi';
import { patientDataForAgentProperties } from '../common.descriptions';
import { assertPatientDataMayGoToAgent, type OperationResult } from '../common.execute';
import { badInput, MOBILE_HINT, showFor } from './patientFields';

/** Search by Mobile, in the patient directory. Not `searchByMobile`: that value stays the deprecated search (searchByMobileDeprecated.operation.ts), for saved workflows. */
const show = showFor('findByMobile');
const purpose = 'the patient search by mobile';

export const description: INodeProperties[] = [
	...patientDataForAgentProperties(show),
	{
		displayName: 'Mobile Number',
		name: 'mobile',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 9876543210',
		hint: MOBILE_HINT,
		description:
			'The mobile number the patients are registered with; one number may hold several family members',
		displayOptions: { show },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Fail When No Patient Found',
				name: 'failWhenNotFound',
				type: 'boolean',
				default: false,
				description: 'Whether no match is an error. By default no match gives no output items.',
			},
			{
				displayName: 'Full Profile',
				name: 'fullProfile',
				type: 'boolean',
				default: false,
				description:
					'Whether to return whole profiles instead of the main fields (ID, username, name, gender, date of birth, ABHA, mobile)',
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
	const mobile = checkDirectoryMobile(this.getNodeParameter('mobile', itemIndex, ''));
	if (!mobile.ok)
		throw badInput(
			this,
			itemIndex,
			`The Mobile Number ${mobile.problem}`,
			'Enter the 10-digit mobile number, for example 9876543210, or it with its country code.',
		);
	assertPatientDataMayGoToAgent(this, itemIndex, 'Patient search by mobile');
	const options = this.getNodeParameter('options', itemIndex, {}) as {
		failWhenNotFound?: boolean;
		fullProfile?: boolean;
	};
	const response = await findPatientsByMobile(
		this,
		mobile.value,
		options.fullProfile === true,
		itemIndex,
	);
	const redact = [mobile.value.withCountryCode, mobile.value.national];
	if (response.statusCode === 404) {
		const { code } = readErrorFields(response.body);
		if (code !== 'profile_not_found' || options.failWhenNotFound)
			throw clinicApiError(this, { purpose, itemIndex, redact }, 404, response.body);
		return [];
	}
	const profiles = readDirectoryProfiles(response.body);
	if (!profiles) throw unexpectedBodyError(this, { purpose, itemIndex }, response.statusCode);
	if (profiles.length === 0 && options.failWhenNotFound) {
		throw new NodeOperationError(
			this.getNode(),
			`No patient is registered with the Mobile Number of item ${itemIndex}`,
			{
				description:
					'Check the number, or turn off Fail When No Patient Found to get no items instead.',
				itemIndex,
			},
		);
	}
	return profiles;
}
