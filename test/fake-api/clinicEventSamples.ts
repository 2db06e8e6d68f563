/**
 * Clinic webhook deliveries in every documented variant: [EKA-PW] schemas and examples,
 * [EKA-WH-SAMPLES] (`event_type`, ISO or millisecond times, `rx_id`), [EKA-COMMS] (prescription with
 * the Eka appointment id), and the envelope the `v2rx.completed` samples use. A variant's name ends
 * in its source: `-pw` [EKA-PW], `-ws` [EKA-WH-SAMPLES], `-comms` [EKA-COMMS]. Shared by the unit
 * tests of the normaliser, the fake API's deliveries, the e2e tests and the demo script.
 */
export type ClinicSampleVariant =
	| 'appointment-pw'
	| 'appointment-ws'
	| 'appointment-statuschange-pw'
	| 'appointment-reminder-pw'
	| 'appointment-tele-pw'
	| 'appointment-envelope'
	| 'prescription-pw'
	| 'prescription-ws'
	| 'prescription-comms'
	| 'prescription-communication-pw'
	| 'receipt-ws'
	| 'receipt-pw'
	| 'receipt-payment-pw';

export interface ClinicSampleOptions {
	/** Default per variant (e.g. appointment.created, prescription.created, receipt.created). */
	event?: string;
	appointmentId?: string;
	prescriptionId?: string;
	receiptId?: string | number;
	status?: string;
	now?: Date;
}

export const SAMPLE_IDS = {
	businessId: '174159057718553',
	clientId: '67978400352a61001d64e9fb',
	doctorId: '174159057723920',
	partnerDoctorId: 'test-doc-123',
	patientId: '174678912588458',
	partnerPatientId: '77237637763817-17',
	clinicId: '67978400352a61001d64e9fb',
	partnerClinicId: 'CL04',
	partnerAppointmentId: '67ce9032abfba8001d17ddd2',
};

const DEFAULT_EVENT: Record<ClinicSampleVariant, string> = {
	'appointment-pw': 'appointment.created',
	'appointment-ws': 'appointment.created',
	'appointment-statuschange-pw': 'appointment.statuschange',
	'appointment-reminder-pw': 'appointment.reminder_instant',
	'appointment-tele-pw': 'appointment.tele.dr_joined',
	'appointment-envelope': 'appointment.updated',
	'prescription-pw': 'prescription.created',
	'prescription-ws': 'prescription.created',
	'prescription-comms': 'prescription.created',
	'prescription-communication-pw': 'prescription.communication',
	'receipt-ws': 'receipt.created',
	'receipt-pw': 'receipt.created',
	'receipt-payment-pw': 'receipt_payment.requested',
};

export const CLINIC_SAMPLE_VARIANTS = Object.keys(DEFAULT_EVENT) as ClinicSampleVariant[];

