import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import {
	checkTenDigitMobile,
	readBusinessPatientProfiles,
	simplifyPatient,
} from '../../shared/answers/clinicDirectoryRecords';
import { clinicApiError, readErrorFields, unexpectedBodyError } from '../../transport/errors';
import { searchBusinessPatientsByMobile } from '../../transport/patientApi';
import { patientDataForAgentProperties, returnAllAndLimit } from '../common.descriptions';
import {
	applyReturnLimit,
	assertPatientDataMayGoToAgent,
	type OperationResult,
} from '../common.execute';

/**
 * Search by Mobile (Deprecated): the patient search of [IFD §4.2] (`/dr`), replaced by the patient
 * directory's (findByMobile.operation.ts). Its value stays `searchByMobile`: saved workflows hold it.
 */
const show = { resource: ['patient'], operation: ['searchByMobile'] };
const purpose = 'the patient search';

export const description: INodeProperties[] = [
	{
		displayName:
			'Deprecated: the API provider replaces this search with the patient directory. It works today; for new workflows use Patient → Search by Mobile, which searches the directory (and takes numbers with a country code).',
		name: 'deprecationNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	...patientDataForAgentProperties(show),
	{
		displayName: 'Mobile Number',
		name: 'mobile',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 9876543210',
		hint: 'Exactly 10 digits, without country code. Spaces and dashes are fine. Deprecated search: prefer Patient → Search by Mobile.',
		description:
			'The full 10-digit mobile number the patient registered with; partial numbers are not searchable',
		displayOptions: { show },
	},
	...returnAllAndLimit(show),
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: false,
		description: 'Whether to return a flat record per patient instead of the full profile',
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
		],
	},
];

/** Only reads: the router sends several items at once (ItemOperation.readsOnly). */
export const readsOnly = true;

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	assertPatientDataMayGoToAgent(this, itemIndex, 'Patient search');
	const check = checkTenDigitMobile(this.getNodeParameter('mobile', itemIndex, ''));
	if (!check.ok) {
		// The number itself is patient data: the message describes it without repeating it.
		throw new NodeOperationError(this.getNode(), `The Mobile Number ${check.problem}`, {
			description: 'Enter the full 10-digit mobile number, for example 9876543210.',
			itemIndex,
		});
	}
	const options = this.getNodeParameter('options', itemIndex, {}) as { failWhenNotFound?: boolean };
	const response = await searchBusinessPatientsByMobile(this, check.digits, itemIndex);
	if (response.statusCode === 404) {
		const { code } = readErrorFields(response.body);
		if (code !== 'PATIENTS_NOT_FOUND' || options.failWhenNotFound) {
			throw clinicApiError(
				this,
				{ purpose, itemIndex, redact: [check.digits] },
				404,
				response.body,
			);
		}
		return [];
	}
	const profiles = readBusinessPatientProfiles(response.body);
	if (!profiles) throw unexpectedBodyError(this, { purpose, itemIndex }, response.statusCode);
	const simplify = this.getNodeParameter('simplify', itemIndex, false) as boolean;
	const limited = applyReturnLimit(this, itemIndex, profiles);
	return simplify ? limited.map(simplifyPatient) : limited;
}
