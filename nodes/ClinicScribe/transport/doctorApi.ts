/**
 * The Doctor resource's calls: a doctor's services ([IFD §4.1–4.3], the doctor-tool `/dr/v1/…`
 * endpoints).
 */
import type { ClinicApiContext, ClinicApiResponse } from './apiCall';
import { clinicApiRequest, pathSegment } from './request';

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
