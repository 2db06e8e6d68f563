/**
 * Appointment → every operation inside a real n8n 2.41.1 (the packed package installed as a
 * community package, a credential pointing at the fake clinic API), one n8n for the file and two
 * workflows run by `n8n execute`:
 *
 * - booking: Book (start time from an n8n DateTime expression) → Get → Update → Reschedule →
 *   Cancel (the new appointment) → Get Slots of the new day.
 * - clinic day: on appointments seeded in the fake, Complete → Mark No-Show → Park → Get Many of
 *   the day; beside them a Get Many over 8 days that fails the item (Continue On Fail) with nothing sent.
 */
import { fakeAppointments } from '../fake-api/routes/appointment';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { packedPackageForTests } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { nodeJson, nodeOutput, type ExecutionResult } from '../support/n8n/results';
import {
	ACTION_NODE_TYPE,
	chain,
	CREDENTIAL_TYPE,
	type WorkflowJson,
	type WorkflowNode,
} from '../support/n8n/workflows';

jest.setTimeout(5 * 60_000);

const CREDENTIAL = { id: 'clinicScribeAppt01', name: 'Clinic Scribe (e2e appointments)' };
// 2026-11-24 10:00 IST
const T10 = 1795494600;
const DAY = 86400;

let api: FakeClinicApi;
let n8n: N8nInstance;
let booking: ExecutionResult;
let clinicDay: ExecutionResult;

function clinicNode(
	name: string,
	index: number,
	parameters: Record<string, unknown>,
	extra: Partial<WorkflowNode> = {},
): WorkflowNode {
	return {
		name,
		type: ACTION_NODE_TYPE,
		typeVersion: 1,
		position: [250 * (index + 1), 300],
		parameters: { resource: 'appointment', ...parameters },
		credentials: { [CREDENTIAL_TYPE]: CREDENTIAL },
		...extra,
	};
}

const START: WorkflowNode = {
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 300],
	parameters: {},
};
const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const EKA_IDS = {
	idSet: 'eka',
	clinicId: byId('c-1001'),
	doctorId: byId('do1001'),
	patientId: 'pt-e2e-1',
};

function bookingWorkflow(): WorkflowJson {
	const nodes = [
		START,
		clinicNode('Book', 0, {
			operation: 'book',
			...EKA_IDS,
			startTime: "={{ DateTime.fromISO('2026-11-24T10:00:00+05:30') }}",
			mode: 'INCLINIC',
			additionalFields: {
				endTime: String(T10 + 900),
				partnerAppointmentId: 'e2e-pa-1',
				notes: 'First visit',
				partnerMeta: '{"encounter_id":"enc-1"}',
			},
			patientDetails: {
				firstName: 'Asha',
				lastName: 'Test',
				mobile: '9876543210',
				gender: 'F',
				age: 34,
			},
		}),
		clinicNode('Get', 1, {
			operation: 'get',
			appointmentId: '={{ $json.partner_appointment_id }}',
			appointmentIdType: 'partner',
		}),
		clinicNode('Update', 2, {
			operation: 'update',
			appointmentId: "={{ $('Book').item.json.appointment_id }}",
			...EKA_IDS,
			updateFields: { mode: 'VIDEO', partnerMeta: '{"encounter_id":"enc-2"}' },
		}),
		clinicNode('Reschedule', 3, {
			operation: 'reschedule',
			appointmentId: "={{ $('Book').item.json.appointment_id }}",
			startTime: '2026-11-25T10:00:00',
			endTime: '2026-11-25T10:15:00',
		}),
		clinicNode('Cancel', 4, { operation: 'cancel', appointmentId: '={{ $json.appointment_id }}' }),
		clinicNode('Get Slots', 5, {
			operation: 'getSlots',
			doctorId: byId('do1001'),
			clinicId: byId('c-1001'),
			startDate: '2026-11-25',
			endDate: '2026-11-25',
		}),
	];
	return {
		name: 'e2e: appointment booking',
		nodes,
		connections: chain(...nodes.map((node) => node.name)),
		settings: {},
	};
}

