/**
 * Appointment → Complete over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/appointment/). Its describe title is shared with Cancel, Complete, Mark
 * No-Show and Park: the same call on different paths, checked alike (itChangesStatus).
 */
import { appointment, itChangesStatus, useAppointmentCalls } from '../../support/appointmentCalls';

const t = useAppointmentCalls();
const { run, seed } = t;

describe('Appointment → Complete', () => {
	itChangesStatus(t, ['complete', 'POST', '/complete', undefined, 'CMNP', null]);

	it('says an appointment already cancelled cannot be completed; Continue On Fail keeps going per item', async () => {
		seed({ appointment_id: 'gone', status: 'CN' });
		seed({ appointment_id: 'ok-1' });
		const output = await run(
			appointment('complete', { appointmentId: (i: number) => (i === 0 ? 'gone' : 'ok-1') }),
			{ items: [{ json: {} }, { json: {} }], continueOnFail: true },
		);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(String(output[0].json.error)).toContain('HTTP 403 COMPLETE_NOT_ALLOWED');
		expect(output[1].json).toMatchObject({ appointment_id: 'ok-1', success: true });
	});
});
