/** GET /dr/v1/appointment: the list by one of [EKA-DT]'s filter sets, page by page. */
import type { RouteContext } from '../../types';
import { authorised, invalid } from './requests';
import {
	appointmentStoreOf,
	daysBetween,
	istDate,
	LIST_MAX_SPAN_DAYS,
	PAGE_SIZES,
	type FakeAppointment,
} from './store';

export function list(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	const allowed = ['patient_id', 'doctor_id', 'clinic_id', 'start_date', 'end_date', 'page_no'];
	const keys = [...ctx.query.keys()];
	const unknown = keys.filter((key) => !allowed.includes(key));
	if (unknown.length > 0)
		return invalid(ctx, `unexpected query parameter(s): ${unknown.join(', ')}`);
	if (keys.some((key) => ctx.query.getAll(key).length !== 1 || ctx.query.get(key) === ''))
		return invalid(ctx, 'each filter is given once, not empty');
	const q = (key: string) => ctx.query.get(key) ?? undefined;
	const patient = q('patient_id');
	const doctor = q('doctor_id');
	const clinic = q('clinic_id');
	const start = q('start_date');
	const end = q('end_date');
	const combination = 'You must provide one of the valid filter combinations.';
	let pageSize: number;
	if (patient !== undefined) {
		if (doctor || clinic || start || end) return invalid(ctx, combination);
		pageSize = PAGE_SIZES.patient;
	} else {
		if (!start || !end) return invalid(ctx, combination);
		if (
			![start, end].every(
				(d) => /^\d{4}-\d{2}-\d{2}$/.test(d) && !Number.isNaN(Date.parse(`${d}T00:00:00Z`)),
			)
		)
			return invalid(ctx, 'dates are YYYY-MM-DD');
		const span = daysBetween(start, end);
		if (span < 0) return invalid(ctx, 'end_date must not be before start_date');
		if (span > LIST_MAX_SPAN_DAYS - 1)
			return invalid(ctx, `the date range may span at most ${LIST_MAX_SPAN_DAYS} days`);
		pageSize = doctor || clinic ? PAGE_SIZES.doctorOrClinic : PAGE_SIZES.datesOnly;
	}
	const pageText = q('page_no') ?? '0';
	if (!/^\d+$/.test(pageText)) return invalid(ctx, 'page_no is an integer from 0');
	const page = Number(pageText);
	const matches = [...appointmentStoreOf(ctx.state).appointments.values()]
		.filter(
			(a) =>
				(patient === undefined || a.patient_id === patient) &&
				(!doctor || a.doctor_id === doctor) &&
				(!clinic || a.clinic_id === clinic),
		)
		.filter((a) => {
			if (!start || !end) return true;
			const day = istDate(a.start_time);
			return day >= start && day <= end;
		})
		.sort(
			(a, b) => a.start_time - b.start_time || a.appointment_id.localeCompare(b.appointment_id),
		);
	const slice = matches.slice(page * pageSize, (page + 1) * pageSize).map(listForm);
	ctx.sendJson(200, { appointments: slice });
}

/** List items carry the object's fields without payment and service ([EKA-DT]). */
function listForm(a: FakeAppointment): Record<string, unknown> {
	const { payment: _payment, service: _service, ...rest } = a;
	return rest;
}
