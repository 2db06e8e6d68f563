/**
 * Clinic events (appointments, prescriptions, receipts) in the trigger over real HTTP against the fake
 * clinic API: one subscription carries every chosen event (the service refuses a URL twice); each
 * family, signed, comes out normalised; forged → 401 and nothing runs; replayed → no second run;
 * changing the event choice replaces the subscription exactly once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject } from 'n8n-workflow';

import { ClinicScribeTrigger } from '../../../nodes/ClinicScribe/ClinicScribeTrigger.node';
import {
	clinicEventSample,
	SAMPLE_IDS,
	type ClinicSampleVariant,
} from '../../fake-api/clinicEventSamples';
import { fakeAppointments } from '../../fake-api/routes/appointment';
import { fakePrescriptions, SEEDED_PRESCRIPTION_ID } from '../../fake-api/routes/prescription';
import {
	fakeWebhooks,
	prepareDelivery,
	SUBSCRIPTIONS_PATH,
	type Forgery,
} from '../../fake-api/routes/webhooks';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { recordAttack } from '../../support/attackLedger';
import { fakeApiCredentials, type CredentialStore } from '../../support/nodeContext';
import { createHookContext, createWebhookContext } from '../../support/triggerContext';
import { useTestTransportPolicy } from '../../support/transportPolicy';
import { eventually } from '../../support/n8n/trigger';

const trigger = new ClinicScribeTrigger();
const hooks = trigger.webhookMethods.default;

const MIXED = [
	'v2rx.completed',
	'appointment.created',
	'appointment.statuschange',
	'prescription.created',
	'receipt.created',
];

let api: FakeClinicApi;
let store: CredentialStore;
let receiver: Server;
let webhookUrl: string;
let staticData: IDataObject;
let parameters: Record<string, unknown>;
/** Outputs of deliveries that started the "workflow". */
let executions: IDataObject[][];

