import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { fetchPatientProfile } from '../../transport/patientApi';
import { patientDataForAgentProperties } from '../common.descriptions';
import { assertPatientDataMayGoToAgent, type OperationResult } from '../common.execute';
import { patientIdField, readPatientId, showFor } from './patientFields';

const show = showFor('get');

export const description: INodeProperties[] = [
	...patientDataForAgentProperties(show),
	patientIdField('get', 'The patient to get'),
];

/** Only reads: the router sends several items at once (ItemOperation.readsOnly). */
export const readsOnly = true;

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const patientId = readPatientId(this, itemIndex);
	assertPatientDataMayGoToAgent(this, itemIndex, 'Patient Get');
	return [await fetchPatientProfile(this, patientId, itemIndex)];
}
