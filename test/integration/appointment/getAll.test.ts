/**
 * Appointment → Get Many over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/appointment/): paging and the filter rules, checked on both sides.
 */
import { MAX_PAGES } from '../../../nodes/ClinicScribe/actions/appointment/getAll.operation';
import { appointment, byId, json, T10, useAppointmentCalls } from '../../support/appointmentCalls';

const t = useAppointmentCalls();
const { run, failure, refusedBeforeSending, seed } = t;

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
		expect(t.api.requestsTo('/dr/v1/appointment', 'GET').map((call) => call.url)).toEqual(
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
		expect(t.api.requestsTo('/dr/v1/appointment', 'GET').map((call) => call.query.page_no)).toEqual(
			['0', '1', '2'],
		);
	});

	it('patient alone pages by 20 and Limit stops paging early', async () => {
		seedDay(45, { patient_id: 'pt-9' });
		const output = await run(many({ patientId: 'pt-9', returnAll: false, limit: 25 }));
		expect(output).toHaveLength(25);
		expect(t.api.requestsTo('/dr/v1/appointment', 'GET').map((call) => call.url)).toEqual([
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
		t.api.injectFault({
			method: 'GET',
			path: /^\/dr\/v1\/appointment$/,
			times: Infinity,
			fault: { kind: 'status', status: 200, body: page },
		});
		const output = await run(many({ patientId: 'pt-1' }));
		expect(output).toHaveLength(20);
		expect(
			t.api.requestsTo(/^\/dr\/v1\/appointment$/, 'GET').map((call) => call.query.page_no),
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
		expect(t.api.requestsTo('/dr/v1/appointment', 'GET')).toHaveLength(MAX_PAGES);
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
		expect(t.api.requestsTo('/dr/v1/appointment', 'GET')[0].url).toBe(
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
		const response = await fetch(`${t.api.url}/dr/v1/appointment?doctor_id=do1001`, {
			headers: { auth: t.api.validCredentials.staticToken },
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
