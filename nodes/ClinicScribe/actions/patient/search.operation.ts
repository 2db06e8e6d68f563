import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readDirectoryProfiles } from '../../shared/answers/patientDirectoryRecords';
import { trimmedString } from '../../shared/values';
import { searchPatients } from '../../transport/patientApi';
import { unexpectedBodyError } from '../../transport/errors';
import { patientDataForAgentProperties } from '../common.descriptions';
import { assertPatientDataMayGoToAgent, type OperationResult } from '../common.execute';
import { badInput, SELECT_FIELD_OPTIONS, showFor } from './patientFields';

const show = showFor('search');

/** The directory's own bound on `limit` ([EKA-PD]); it returns at most 100 without one ([EKA-PD-GS]). */
export const SEARCH_LIMIT_MAX = 50;

export const description: INodeProperties[] = [
	...patientDataForAgentProperties(show),
	{
		displayName: 'Search Text',
		name: 'prefix',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. ravi',
		description: 'The start of a name, a username (UHID) or a mobile number',
		displayOptions: { show },
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: SEARCH_LIMIT_MAX },
		default: 50,
		description: 'Max number of results to return',
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
				displayName: 'Extra Fields',
				name: 'select',
				type: 'multiOptions',
				options: SELECT_FIELD_OPTIONS,
				default: [],
				description: 'Fields to return beside ID, username, name and mobile',
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
	const prefix = trimmedString(this.getNodeParameter('prefix', itemIndex, ''));
	if (prefix === '')
		throw badInput(
			this,
			itemIndex,
			'The Search Text is empty',
			'Enter the start of a name, username or mobile number.',
		);
	const limit = Number(this.getNodeParameter('limit', itemIndex, SEARCH_LIMIT_MAX));
	if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT_MAX) {
		throw badInput(
			this,
			itemIndex,
			`The Limit is not a whole number from 1 to ${SEARCH_LIMIT_MAX}`,
			`The directory returns at most ${SEARCH_LIMIT_MAX} matches: enter a Limit from 1 to ${SEARCH_LIMIT_MAX}.`,
		);
	}
	assertPatientDataMayGoToAgent(this, itemIndex, 'Patient search');
	const options = this.getNodeParameter('options', itemIndex, {}) as { select?: string[] };
	const response = await searchPatients(this, { prefix, limit, select: options.select }, itemIndex);
	const found = readDirectoryProfiles(response.body);
	if (!found)
		throw unexpectedBodyError(
			this,
			{ purpose: 'the patient search', itemIndex },
			response.statusCode,
		);
	return found.slice(0, limit);
}
