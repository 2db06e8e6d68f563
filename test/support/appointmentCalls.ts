/**
 * Shared set-up of the Appointment tests (test/integration/appointment/): one fake API per file,
 * real HTTP, the appointment store and the patient directory reset before each test
 * (test/fake-api/routes/appointment/ is strict on paths, headers, bodies, paging and filters).
 */
import type { INodeExecutionData } from 'n8n-workflow';

import {
	fakeAppointments,
	resetAppointmentStore,
	type FakeAppointment,
} from '../fake-api/routes/appointment';
import { patientDirectoryOf, resetPatientDirectory } from '../fake-api/routes/patient';
import { extendRuns, useNodeRuns, type NodeRuns, type Parameters } from './nodeRuns';

// 2026-11-24 10:00 IST
export const T10 = 1795494600;

export { byId } from './nodeRuns';
export const appointment = (operation: string, extra: Record<string, unknown> = {}) => ({
	resource: 'appointment',
	operation,
	...extra,
});
export const json = (output: INodeExecutionData[]) => output.map((item) => item.json);

export interface AppointmentCalls extends NodeRuns {
	/** Bad input: the node fails and the fake saw no request at all (not even a token exchange). */
	refusedBeforeSending(parameters: Parameters): Promise<string>;
	/** Stores an appointment at 10:00 IST for 15 minutes, unless `extra` says otherwise. */
	seed(extra?: Partial<FakeAppointment>): FakeAppointment;
}

/** Registers beforeAll/afterAll/beforeEach in the calling file and gives its helpers. */
export function useAppointmentCalls(): AppointmentCalls {
	const runs = useNodeRuns({
		reset: (api) => {
			resetAppointmentStore(fakeAppointments(api));
			resetPatientDirectory(patientDirectoryOf(api.state));
		},
	});
	return extendRuns<Pick<AppointmentCalls, 'refusedBeforeSending' | 'seed'>>(runs, {
		refusedBeforeSending: async (parameters) => {
			const { message, description } = await runs.failure(parameters);
			expect(runs.api.requests).toHaveLength(0);
			expect(description).toContain('Nothing was sent');
			return message;
		},
		seed: (extra = {}) =>
			fakeAppointments(runs.api).seed({ start_time: T10, end_time: T10 + 900, ...extra }),
	});
}

/**
 * Cancel, Complete, Mark No-Show and Park are the same call on different paths: one row each,
 * checked alike (the documented request, the status the service then holds, the output).
 */
export function itChangesStatus(
	calls: AppointmentCalls,
	row: [
		operation: string,
		method: string,
		suffix: string,
		body: unknown,
		stored: string,
		label: string | null,
	],
): void {
	it.each([row])(
		'%s: %s …%s, the status changes in the service',
		async (operation, method, suffix, body, stored, label) => {
			calls.seed({ appointment_id: 'act-1' });
			const output = await calls.run(
				appointment(operation, { appointmentId: 'act-1', appointmentIdType: 'eka' }),
			);
			const [call] = calls.api.requestsTo(`/dr/v1/appointment/act-1${suffix}`, method);
			expect(call.url).toBe(`/dr/v1/appointment/act-1${suffix}`);
			expect(call.body).toEqual(body);
			expect(fakeAppointments(calls.api).appointments.get('act-1')?.status).toBe(stored);
			expect(output[0].json).toMatchObject({
				appointment_id: 'act-1',
				id_type: 'eka',
				action: operation,
				success: true,
				status_label: label,
			});
		},
	);
}
