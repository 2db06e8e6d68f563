/**
 * Appointment → every operation over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/appointments.ts), strict on paths, headers, bodies, paging and the filter
 * rules; bad input fails the item with nothing sent.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { MAX_PAGES } from '../../../nodes/ClinicScribe/actions/appointment/getAll.operation';
import { getAppointment } from '../../../nodes/ClinicScribe/transport/appointmentApi';
import { fakeAppointments, resetAppointmentStore } from '../../fake-api/routes/appointments';
import { patientDirectoryOf, resetPatientDirectory } from '../../fake-api/routes/patientDirectory';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import {
	createExecuteContext,
	fakeApiCredentials,
	type CredentialStore,
} from '../../support/nodeContext';
import { useTestTransportPolicy } from '../../support/transportPolicy';

let api: FakeClinicApi;
const node = new ClinicScribe();

// 2026-11-24 10:00 IST
const T10 = 1795494600;

beforeAll(async () => {
	api = await startFakeClinicApi();
	useTestTransportPolicy({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
});
afterAll(async () => await api.close());
beforeEach(() => {
	api.reset();
	resetAppointmentStore(fakeAppointments(api));
	resetPatientDirectory(patientDirectoryOf(api.state));
});

function credentials(extra = {}): CredentialStore {
	return fakeApiCredentials(api.url, api.validCredentials, extra);
}

type Parameters = Record<string, unknown | ((itemIndex: number) => unknown)>;

async function run(
	parameters: Parameters,
	options: { items?: INodeExecutionData[]; continueOnFail?: boolean } = {},
): Promise<INodeExecutionData[]> {
	const { context } = createExecuteContext({
		credentials: credentials(),
		parameters,
		items: options.items,
		continueOnFail: options.continueOnFail,
	});
	const [output] = await node.execute.call(context);
	return output;
}

async function failure(parameters: Parameters): Promise<{ message: string; description: string }> {
	try {
		await run(parameters);
	} catch (error) {
		const { message, description } = error as { message: string; description?: string };
		return { message, description: description ?? '' };
	}
	throw new Error('expected the node to fail');
}

/** Bad input: the node fails and the fake saw no request at all (not even a token exchange). */
async function refusedBeforeSending(parameters: Parameters): Promise<string> {
	const { message, description } = await failure(parameters);
	expect(api.requests).toHaveLength(0);
	expect(description).toContain('Nothing was sent');
	return message;
}

const byId = (value: unknown) => ({ __rl: true, mode: 'id', value });
const appointment = (operation: string, extra: Record<string, unknown> = {}) => ({
	resource: 'appointment',
	operation,
	...extra,
});
const seed = (extra: Record<string, unknown> = {}) =>
	fakeAppointments(api).seed({ start_time: T10, end_time: T10 + 900, ...extra });
