/**
 * Appointment → Reschedule over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/appointment/).
 */
import { fakeAppointments } from '../../fake-api/routes/appointment';
import { appointment, T10, useAppointmentCalls } from '../../support/appointmentCalls';

const t = useAppointmentCalls();
const { run, failure, refusedBeforeSending, seed } = t;

describe('Appointment → Reschedule', () => {
	it('moves the appointment to a new one and outputs it, the old one becoming RES', async () => {
		seed({ appointment_id: 'r-1' });
		const output = await run(
			appointment('reschedule', {
				appointmentId: 'r-1',
				startTime: T10 + 86400,
				endTime: '2026-11-25T10:30:00+05:30',
			}),
		);
		const [call] = t.api.requestsTo('/appointments/v1/r-1/reschedule', 'PATCH');
		expect(call.body).toEqual({ start_time: T10 + 86400, end_time: T10 + 86400 + 1800 });
		expect(call.headers.authorization).toMatch(/^Bearer eyJ/);
		expect(output[0].json).toMatchObject({
			appointment_id: 'api-fake-0001',
			rescheduled_from: 'r-1',
			prev_aids: ['r-1'],
			status: 'BK',
			status_label: 'Booked',
			mode: 'in_clinic',
			start_time_iso: '2026-11-25T10:00:00+05:30',
			end_time_iso: '2026-11-25T10:30:00+05:30',
		});
		expect(fakeAppointments(t.api).appointments.get('r-1')).toMatchObject({
			status: 'RES',
			next_aid: 'api-fake-0001',
		});
	});

	it('refuses an end not after the start, with nothing sent; is not repeated after a 502', async () => {
		expect(
			await refusedBeforeSending(
				appointment('reschedule', { appointmentId: 'r-1', startTime: T10, endTime: T10 }),
			),
		).toBe('The New End Time of item 0 is not after the New Start Time');
		seed({ appointment_id: 'r-2' });
		t.api.injectFault({
			path: '/appointments/v1/r-2/reschedule',
			fault: { kind: 'status', status: 502 },
		});
		const { description } = await failure(
			appointment('reschedule', {
				appointmentId: 'r-2',
				startTime: T10 + 3600,
				endTime: T10 + 4500,
			}),
		);
		expect(t.api.requestsTo('/appointments/v1/r-2/reschedule')).toHaveLength(1);
		expect(description).toContain('Get appointment "r-2"');
	});
});
