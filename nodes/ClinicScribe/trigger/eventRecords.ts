/**
 * The trigger's "Include Appointment or Prescription" option: the full record behind a clinic event,
 * as Include Results does for transcriptions. Webhook payloads carry ids only (WH getting-started),
 * so the record is fetched: a prescription event's prescription, an appointment event's appointment.
 * Other families (receipts, schedule, …) are output as they are.
 */
import { NodeOperationError, type IDataObject, type IWebhookFunctions } from 'n8n-workflow';

import type { ClinicEvent } from '../shared/clinicEvents';
import { readPrescription } from '../shared/prescriptionRecords';
import { getPrescription } from '../transport/prescriptionsApi';
import { unexpectedBodyError } from '../transport/request';

/** Families whose record this option fetches. */
export const FAMILIES_WITH_RECORD: ReadonlyArray<ClinicEvent['kind']> = ['prescription'];

/**
 * The event's record, under `prescription` (or `appointment`). A failed fetch throws: n8n then records
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
	return {};
}

function missingId(ctx: IWebhookFunctions, family: string): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `The delivery names no ${family}, so the ${family} cannot be fetched`, {
		description: 'Turn off Include Appointment or Prescription to receive such deliveries as they are.',
	});
}
