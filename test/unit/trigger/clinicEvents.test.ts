import { ClinicScribeTrigger } from '../../../nodes/ClinicScribe/ClinicScribeTrigger.node';
import {
	CLINIC_EVENTS,
	clinicEventKind,
	deliveryEventName,
	normalizeClinicEvent,
	type ClinicEvent,
} from '../../../nodes/ClinicScribe/trigger/clinicEvents';
import {
	clinicEventSample,
	CLINIC_SAMPLE_VARIANTS,
	SAMPLE_IDS,
} from '../../fake-api/clinicEventSamples';

const NOW = new Date('2026-03-04T05:06:07.000Z');
const AT = '2026-03-04T05:06:07.000Z';
const APPT = 'appt-unit-1';
const RX = 'P-DW-unit-1';

const NONE: Omit<ClinicEvent, 'event' | 'kind' | 'nameField' | 'body' | 'occurredAt'> = {
	action: null,
	status: null,
	statusLabel: null,
	appointmentId: null,
	partnerAppointmentId: null,
	rescheduledFromAppointmentId: null,
	prescriptionId: null,
	receiptId: null,
	patientId: null,
	partnerPatientId: null,
	doctorId: null,
	partnerDoctorId: null,
	clinicId: null,
	partnerClinicId: null,
	businessId: null,
	transactionId: null,
	documentUrl: null,
	printUrl: null,
};
const PARTIES = {
	doctorId: SAMPLE_IDS.doctorId,
	partnerDoctorId: SAMPLE_IDS.partnerDoctorId,
	patientId: SAMPLE_IDS.patientId,
	partnerPatientId: SAMPLE_IDS.partnerPatientId,
	clinicId: SAMPLE_IDS.clinicId,
	partnerClinicId: SAMPLE_IDS.partnerClinicId,
};