function clinicDayWorkflow(): WorkflowJson {
	const nodes = [
		START,
		clinicNode('Complete', 0, { operation: 'complete', appointmentId: 'day-1' }),
		clinicNode('Mark No-Show', 1, { operation: 'noShow', appointmentId: 'day-2' }),
		clinicNode('Park', 2, {
			operation: 'park',
			appointmentId: 'day-3-partner',
			appointmentIdType: 'partner',
		}),
		clinicNode('Get Many', 3, {
			operation: 'getAll',
			clinicId: byId('c-1001'),
			startDate: '2026-11-24',
			endDate: '2026-11-24',
			returnAll: true,
		}),
	];
	const tooLong = clinicNode(
		'Get Many Too Long',
		0,
		{ operation: 'getAll', startDate: '2026-11-24', endDate: '2026-12-01', returnAll: true },
		{ position: [250, 550], onError: 'continueRegularOutput' },
	);
	const connections = chain(...nodes.map((node) => node.name));
	connections.Start = {
		main: [
			[
				{ node: 'Complete', type: 'main', index: 0 },
				{ node: 'Get Many Too Long', type: 'main', index: 0 },
			],
		],
	};
	return {
		name: 'e2e: appointment clinic day',
		nodes: [...nodes, tooLong],
		connections,
		settings: {},
	};
}

