/**
 * The pure appointment rules: times (input forms, ISO with the clinic's offset), status codes and
 * labels, mode spellings, the list filter sets and their date-range limit, and the slots reader.
 */
import {
	planListFilters,
	mayHaveNextPage,
} from '../../../nodes/ClinicScribe/shared/appointmentFilters';
import {
	epochOfAnswer,
	normalizeAppointment,
	normalizeMode,
	readAppointmentBody,
	statusCodeOf,
	statusLabel,
} from '../../../nodes/ClinicScribe/shared/answers/appointmentRecords';
import { readDateInput, readTimeInput } from '../../../nodes/ClinicScribe/shared/timeInput';
import { isoInZone } from '../../../nodes/ClinicScribe/shared/timeZones';
import { readSlots } from '../../../nodes/ClinicScribe/shared/answers/appointmentSlots';
import { bookingModeOf } from '../../../nodes/ClinicScribe/actions/appointment/appointmentFields';

const IST = 'Asia/Kolkata';
// 2026-11-24 10:00 IST
const T10 = 1795494600;

describe('times', () => {
	it('formats epoch seconds as ISO with the zone offset', () => {
		expect(isoInZone(T10, IST)).toBe('2026-11-24T10:00:00+05:30');
		expect(isoInZone(T10, 'UTC')).toBe('2026-11-24T04:30:00+00:00');
		expect(isoInZone(T10, 'America/New_York')).toBe('2026-11-23T23:30:00-05:00');
		// Summer time in New York is -04:00.
		expect(isoInZone(1782900000, 'America/New_York')).toBe('2026-07-01T06:00:00-04:00');
	});

	it.each([
		['ISO with offset', '2026-11-24T10:00:00+05:30', T10],
		['ISO with Z', '2026-11-24T04:30:00Z', T10],
		['ISO with milliseconds', '2026-11-24T04:30:00.000Z', T10],
		['offset without colon', '2026-11-24T10:00:00+0530', T10],
		['wall clock read in the clinic zone', '2026-11-24T10:00:00', T10],
		['wall clock with a space and no seconds', '2026-11-24 10:00', T10],
		['epoch seconds', T10, T10],
		['epoch seconds as text', String(T10), T10],
		['a Date', new Date(T10 * 1000), T10],
		['a Luxon DateTime', { toMillis: () => T10 * 1000, isValid: true }, T10],
	])('reads %s', (_name, value, epoch) => {
		expect(readTimeInput(value, IST)).toEqual({ ok: true, epoch });
	});

	it('reads a wall clock in another zone with its own offset', () => {
		expect(readTimeInput('2026-11-24T10:00:00', 'Europe/London')).toEqual({
			ok: true,
			epoch: Date.parse('2026-11-24T10:00:00Z') / 1000,
		});
	});

	it.each([
		['milliseconds', T10 * 1000, 'looks like milliseconds'],
		['a date alone', '2026-11-24', 'is a date without a time of day'],
		['words', 'next tuesday', 'is not a date-time'],
		['a day that does not exist', '2026-02-30T10:00:00', 'is not a real date or time of day'],
		['hour 24', '2026-11-24T24:00:00', 'is not a real date or time of day'],
		['negative', -5, 'is not a valid epoch in seconds'],
		['empty', '', 'is empty'],
		['an invalid DateTime', { toMillis: () => NaN, isValid: false }, 'is not a valid date-time'],
		['an object', { when: 'now' }, 'is not a date-time'],
	])('refuses %s', (_name, value, problem) => {
		const reading = readTimeInput(value, IST);
		expect(reading.ok).toBe(false);
		expect(reading.ok ? '' : reading.problem).toContain(problem);
	});

	it('reads dates for filters: the date itself, or the clinic-zone date of a time', () => {
		expect(readDateInput('2026-11-24', IST)).toEqual({ ok: true, date: '2026-11-24' });
		// 20:00 UTC on the 24th is already the 25th in India.
		expect(readDateInput('2026-11-24T20:00:00Z', IST)).toEqual({ ok: true, date: '2026-11-25' });
		expect(readDateInput(T10, IST)).toEqual({ ok: true, date: '2026-11-24' });
		expect(readDateInput('2026-13-01', IST)).toEqual({
			ok: false,
			problem: '"2026-13-01" is not a real date',
		});
	});

	it('reads answer times in seconds, milliseconds or ISO', () => {
		expect(epochOfAnswer(T10)).toBe(T10);
		expect(epochOfAnswer(T10 * 1000)).toBe(T10);
		expect(epochOfAnswer('2026-11-24T10:00:00+05:30')).toBe(T10);
		expect(epochOfAnswer(null)).toBeNull();
		expect(epochOfAnswer('soon')).toBeNull();
	});
});

