/**
 * Appointment → Book over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/appointment/): the id sets, the times, retries that never book twice;
 * bad input fails the item with nothing sent.
 */
import { fakeAppointments } from '../../fake-api/routes/appointment';
import { appointment, byId, json, T10, useAppointmentCalls } from '../../support/appointmentCalls';

const t = useAppointmentCalls();
const { run, failure, refusedBeforeSending, seed } = t;

describe('Appointment → Book', () => {
	const book = (extra: Record<string, unknown> = {}) =>
		appointment('book', {
			idSet: 'eka',
			clinicId: byId('c-1001'),
			doctorId: byId('do1001'),
			patientId: 'pt-77',
			startTime: '2026-11-24T10:00:00',
			mode: 'INCLINIC',
			...extra,
		});

	it('books with Eka ids, an ISO wall-clock time read in the clinic zone, and outputs the id with ISO and epoch times', async () => {
		const output = await run(
			book({
				additionalFields: {
					endTime: T10 + 900,
					notes: '<p>Fever</p>',
					partnerMeta: '{"encounter_id":"123"}',
					partnerAppointmentId: 'pa-1',
				},
			}),
		);
		const [call] = t.api.requestsTo('/dr/v1/appointment', 'POST');
		expect(call.body).toEqual({
			clinic_id: 'c-1001',
			doctor_id: 'do1001',
			patient_id: 'pt-77',
			appointment_details: { start_time: T10, end_time: T10 + 900, mode: 'INCLINIC' },
			partner_appointment_id: 'pa-1',
			notes: '<p>Fever</p>',
			partner_meta: { encounter_id: '123' },
		});
		expect(call.headers.auth).toEqual(expect.stringMatching(/^eyJ/));
		expect(call.headers['content-type']).toMatch(/^application\/json/);
		expect(output).toEqual([
			{
				json: {
					appointment_id: 'api-fake-0001',
					partner_appointment_id: 'pa-1',
					clinic_id: 'c-1001',
					doctor_id: 'do1001',
					patient_id: 'pt-77',
					mode: 'INCLINIC',
					start_time: T10,
					start_time_iso: '2026-11-24T10:00:00+05:30',
					end_time: T10 + 900,
					end_time_iso: '2026-11-24T10:15:00+05:30',
					time_zone: 'Asia/Kolkata',
				},
				pairedItem: { item: 0 },
			},
		]);
	});

	it('books with partner ids and patient details, which add the patient to the directory', async () => {
		const output = await run(
			appointment('book', {
				idSet: 'partner',
				partnerClinicId: 'CL04',
				partnerDoctorId: 'test-doc-123',
				partnerPatientId: '6742984',
				startTime: '2026-11-24T05:00:00Z',
				mode: 'video',
				patientDetails: {
					firstName: 'Test',
					lastName: 'Patient',
					mobile: '9999999999',
					gender: 'M',
					dob: '1987-01-06',
					city: 'Bengaluru',
					pincode: '560038',
				},
			}),
		);
		expect(t.api.requestsTo('/dr/v1/appointment', 'POST')[0].body).toEqual({
			partner_clinic_id: 'CL04',
			partner_doctor_id: 'test-doc-123',
			partner_patient_id: '6742984',
			appointment_details: { start_time: 1795496400, mode: 'VIDEO' },
			patient_details: {
				first_name: 'Test',
				last_name: 'Patient',
				gender: 'M',
				mobile: '+919999999999',
				dob: '1987-01-06',
				address: { city: 'Bengaluru', pincode: 560038 },
			},
		});
		expect(output[0].json.start_time_iso).toBe('2026-11-24T10:30:00+05:30');
		// The patient is now in the directory: Patient → Search by Mobile finds them under the appointment's patient id.
		const found = json(
			await run({
				resource: 'patient',
				operation: 'findByMobile',
				mobile: '9999999999',
				options: {},
			}),
		);
		expect(found).toEqual([
			expect.objectContaining({
				oid: 'pt-6742984',
				fln: 'test patient',
				gen: 'M',
				dob: '1987-01-06',
				mobile: '9999999999',
				username: '6742984',
			}),
		]);
		expect(fakeAppointments(t.api).directoryAdds).toEqual([
			{
				patient_id: 'pt-6742984',
				first_name: 'Test',
				last_name: 'Patient',
				gender: 'M',
				mobile: '+919999999999',
				dob: '1987-01-06',
				address: { city: 'Bengaluru', pincode: 560038 },
			},
		]);
	});

	it('accepts epoch seconds and n8n date-times (a Date, a Luxon-like DateTime) for the start', async () => {
		await run(book({ startTime: String(T10) }));
		await run(book({ startTime: new Date(T10 * 1000) }));
		await run(book({ startTime: { toMillis: () => T10 * 1000, isValid: true } }));
		const starts = t.api
			.requestsTo('/dr/v1/appointment', 'POST')
			.map(
				(call) =>
					(call.body as { appointment_details: { start_time: number } }).appointment_details
						.start_time,
			);
		expect(starts).toEqual([T10, T10, T10]);
	});

	it('refuses a missing id set, a bad time, milliseconds, an end before the start and a bad mobile, with nothing sent', async () => {
		expect(await refusedBeforeSending(book({ patientId: '' }))).toBe(
			'The ID set of item 0 is incomplete: Patient ID is empty',
		);
		expect(
			await refusedBeforeSending(
				appointment('book', {
					idSet: 'partner',
					partnerClinicId: 'CL04',
					startTime: T10,
					mode: 'INCLINIC',
				}),
			),
		).toBe('The ID set of item 0 is incomplete: Partner Doctor ID, Partner Patient ID are empty');
		expect(await refusedBeforeSending(book({ startTime: 'tomorrow at ten' }))).toBe(
			'The Start Time of item 0 "tomorrow at ten" is not a date-time: give ISO 8601 (2026-11-24T10:30:00+05:30) or epoch seconds',
		);
		expect(await refusedBeforeSending(book({ startTime: T10 * 1000 }))).toContain(
			'looks like milliseconds',
		);
		expect(await refusedBeforeSending(book({ startTime: '2026-11-24' }))).toContain(
			'is a date without a time of day',
		);
		expect(
			await refusedBeforeSending(book({ additionalFields: { endTime: T10 - 60 }, startTime: T10 })),
		).toBe('The End Time of item 0 is not after the Start Time');
		const mobile = await refusedBeforeSending(book({ patientDetails: { mobile: '12345' } }));
		expect(mobile).toBe(
			'The patient Mobile of item 0 has 5 digits: give the 10-digit mobile number, or the number with its country code (+91 and 10 digits)',
		);
		expect(mobile).not.toContain('12345');
		expect(await refusedBeforeSending(book({ mode: 'tele' }))).toBe(
			'The Mode of item 0 "tele" is not a mode',
		);
	});

	it('is never repeated after a 5xx, and says how to check whether the booking was made', async () => {
		t.api.injectFault({
			method: 'POST',
			path: '/dr/v1/appointment',
			fault: { kind: 'status', status: 503 },
		});
		const { message, description } = await failure(
			book({ additionalFields: { partnerAppointmentId: 'pa-9' } }),
		);
		expect(t.api.requestsTo('/dr/v1/appointment', 'POST')).toHaveLength(1);
		expect(message).toContain('HTTP 503');
		expect(description).toContain('The booking may have been made');
		expect(description).toContain('ID Type "Partner Appointment ID", ID "pa-9"');
	});

	it('is repeated after a 429 (the service did not take it) and books once', async () => {
		t.api.injectFault({
			method: 'POST',
			path: '/dr/v1/appointment',
			fault: { kind: 'status', status: 429 },
		});
		await run(book());
		expect(t.api.requestsTo('/dr/v1/appointment', 'POST').map((call) => call.status)).toEqual([
			429, 201,
		]);
		expect(fakeAppointments(t.api).appointments.size).toBe(1);
	});

	it('says a partner appointment id already booked was booked before, without repeating', async () => {
		seed({ partner_appointment_id: 'pa-dup' });
		const { message, description } = await failure(
			book({ additionalFields: { partnerAppointmentId: 'pa-dup' } }),
		);
		expect(message).toContain('HTTP 409');
		expect(description).toContain('already exists');
	});

	it('keeps patient details out of a refusal the service echoes them in', async () => {
		t.api.injectFault({
			method: 'POST',
			path: '/dr/v1/appointment',
			fault: {
				kind: 'status',
				status: 400,
				body: {
					error: {
						code: 'INVALID_REQUEST_PARAMETERS',
						message: 'bad patient Zebulon +919812345678',
					},
				},
			},
		});
		const { message } = await failure(
			book({ patientDetails: { firstName: 'Zebulon', mobile: '+919812345678' } }),
		);
		expect(message).toContain('HTTP 400');
		expect(message).not.toContain('Zebulon');
		expect(message).not.toContain('9812345678');
	});
});
