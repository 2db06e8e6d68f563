/**
 * Appointment → Park over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/appointment/). Its describe title is shared with Cancel, Complete, Mark
 * No-Show and Park: the same call on different paths, checked alike (itChangesStatus).
 */
import { itChangesStatus, useAppointmentCalls } from '../../support/appointmentCalls';

const t = useAppointmentCalls();

describe('Appointment → Park', () => {
	itChangesStatus(t, ['park', 'POST', '/parked', undefined, 'PA', 'Parked']);
});