const json = (output: INodeExecutionData[]) => output.map((item) => item.json);

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
		const calls = api.requestsTo(/\/appointment\/slot$/, 'GET');
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
		const [call] = api.requestsTo('/dr/v1/appointment', 'POST');
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
		expect(api.requestsTo('/dr/v1/appointment', 'POST')[0].body).toEqual({
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
		expect(fakeAppointments(api).directoryAdds).toEqual([
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
		const starts = api
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
		api.injectFault({
			method: 'POST',
			path: '/dr/v1/appointment',
			fault: { kind: 'status', status: 503 },
		});
		const { message, description } = await failure(
			book({ additionalFields: { partnerAppointmentId: 'pa-9' } }),
		);
		expect(api.requestsTo('/dr/v1/appointment', 'POST')).toHaveLength(1);
		expect(message).toContain('HTTP 503');
		expect(description).toContain('The booking may have been made');
		expect(description).toContain('ID Type "Partner Appointment ID", ID "pa-9"');
	});

	it('is repeated after a 429 (the service did not take it) and books once', async () => {
		api.injectFault({
			method: 'POST',
			path: '/dr/v1/appointment',
			fault: { kind: 'status', status: 429 },
		});
		await run(book());
		expect(api.requestsTo('/dr/v1/appointment', 'POST').map((call) => call.status)).toEqual([
			429, 201,
		]);
		expect(fakeAppointments(api).appointments.size).toBe(1);
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
		api.injectFault({
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
		expect(api.requestsTo(/^\/dr\/v1\/appointment\//, 'GET').map((call) => call.url)).toEqual([
			'/dr/v1/appointment/a-1',
			'/dr/v1/appointment/p-1?partner_id=1',
		]);
	});

	it('says clearly when there is no such appointment; refuses an empty or dots-only id before sending', async () => {
		const { message } = await failure(appointment('get', { appointmentId: 'nope' }));
		expect(message).toBe(
			'The clinic has no appointment "nope" (item 0) (HTTP 404 APPOINTMENT_NOT_FOUND): The specified appointment ID does not exist',
		);
		api.reset();
		expect(await refusedBeforeSending(appointment('get', { appointmentId: '  ' }))).toBe(
			'The Appointment ID of item 0 is empty',
		);
		const { message: dots } = await failure(appointment('get', { appointmentId: '..' }));
		expect(dots).toContain('made only of dots');
		expect(api.requestsTo(/appointment/)).toHaveLength(0);
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

describe('Appointment → Get Many', () => {
	const many = (extra: Record<string, unknown> = {}) =>
		appointment('getAll', {
			patientId: '',
			doctorId: byId(''),
			clinicId: byId(''),
			startDate: '',
			endDate: '',
			returnAll: true,
			...extra,
		});

	function seedDay(count: number, extra: Record<string, unknown> = {}): void {
		for (let i = 0; i < count; i++)
			seed({
				appointment_id: `d-${String(i).padStart(3, '0')}`,
				start_time: T10 + i * 60,
				...extra,
			});
	}

	it('pages through a doctor+dates set (50 a page, page_no from 0) until a short page', async () => {
		seedDay(120);
		const output = await run(
			many({ doctorId: byId('do1001'), startDate: '2026-11-24', endDate: '2026-11-30' }),
		);
		expect(output).toHaveLength(120);
		expect(api.requestsTo('/dr/v1/appointment', 'GET').map((call) => call.url)).toEqual(
			[0, 1, 2].map(
				(page) =>
					`/dr/v1/appointment?doctor_id=do1001&start_date=2026-11-24&end_date=2026-11-30&page_no=${page}`,
			),
		);
		expect(output[0].json).toMatchObject({
			appointment_id: 'd-000',
			status_label: 'Booked',
			start_time_iso: '2026-11-24T10:00:00+05:30',
		});
	});

	it('dates only pages by 30; a full last page costs one more (empty) request', async () => {
		seedDay(60);
		expect(await run(many({ startDate: '2026-11-24', endDate: '2026-11-24' }))).toHaveLength(60);
		expect(api.requestsTo('/dr/v1/appointment', 'GET').map((call) => call.query.page_no)).toEqual([
			'0',
			'1',
			'2',
		]);
	});

	it('patient alone pages by 20 and Limit stops paging early', async () => {
		seedDay(45, { patient_id: 'pt-9' });
		const output = await run(many({ patientId: 'pt-9', returnAll: false, limit: 25 }));
		expect(output).toHaveLength(25);
		expect(api.requestsTo('/dr/v1/appointment', 'GET').map((call) => call.url)).toEqual([
			'/dr/v1/appointment?patient_id=pt-9&page_no=0',
			'/dr/v1/appointment?patient_id=pt-9&page_no=1',
		]);
	});

	it('stops when a page brings nothing new (a service that ignored page_no would otherwise loop)', async () => {
		const page = {
			appointments: Array.from({ length: 20 }, (_, i) => ({
				appointment_id: `same-${i}`,
				status: 'BK',
				start_time: T10,
			})),
		};
		api.injectFault({
			method: 'GET',
			path: /^\/dr\/v1\/appointment$/,
			times: Infinity,
			fault: { kind: 'status', status: 200, body: page },
		});
		const output = await run(many({ patientId: 'pt-1' }));
		expect(output).toHaveLength(20);
		expect(
			api.requestsTo(/^\/dr\/v1\/appointment$/, 'GET').map((call) => call.query.page_no),
		).toEqual(['0', '1']);
	});

	it('a list longer than the 200 pages it reads fails the item, naming the bound and the filters to narrow, instead of a shorter list', async () => {
		// 30 a page for dates only: 201 full pages.
		for (let i = 0; i < MAX_PAGES * 30 + 1; i++)
			seed({ appointment_id: `long-${i}`, start_time: T10 + i });
		const { message, description } = await failure(
			many({ startDate: '2026-11-24', endDate: '2026-11-24' }),
		);
		expect(message).toBe(
			'Return All needs more than the 200 pages of appointments the node reads for one item (6,000 read)',
		);
		expect(description).toContain('outputs nothing rather than part of the list');
		expect(description).toContain('a shorter date range');
		expect(api.requestsTo('/dr/v1/appointment', 'GET')).toHaveLength(MAX_PAGES);
	}, 60_000);

	it('with Continue On Fail the too-long list is an error item, and a Limit within the bound still works', async () => {
		for (let i = 0; i < MAX_PAGES * 20 + 1; i++)
			seed({ appointment_id: `pt-long-${i}`, patient_id: 'pt-long', start_time: T10 + i });
		const limited = await run(many({ patientId: 'pt-long', returnAll: false, limit: 45 }));
		expect(limited).toHaveLength(45);
		const [failed] = await run(many({ patientId: 'pt-long', returnAll: false, limit: 5000 }), {
			continueOnFail: true,
		});
		expect(failed.json.error).toBe(
			'The Limit needs more than the 200 pages of appointments the node reads for one item (4,000 read)',
		);
	}, 60_000);

	it('filters statuses in the node (codes or labels), as the service has none', async () => {
		seed({ appointment_id: 'x1', status: 'BK' });
		seed({ appointment_id: 'x2', status: 'CN', start_time: T10 + 60 });
		seed({ appointment_id: 'x3', status: 'NS', start_time: T10 + 120 });
		const output = await run(
			many({
				clinicId: byId('c-1001'),
				doctorId: byId('do1001'),
				startDate: '2026-11-24',
				endDate: '2026-11-24',
				options: { statuses: ['CN', 'No-Show'] },
			}),
		);
		expect(json(output).map((a) => [a.appointment_id, a.status_label])).toEqual([
			['x2', 'Cancelled'],
			['x3', 'No-Show'],
		]);
		expect(api.requestsTo('/dr/v1/appointment', 'GET')[0].url).toBe(
			'/dr/v1/appointment?doctor_id=do1001&clinic_id=c-1001&start_date=2026-11-24&end_date=2026-11-24&page_no=0',
		);
	});

	it('refuses the filter sets the service does not allow, a range over 7 days and an unknown status, with nothing sent', async () => {
		expect(await refusedBeforeSending(many({ doctorId: byId('do1001') }))).toBe(
			'The filters of item 0 Start Date and End Date are missing',
		);
		expect(
			await refusedBeforeSending(
				many({ patientId: 'pt-1', startDate: '2026-11-24', endDate: '2026-11-24' }),
			),
		).toBe('The filters of item 0 Patient ID cannot be combined with a doctor, a clinic or dates');
		expect(await refusedBeforeSending(many({ startDate: '2026-11-24' }))).toBe(
			'The filters of item 0 End Date is missing',
		);
		expect(
			await refusedBeforeSending(many({ startDate: '2026-11-24', endDate: '2026-12-01' })),
		).toBe(
			'The filters of item 0 the date range 2026-11-24 to 2026-12-01 spans 8 days; the service allows at most 7',
		);
		expect(
			await refusedBeforeSending(
				many({
					startDate: '2026-11-24',
					endDate: '2026-11-24',
					options: { statuses: ['BK', 'Teleported'] },
				}),
			),
		).toBe('The Statuses option of item 0 has "Teleported", which is not an appointment status');
	});

	it('the fake itself refuses a disallowed combination, so the rule is checked on both sides', async () => {
		// A direct request with a doctor and no dates: what the node never sends.
		const response = await fetch(`${api.url}/dr/v1/appointment?doctor_id=do1001`, {
			headers: { auth: api.validCredentials.staticToken },
		});
		expect(response.status).toBe(400);
		expect(await response.json()).toEqual({
			error: {
				code: 'INVALID_REQUEST_PARAMETERS',
				message: 'You must provide one of the valid filter combinations.',
			},
			data: {},
		});
	});
});

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
		const [call] = api.requestsTo('/dr/v2/appointment/u-1', 'PATCH');
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
		expect(fakeAppointments(api).appointments.get('u-1')).toMatchObject({
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
		const [call] = api.requestsTo('/appointments/v1/r-1/reschedule', 'PATCH');
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
		expect(fakeAppointments(api).appointments.get('r-1')).toMatchObject({
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
		api.injectFault({
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
		expect(api.requestsTo('/appointments/v1/r-2/reschedule')).toHaveLength(1);
		expect(description).toContain('Get appointment "r-2"');
	});
});

describe('Appointment → Cancel, Complete, Mark No-Show, Park', () => {
	it.each([
		['cancel', 'PUT', '/cancel', undefined, 'CN', 'Cancelled'],
		['complete', 'POST', '/complete', undefined, 'CMNP', null],
		['park', 'POST', '/parked', undefined, 'PA', 'Parked'],
		['noShow', 'POST', '/change-status', { status: 'NS' }, 'NS', 'No-Show'],
	])(
		'%s: %s …%s, the status changes in the service',
		async (operation, method, suffix, body, stored, label) => {
			seed({ appointment_id: 'act-1' });
			const output = await run(
				appointment(operation, { appointmentId: 'act-1', appointmentIdType: 'eka' }),
			);
			const [call] = api.requestsTo(`/dr/v1/appointment/act-1${suffix}`, method);
			expect(call.url).toBe(`/dr/v1/appointment/act-1${suffix}`);
			expect(call.body).toEqual(body);
			expect(fakeAppointments(api).appointments.get('act-1')?.status).toBe(stored);
			expect(output[0].json).toMatchObject({
				appointment_id: 'act-1',
				id_type: 'eka',
				action: operation,
				success: true,
				status_label: label,
			});
		},
	);

	it('addresses by partner id with partner_id=1', async () => {
		seed({ appointment_id: 'act-2', partner_appointment_id: 'mine-2' });
		await run(appointment('cancel', { appointmentId: 'mine-2', appointmentIdType: 'partner' }));
		expect(api.requestsTo('/dr/v1/appointment/mine-2/cancel', 'PUT')[0].url).toBe(
			'/dr/v1/appointment/mine-2/cancel?partner_id=1',
		);
		expect(fakeAppointments(api).appointments.get('act-2')?.status).toBe('CN');
	});

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
			expect(api.requests).toHaveLength(0);
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
			await fetch(`${api.url}/__admin${action}`, {
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
		expect(fakeAppointments(api).appointments.size).toBe(0);
	});
});

describe('Clinic picker', () => {
	it("lists the business's clinics, filtered by name", async () => {
		const { context } = createExecuteContext({ credentials: credentials(), parameters: {} });
		const all = await node.methods.listSearch.searchClinics.call(context as never);
		expect(all.results).toEqual([
			{ name: 'Sunrise Clinic Indiranagar', value: 'c-1001' },
			{ name: 'Sunrise Clinic Koramangala', value: 'c-1002' },
		]);
		expect(
			(await node.methods.listSearch.searchClinics.call(context as never, 'kora')).results,
		).toEqual([{ name: 'Sunrise Clinic Koramangala', value: 'c-1002' }]);
	});

	it('finds a clinic by an ID with capitals, whatever the case of the search text', async () => {
		const entities = {
			doctors: [],
			clinics: [
				{ name: 'Sunrise Clinic Indiranagar', clinic_id: 'CL-Indira-7' },
				{ name: 'Sunrise Clinic Koramangala', clinic_id: 'CL-Kora-9' },
			],
		};
		api.injectFault({
			method: 'GET',
			path: '/dr/v1/business/entities',
			times: Infinity,
			fault: {
				kind: 'status',
				status: 200,
				body: { status_code: 200, success: true, data: entities },
			},
		});
		const { context } = createExecuteContext({ credentials: credentials(), parameters: {} });
		for (const search of ['cl-kora', 'CL-KORA-9', 'Kora-9']) {
			expect(
				(await node.methods.listSearch.searchClinics.call(context as never, search)).results,
			).toEqual([{ name: 'Sunrise Clinic Koramangala', value: 'CL-Kora-9' }]);
		}
	});
});
