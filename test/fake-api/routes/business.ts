/**
 * The business of the token, its clinics and doctors ([IFD §4.3]): `GET /dr/v1/business/entities`.
 * The token raw in header `auth` ([IFD §5]); a Bearer Authorization header alone is not accepted.
 * Errors use the envelope of [IFD §7].
 */
import { BUSINESS, CLINICS, DOCTORS } from '../fixtures';
import type { RouteContext, RouteDefinition } from '../types';
import { authHeaderSubject } from './auth';

export const businessRoutes: readonly RouteDefinition[] = [
	{
		method: 'GET',
		pattern: '/dr/v1/business/entities',
		body: 'none',
		errorStyle: 'envelope',
		faultErrorCodes: { 403: 'UNAUTHORIZED_ACCESS', 404: 'BUSINESS_NOT_FOUND' },
		handler: businessEntities,
	},
];

/** [IFD §4.3]: the business comes from the token. */
function businessEntities(ctx: RouteContext): void {
	const subject = authHeaderSubject(ctx);
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