describe('statuses and modes', () => {
	it('labels every documented code and shows an unknown one as itself', () => {
		expect(statusLabel('BK')).toBe('Booked');
		expect(statusLabel('cmnp')).toBe('Completed Without Prescription');
		expect(statusLabel('RES')).toBe('Rescheduled by Staff');
		expect(statusLabel('ZZ')).toBe('Unknown (ZZ)');
		expect(statusLabel(undefined)).toBeNull();
	});

	it('reads a status from its code or label; anything else is undefined', () => {
		expect(statusCodeOf('cn')).toBe('CN');
		expect(statusCodeOf('No-Show')).toBe('NS');
		expect(statusCodeOf('checked in')).toBe('CK');
		expect(statusCodeOf('Teleported')).toBeUndefined();
		expect(statusCodeOf('constructor')).toBeUndefined();
	});

	it('normalises the mode spellings of the sources', () => {
		expect(['INCLINIC', 'in_clinic', 'in-clinic', 'IN_CLINIC'].map(normalizeMode)).toEqual([
			'in_clinic',
			'in_clinic',
			'in_clinic',
			'in_clinic',
		]);
		expect(normalizeMode('tele')).toBe('tele');
		expect(
			['INCLINIC', 'in_clinic', 'In Clinic', 'AUDIO', 'phone', 'video', 'tele'].map(bookingModeOf),
		).toEqual(['INCLINIC', 'INCLINIC', 'INCLINIC', 'PHONE', 'PHONE', 'VIDEO', undefined]);
	});
});

describe('normalizeAppointment', () => {
	it('keeps every field, adds ISO twins and the status label, one mode spelling', () => {
		const raw = {
			appointment_id: 'a1',
			status: 'cm',
			mode: 'INCLINIC',
			start_time: T10,
			end_time: T10 + 900,
			created_at: T10 - 60,
			partner_meta: { k: 'v' },
		};
		expect(normalizeAppointment(raw)).toEqual({
			appointment_id: 'a1',
			status: 'CM',
			status_label: 'Completed',
			mode: 'in_clinic',
			mode_raw: 'INCLINIC',
			start_time: T10,
			start_time_iso: '2026-11-24T10:00:00+05:30',
			end_time: T10 + 900,
			end_time_iso: '2026-11-24T10:15:00+05:30',
			created_at: T10 - 60,
			created_at_iso: '2026-11-24T09:59:00+05:30',
			partner_meta: { k: 'v' },
			time_zone: IST,
		});
	});

	it('reads ISO and millisecond times (webhook samples) into epoch seconds; absent times stay null', () => {
		const out = normalizeAppointment(
			{ appointment_id: 'a2', created_at: '2026-11-24T04:30:00Z', modified_at: T10 * 1000 },
			'UTC',
		);
		expect(out).toMatchObject({
			created_at: T10,
			created_at_iso: '2026-11-24T04:30:00+00:00',
			modified_at: T10,
			start_time: null,
			start_time_iso: null,
			end_time_iso: null,
		});
		expect(out.status_label).toBeUndefined();
	});

	it('falls back to the clinic default for an unknown zone', () => {
		expect(
			normalizeAppointment({ appointment_id: 'a3', start_time: T10 }, 'Nowhere/Else')
				.start_time_iso,
		).toBe('2026-11-24T10:00:00+05:30');
	});

	it('reads the object with or without a data wrapper', () => {
		expect(readAppointmentBody({ appointment_id: 'x' })).toEqual({ appointment_id: 'x' });
		expect(readAppointmentBody({ data: { appointment_id: 'y' } })).toEqual({ appointment_id: 'y' });
		expect(readAppointmentBody({ appointments: [] })).toBeUndefined();
	});
});

