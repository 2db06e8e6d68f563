/**
 * The clinic directory ([IFD §4.1–4.3], the doctor-tool `/dr/v1/…` endpoints), as calls: the
 * business's clinics and doctors, a doctor's services, and the deprecated search of the business's
 * patients by mobile. Shaping of their answers is shared/clinicDirectoryRecords.ts. The patient
 * directory (`/profiles`) is patientDirectoryApi.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { readBusinessEntities } from '../shared/clinicDirectoryRecords';
import { clinicApiRequest, pathSegment, type ClinicApiContext, type ClinicApiResponse } from './request';
import { unexpectedBodyError } from './requestErrors';

export async function getDoctorServices(
	ctx: ClinicApiContext,
	doctorId: string,
	itemIndex?: number,
): Promise<ClinicApiResponse> {
	return await clinicApiRequest(ctx, {
		method: 'GET',
		path: `/dr/v1/doctor/service/${pathSegment(ctx, doctorId, 'Doctor ID', itemIndex)}`,
		idempotent: true,
		purpose: "the doctor's services",
		itemIndex,
	});
}

/** 404 is returned, not thrown: "no patient found" is an answer the operation decides about. */
export async function searchBusinessPatientsByMobile(
	ctx: ClinicApiContext,
	mobile: string,
	itemIndex?: number,
): Promise<ClinicApiResponse> {
	return await clinicApiRequest(ctx, {
		method: 'GET',
		path: '/dr/v1/business/patients/search',
		qs: { mobile },
		idempotent: true,
		acceptStatuses: [404],
		purpose: 'the patient search',
		itemIndex,
		redact: [mobile],
	});
}

export async function getBusinessEntities(ctx: ClinicApiContext, itemIndex?: number): Promise<ClinicApiResponse> {
	return await clinicApiRequest(ctx, {
		method: 'GET',
		path: '/dr/v1/business/entities',
		idempotent: true,
		purpose: "the business's clinics and doctors",
		itemIndex,
	});
}

/** The business's doctors (`doctors[]` of [IFD §2.3]); a body that is not the documented JSON is an error. */
export async function fetchClinicDoctors(ctx: ClinicApiContext, itemIndex?: number): Promise<IDataObject[]> {
	const response = await getBusinessEntities(ctx, itemIndex);
	const entities = readBusinessEntities(response.body);
	if (!entities) throw unexpectedBodyError(ctx, { purpose: "the business's clinics and doctors", itemIndex }, response.statusCode);
	return entities.doctors;
}
