/**
 * The Business resource's calls: the business's clinics and doctors ([IFD §4.1–4.3], the doctor-tool
 * `/dr/v1/…` endpoints; Get Entities, the Doctor lists of the editor, a transcription's doctor); the
 * shaping of the answer is shared/answers/clinicDirectoryRecords.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { readBusinessEntities } from '../shared/answers/clinicDirectoryRecords';
import type { ClinicApiContext, ClinicApiResponse } from './apiCall';
import { unexpectedBodyError } from './errors';
import { clinicApiRequest } from './request';

export async function getBusinessEntities(
	ctx: ClinicApiContext,
	itemIndex?: number,
): Promise<ClinicApiResponse> {
	return await clinicApiRequest(ctx, {
		method: 'GET',
		path: '/dr/v1/business/entities',
		idempotent: true,
		purpose: "the business's clinics and doctors",
		itemIndex,
	});
}

/** The business's doctors (`doctors[]` of [IFD §2.3]); a body that is not the documented JSON is an error. */
export async function fetchClinicDoctors(
	ctx: ClinicApiContext,
	itemIndex?: number,
): Promise<IDataObject[]> {
	const response = await getBusinessEntities(ctx, itemIndex);
	const entities = readBusinessEntities(response.body);
	if (!entities)
		throw unexpectedBodyError(
			ctx,
			{ purpose: "the business's clinics and doctors", itemIndex },
			response.statusCode,
		);
	return entities.doctors;
}
