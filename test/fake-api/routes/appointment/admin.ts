/** The appointments under /__admin/: list, seed (one or {appointments:[…]}), clear. */
import type { AdminDefinition } from '../../types';
import { isPlainObject } from '../transcription/store';
import { appointmentStoreOf, resetAppointmentStore, type FakeAppointment } from './store';

export const appointmentAdmin: readonly AdminDefinition[] = [
	{
		method: 'GET',
		action: '/appointments',
		handler: ({ state }) => [...appointmentStoreOf(state).appointments.values()],
	},
	{
		method: 'POST',
		action: '/appointments/seed',
		handler: ({ state, input }) => {
			if (!isPlainObject(input))
				throw new Error('body must be an appointment object or {"appointments":[…]}');
			const list = Array.isArray(input.appointments) ? input.appointments : [input];
			if (!list.every(isPlainObject)) throw new Error('each appointment must be an object');
			const store = appointmentStoreOf(state);
			return { seeded: list.map((item) => store.seed(item as Partial<FakeAppointment>)) };
		},
	},
	{
		method: 'POST',
		action: '/appointments/clear',
		handler: ({ state }) => {
			resetAppointmentStore(appointmentStoreOf(state));
			return { ok: true };
		},
	},
];
