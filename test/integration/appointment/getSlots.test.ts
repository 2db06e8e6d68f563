/**
 * Appointment → Get Slots over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/appointment/). The Clinic picker: test/integration/methods/.
 */
import { appointment, byId, json, T10, useAppointmentCalls } from '../../support/appointmentCalls';

const t = useAppointmentCalls();
const { run, failure, refusedBeforeSending, seed } = t;

describe('Appointment → Get Slots', () => {
	it('asks one day at a time (YYYY-MM-DD) and outputs one item per slot with readable times and availability', async () => {
		seed({ appointment_id: 'taken', start_time: T10 });
		const output = await run(
			appointment('getSlots', {
				doctorId: byId('do1001'),
				clinicId: byId('c-1001'),
				startDate: '2026-11-24',
				endDate: '2026-11-25',
			}),
		);
		const calls = t.api.requestsTo(/\/appointment\/slot$/, 'GET');
		expect(calls.map((call) => call.url)).toEqual([
			'/dr/v1/doctor/do1001/clinic/c-1001/appointment/slot?start_date=2026-11-24&end_date=2026-11-24',
			'/dr/v1/doctor/do1001/clinic/c-1001/appointment/slot?start_date=2026-11-25&end_date=2026-11-25',
		]);
		expect(calls[0].headers.auth).toEqual(expect.stringMatching(/^eyJ/));
		expect(output).toHaveLength(8);
		expect(
			output.every((item) => item.pairedItem && (item.pairedItem as { item: number }).item === 0),
		).toBe(true);
		expect(output[2].json).toEqual({
			doctor_id: 'do1001',
			clinic_id: 'c-1001',
			date: '2026-11-24',
			start: '2026-11-24T10:00:00+05:30',
			end: '2026-11-24T10:15:00+05:30',
			start_time: T10,
			end_time: T10 + 900,
			available: false,
			slots_booked: 1,
			conf_id: 'conf-1001-01',
			service_name: 'consultation',
			price: 500,
			currency: 'INR',
			time_zone: 'Asia/Kolkata',
		});
		expect(json(output).filter((slot) => slot.available).length).toBe(7);
	});

	it('keeps only available slots, and shows times in another clinic time zone when asked', async () => {
		seed({ start_time: T10 });
		const output = await run(
			appointment('getSlots', {
				doctorId: byId('do1001'),
				clinicId: byId('c-1001'),
				startDate: '2026-11-24',
				endDate: '2026-11-24',
				options: { onlyAvailable: true },
			}),
		);
		expect(json(output).map((slot) => slot.start)).toEqual([
			'2026-11-24T09:30:00+05:30',
			'2026-11-24T09:45:00+05:30',
			'2026-11-24T10:15:00+05:30',
		]);
	});

	it('refuses a reversed range, a range over 14 days and a bad date, with nothing sent', async () => {
		const base = { doctorId: byId('do1001'), clinicId: byId('c-1001') };
		expect(
			await refusedBeforeSending(
				appointment('getSlots', { ...base, startDate: '2026-11-25', endDate: '2026-11-24' }),
			),
		).toBe('The End Date of item 0 2026-11-24 is before the Start Date 2026-11-25');
		expect(
			await refusedBeforeSending(
				appointment('getSlots', { ...base, startDate: '2026-11-01', endDate: '2026-11-15' }),
			),
		).toBe('The date range of item 0 2026-11-01 to 2026-11-15 spans 15 days (at most 14)');
		expect(
			await refusedBeforeSending(
				appointment('getSlots', { ...base, startDate: '2026-02-30', endDate: '2026-03-01' }),
			),
		).toBe('The Start Date of item 0 "2026-02-30" is not a real date');
	});

	it('says a doctor who does not work at the clinic was not found', async () => {
		const { message, description } = await failure(
			appointment('getSlots', {
				doctorId: byId('do1003'),
				clinicId: byId('c-1001'),
				startDate: '2026-11-24',
				endDate: '2026-11-24',
			}),
		);
		expect(message).toBe(
			'The clinic API refused the slots of doctor "do1003" at clinic "c-1001" (item 0) (HTTP 404): Doctor not found. Please check the provided doctor ID.',
		);
		expect(description).toContain('the doctor works at that clinic');
	});
});