describe('list filter rules', () => {
	it.each([
		[{ patientId: 'p' }, 'patient', 20, { patient_id: 'p' }],
		[
			{ doctorId: 'd', startDate: '2026-11-24', endDate: '2026-11-30' },
			'doctor+dates',
			50,
			{ doctor_id: 'd', start_date: '2026-11-24', end_date: '2026-11-30' },
		],
		[
			{ clinicId: 'c', startDate: '2026-11-24', endDate: '2026-11-24' },
			'clinic+dates',
			50,
			{ clinic_id: 'c', start_date: '2026-11-24', end_date: '2026-11-24' },
		],
		[
			{ doctorId: 'd', clinicId: 'c', startDate: '2026-11-24', endDate: '2026-11-25' },
			'doctor+clinic+dates',
			50,
			{ doctor_id: 'd', clinic_id: 'c', start_date: '2026-11-24', end_date: '2026-11-25' },
		],
		[
			{ startDate: '2026-11-24', endDate: '2026-11-24' },
			'dates',
			30,
			{ start_date: '2026-11-24', end_date: '2026-11-24' },
		],
	])('allows %j', (input, set, pageSize, query) => {
		expect(planListFilters(input)).toEqual({ ok: true, set, pageSize, query });
	});

	it.each([
		[{}, 'Start Date and End Date are missing'],
		[{ doctorId: 'd' }, 'Start Date and End Date are missing'],
		[{ clinicId: 'c', endDate: '2026-11-24' }, 'Start Date is missing'],
		[{ patientId: 'p', doctorId: 'd' }, 'Patient ID cannot be combined'],
		[
			{ patientId: 'p', startDate: '2026-11-24', endDate: '2026-11-24' },
			'Patient ID cannot be combined',
		],
		[{ startDate: '2026-11-25', endDate: '2026-11-24' }, 'is before Start Date'],
		[
			{ startDate: '2026-11-24', endDate: '2026-12-01' },
			'spans 8 days; the service allows at most 7',
		],
	])('refuses %j', (input, problem) => {
		const plan = planListFilters(input);
		expect(plan.ok).toBe(false);
		expect(plan.ok ? '' : plan.problem).toContain(problem);
	});

	it('a full page may have a next one, a short page is the last', () => {
		expect(mayHaveNextPage(50, 50)).toBe(true);
		expect(mayHaveNextPage(49, 50)).toBe(false);
		expect(mayHaveNextPage(0, 20)).toBe(false);
	});
});

describe('slots reader', () => {
	const context = { clinicId: 'c1', doctorId: 'd1', date: '2024-09-05', timeZone: IST };
	const body = {
		data: {
			schedule: {
				c1: [
					{
						service_name: 'consultation',
						slots: [
							{
								available: true,
								conf_id: 'cf',
								s: '2024-09-05T09:30:00+05:30',
								e: '2024-09-05T09:45:00+05:30',
							},
							{
								available: false,
								conf_id: 'cf',
								s: '2024-09-05T09:15:00+05:30',
								e: '2024-09-05T09:30:00+05:30',
								slots_booked: 2,
							},
							{
								available: true,
								conf_id: 'cf',
								s: '2024-09-06T09:30:00+05:30',
								e: '2024-09-06T09:45:00+05:30',
							},
						],
					},
				],
			},
			services: { cf: { price: 500, currency: 'INR', service_name: 'consultation' } },
		},
	};

	it('one record per slot of the day asked, sorted, with ISO and epoch times and the service price', () => {
		const slots = readSlots(body, context) ?? [];
		expect(slots.map((slot) => [slot.start, slot.available, slot.slots_booked])).toEqual([
			['2024-09-05T09:15:00+05:30', false, 2],
			['2024-09-05T09:30:00+05:30', true, null],
		]);
		expect(slots[1]).toMatchObject({
			start_time: Date.parse('2024-09-05T04:00:00Z') / 1000,
			price: 500,
			currency: 'INR',
			service_name: 'consultation',
			conf_id: 'cf',
		});
	});

	it('reads an empty schedule as no slots and a wrong shape as not the documented JSON', () => {
		expect(readSlots({ data: { schedule: {} } }, context)).toEqual([]);
		expect(readSlots({ data: {} }, context)).toEqual([]);
		expect(readSlots({ schedule: 'x' }, context)).toBeUndefined();
		expect(readSlots('<html>', context)).toBeUndefined();
	});
});
