/**
 * Appointment → Update over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/appointment/).
 */
import { fakeAppointments } from '../../fake-api/routes/appointment';
import { appointment, byId, T10, useAppointmentCalls } from '../../support/appointmentCalls';

const t = useAppointmentCalls();
const { run, refusedBeforeSending, seed } = t;

describe('Appointment → Update', () => {
	const update = (fields: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
		appointment('update', {
			appointmentId: 'u-1',
			appointmentIdType: 'eka',
			idSet: 'eka',
			clinicId: byId('c-1001'),
			doctorId: byId('do1001'),
			patientId: 'pt-0001',
			updateFields: fields,
			...extra,
		});

	it('sends the v2 PATCH with the id set and the changed fields, and the service applies them', async () => {
		seed({ appointment_id: 'u-1' });
		const output = await run(
			update({
				startTime: '2026-11-24T11:00:00+05:30',
				endTime: '2026-11-24T11:15:00+05:30',
				mode: 'PHONE',
				partnerMeta: '{"k":"v"}',
			}),
		);
		const [call] = t.api.requestsTo('/dr/v2/appointment/u-1', 'PATCH');
		expect(call.body).toEqual({
			clinic_id: 'c-1001',
			doctor_id: 'do1001',
			patient_id: 'pt-0001',
			appointment_details: { start_time: T10 + 3600, end_time: T10 + 4500, mode: 'PHONE' },
			partner_meta: { k: 'v' },
		});
		expect(call.status).toBe(204);
		expect(output[0].json).toEqual({
			appointment_id: 'u-1',
			id_type: 'eka',
			updated: true,
			updated_fields: ['appointment_details', 'partner_meta'],
			start_time: T10 + 3600,
			start_time_iso: '2026-11-24T11:00:00+05:30',
			end_time: T10 + 4500,
			end_time_iso: '2026-11-24T11:15:00+05:30',
		});
		expect(fakeAppointments(t.api).appointments.get('u-1')).toMatchObject({
			start_time: T10 + 3600,
			mode: 'PHONE',
			partner_meta: { k: 'v' },
		});
	});

	it('refuses no fields and a missing id set with nothing sent', async () => {
		expect(await refusedBeforeSending(update({}))).toBe('Update Fields of item 0 are empty');
		expect(await refusedBeforeSending(update({ token: 3 }, { clinicId: byId('') }))).toBe(
			'The ID set of item 0 is incomplete: Clinic is empty',
		);
		expect(await refusedBeforeSending(update({ partnerMeta: '{oops' }))).toBe(
			'The Partner Meta of item 0 is not valid JSON',
		);
	});
});
