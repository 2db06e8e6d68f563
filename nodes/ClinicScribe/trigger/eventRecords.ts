/**
 * The trigger's "Include Appointment or Prescription" option: the full record behind a clinic event,
 * as Include Results does for transcriptions. Webhook payloads carry ids only (WH getting-started),
 * so the record is fetched: a prescription event's prescription, an appointment event's appointment.
 * Other families (receipts, schedule, …) are output as they are.
 */
import { NodeOperationError, type IDataObject, type IWebhookFunctions } from 'n8n-workflow';

import { normalizeAppointment } from '../shared/appointmentRecords';
import type { ClinicEvent } from '../shared/clinicEvents';
import { readPrescription } from '../shared/prescriptionRecords';
import { getAppointment } from '../transport/appointmentsApi';
import { getPrescription } from '../transport/prescriptionsApi';
import { unexpectedBodyError } from '../transport/request';

/** Families whose record this option fetches. */
export const FAMILIES_WITH_RECORD: ReadonlyArray<ClinicEvent['kind']> = ['appointment', 'prescription'];

/**
 * The event's record: under `appointment` for an appointment event, `prescription` for a prescription event. A failed fetch throws: n8n then records
 * a failed execution and answers the service 500, so the failure is visible and the service may
 * deliver again (the delivery is not remembered as accepted).
 */
export async function recordOfEvent(ctx: IWebhookFunctions, event: ClinicEvent): Promise<IDataObject> {
	if (event.kind === 'prescription') {
		if (!event.prescriptionId) throw missingId(ctx, 'prescription');
		const response = await getPrescription(ctx, event.prescriptionId);
		const prescription = readPrescription(response.body);
		if (!prescription) throw unexpectedBodyError(ctx, { purpose: 'the prescription' }, response.statusCode);
		return { prescription };
	}
	if (event.kind === 'appointment') {
		// Eka's id when the event has it; else the partner's own (`?partner_id=1`).
		const [appointmentId, partnerId] = event.appointmentId
			? [event.appointmentId, false]
			: [event.partnerAppointmentId, true];
		if (!appointmentId) throw missingId(ctx, 'appointment');
		// As Appointment → Get outputs it: epoch times with ISO twins in the clinic's zone, status labels.
		return { appointment: normalizeAppointment(await getAppointment(ctx, appointmentId, { partnerId })) };
	}
	return {};
}

function missingId(ctx: IWebhookFunctions, family: string): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `The delivery names no ${family}, so the ${family} cannot be fetched`, {
		description: 'Turn off Include Appointment or Prescription to receive such deliveries as they are.',
	});
}
