/**
 * Appointment → Get over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/appointment/), the raw read the trigger uses, the refusal as an AI agent
 * tool, and the fake's admin seeding that the e2e tests use.
 */
import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { getAppointment } from '../../../nodes/ClinicScribe/transport/appointmentApi';
import { fakeAppointments } from '../../fake-api/routes/appointment';
import { appointment, json, T10, useAppointmentCalls } from '../../support/appointmentCalls';
import { createExecuteContext } from '../../support/nodeContext';

const node = new ClinicScribe();
const t = useAppointmentCalls();
const { credentials, run, failure, refusedBeforeSending, seed } = t;

describe('Appointment → Get', () => {
	it('gets by Eka id and by partner id (partner_id=1), with ISO times, epoch and a status label', async () => {
		seed({
			appointment_id: 'a-1',
			partner_appointment_id: 'p-1',
			status: 'CM',
			mode: 'in-clinic',
			created_at: T10 - 3600,
		});
		const [byEka] = json(
			await run(appointment('get', { appointmentId: 'a-1', appointmentIdType: 'eka' })),
		);
		expect(byEka).toMatchObject({
			appointment_id: 'a-1',
			status: 'CM',
			status_label: 'Completed',
			mode: 'in_clinic',
			mode_raw: 'in-clinic',
			start_time: T10,
			start_time_iso: '2026-11-24T10:00:00+05:30',
			end_time_iso: '2026-11-24T10:15:00+05:30',
			created_at: T10 - 3600,
			created_at_iso: '2026-11-24T09:00:00+05:30',
			payment: { payment_id: null, payment_status: null, amount: null },
		});
		const [byPartner] = json(
			await run(
				appointment('get', {
					appointmentId: 'p-1',
					appointmentIdType: 'partner',
					options: { timeZone: 'UTC' },
				}),
			),
		);
		expect(byPartner.start_time_iso).toBe('2026-11-24T04:30:00+00:00');
		expect(t.api.requestsTo(/^\/dr\/v1\/appointment\//, 'GET').map((call) => call.url)).toEqual([
			'/dr/v1/appointment/a-1',
			'/dr/v1/appointment/p-1?partner_id=1',
		]);
	});

	it('says clearly when there is no such appointment; refuses an empty or dots-only id before sending', async () => {
		const { message } = await failure(appointment('get', { appointmentId: 'nope' }));
		expect(message).toBe(
			'The clinic has no appointment "nope" (item 0) (HTTP 404 APPOINTMENT_NOT_FOUND): The specified appointment ID does not exist',
		);
		t.api.reset();
		expect(await refusedBeforeSending(appointment('get', { appointmentId: '  ' }))).toBe(
			'The Appointment ID of item 0 is empty',
		);
		const { message: dots } = await failure(appointment('get', { appointmentId: '..' }));
		expect(dots).toContain('made only of dots');
		expect(t.api.requestsTo(/appointment/)).toHaveLength(0);
	});

	it('refuses a time zone that does not exist', async () => {
		expect(
			await refusedBeforeSending(
				appointment('get', { appointmentId: 'a-1', options: { timeZone: 'Mars/Olympus' } }),
			),
		).toBe('The Clinic Time Zone of item 0 "Mars/Olympus" is not a time zone');
	});

	it('getAppointment (used by the trigger) returns the raw appointment', async () => {
		seed({ appointment_id: 'raw-1' });
		const { context } = createExecuteContext({ credentials: credentials(), parameters: {} });
		const raw = await getAppointment(context, 'raw-1');
		expect(raw).toMatchObject({ appointment_id: 'raw-1', start_time: T10, status: 'BK' });
		expect(raw.status_label).toBeUndefined();
	});
});

describe('as an AI agent tool', () => {
	it.each([
		['get', { appointmentId: 'a-1' }, 'Appointment → Get'],
		['getAll', { patientId: 'pt-1', returnAll: true }, 'Appointment → Get Many'],
		[
			'reschedule',
			{ appointmentId: 'a-1', startTime: T10, endTime: T10 + 900 },
			'Appointment → Reschedule',
		],
	])(
		'%s refuses with nothing sent when patient data may not go to the agent',
		async (operation, parameters, words) => {
			const { context } = createExecuteContext({
				credentials: credentials(),
				parameters: appointment(operation, { ...parameters, shareWithAiAgent: false }),
			});
			(context as { isToolExecution: () => boolean }).isToolExecution = () => true;
			await expect(node.execute.call(context)).rejects.toThrow(
				`${words} is not shared with AI agents in this node`,
			);
			expect(t.api.requests).toHaveLength(0);
		},
	);

	it('runs when sharing is on (the default)', async () => {
		seed({ appointment_id: 'a-1' });
		const { context } = createExecuteContext({
			credentials: credentials(),
			parameters: appointment('get', { appointmentId: 'a-1' }),
		});
		(context as { isToolExecution: () => boolean }).isToolExecution = () => true;
		const [output] = await node.execute.call(context);
		expect(output[0].json.appointment_id).toBe('a-1');
	});
});

describe('fake API admin seeding (for tests in another process)', () => {
	it('POST /__admin/appointments/seed stores appointments that Get then reads; clear empties the store', async () => {
		const post = async (action: string, body: unknown) =>
			await fetch(`${t.api.url}/__admin${action}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
			});
		const seeded = await post('/appointments/seed', {
			appointments: [
				{ appointment_id: 'adm-1', status: 'CK', start_time: T10 },
				{ appointment_id: 'adm-2' },
			],
		});
		expect(seeded.status).toBe(200);
		expect(
			((await seeded.json()) as { seeded: Array<{ appointment_id: string }> }).seeded.map(
				(a) => a.appointment_id,
			),
		).toEqual(['adm-1', 'adm-2']);
		const [got] = json(await run(appointment('get', { appointmentId: 'adm-1' })));
		expect(got).toMatchObject({
			appointment_id: 'adm-1',
			status: 'CK',
			status_label: 'Checked In',
			clinic_id: 'c-1001',
			doctor_id: 'do1001',
			start_time_iso: '2026-11-24T10:00:00+05:30',
		});
		expect((await post('/appointments/seed', [1])).status).toBe(400);
		expect((await post('/appointments/clear', {})).status).toBe(200);
		expect(fakeAppointments(t.api).appointments.size).toBe(0);
	});
});
