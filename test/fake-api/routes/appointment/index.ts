/**
 * Appointments of the doctor-tool API ([EKA-DT]), strict as the other routes:
 *
 *   GET   /dr/v1/doctor/:doctorId/clinic/:clinicId/appointment/slot?start_date&end_date → 200 {data:{schedule, services}, success, status_code}
 *   POST  /dr/v1/appointment                       one id set + appointment_details.start_time … → 201 {appointment_id}
 *   GET   /dr/v1/appointment?<filter set>&page_no   → 200 {appointments:[…]} (filter sets and page sizes of [EKA-DT])
 *   GET   /dr/v1/appointment/:id[?partner_id=1]     → 200 the appointment object ([EKA-DT], no wrapper)
 *   PATCH /dr/v2/appointment/:id[?partner_id=1]     one id set + fields → 204
 *   PATCH /appointments/v1/:id/reschedule           {start_time*, end_time*, partner_appointment_id?} → 200 the new appointment
 *   PUT   /dr/v1/appointment/:id/cancel             → 204      POST …/complete → 204      POST …/parked → 204
 *   POST  /dr/v1/appointment/:id/change-status      {"status":"NS"} → 200
 *
 * `/dr` routes take the token raw in `auth` ([IFD §5]) or as `Authorization: Bearer` ([EKA-DT]
 * declares the latter on the list); `/appointments/v1` takes Bearer only. A `client-id` that does not
 * match the token is refused. Slot query dates are `YYYY-MM-DD` or [EKA-MCP]'s ISO midnight form, and
 * the range is the strict reading (end at most start + 1 day, [EKA-APPT-GS]). Partner clinic/doctor ids must be
 * registered (PARTNER_CLINICS / PARTNER_DOCTORS). Booking with `patient_details` adds the patient to
 * the directory (`directoryAdds`). A `partner_appointment_id` used before answers 409.
 *
 * Files: store.ts (state, seeding, dates), requests.ts (body reading, errors, auth), slots.ts,
 * bookingFields.ts (id sets and the checks booking and update share), book.ts, list.ts,
 * appointment.ts (get, update, reschedule, actions), admin.ts.
 *
 * Seeding: in process `fakeAppointments(api).seed({...})`; from another process
 * `POST /__admin/appointments/seed` with one appointment or `{appointments:[…]}` (missing fields get
 * defaults), `GET /__admin/appointments`, `POST /__admin/appointments/clear`.
 */
import type { RouteDefinition } from '../../types';
import { action, changeStatus, getOne, reschedule, updateV2 } from './appointment';
import { book } from './book';
import { list } from './list';
import { DR } from './requests';
import { slots } from './slots';

export { appointmentAdmin } from './admin';
export { BOOK_MODES } from './bookingFields';
export {
	appointmentStoreOf,
	fakeAppointments,
	LIST_MAX_SPAN_DAYS,
	PAGE_SIZES,
	PARTNER_CLINICS,
	PARTNER_DOCTORS,
	resetAppointmentStore,
	SLOT_CONF_ID,
	SLOT_TIMES,
	type AppointmentStore,
	type FakeAppointment,
} from './store';

export const appointmentRoutes: readonly RouteDefinition[] = [
	{
		method: 'GET',
		pattern: '/dr/v1/doctor/:doctorId/clinic/:clinicId/appointment/slot',
		body: 'none',
		...DR,
		handler: slots,
	},
	{ method: 'POST', pattern: '/dr/v1/appointment', body: 'json', ...DR, handler: book },
	{ method: 'GET', pattern: '/dr/v1/appointment', body: 'none', ...DR, handler: list },
	{ method: 'GET', pattern: '/dr/v1/appointment/:id', body: 'none', ...DR, handler: getOne },
	{ method: 'PATCH', pattern: '/dr/v2/appointment/:id', body: 'json', ...DR, handler: updateV2 },
	{
		method: 'PATCH',
		pattern: '/appointments/v1/:id/reschedule',
		body: 'json',
		...DR,
		handler: reschedule,
	},
	{
		method: 'PUT',
		pattern: '/dr/v1/appointment/:id/cancel',
		body: 'json',
		...DR,
		handler: (ctx) => action(ctx, 'cancel'),
	},
	{
		method: 'POST',
		pattern: '/dr/v1/appointment/:id/complete',
		body: 'json',
		...DR,
		handler: (ctx) => action(ctx, 'complete'),
	},
	{
		method: 'POST',
		pattern: '/dr/v1/appointment/:id/parked',
		body: 'json',
		...DR,
		handler: (ctx) => action(ctx, 'park'),
	},
	{
		method: 'POST',
		pattern: '/dr/v1/appointment/:id/change-status',
		body: 'json',
		...DR,
		handler: changeStatus,
	},
];
