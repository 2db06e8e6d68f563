/**
 * Directory endpoints of [IFD]: doctor services ([IFD §4.1]), patient search ([IFD §4.2], deprecated
 * group) and business entities ([IFD §4.3]). All take the token raw in header `auth` ([IFD §5]); a Bearer
 * Authorization header alone is not accepted. Errors use the envelope of [IFD §7].
 */
import { BUSINESS, CLINICS, DOCTORS, PATIENTS_BY_MOBILE, SERVICES_BY_DOCTOR } from '../fixtures';
import type { PatientFixture } from '../fixtures';
import type { RouteContext, RouteDefinition } from '../types';
import type { TokenSubject } from '../tokens';

export const directoryRoutes: readonly RouteDefinition[] = [
	{
		method: 'GET',
		pattern: '/dr/v1/doctor/service/:doctorId',
		body: 'none',
		errorStyle: 'envelope',
		faultErrorCodes: { 404: 'DOCTOR_NOT_FOUND' },
		handler: doctorServices,
	},
	{
		method: 'GET',
		pattern: '/dr/v1/business/patients/search',
		body: 'none',
		errorStyle: 'envelope',
		faultErrorCodes: { 403: 'UNAUTHORIZED_ACCESS', 404: 'PATIENTS_NOT_FOUND' },
		handler: searchPatients,
	},
	{
		method: 'GET',
		pattern: '/dr/v1/business/entities',
		body: 'none',
		errorStyle: 'envelope',
		faultErrorCodes: { 403: 'UNAUTHORIZED_ACCESS', 404: 'BUSINESS_NOT_FOUND' },
		handler: businessEntities,
	},
];

/** [IFD §4.1] */
function doctorServices(ctx: RouteContext): void {
	if (!authenticated(ctx)) return;
	const services = SERVICES_BY_DOCTOR[ctx.params.doctorId];
	if (!Object.prototype.hasOwnProperty.call(SERVICES_BY_DOCTOR, ctx.params.doctorId) || !services)
		return ctx.sendEnvelopeError(404, 'DOCTOR_NOT_FOUND', 'Doctor not found');
	// The sample's single-object form can only show one service; a doctor without services stays [].
	const form =
		ctx.state.options.servicesForm === 'object' && services.length > 0 ? services[0] : services;
	ctx.sendJson(200, { data: { services: form } });
}

/** [IFD §4.2] */
function searchPatients(ctx: RouteContext): void {
	if (!authenticated(ctx)) return;
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

/** [IFD §4.3]: the business comes from the token. */
function businessEntities(ctx: RouteContext): void {
	const subject = authenticated(ctx);
	if (!subject) return;
	const businessId = subject === 'static' ? BUSINESS.business_id : subject.businessId;
	if (businessId !== BUSINESS.business_id)
		return ctx.sendEnvelopeError(404, 'BUSINESS_NOT_FOUND', 'Business not found for this token');
	ctx.sendJson(200, {
		status_code: 200,
		success: true,
		data: { clinics: CLINICS, doctors: DOCTORS, business: BUSINESS },
	});
}

// ---------------------------------------------------------------------------------------------

/** The token's subject, or undefined after answering 401. */
function authenticated(ctx: RouteContext): TokenSubject | 'static' | undefined {
	const header = ctx.req.headers.auth;
	const check = ctx.state.tokens.checkAccess(typeof header === 'string' ? header : undefined);
	if (check.valid) return check.subject;
	ctx.sendEnvelopeError(401, 'UNAUTHORIZED', 'token expired or invalid');
	return undefined;
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