beforeAll(async () => {
	api = await startFakeClinicApi();
	n8n = await N8nInstance.create({ packageTarball: await packedPackageForTests() });
	await n8n.importCredentials([
		{ ...CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
	]);
	const store = fakeAppointments(api);
	store.seed({ appointment_id: 'day-1', start_time: T10 - 1800 });
	store.seed({ appointment_id: 'day-2', start_time: T10 - 900 });
	store.seed({
		appointment_id: 'day-3',
		partner_appointment_id: 'day-3-partner',
		start_time: T10 + 1800,
	});
	const [bookingId, dayId] = await n8n.importWorkflows([bookingWorkflow(), clinicDayWorkflow()]);
	booking = await n8n.execute(bookingId);
	clinicDay = await n8n.execute(dayId);
});

afterAll(async () => {
	await n8n?.dispose();
	await api?.close();
});

describe('an appointment from booking to cancellation, in n8n', () => {
	it('runs the workflow to success', () => {
		expect(booking.error).toBeUndefined();
		expect(booking.status).toBe('success');
	});

	it('Book sent the DateTime as epoch seconds with the patient details, and outputs ISO and epoch', () => {
		const [book] = api.requestsTo(/^\/dr\/v1\/appointment$/, 'POST');
		expect(book.body).toEqual({
			clinic_id: 'c-1001',
			doctor_id: 'do1001',
			patient_id: 'pt-e2e-1',
			appointment_details: { start_time: T10, end_time: T10 + 900, mode: 'INCLINIC' },
			partner_appointment_id: 'e2e-pa-1',
			notes: 'First visit',
			partner_meta: { encounter_id: 'enc-1' },
			patient_details: {
				first_name: 'Asha',
				last_name: 'Test',
				gender: 'F',
				mobile: '+919876543210',
				age: 34,
			},
		});
		expect(nodeJson(booking, 'Book')).toEqual([
			{
				appointment_id: 'api-fake-0001',
				partner_appointment_id: 'e2e-pa-1',
				clinic_id: 'c-1001',
				doctor_id: 'do1001',
				patient_id: 'pt-e2e-1',
				mode: 'INCLINIC',
				start_time: T10,
				start_time_iso: '2026-11-24T10:00:00+05:30',
				end_time: T10 + 900,
				end_time_iso: '2026-11-24T10:15:00+05:30',
				time_zone: 'Asia/Kolkata',
			},
		]);
		expect(fakeAppointments(api).directoryAdds).toHaveLength(1);
	});

	it('Get by the partner id returns the booked appointment with a status label', () => {
		expect(api.requestsTo('/dr/v1/appointment/e2e-pa-1', 'GET')[0].url).toBe(
			'/dr/v1/appointment/e2e-pa-1?partner_id=1',
		);
		expect(nodeJson(booking, 'Get')[0]).toMatchObject({
			appointment_id: 'api-fake-0001',
			status: 'BK',
			status_label: 'Booked',
			mode: 'in_clinic',
			start_time: T10,
			start_time_iso: '2026-11-24T10:00:00+05:30',
			notes: 'First visit',
		});
	});

	it('Update sent the v2 PATCH with the id set', () => {
		expect(
			api.requestsTo('/dr/v2/appointment/api-fake-0001', 'PATCH').map((call) => call.body),
		).toEqual([
			{
				...{ clinic_id: 'c-1001', doctor_id: 'do1001', patient_id: 'pt-e2e-1' },
				appointment_details: { mode: 'VIDEO' },
				partner_meta: { encounter_id: 'enc-2' },
			},
		]);
		expect(nodeJson(booking, 'Update')).toEqual([
			{
				appointment_id: 'api-fake-0001',
				id_type: 'eka',
				updated: true,
				updated_fields: ['appointment_details', 'partner_meta'],
			},
		]);
	});

	it('Reschedule read the wall clock in the clinic zone and outputs the new appointment', () => {
		expect(api.requestsTo('/appointments/v1/api-fake-0001/reschedule', 'PATCH')[0].body).toEqual({
			start_time: T10 + DAY,
			end_time: T10 + DAY + 900,
		});
		expect(nodeJson(booking, 'Reschedule')[0]).toMatchObject({
			appointment_id: 'api-fake-0002',
			prev_aids: ['api-fake-0001'],
			start_time_iso: '2026-11-25T10:00:00+05:30',
			rescheduled_from: 'api-fake-0001',
		});
		expect(fakeAppointments(api).appointments.get('api-fake-0001')?.status).toBe('RES');
	});

	it('Cancel cancelled the new appointment, so its slot is free again in Get Slots', () => {
		expect(nodeJson(booking, 'Cancel')).toEqual([
			{
				appointment_id: 'api-fake-0002',
				id_type: 'eka',
				action: 'cancel',
				success: true,
				status: 'CN',
				status_label: 'Cancelled',
			},
		]);
		expect(fakeAppointments(api).appointments.get('api-fake-0002')?.status).toBe('CN');
		const slots = nodeJson(booking, 'Get Slots');
		expect(slots.map((slot) => [slot.start, slot.available])).toEqual([
			['2026-11-25T09:30:00+05:30', true],
			['2026-11-25T09:45:00+05:30', true],
			['2026-11-25T10:00:00+05:30', true],
			['2026-11-25T10:15:00+05:30', true],
		]);
		expect(api.requestsTo(/\/appointment\/slot$/)[0].url).toBe(
			'/dr/v1/doctor/do1001/clinic/c-1001/appointment/slot?start_date=2026-11-25&end_date=2026-11-25',
		);
	});
});

describe("a clinic's day, in n8n", () => {
	it('runs the workflow to success', () => {
		expect(clinicDay.error).toBeUndefined();
		expect(clinicDay.status).toBe('success');
	});

	it('Complete, Mark No-Show and Park called their endpoints and changed the statuses', () => {
		expect(api.requestsTo('/dr/v1/appointment/day-1/complete', 'POST')).toHaveLength(1);
		expect(api.requestsTo('/dr/v1/appointment/day-2/change-status', 'POST')[0].body).toEqual({
			status: 'NS',
		});
		expect(api.requestsTo('/dr/v1/appointment/day-3-partner/parked', 'POST')[0].url).toBe(
			'/dr/v1/appointment/day-3-partner/parked?partner_id=1',
		);
		expect(nodeJson(clinicDay, 'Park')).toEqual([
			{
				appointment_id: 'day-3-partner',
				id_type: 'partner',
				action: 'park',
				success: true,
				status: 'PA',
				status_label: 'Parked',
			},
		]);
	});

	it("Get Many lists the day's appointments with their new statuses, one item each", () => {
		const items = nodeOutput(clinicDay, 'Get Many');
		expect(
			items.map((item) => [item.json.appointment_id, item.json.status, item.json.status_label]),
		).toEqual([
			['day-1', 'CMNP', 'Completed Without Prescription'],
			['day-2', 'NS', 'No-Show'],
			// Booked by the other workflow at 10:00, then moved to the next day.
			['api-fake-0001', 'RES', 'Rescheduled by Staff'],
			['day-3', 'PA', 'Parked'],
		]);
		expect(api.requestsTo(/^\/dr\/v1\/appointment$/, 'GET').map((call) => call.url)).toEqual([
			'/dr/v1/appointment?clinic_id=c-1001&start_date=2026-11-24&end_date=2026-11-24&page_no=0',
		]);
	});

	it('a date range over 7 days fails the item with nothing sent', () => {
		const [failed] = nodeJson(clinicDay, 'Get Many Too Long');
		expect(String(failed.error)).toBe(
			'The filters of item 0 the date range 2026-11-24 to 2026-12-01 spans 8 days; the service allows at most 7',
		);
		expect(
			api
				.requestsTo(/^\/dr\/v1\/appointment$/, 'GET')
				.filter((call) => call.query.end_date === '2026-12-01'),
		).toHaveLength(0);
	});
});