describe('normalizeClinicEvent: every documented payload variant', () => {
	test('appointment.created, PW (event, epoch seconds, action "created")', () => {
		const body = clinicEventSample('appointment-pw', { appointmentId: APPT, now: NOW });
		expect(normalizeClinicEvent(body)).toEqual({
			...NONE,
			...PARTIES,
			event: 'appointment.created',
			kind: 'appointment',
			action: 'created',
			status: 'BK',
			statusLabel: 'Booked',
			appointmentId: APPT,
			partnerAppointmentId: SAMPLE_IDS.partnerAppointmentId,
			businessId: SAMPLE_IDS.businessId,
			transactionId: '8y3458734657',
			occurredAt: AT,
			nameField: 'event',
			body,
		});
	});

	test('appointment.created, WS (event_type, ISO times, no event_time: the integer timestamp)', () => {
		const body = clinicEventSample('appointment-ws', { appointmentId: APPT, now: NOW });
		expect(normalizeClinicEvent(body)).toEqual({
			...NONE,
			doctorId: SAMPLE_IDS.doctorId,
			partnerDoctorId: SAMPLE_IDS.partnerDoctorId,
			patientId: SAMPLE_IDS.patientId,
			partnerPatientId: SAMPLE_IDS.partnerPatientId,
			clinicId: SAMPLE_IDS.clinicId,
			partnerClinicId: SAMPLE_IDS.partnerClinicId,
			event: 'appointment.created',
			kind: 'appointment',
			action: 'create',
			status: 'BK',
			statusLabel: 'Booked',
			appointmentId: APPT,
			businessId: SAMPLE_IDS.businessId,
			occurredAt: AT,
			nameField: 'event_type',
			body,
		});
	});

	test('appointment.updated on cancel (CND) and appointment.statuschange (CM, no action)', () => {
		const cancelled = normalizeClinicEvent(
			clinicEventSample('appointment-pw', {
				event: 'appointment.updated',
				status: 'CND',
				now: NOW,
			}),
		)!;
		expect([cancelled.event, cancelled.action, cancelled.status, cancelled.statusLabel]).toEqual([
			'appointment.updated',
			'modified',
			'CND',
			'Cancelled by Doctor',
		]);
		const changed = normalizeClinicEvent(
			clinicEventSample('appointment-statuschange-pw', { appointmentId: APPT, now: NOW }),
		)!;
		expect(changed).toMatchObject({
			event: 'appointment.statuschange',
			kind: 'appointment',
			action: null,
			status: 'CM',
			statusLabel: 'Completed',
			appointmentId: APPT,
			occurredAt: AT,
		});
	});

	test('an unknown status code keeps its code, labelled as unknown (as Appointment → Get does)', () => {
		const event = normalizeClinicEvent(
			clinicEventSample('appointment-pw', { status: 'ZZ', now: NOW }),
		)!;
		expect([event.status, event.statusLabel]).toEqual(['ZZ', 'Unknown (ZZ)']);
	});

	test('appointment.reminder_instant (no client_id, no timestamp: event_time)', () => {
		const body = clinicEventSample('appointment-reminder-pw', { appointmentId: APPT, now: NOW });
		expect(normalizeClinicEvent(body)).toEqual({
			...NONE,
			event: 'appointment.reminder_instant',
			kind: 'appointment',
			appointmentId: APPT,
			doctorId: SAMPLE_IDS.doctorId,
			patientId: SAMPLE_IDS.patientId,
			clinicId: SAMPLE_IDS.clinicId,
			businessId: SAMPLE_IDS.businessId,
			transactionId: '8y3458734659',
			occurredAt: AT,
			nameField: 'event',
			body,
		});
	});

	test('appointment.tele.dr_joined', () => {
		expect(
			normalizeClinicEvent(
				clinicEventSample('appointment-tele-pw', { appointmentId: APPT, now: NOW }),
			),
		).toMatchObject({
			event: 'appointment.tele.dr_joined',
			kind: 'appointment',
			appointmentId: APPT,
			doctorId: SAMPLE_IDS.doctorId,
			occurredAt: AT,
		});
	});

	test('a clinic event inside the envelope (payload.event, payload.data)', () => {
		const body = clinicEventSample('appointment-envelope', { appointmentId: APPT, now: NOW });
		expect(normalizeClinicEvent(body)).toEqual({
			...NONE,
			...PARTIES,
			event: 'appointment.updated',
			kind: 'appointment',
			status: 'CN',
			statusLabel: 'Cancelled',
			appointmentId: APPT,
			businessId: SAMPLE_IDS.businessId,
			transactionId: '8y3458734660',
			occurredAt: AT,
			nameField: 'payload.event',
			body,
		});
	});

	test('prescription.created, PW (prescription_id, no Eka appointment id, both PDF links)', () => {
		const body = clinicEventSample('prescription-pw', { prescriptionId: RX, now: NOW });
		expect(normalizeClinicEvent(body)).toEqual({
			...NONE,
			...PARTIES,
			event: 'prescription.created',
			kind: 'prescription',
			action: 'created',
			prescriptionId: RX,
			partnerAppointmentId: SAMPLE_IDS.partnerAppointmentId,
			businessId: SAMPLE_IDS.businessId,
			documentUrl: `https://prescription-store-s3.eka.care/${RX}.pdf`,
			printUrl: `https://prescription-store-s3.eka.care/${RX}-print.pdf`,
			occurredAt: AT,
			nameField: 'event',
			body,
		});
		expect(
			normalizeClinicEvent(
				clinicEventSample('prescription-pw', { event: 'prescription.updated', now: NOW }),
			)!.action,
		).toBe('updated');
	});

	test('prescription.created, WS (event_type, rx_id, Eka appointment id, ISO timestamp string)', () => {
		const body = clinicEventSample('prescription-ws', {
			prescriptionId: RX,
			appointmentId: APPT,
			now: NOW,
		});
		expect(normalizeClinicEvent(body)).toEqual({
			...NONE,
			event: 'prescription.created',
			kind: 'prescription',
			prescriptionId: RX,
			appointmentId: APPT,
			doctorId: SAMPLE_IDS.doctorId,
			patientId: SAMPLE_IDS.patientId,
			businessId: SAMPLE_IDS.businessId,
			occurredAt: AT,
			nameField: 'event_type',
			body,
		});
	});

	test('prescription.created, COMMS (with the Eka appointment id) and prescription.communication', () => {
		expect(
			normalizeClinicEvent(
				clinicEventSample('prescription-comms', {
					prescriptionId: RX,
					appointmentId: APPT,
					now: NOW,
				}),
			),
		).toMatchObject({
			kind: 'prescription',
			prescriptionId: RX,
			appointmentId: APPT,
			documentUrl: `https://prescription-store-s3.eka.care/${RX}.pdf`,
			printUrl: null,
			occurredAt: AT,
		});
		const sent = normalizeClinicEvent(
			clinicEventSample('prescription-communication-pw', {
				prescriptionId: RX,
				appointmentId: APPT,
				now: NOW,
			}),
		)!;
		expect(sent).toMatchObject({
			event: 'prescription.communication',
			kind: 'prescription',
			prescriptionId: RX,
			appointmentId: APPT,
			transactionId: '8y3458734661',
		});
		// The patient's name stays in the raw body only, never in a normalised field.
		expect(JSON.stringify({ ...sent, body: undefined })).not.toContain('Sample Patient');
	});

	test('receipt.created, WS real sample (event_type, aid / doctor_oid / patient_oid, milliseconds)', () => {
		const body = clinicEventSample('receipt-ws', {
			receiptId: 'rcpt-9',
			appointmentId: APPT,
			now: NOW,
		});
		expect(normalizeClinicEvent(body)).toEqual({
			...NONE,
			event: 'receipt.created',
			kind: 'receipt',
			receiptId: 'rcpt-9',
			appointmentId: APPT,
			doctorId: SAMPLE_IDS.doctorId,
			patientId: SAMPLE_IDS.patientId,
			clinicId: SAMPLE_IDS.clinicId,
			businessId: SAMPLE_IDS.businessId,
			transactionId: 'trx-receipt-1',
			documentUrl: 'https://receipts.example/rcpt-1.pdf',
			occurredAt: AT,
			nameField: 'event_type',
			body,
		});
	});

	test('receipt.updated, PW (integer receipt id → string; millisecond times only)', () => {
		const body = clinicEventSample('receipt-pw', { event: 'receipt.updated', now: NOW });
		delete body.event_time;
		delete body.timestamp;
		const event = normalizeClinicEvent(body)!;
		expect([event.event, event.kind, event.receiptId, event.occurredAt, event.nameField]).toEqual([
			'receipt.updated',
			'receipt',
			'2579',
			AT,
			'event',
		]);
	});

	test('receipt_payment.requested: the payment link as the document URL', () => {
		expect(
			normalizeClinicEvent(
				clinicEventSample('receipt-payment-pw', { appointmentId: APPT, now: NOW }),
			),
		).toMatchObject({
			kind: 'receipt',
			appointmentId: APPT,
			documentUrl: 'https://pay.example/l/abc',
			transactionId: 'trx-pay-1',
		});
	});

	test('timestamps in seconds, milliseconds and ISO all give the same occurredAt', () => {
		const base = clinicEventSample('appointment-ws', { now: NOW });
		for (const timestamp of [
			NOW.getTime() / 1000,
			NOW.getTime(),
			AT,
			String(NOW.getTime() / 1000),
		]) {
			expect(normalizeClinicEvent({ ...base, timestamp })!.occurredAt).toBe(AT);
		}
		expect(normalizeClinicEvent({ event: 'appointment.created', data: {} })!.occurredAt).toBeNull();
	});

	test('every variant gives its family and a name', () => {
		for (const variant of CLINIC_SAMPLE_VARIANTS) {
			const event = normalizeClinicEvent(clinicEventSample(variant, { now: NOW }));
			expect([variant, event?.kind, event?.occurredAt]).toEqual([
				variant,
				variant.split('-')[0],
				AT,
			]);
		}
	});

	test('no clinic event: not an object, no name, v2rx.* or an unknown family', () => {
		expect(normalizeClinicEvent(null)).toBeUndefined();
		expect(normalizeClinicEvent([])).toBeUndefined();
		expect(normalizeClinicEvent({ data: { appointment_id: 'a' } })).toBeUndefined();
		expect(normalizeClinicEvent({ event: 'v2rx.completed', data: {} })).toBeUndefined();
		expect(normalizeClinicEvent({ event: 'something.else' })).toBeUndefined();
	});
});

