/** GET /dr/v1/doctor/:doctorId/clinic/:clinicId/appointment/slot: the doctor's slots at a clinic, D to D+1. */
import { BUSINESS, CLINICS } from '../../fixtures';
import type { RouteContext } from '../../types';
import { authorised } from './requests';
import {
	ACTIVE,
	addDays,
	appointmentStoreOf,
	daysBetween,
	IST_OFFSET_SECONDS,
	istIso,
	SLOT_CONF_ID,
	SLOT_TIMES,
} from './store';

export function slots(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const unknown = [...ctx.query.keys()].filter((key) => key !== 'start_date' && key !== 'end_date');
	if (unknown.length > 0)
		return slotError(ctx, 400, `unexpected query parameter(s): ${unknown.join(', ')}`);
	const start = slotDate(ctx.query.getAll('start_date'));
	const end = slotDate(ctx.query.getAll('end_date'));
	if (!start || !end)
		return slotError(ctx, 400, 'start_date and end_date are required, as YYYY-MM-DD');
	const span = daysBetween(start, end);
	if (span < 0) return slotError(ctx, 400, 'end_date must not be before start_date');
	if (span > 1) return slotError(ctx, 400, 'Slots can be fetched only from D to D+1');
	const clinic = CLINICS.find((c) => c.clinic_id === ctx.params.clinicId);
	if (!clinic) return slotError(ctx, 404, 'Clinic not found. Please check the provided clinic ID.');
	if (!(clinic.doctors as readonly string[]).includes(ctx.params.doctorId)) {
		return slotError(ctx, 404, 'Doctor not found. Please check the provided doctor ID.');
	}
	const store = appointmentStoreOf(ctx.state);
	const list: Array<Record<string, unknown>> = [];
	for (let day = 0; day <= span; day++) {
		const date = addDays(start, day);
		for (const [hour, minute] of SLOT_TIMES) {
			const s =
				Date.parse(`${date}T00:00:00Z`) / 1000 + hour * 3600 + minute * 60 - IST_OFFSET_SECONDS;
			const taken = [...store.appointments.values()].some(
				(a) =>
					a.doctor_id === ctx.params.doctorId &&
					a.clinic_id === clinic.clinic_id &&
					a.start_time === s &&
					ACTIVE.has(a.status),
			);
			list.push({
				available: !taken,
				conf_id: SLOT_CONF_ID,
				s: istIso(s),
				e: istIso(s + 900),
				...(taken ? { slots_booked: 1 } : {}),
			});
		}
	}
	ctx.sendJson(200, {
		data: {
			schedule: { [clinic.clinic_id]: [{ service_type: 'consultation', slots: list }] },
			services: {
				[SLOT_CONF_ID]: {
					allow_patient_booking: true,
					appointment_type: 'REGULAR',
					currency: 'INR',
					mode: ['in-clinic'],
					owner_id: BUSINESS.business_id,
					pre_pay: true,
					price: 500,
					service_name: 'consultation',
				},
			},
		},
		success: 'true',
		status_code: 200,
	});
}

/** `YYYY-MM-DD` ([EKA-DT-OLD]) or [EKA-MCP]'s `YYYY-MM-DDT00:00:00.000Z` / `T23:59:59.000Z`; exactly one value. */
function slotDate(values: string[]): string | undefined {
	if (values.length !== 1) return undefined;
	const match = /^(\d{4}-\d{2}-\d{2})(T00:00:00\.000Z|T23:59:59\.000Z)?$/.exec(values[0]);
	return match && !Number.isNaN(Date.parse(`${match[1]}T00:00:00Z`)) ? match[1] : undefined;
}

function slotError(ctx: RouteContext, status: number, message: string): void {
	ctx.sendJson(status, { success: 'false', status_code: status, message });
}
