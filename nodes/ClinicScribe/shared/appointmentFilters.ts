/**
 * The list filter rules of `GET /dr/v1/appointment` ([EKA-DT]; [EKA-MCP] sends the same sets): the
 * filter sets the service allows, the date-range limit, the page size of each set, and the status
 * filter the service does not have (applied here). Pure, so the node refuses before sending.
 */
import { daysBetween } from './timeInput';

/** The service refuses a longer range ([EKA-DT]: "span ≤ 7 days"); read as 7 calendar days, both ends included. */
export const LIST_MAX_SPAN_DAYS = 7;

/** Page size per filter set ([EKA-DT] only; no total or cursor is answered): a shorter page is the last. */
const LIST_PAGE_SIZES = Object.freeze({ patient: 20, doctorOrClinic: 50, datesOnly: 30 });

interface ListFilterInput {
	patientId?: string;
	doctorId?: string;
	clinicId?: string;
	/** YYYY-MM-DD */
	startDate?: string;
	/** YYYY-MM-DD */
	endDate?: string;
}

type ListFilterPlan =
	| {
			ok: true;
			set: 'patient' | 'doctor+dates' | 'clinic+dates' | 'doctor+clinic+dates' | 'dates';
			query: Record<string, string>;
			pageSize: number;
	  }
	| { ok: false; problem: string; fix: string };

const COMBINATIONS =
	'The service allows: Patient ID alone; or a date range (Start Date and End Date) alone or with a Doctor, a Clinic, or both.';

/** Which allowed filter set the input is, with its query and page size; or why none. */
export function planListFilters(input: ListFilterInput): ListFilterPlan {
	const { patientId, doctorId, clinicId, startDate, endDate } = input;
	const hasDates = startDate !== undefined || endDate !== undefined;
	if (patientId !== undefined) {
		if (doctorId !== undefined || clinicId !== undefined || hasDates) {
			return {
				ok: false,
				problem: 'Patient ID cannot be combined with a doctor, a clinic or dates',
				fix: `Leave the others empty, or leave Patient ID empty. ${COMBINATIONS}`,
			};
		}
		return {
			ok: true,
			set: 'patient',
			query: { patient_id: patientId },
			pageSize: LIST_PAGE_SIZES.patient,
		};
	}
	if (startDate === undefined || endDate === undefined) {
		const missing =
			startDate === undefined && endDate === undefined
				? 'Start Date and End Date are'
				: startDate === undefined
					? 'Start Date is'
					: 'End Date is';
		return { ok: false, problem: `${missing} missing`, fix: COMBINATIONS };
	}
	const span = daysBetween(startDate, endDate);
	if (span < 0)
		return {
			ok: false,
			problem: `End Date ${endDate} is before Start Date ${startDate}`,
			fix: 'Give an End Date on or after the Start Date.',
		};
	if (span + 1 > LIST_MAX_SPAN_DAYS) {
		return {
			ok: false,
			problem: `the date range ${startDate} to ${endDate} spans ${span + 1} days; the service allows at most ${LIST_MAX_SPAN_DAYS}`,
			fix: `Shorten the range to ${LIST_MAX_SPAN_DAYS} days (both ends included), or run the node once per week (for example from a list of start dates).`,
		};
	}
	const query: Record<string, string> = {};
	if (doctorId !== undefined) query.doctor_id = doctorId;
	if (clinicId !== undefined) query.clinic_id = clinicId;
	query.start_date = startDate;
	query.end_date = endDate;
	const set =
		doctorId !== undefined && clinicId !== undefined
			? 'doctor+clinic+dates'
			: doctorId !== undefined
				? 'doctor+dates'
				: clinicId !== undefined
					? 'clinic+dates'
					: 'dates';
	return {
		ok: true,
		set,
		query,
		pageSize: set === 'dates' ? LIST_PAGE_SIZES.datesOnly : LIST_PAGE_SIZES.doctorOrClinic,
	};
}

/** Whether another page may follow: the service gives no total, so a full page means "maybe". */
export function mayHaveNextPage(pageLength: number, pageSize: number): boolean {
	return pageLength >= pageSize;
}
