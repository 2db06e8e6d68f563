/**
 * Appointment → Cancel over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/appointment/). Its describe title is shared with Cancel, Complete, Mark
 * No-Show and Park: the same call on different paths, checked alike (itChangesStatus).
 */
import { fakeAppointments } from '../../fake-api/routes/appointment';
import { appointment, itChangesStatus, useAppointmentCalls } from '../../support/appointmentCalls';

const t = useAppointmentCalls();
const { run, seed } = t;

describe('Appointment → Cancel', () => {
	itChangesStatus(t, ['cancel', 'PUT', '/cancel', undefined, 'CN', 'Cancelled']);

	it('addresses by partner id with partner_id=1', async () => {
		seed({ appointment_id: 'act-2', partner_appointment_id: 'mine-2' });
		await run(appointment('cancel', { appointmentId: 'mine-2', appointmentIdType: 'partner' }));
		expect(t.api.requestsTo('/dr/v1/appointment/mine-2/cancel', 'PUT')[0].url).toBe(
			'/dr/v1/appointment/mine-2/cancel?partner_id=1',
		);
		expect(fakeAppointments(t.api).appointments.get('act-2')?.status).toBe('CN');
	});
});
