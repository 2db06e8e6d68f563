/**
 * A doctor's services ([IFD §4.1]): `GET /dr/v1/doctor/service/:doctorId`. The token raw in header
 * `auth` ([IFD §5]); a Bearer Authorization header alone is not accepted. Errors use the envelope of
 * [IFD §7]. `servicesForm: 'object'` answers the sample's single-object form.
 */
import { SERVICES_BY_DOCTOR } from '../fixtures';
import type { RouteContext, RouteDefinition } from '../types';
import { authHeaderSubject } from './auth';

export const doctorRoutes: readonly RouteDefinition[] = [
	{
		method: 'GET',
		pattern: '/dr/v1/doctor/service/:doctorId',
		body: 'none',
		errorStyle: 'envelope',
		faultErrorCodes: { 404: 'DOCTOR_NOT_FOUND' },
		handler: doctorServices,
	},
];

/** [IFD §4.1] */
function doctorServices(ctx: RouteContext): void {
	if (!authHeaderSubject(ctx)) return;
	const services = SERVICES_BY_DOCTOR[ctx.params.doctorId];
	if (!Object.prototype.hasOwnProperty.call(SERVICES_BY_DOCTOR, ctx.params.doctorId) || !services)
		return ctx.sendEnvelopeError(404, 'DOCTOR_NOT_FOUND', 'Doctor not found');
	// The sample's single-object form can only show one service; a doctor without services stays [].
	const form =
		ctx.state.options.servicesForm === 'object' && services.length > 0 ? services[0] : services;
	ctx.sendJson(200, { data: { services: form } });
}