beforeAll(async () => {
	api = await startFakeClinicApi();
	useTestTransportPolicy({ retry: { baseDelayMs: 20, maxDelayMs: 200 } });
	// n8n's webhook endpoint, standing in: hands each request to the node's webhook() as n8n would.
	receiver = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			void (async () => {
				const ctx = createWebhookContext({
					request: { headers: req.headers, rawBody: Buffer.concat(chunks) },
					staticData,
					parameters,
					credentials: store,
				});
				try {
					const result = await trigger.webhook.call(ctx.context);
					if (result.noWebhookResponse) {
						res
							.writeHead(ctx.response.status ?? 200, {
								...ctx.response.headers,
								'content-type': 'application/json',
							})
							.end(JSON.stringify(ctx.response.body ?? {}));
						return;
					}
					if (result.workflowData) executions.push(result.workflowData[0].map((item) => item.json));
					res
						.writeHead(200, { 'content-type': 'application/json' })
						.end('{"message":"Workflow was started"}');
				} catch (error) {
					res.writeHead(500).end((error as Error).message);
				}
			})();
		});
	});
	await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
	webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhook/clinic-events/webhook`;
});
afterAll(async () => {
	await api.close();
	await new Promise((resolve) => receiver.close(resolve));
});
beforeEach(() => {
	api.reset();
	fakeWebhooks(api).clear();
	store = fakeApiCredentials(api.url, api.validCredentials);
	staticData = {};
	parameters = { events: MIXED };
	executions = [];
});

async function activate(
	activation: 'init' | 'activate' = 'activate',
): Promise<'existed' | 'created'> {
	const { context } = createHookContext({
		credentials: store,
		webhookUrl,
		staticData,
		parameters,
		activation,
	});
	if (await hooks.checkExists.call(context)) return 'existed';
	await hooks.create.call(context);
	return 'created';
}

const posts = () => api.requestsTo(SUBSCRIPTIONS_PATH, 'POST');
const deletes = () => api.requestsTo(new RegExp(`^${SUBSCRIPTIONS_PATH}/`), 'DELETE');

async function deliver(
	variant: ClinicSampleVariant,
	options: Parameters<typeof clinicEventSample>[1] = {},
	extra: { forgery?: Forgery; times?: number } = {},
) {
	const body = clinicEventSample(variant, options);
	const report = await fakeWebhooks(api).deliver({ body, ...extra });
	return { body, statuses: report.attempts.map((a) => a.status) };
}

describe('one subscription for every chosen event', () => {
	test('activation registers exactly one subscription carrying all chosen events, clinic and transcription', async () => {
		expect(await activate()).toBe('created');
		expect(fakeWebhooks(api).subscriptions()).toEqual([
			expect.objectContaining({ endpoint: webhookUrl, event_names: MIXED }),
		]);
		expect(posts().map((r) => (r.body as { event_names: string[] }).event_names)).toEqual([MIXED]);
		expect(staticData.eventNames).toEqual(MIXED);
		// Restarts in the older mode keep it.
		for (let i = 0; i < 3; i++) expect(await activate('init')).toBe('existed');
		expect(posts()).toHaveLength(1);
	});

	test.each(['init', 'activate'] as const)(
		'changing the event choice replaces the subscription exactly once (%s)',
		async (activation) => {
			await activate();
			const first = fakeWebhooks(api).subscriptions()[0];
			parameters = {
				events: ['appointment.created', 'appointment.updated', 'prescription.updated'],
			};
			expect(await activate(activation)).toBe('created');
			const all = fakeWebhooks(api).subscriptions();
			expect(all).toEqual([
				expect.objectContaining({
					endpoint: webhookUrl,
					event_names: ['appointment.created', 'appointment.updated', 'prescription.updated'],
				}),
			]);
			expect(all[0].id).not.toBe(first.id);
			expect(posts()).toHaveLength(2);
			expect(deletes().map((r) => r.pathname)).toEqual([`${SUBSCRIPTIONS_PATH}/${first.id}`]);
			// Unchanged from then on: nothing more is registered or deleted.
			expect(await activate('init')).toBe('existed');
			expect(await activate('init')).toBe('existed');
			expect([posts().length, deletes().length]).toEqual([2, 1]);
			// The order of the choice is no change.
			parameters = {
				events: ['prescription.updated', 'appointment.created', 'appointment.updated'],
			};
			expect(await activate('init')).toBe('existed');
			expect(posts()).toHaveLength(2);
		},
	);
});

describe('deliveries of each family', () => {
	beforeEach(async () => {
		await activate();
	});

	test('appointment events, PW and WS, signed: normalised with their ids, status label and ISO time', async () => {
		const now = new Date('2026-05-06T07:08:09.000Z');
		const pw = await deliver('appointment-pw', { appointmentId: 'appt-int-1', now });
		const ws = await deliver('appointment-ws', { appointmentId: 'appt-int-2', now });
		const done = await deliver('appointment-statuschange-pw', { appointmentId: 'appt-int-1', now });
		expect([pw.statuses, ws.statuses, done.statuses]).toEqual([[200], [200], [200]]);
		expect(executions).toHaveLength(3);
		expect(executions[0]).toEqual([
			{
				event: 'appointment.created',
				kind: 'appointment',
				action: 'created',
				status: 'BK',
				statusLabel: 'Booked',
				appointmentId: 'appt-int-1',
				partnerAppointmentId: SAMPLE_IDS.partnerAppointmentId,
				rescheduledFromAppointmentId: null,
				prescriptionId: null,
				receiptId: null,
				patientId: SAMPLE_IDS.patientId,
				partnerPatientId: SAMPLE_IDS.partnerPatientId,
				doctorId: SAMPLE_IDS.doctorId,
				partnerDoctorId: SAMPLE_IDS.partnerDoctorId,
				clinicId: SAMPLE_IDS.clinicId,
				partnerClinicId: SAMPLE_IDS.partnerClinicId,
				businessId: SAMPLE_IDS.businessId,
				transactionId: '8y3458734657',
				documentUrl: null,
				printUrl: null,
				occurredAt: '2026-05-06T07:08:09.000Z',
				nameField: 'event',
				body: pw.body,
			},
		]);
		expect(executions[1]).toEqual([
			expect.objectContaining({
				event: 'appointment.created',
				kind: 'appointment',
				appointmentId: 'appt-int-2',
				nameField: 'event_type',
				occurredAt: '2026-05-06T07:08:09.000Z',
				body: ws.body,
			}),
		]);
		expect(executions[2]).toEqual([
			expect.objectContaining({
				event: 'appointment.statuschange',
				status: 'CM',
				statusLabel: 'Completed',
				appointmentId: 'appt-int-1',
			}),
		]);
	});

	test('prescription events, PW and WS (rx_id): normalised with the prescription id and PDF links', async () => {
		const pw = await deliver('prescription-pw', { prescriptionId: 'rx-int-1' });
		const ws = await deliver('prescription-ws', {
			prescriptionId: 'rx-int-2',
			appointmentId: 'appt-int-3',
		});
		expect([pw.statuses, ws.statuses]).toEqual([[200], [200]]);
		expect(executions).toEqual([
			[
				expect.objectContaining({
					event: 'prescription.created',
					kind: 'prescription',
					prescriptionId: 'rx-int-1',
					appointmentId: null,
					documentUrl: 'https://prescription-store-s3.eka.care/rx-int-1.pdf',
					body: pw.body,
				}),
			],
			[
				expect.objectContaining({
					event: 'prescription.created',
					kind: 'prescription',
					prescriptionId: 'rx-int-2',
					appointmentId: 'appt-int-3',
					nameField: 'event_type',
					body: ws.body,
				}),
			],
		]);
	});

	test('receipt events, WS (milliseconds, aid / *_oid): normalised', async () => {
		const ws = await deliver('receipt-ws', {
			receiptId: 'rcpt-int-1',
			appointmentId: 'appt-int-4',
			now: new Date('2026-05-06T07:08:09.000Z'),
		});
		expect(ws.statuses).toEqual([200]);
		expect(executions).toEqual([
			[
				expect.objectContaining({
					event: 'receipt.created',
					kind: 'receipt',
					receiptId: 'rcpt-int-1',
					appointmentId: 'appt-int-4',
					doctorId: SAMPLE_IDS.doctorId,
					patientId: SAMPLE_IDS.patientId,
					occurredAt: '2026-05-06T07:08:09.000Z',
				}),
			],
		]);
	});

	test('a transcription event on the same subscription keeps its version-1 shape', async () => {
		const report = await fakeWebhooks(api).deliver({ transactionId: 'txn-mixed' });
		expect(report.attempts.map((a) => a.status)).toEqual([200]);
		expect(executions).toEqual([
			[
				{
					event: 'v2rx.completed',
					transactionId: 'txn-mixed',
					sessionId: 'txn-mixed',
					status: 'completed',
					timestamp: (report.body as { timestamp: string }).timestamp,
					shape: 'flat',
					body: report.body,
				},
			],
		]);
	});

	test.each<[ClinicSampleVariant, Forgery]>([
		['appointment-pw', 'wrong-key'],
		['appointment-ws', 'changed-body'],
		['prescription-pw', 'stale'],
		['prescription-ws', 'no-header'],
		['receipt-ws', 'malformed-header'],
		['receipt-ws', 'wrong-key'],
	])('forged %s (%s): 401, nothing runs', async (variant, forgery) => {
		const { statuses } = await deliver(variant, {}, { forgery });
		expect(statuses).toEqual([401]);
		expect(executions).toEqual([]);
	});

	test.each<ClinicSampleVariant>(['appointment-pw', 'prescription-pw', 'receipt-ws'])(
		'replayed %s: the same signed delivery twice runs once',
		async (variant) => {
			const { statuses } = await deliver(variant, {}, { times: 2 });
			expect(statuses).toEqual([200, 200]);
			expect(executions).toHaveLength(1);
		},
	);

	test('an event not chosen (receipt.deleted, appointment.updated) is acknowledged and dropped', async () => {
		const body = clinicEventSample('receipt-ws', { event: 'receipt.deleted' });
		const report = await fakeWebhooks(api).deliver({ body, ignoreEventNames: true });
		expect(report.attempts.map((a) => a.status)).toEqual([200]);
		const updated = await fakeWebhooks(api).deliver({
			body: clinicEventSample('appointment-pw', { event: 'appointment.updated' }),
			ignoreEventNames: true,
		});
		expect(updated.attempts.map((a) => a.status)).toEqual([200]);
		expect(executions).toEqual([]);
	});
});

describe('Include Appointment or Prescription', () => {
	beforeEach(async () => {
		parameters = { events: MIXED, includeRecord: true };
		await activate();
	});

	test('a prescription event comes with its prescription, fetched with the credential', async () => {
		const { statuses, body } = await deliver('prescription-pw', {
			prescriptionId: SEEDED_PRESCRIPTION_ID,
		});
		expect(statuses).toEqual([200]);
		expect(executions).toHaveLength(1);
		const [item] = executions[0];
		expect(item).toMatchObject({
			event: 'prescription.created',
			kind: 'prescription',
			prescriptionId: SEEDED_PRESCRIPTION_ID,
			body,
		});
		expect(item.prescription).toMatchObject({
			prescription_id: SEEDED_PRESCRIPTION_ID,
			prescription_details: expect.any(Array),
		});
		const gets = api.requestsTo(`/dr/v1/prescription/${SEEDED_PRESCRIPTION_ID}`, 'GET');
		expect(gets).toHaveLength(1);
	});

	test('a WS prescription event (rx_id) fetches by that id', async () => {
		const seeded = fakePrescriptions(api).seed({
			prescription: { prescription_id: 'P-DW-WS-0002' },
		});
		expect(
			(await deliver('prescription-ws', { prescriptionId: seeded.prescription_id })).statuses,
		).toEqual([200]);
		expect(executions[0][0].prescription).toMatchObject({ prescription_id: 'P-DW-WS-0002' });
	});

	test('an unknown prescription (a permanent 404): the workflow starts once with the event and a clear error; the service is answered 200, never 500', async () => {
		const { statuses, body } = await deliver(
			'prescription-pw',
			{ prescriptionId: 'P-DW-UNKNOWN' },
			{ times: 2 },
		);
		expect(statuses).toEqual([200, 200]);
		expect(executions).toEqual([
			[
				expect.objectContaining({
					event: 'prescription.created',
					prescriptionId: 'P-DW-UNKNOWN',
					body,
					prescription: null,
					error: {
						message: expect.stringMatching(
							/^Could not fetch the prescription: The clinic API refused the prescription \(HTTP 404/,
						),
						description: expect.stringMatching(
							/^The workflow started with the event alone, so the event is not lost\. Get the prescription later with Prescription → Get/,
						),
						httpCode: '404',
					},
				}),
			],
		]);
		// The second copy is a replay of a delivery that started the workflow: nothing fetched again.
		expect(api.requestsTo('/dr/v1/prescription/P-DW-UNKNOWN', 'GET')).toHaveLength(1);
		recordAttack(
			'delivery-unknown-record',
			'permanent 404 on Include Prescription: one run with the event and an error, 200 to the service, the copy not run again',
			{ secretsSeen: 0, itemsLost: 0 },
		);
	});

	test('an appointment event comes with its appointment, as Appointment → Get outputs it', async () => {
		fakeAppointments(api).seed({
			appointment_id: 'appt-int-rec-1',
			status: 'CM',
			start_time: 1795500000,
			prescription_id: SEEDED_PRESCRIPTION_ID,
		});
		const { statuses, body } = await deliver('appointment-statuschange-pw', {
			appointmentId: 'appt-int-rec-1',
		});
		expect(statuses).toEqual([200]);
		const [item] = executions[0];
		expect(item).toMatchObject({
			event: 'appointment.statuschange',
			appointmentId: 'appt-int-rec-1',
			status: 'CM',
			body,
		});
		expect(item.appointment).toMatchObject({
			appointment_id: 'appt-int-rec-1',
			status: 'CM',
			status_label: 'Completed',
			start_time: 1795500000,
			start_time_iso: '2026-11-24T11:30:00+05:30',
			prescription_id: SEEDED_PRESCRIPTION_ID,
		});
		expect(api.requestsTo('/dr/v1/appointment/appt-int-rec-1', 'GET')).toHaveLength(1);
	});

	test("an appointment event with only the partner's id fetches by it (?partner_id=1)", async () => {
		fakeAppointments(api).seed({
			appointment_id: 'appt-int-rec-2',
			partner_appointment_id: 'partner-appt-7',
		});
		const body = clinicEventSample('appointment-pw');
		const data = body.data as Record<string, unknown>;
		delete data.appointment_id;
		data.partner_appointment_id = 'partner-appt-7';
		const report = await fakeWebhooks(api).deliver({ body });
		expect(report.attempts.map((a) => a.status)).toEqual([200]);
		expect(executions[0][0]).toMatchObject({
			appointmentId: null,
			partnerAppointmentId: 'partner-appt-7',
			appointment: { appointment_id: 'appt-int-rec-2' },
		});
		const [request] = api.requestsTo('/dr/v1/appointment/partner-appt-7', 'GET');
		expect(request.query).toMatchObject({ partner_id: '1' });
	});

	test('two copies of one signed delivery at the same time (the first still fetching): one run', async () => {
		fakeAppointments(api).seed({ appointment_id: 'appt-int-twice' });
		// Slow the fetch down, so the second copy arrives while the first is still being handled.
		api.injectFault({
			method: 'GET',
			path: '/dr/v1/appointment/appt-int-twice',
			fault: { kind: 'delay', ms: 300 },
		});
		const [subscription] = fakeWebhooks(api).subscriptions();
		const { raw, headers } = prepareDelivery(
			subscription,
			clinicEventSample('appointment-pw', { appointmentId: 'appt-int-twice' }),
			undefined,
		);
		const send = async () =>
			(await fetch(webhookUrl, { method: 'POST', headers, body: raw })).status;
		expect(await Promise.all([send(), send()])).toEqual([200, 200]);
		expect(executions).toHaveLength(1);
		expect(executions[0][0]).toMatchObject({
			appointmentId: 'appt-int-twice',
			appointment: { appointment_id: 'appt-int-twice' },
		});
		expect(api.requestsTo('/dr/v1/appointment/appt-int-twice', 'GET')).toHaveLength(1);
		recordAttack(
			'delivery-replayed-concurrent',
			'the copy arriving while the first is still fetching waits for it: acknowledged once the first started the run; one execution',
			{ secretsSeen: 0, itemsLost: 0 },
		);
	});

	test("a copy arriving while the first delivery's fetch is failing is not acknowledged before the first has started the workflow (with the error)", async () => {
		// Unknown appointment, its fetch slowed: the first copy is mid-fetch when the second arrives.
		api.injectFault({
			method: 'GET',
			path: '/dr/v1/appointment/appt-int-failing',
			fault: { kind: 'delay', ms: 400 },
		});
		const { raw, headers } = prepareDelivery(
			fakeWebhooks(api).subscriptions()[0],
			clinicEventSample('appointment-pw', { appointmentId: 'appt-int-failing' }),
			undefined,
		);
		const send = async () => {
			const response = await fetch(webhookUrl, { method: 'POST', headers, body: raw });
			// What had started when the answer arrived: an acknowledgement must not come before the run.
			return { status: response.status, runsWhenAnswered: executions.length };
		};
		const first = send();
		await eventually(
			() => api.requestsTo('/dr/v1/appointment/appt-int-failing', 'GET').length === 1,
			() => 'the first copy did not fetch',
		);
		const copy = await send();
		expect(copy).toEqual({ status: 200, runsWhenAnswered: 1 });
		expect(await first).toEqual({ status: 200, runsWhenAnswered: 1 });
		expect(executions).toEqual([
			[
				expect.objectContaining({
					appointmentId: 'appt-int-failing',
					appointment: null,
					error: expect.objectContaining({ httpCode: '404' }),
				}),
			],
		]);
		expect(api.requestsTo('/dr/v1/appointment/appt-int-failing', 'GET')).toHaveLength(1);
		recordAttack(
			'delivery-copy-during-failing-fetch',
			'copy waits for the first (404 after 400 ms): answered 200 only after the run started with the event and its error; one execution',
			{ secretsSeen: 0, itemsLost: 0 },
		);
	});

	test('a copy still waiting when its own bound runs out is answered 503 with Retry-After (deliver again), not acknowledged; the first runs once', async () => {
		fakeAppointments(api).seed({ appointment_id: 'appt-int-held' });
		api.injectFault({
			method: 'GET',
			path: '/dr/v1/appointment/appt-int-held',
			fault: { kind: 'delay', ms: 600 },
		});
		const { raw, headers } = prepareDelivery(
			fakeWebhooks(api).subscriptions()[0],
			clinicEventSample('appointment-pw', { appointmentId: 'appt-int-held' }),
			undefined,
		);
		const send = async () => {
			const response = await fetch(webhookUrl, { method: 'POST', headers, body: raw });
			return {
				status: response.status,
				retryAfter: response.headers.get('retry-after'),
				runsWhenAnswered: executions.length,
			};
		};
		const first = send();
		await eventually(
			() => api.requestsTo('/dr/v1/appointment/appt-int-held', 'GET').length === 1,
			() => 'the first copy did not fetch',
		);
		// Only this copy's context gets a short bound; the first keeps its own (the production 6 s).
		const restore = useTestTransportPolicy({ timeouts: { triggerFetchMs: 50 } });
		let copy;
		try {
			copy = await send();
		} finally {
			restore();
		}
		expect(copy).toEqual({ status: 503, retryAfter: '10', runsWhenAnswered: 0 });
		expect(await first).toEqual({ status: 200, retryAfter: null, runsWhenAnswered: 1 });
		// The service's retry after the first started: acknowledged, nothing more.
		expect(await send()).toEqual({ status: 200, retryAfter: null, runsWhenAnswered: 1 });
		expect(executions.map((items) => items[0].appointment)).toEqual([
			expect.objectContaining({ appointment_id: 'appt-int-held' }),
		]);
		recordAttack(
			'delivery-copy-bound-503',
			'copy still waiting at its bound: 503 Retry-After 10, no run of its own; the first ran once; the retry acknowledged',
			{ secretsSeen: 0, itemsLost: 0 },
		);
	});

	test('an unknown appointment: 200 to the service, the workflow starts with the event and the error', async () => {
		expect((await deliver('appointment-pw', { appointmentId: 'appt-missing' })).statuses).toEqual([
			200,
		]);
		expect(executions).toEqual([
			[
				expect.objectContaining({
					appointmentId: 'appt-missing',
					appointment: null,
					error: expect.objectContaining({
						message: expect.stringMatching(/^Could not fetch the appointment: /),
						httpCode: '404',
					}),
				}),
			],
		]);
	});

	test('a receipt event is output as it is (no record for that family), with nothing fetched', async () => {
		expect((await deliver('receipt-ws')).statuses).toEqual([200]);
		expect(executions[0][0]).not.toHaveProperty('prescription');
		expect(executions[0][0]).not.toHaveProperty('appointment');
		expect(api.requests.filter((r) => r.pathname.startsWith('/dr/'))).toEqual([]);
	});
});
