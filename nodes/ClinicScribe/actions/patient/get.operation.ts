import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readDirectoryProfile } from '../../shared/patientDirectoryRecords';
import { getPatient } from '../../transport/patientDirectoryApi';
import { unexpectedBodyError } from '../../transport/requestErrors';
import { patientDataForAgentProperties } from '../common.descriptions';
import { assertPatientDataMayGoToAgent, type OperationResult } from '../common.execute';
import { patientIdField, readPatientId, showFor } from './patientFields';

const show = showFor('get');

export const description: INodeProperties[] = [...patientDataForAgentProperties(show), patientIdField('get', 'The patient to get')];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult> {
	const patientId = readPatientId(this, itemIndex);
	assertPatientDataMayGoToAgent(this, itemIndex, 'Patient Get');
	const response = await getPatient(this, patientId, itemIndex);
	const profile = readDirectoryProfile(response.body);
	if (!profile) throw unexpectedBodyError(this, { purpose: 'the patient', itemIndex }, response.statusCode);
	return [profile];
}
