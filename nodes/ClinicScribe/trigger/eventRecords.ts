/**
 * The trigger's "Include Appointment or Prescription" option: the full record behind a clinic event,
 * as Include Results does for transcriptions. Webhook payloads carry ids only ([EKA-WH] getting-started.mdx),
 * so the record is fetched: a prescription event's prescription, an appointment event's appointment.
 * Other families (receipts, schedule, …) are output as they are.
 */
import { NodeOperationError, type IDataObject, type IWebhookFunctions } from 'n8n-workflow';

import { normalizeAppointment } from '../shared/answers/appointmentRecords';
import type { ClinicEvent } from './clinicEvents';
import { readPrescription } from '../shared/answers/prescriptionRecords';
import { getAppointment } from '../transport/appointmentApi';
import { getPrescription } from '../transport/prescriptionApi';
import { unexpectedBodyError } from '../transport/errors';
import type { FetchBounds, IncludedFetch } from './boundedFetch';

/** Families whose record this option fetches, and the field the record goes under. */
type RecordFamily = 'appointment' | 'prescription';

/** The family whose record an event has, or undefined (receipts, schedule, …: output as they are). */
export function recordFamilyOf(event: ClinicEvent): RecordFamily | undefined {
	return event.kind === 'appointment' || event.kind === 'prescription' ? event.kind : undefined;
}

/** How a record missing from an item is named, and where the user gets it later. */
export function includedRecord(family: RecordFamily): IncludedFetch {
	return family === 'appointment'
		? {
				what: 'the appointment',
				later:
					'Appointment → Get (its ID is in appointmentId, or in partnerAppointmentId with ID Type "Partner Appointment ID")',
			}
		: { what: 'the prescription', later: 'Prescription → Get (its ID is in prescriptionId)' };
}

/**
 * The event's record: an appointment event's appointment, as Appointment → Get outputs it; a
 * prescription event's prescription, as Prescription → Get outputs it. Throws when it cannot be had
 * (the caller then starts the workflow with an `error` instead).
 */
export async function fetchRecord(
	ctx: IWebhookFunctions,
	event: ClinicEvent,
	family: RecordFamily,
	bounds: FetchBounds,
): Promise<IDataObject> {
	if (family === 'prescription') {
		if (!event.prescriptionId) throw missingId(ctx, 'prescription');
		const response = await getPrescription(ctx, event.prescriptionId, undefined, bounds);
		const prescription = readPrescription(response.body);
		if (!prescription)
			throw unexpectedBodyError(ctx, { purpose: 'the prescription' }, response.statusCode);
		return prescription;
	}
	// Eka's id when the event has it; else the partner's own (`?partner_id=1`).
	const [appointmentId, partnerId] = event.appointmentId
		? [event.appointmentId, false]
		: [event.partnerAppointmentId, true];
	if (!appointmentId) throw missingId(ctx, 'appointment');
	// As Appointment → Get outputs it: epoch times with ISO twins in the clinic's zone, status labels.
	return normalizeAppointment(await getAppointment(ctx, appointmentId, { partnerId, ...bounds }));
}

function missingId(ctx: IWebhookFunctions, family: RecordFamily): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`The delivery names no ${family}, so the ${family} cannot be fetched`,
		{
			description:
				'Turn off Include Appointment or Prescription to receive such deliveries without this error.',
		},
	);
}