describe('event names and kinds', () => {
	test('deliveryEventName reads event, event_type, payload.event, event_id in that order', () => {
		expect(deliveryEventName({ event: 'a.b', event_type: 'c.d' })).toBe('a.b');
		expect(deliveryEventName({ event_type: 'c.d' })).toBe('c.d');
		expect(deliveryEventName({ payload: { event: 'e.f' }, event_id: 'x' })).toBe('e.f');
		expect(deliveryEventName({ event_id: 'v2rx.completed' })).toBe('v2rx.completed');
		expect(deliveryEventName('text')).toBeUndefined();
	});

	test('clinicEventKind by prefix', () => {
		expect(
			[
				'appointment.created',
				'prescription.updated',
				'receipt.deleted',
				'receipt_payment.requested',
				'schedule.stop_practice',
				'mcert.created',
				'google_review.request',
				'vaccination.reminder',
				'ipd_admissions.created',
				'user.delete',
				'v2rx.completed',
				'other',
			].map(clinicEventKind),
		).toEqual([
			'appointment',
			'prescription',
			'receipt',
			'receipt',
			'schedule',
			'certificate',
			'review',
			'vaccination',
			'admission',
			'user',
			undefined,
			undefined,
		]);
	});

	test('every offered clinic event has a kind, a unique value, and its name in its description', () => {
		const values = CLINIC_EVENTS.map((e) => e.value);
		expect(new Set(values).size).toBe(values.length);
		for (const option of CLINIC_EVENTS) {
			expect(clinicEventKind(option.value)).toBeDefined();
			expect(option.description).toContain(`(${option.value})`);
		}
		expect(values).toEqual(
			expect.arrayContaining([
				'appointment.created',
				'appointment.updated',
				'appointment.statuschange',
				'prescription.created',
				'prescription.updated',
				'receipt.created',
				'receipt.updated',
			]),
		);
	});
});

