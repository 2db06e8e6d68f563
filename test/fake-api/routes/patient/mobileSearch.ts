/**
 * The deprecated patient search ([IFD §4.2]): `GET /dr/v1/business/patients/search?mobile=`, exactly
 * one 10-digit mobile. The token raw in header `auth` ([IFD §5]); errors use the envelope of [IFD §7].
 * Answers the profiles form of [IFD §2.2], or with `patientsForm: 'patients'` its alternative sample.
 */
import { PATIENTS_BY_MOBILE } from '../../fixtures';
import type { PatientFixture } from '../../fixtures';
import type { RouteContext, RouteDefinition } from '../../types';
import { authHeaderSubject } from '../auth';

export const patientSearchRoutes: readonly RouteDefinition[] = [
	{
		method: 'GET',
		pattern: '/dr/v1/business/patients/search',
		body: 'none',
		errorStyle: 'envelope',
		faultErrorCodes: { 403: 'UNAUTHORIZED_ACCESS', 404: 'PATIENTS_NOT_FOUND' },
		handler: searchPatients,
	},
];

/** [IFD §4.2] */
function searchPatients(ctx: RouteContext): void {
	if (!authHeaderSubject(ctx)) return;
	const mobiles = ctx.query.getAll('mobile');
	if (mobiles.length !== 1 || !/^\d{10}$/.test(mobiles[0]))
		return ctx.sendEnvelopeError(
			400,
			'INVALID_MOBILE',
			'Query parameter mobile must be exactly one 10-digit number',
		);
	const found = Object.prototype.hasOwnProperty.call(PATIENTS_BY_MOBILE, mobiles[0])
		? PATIENTS_BY_MOBILE[mobiles[0]]
		: undefined;
	if (!found || found.length === 0)
		return ctx.sendEnvelopeError(
			404,
			'PATIENTS_NOT_FOUND',
			'No patients found for this mobile number',
		);
	const data =
		ctx.state.options.patientsForm === 'patients'
			? { patients: found.map(alternativePatientForm) }
			: { profiles: found.map(profileForm) };
	ctx.sendJson(200, { status_code: 200, success: true, data });
}

/** [IFD §2.2]. */
function profileForm(p: PatientFixture) {
	const { email: _email, ...profile } = p.profile;
	return { name: p.name, patient_id: p.patient_id, patient_profile: profile };
}

/** The alternative sample of [IFD §2.2]: extra clinic_id, is_recent, email; gender named gen. */
function alternativePatientForm(p: PatientFixture) {
	const { gender, ...rest } = p.profile;
	return {
		name: p.name,
		patient_id: p.patient_id,
		clinic_id: p.clinic_id,
		is_recent: p.is_recent,
		patient_profile: { ...rest, gen: gender },
	};
}
