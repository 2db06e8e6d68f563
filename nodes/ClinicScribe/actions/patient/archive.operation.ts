import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { clinicApiError, readErrorFields } from '../../transport/errors';
import { archivePatient } from '../../transport/patientApi';
import { asRecord, textOf } from '../../shared/values';
import type { OperationResult } from '../common.execute';
import { patientIdField, readPatientId } from './patientFields';

export const description: INodeProperties[] = [patientIdField('archive', 'The patient to archive')];

/** Archived patients are no longer found or listed (Get Many lists them with Include Archived). */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const patientId = readPatientId(this, itemIndex);
	const response = await archivePatient(this, patientId, itemIndex);
	if (response.statusCode === 404) {
		const { code } = readErrorFields(response.body);
		const error = clinicApiError(
			this,
			{ purpose: 'the archiving of the patient', itemIndex },
			404,
			response.body,
		);
		if (code === 'profile_not_found') {
			error.description =
				'No patient with this ID, or it is archived already. Check the Patient ID (Patient → Get Many with Include Archived lists archived ones).';
		}
		throw error;
	}
	return [
		{
			oid: patientId,
			archived: true,
			message: textOf(asRecord(response.body)?.message) ?? 'Profile archived',
		},
	];
}
