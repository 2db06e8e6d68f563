/**
 * The Patient resource's calls. The patient directory ([EKA-PD] `/profiles/v1/patient…`): Bearer
 * token plus the `client-id` header, which the directory requires on every call (authentication.ts
 * adds both); without a Client ID in the credential nothing is sent. Every call names the patient
 * data it sends in `redact`, so no error can repeat it. Trailing slashes are as [EKA-PD] writes the
 * paths. Also the deprecated search of the business's patients by mobile (the doctor-tool
 * `/dr/v1/business/patients/search`, [IFD §4.1–4.3]).
 */
import { NodeOperationError, type IDataObject } from 'n8n-workflow';

import { readDirectoryProfile } from '../shared/answers/patientDirectoryRecords';
import type { ClinicApiContext, ClinicApiResponse } from './apiCall';
import { unexpectedBodyError } from './errors';
import { clinicApiRequest, pathSegment } from './request';
import { getClinicSettings } from './runCredential';

// ─── The business's patients (deprecated search) ─────────────────────────────────────────────────

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

// ─── The patient directory ───────────────────────────────────────────────────────────────────────

const PATIENT_DIRECTORY_PATH = '/profiles/v1/patient';

/** Refuses, before anything is sent, a credential without the client id the directory requires. */
async function assertClientId(ctx: ClinicApiContext, itemIndex?: number): Promise<void> {
	const settings = await getClinicSettings(ctx);
	if (settings.clientId) return;
	throw new NodeOperationError(
		ctx.getNode(),
		'The patient directory needs the Client ID of the credential, which is empty',
		{
			description:
				'The directory requires a client-id header on every call. Open the Clinic Scribe API credential and enter the Client ID the access token was issued to; nothing was sent.',
			itemIndex,
		},
	);
}

function patientPath(ctx: ClinicApiContext, patientId: string, itemIndex?: number): string {
	return `${PATIENT_DIRECTORY_PATH}/${pathSegment(ctx, patientId, 'Patient ID', itemIndex)}`;
}

export async function createPatient(
	ctx: ClinicApiContext,
	body: IDataObject,
	redact: string[],
	itemIndex?: number,
): Promise<ClinicApiResponse> {
	await assertClientId(ctx, itemIndex);
	return await clinicApiRequest(ctx, {
		method: 'POST',
		path: `${PATIENT_DIRECTORY_PATH}/`,
		body,
		// A second POST could create the patient twice ([EKA-PD] documents no duplicate check).
		idempotent: false,
		purpose: 'the new patient',
		itemIndex,
		redact,
	});
}

async function getPatient(
	ctx: ClinicApiContext,
	patientId: string,
	itemIndex?: number,
	/** Ends the call and its retries (the trigger's deadline); default: the execution's cancel signal. */
	bounds: { abortSignal?: AbortSignal; timeoutMs?: number } = {},
): Promise<ClinicApiResponse> {
	const path = patientPath(ctx, patientId, itemIndex);
	await assertClientId(ctx, itemIndex);
	return await clinicApiRequest(ctx, {
		method: 'GET',
		path,
		idempotent: true,
		abortSignal: bounds.abortSignal,
		timeoutMs: bounds.timeoutMs,
		purpose: 'the patient',
		itemIndex,
	});
}

/** One profile, read as Patient → Get outputs it; a body that is no profile is an error. */
export async function fetchPatientProfile(
	ctx: ClinicApiContext,
	patientId: string,
	itemIndex?: number,
	bounds: { abortSignal?: AbortSignal; timeoutMs?: number } = {},
): Promise<IDataObject> {
	const response = await getPatient(ctx, patientId, itemIndex, bounds);
	const profile = readDirectoryProfile(response.body);
	if (!profile)
		throw unexpectedBodyError(ctx, { purpose: 'the patient', itemIndex }, response.statusCode);
	return profile;
}

export async function updatePatient(
	ctx: ClinicApiContext,
	patientId: string,
	body: IDataObject,
	redact: string[],
	itemIndex?: number,
): Promise<ClinicApiResponse> {
	const path = patientPath(ctx, patientId, itemIndex);
	await assertClientId(ctx, itemIndex);
	return await clinicApiRequest(ctx, {
		method: 'PATCH',
		path,
		body,
		// Setting the same fields again gives the same profile.
		idempotent: true,
		purpose: "the patient's update",
		itemIndex,
		redact,
	});
}

/** 404 is returned, not thrown: after a repeat it may mean "archived by the first attempt". */
export async function archivePatient(
	ctx: ClinicApiContext,
	patientId: string,
	itemIndex?: number,
): Promise<ClinicApiResponse> {
	const path = patientPath(ctx, patientId, itemIndex);
	await assertClientId(ctx, itemIndex);
	return await clinicApiRequest(ctx, {
		method: 'DELETE',
		path,
		idempotent: true,
		acceptStatuses: [404],
		purpose: 'the archiving of the patient',
		itemIndex,
	});
}

/** `mob` as `+<country code><number>`; 404 is returned: "no patient" is the operation's to decide. */
export async function findPatientsByMobile(
	ctx: ClinicApiContext,
	mobile: { withCountryCode: string; national: string },
	fullProfile: boolean,
	itemIndex?: number,
): Promise<ClinicApiResponse> {
	await assertClientId(ctx, itemIndex);
	const qs: IDataObject = { mob: mobile.withCountryCode };
	if (fullProfile) qs.full_profile = 'true';
	return await clinicApiRequest(ctx, {
		method: 'GET',
		path: `${PATIENT_DIRECTORY_PATH}/by-mobile/`,
		qs,
		idempotent: true,
		acceptStatuses: [404],
		purpose: 'the patient search by mobile',
		itemIndex,
		redact: [mobile.withCountryCode, mobile.national],
	});
}

export async function searchPatients(
	ctx: ClinicApiContext,
	query: { prefix: string; limit?: number; select?: string[] },
	itemIndex?: number,
): Promise<ClinicApiResponse> {
	await assertClientId(ctx, itemIndex);
	const qs: IDataObject = { prefix: query.prefix };
	if (query.limit !== undefined) qs.limit = query.limit;
	if (query.select && query.select.length > 0) qs.select = query.select.join(',');
	return await clinicApiRequest(ctx, {
		method: 'GET',
		path: `${PATIENT_DIRECTORY_PATH}/search`,
		qs,
		idempotent: true,
		purpose: 'the patient search',
		itemIndex,
		redact: [query.prefix],
	});
}

interface PatientPageQuery {
	pageNo: number;
	pageSize: number;
	select?: string[];
	/** Epoch seconds. */
	from?: number;
	includeArchived?: boolean;
}

export async function listPatientsPage(
	ctx: ClinicApiContext,
	query: PatientPageQuery,
	itemIndex?: number,
): Promise<ClinicApiResponse> {
	await assertClientId(ctx, itemIndex);
	const qs: IDataObject = { pageNo: query.pageNo, pageSize: query.pageSize };
	if (query.select && query.select.length > 0) qs.select = query.select.join(',');
	if (query.from !== undefined) qs.from = query.from;
	if (query.includeArchived) qs.arc = 'true';
	return await clinicApiRequest(ctx, {
		method: 'GET',
		path: `${PATIENT_DIRECTORY_PATH}/minified/`,
		qs,
		idempotent: true,
		purpose: 'the patient list',
		itemIndex,
	});
}