/** One delivery body of the given documented variant. */
export function clinicEventSample(
	variant: ClinicSampleVariant,
	options: ClinicSampleOptions = {},
): Record<string, unknown> {
	const event = options.event ?? DEFAULT_EVENT[variant];
	const now = options.now ?? new Date();
	const seconds = Math.floor(now.getTime() / 1000);
	const iso = now.toISOString();
	const ids = SAMPLE_IDS;
	const appointmentId = options.appointmentId ?? 'api-abb67007-1e53-4f0f-b428-a4bc025468a4';
	const prescriptionId = options.prescriptionId ?? 'P-DW-sam123ple';
	const partyIds = {
		doctor_id: ids.doctorId,
		partner_doctor_id: ids.partnerDoctorId,
		patient_id: ids.patientId,
		partner_patient_id: ids.partnerPatientId,
		clinic_id: ids.clinicId,
		partner_clinic_id: ids.partnerClinicId,
	};
	switch (variant) {
		case 'appointment-pw':
			return {
				service: 'appointment',
				event,
				transaction_id: '8y3458734657',
				event_time: seconds,
				timestamp: seconds,
				client_id: ids.clientId,
				business_id: ids.businessId,
				data: {
					appointment_id: appointmentId,
					partner_appointment_id: ids.partnerAppointmentId,
					...partyIds,
					status: options.status ?? 'BK',
					action: event.endsWith('.created') ? 'created' : 'modified',
					created_at: seconds,
					modified_at: seconds,
					custom_attributes: { label: [] },
					partner_meta: { key1: 'value1' },
					sa_ids: [],
				},
			};
		case 'appointment-ws':
			// [EKA-WH-SAMPLES]: `event_type`, `service: "dr"`, action "create", ISO times, integer timestamp, no event_time.
			return {
				service: 'dr',
				event_type: event,
				timestamp: seconds,
				client_id: ids.clientId,
				business_id: ids.businessId,
				data: {
					appointment_id: appointmentId,
					...partyIds,
					status: options.status ?? 'BK',
					action: 'create',
					created_at: iso,
					modified_at: iso,
				},
			};
		case 'appointment-statuschange-pw':
			return {
				service: 'appointment',
				event,
				transaction_id: '8y3458734658',
				event_time: seconds,
				timestamp: seconds,
				client_id: ids.clientId,
				business_id: ids.businessId,
				data: {
					appointment_id: appointmentId,
					partner_appointment_id: ids.partnerAppointmentId,
					...partyIds,
					status: options.status ?? 'CM',
					created_at: seconds,
					modified_at: seconds,
					custom_attributes: { label: [] },
					partner_meta: {
						appointment_id: ids.partnerAppointmentId,
						encounter_id: 'enc-1',
						facility_id: 'fac-1',
					},
				},
			};
		case 'appointment-reminder-pw':
			// No client_id or timestamp ([EKA-PW]).
			return {
				business_id: ids.businessId,
				event,
				event_time: seconds,
				partition_id: 3,
				transaction_id: '8y3458734659',
				data: {
					appointment_id: appointmentId,
					doctor_id: ids.doctorId,
					patient_id: ids.patientId,
					clinic_id: ids.clinicId,
				},
			};
		case 'appointment-tele-pw':
			return {
				service: 'appointment',
				event,
				event_time: seconds,
				timestamp: seconds,
				client_id: ids.clientId,
				business_id: ids.businessId,
				data: {
					appointment_id: appointmentId,
					doctor_id: ids.doctorId,
					patient_id: ids.patientId,
					clinic_id: ids.clinicId,
					video_connect: { url: 'https://meet.example/abc' },
				},
			};
		case 'appointment-envelope':
			// The envelope of the v2rx.completed samples ([EKA-WH-SAMPLES]), carrying a clinic event.
			return {
				business_id: ids.businessId,
				client_id: ids.clientId,
				service_id: 'appointment',
				event_id: 'evt-0001',
				payload: {
					service: 'appointment',
					event,
					event_time: seconds,
					transaction_id: '8y3458734660',
					data: { appointment_id: appointmentId, ...partyIds, status: options.status ?? 'CN' },
				},
			};
		case 'prescription-pw':
			// [EKA-PW]: no Eka appointment_id, only the partner's.
			return {
				event,
				event_time: seconds,
				timestamp: seconds,
				client_id: ids.clientId,
				business_id: ids.businessId,
				data: {
					prescription_id: prescriptionId,
					...partyIds,
					partner_appointment_id: ids.partnerAppointmentId,
					current_version: '2',
					previous_version: '1',
					prescription_url: `https://prescription-store-s3.eka.care/${prescriptionId}.pdf`,
					prescription_url_print: `https://prescription-store-s3.eka.care/${prescriptionId}-print.pdf`,
					action: event.endsWith('.created') ? 'created' : 'updated',
					created_at: seconds,
					modified_at: seconds,
					partner_meta: { key1: 'value1' },
				},
			};
		case 'prescription-ws':
			// [EKA-WH-SAMPLES]: `event_type`, `rx_id`, the Eka `appointment_id`, ISO created_at, no event_time.
			return {
				service: 'dr',
				event_type: event,
				timestamp: iso,
				client_id: ids.clientId,
				business_id: ids.businessId,
				data: {
					rx_id: prescriptionId,
					appointment_id: appointmentId,
					doctor_id: ids.doctorId,
					patient_id: ids.patientId,
					created_at: iso,
				},
			};
		case 'prescription-comms':
			// [EKA-COMMS]: [EKA-PW]'s fields plus the Eka appointment id.
			return {
				event,
				event_time: seconds,
				timestamp: seconds,
				client_id: ids.clientId,
				business_id: ids.businessId,
				data: {
					prescription_id: prescriptionId,
					appointment_id: appointmentId,
					...partyIds,
					prescription_url: `https://prescription-store-s3.eka.care/${prescriptionId}.pdf`,
					action: 'created',
					created_at: seconds,
				},
			};
		case 'prescription-communication-pw':
			return {
				service: 'prescription',
				event,
				transaction_id: '8y3458734661',
				event_time: seconds,
				timestamp: seconds,
				client_id: ids.clientId,
				business_id: ids.businessId,
				data: {
					actor_oid: ids.doctorId,
					appointment_id: appointmentId,
					clinic_id: ids.clinicId,
					doc_name: 'Dr. Sample',
					doctor_id: ids.doctorId,
					patient_id: ids.patientId,
					patient_name: 'Sample Patient',
					prescription_id: prescriptionId,
					prescription_url: `https://prescription-store-s3.eka.care/${prescriptionId}.pdf`,
				},
			};
		case 'receipt-ws':
			// [EKA-WH-SAMPLES] real sample: `event_type`, timestamps in milliseconds, aid / doctor_oid / patient_oid.
			return {
				service: 'appointment',
				event_type: event,
				event_time: seconds,
				timestamp: seconds + 2,
				client_id: ids.clientId,
				business_id: ids.businessId,
				transaction_id: 'trx-receipt-1',
				data: {
					receipt_id: String(options.receiptId ?? 'rcpt-1'),
					aid: appointmentId,
					doctor_oid: ids.doctorId,
					patient_oid: ids.patientId,
					clinic_id: ids.clinicId,
					receipt_number: null,
					business_receipt_number: null,
					receipt_url: 'https://receipts.example/rcpt-1.pdf',
					receipt_status: 'SUCCESS',
					receipt_amount: 760,
					net_amount: 750,
					amount_due: 0,
					amount_paid: null,
					payment_id: null,
					payment_link: null,
					archive: 0,
					name: 'test patient',
					mobile: '+919999999999',
					created_at: now.getTime(),
					updated_at: now.getTime(),
				},
			};
		case 'receipt-pw':
			// [EKA-PW]: `event`, integer receipt id, millisecond times, actor / discount / remarks.
			return {
				event,
				event_time: seconds,
				timestamp: seconds,
				client_id: ids.clientId,
				business_id: ids.businessId,
				data: {
					receipt_id: options.receiptId ?? 2579,
					aid: appointmentId,
					doctor_oid: ids.doctorId,
					patient_oid: ids.patientId,
					clinic_id: ids.clinicId,
					receipt_url: 'https://receipts.example/2579.pdf',
					receipt_status: 'SUCCESS',
					net_amount: 750,
					discount: 10,
					remarks: '',
					ref_trx_id: null,
					actor: { oid: ids.doctorId },
					created_at: now.getTime(),
					updated_at: now.getTime(),
				},
			};
		case 'receipt-payment-pw':
			return {
				service: 'receipt_payment',
				event,
				transaction_id: 'trx-pay-1',
				event_time: seconds,
				timestamp: seconds,
				client_id: ids.clientId,
				business_id: ids.businessId,
				data: {
					appointment_id: appointmentId,
					doctor_id: ids.doctorId,
					patient_id: ids.patientId,
					net_amount: 750,
					url: 'https://pay.example/l/abc',
				},
			};
	}
}