describe("the trigger's Events field", () => {
	const description = new ClinicScribeTrigger().description;
	const events = description.properties.find((p) => p.name === 'events')!;
	const options = (events.options ?? []) as Array<{ name: string; value: string }>;

	test('offers every clinic event and Transcription Completed, by name (so each kind stays together)', () => {
		expect(options.map((o) => o.value).sort()).toEqual(
			[...CLINIC_EVENTS.map((e) => e.value), 'v2rx.completed'].sort(),
		);
		expect(options.map((o) => o.name)).toEqual(
			[...options.map((o) => o.name)].sort((a, b) => a.localeCompare(b)),
		);
		const kinds = options.map((o) => o.name.split(' ')[0]);
		// Each kind's options are adjacent: a kind never reappears after another one.
		const runs = kinds.filter((kind, i) => i === 0 || kinds[i - 1] !== kind);
		expect(new Set(runs).size).toBe(runs.length);
	});

	test('saved workflows keep working: same type versions, same default, parameter still a multi-select', () => {
		expect([description.version, description.defaultVersion]).toEqual([[1, 1.1], 1.1]);
		expect([events.type, events.default]).toEqual(['multiOptions', ['v2rx.completed']]);
		const includeRecord = description.properties.find((p) => p.name === 'includeRecord')!;
		expect([includeRecord.type, includeRecord.default]).toEqual(['boolean', false]);
	});
});
