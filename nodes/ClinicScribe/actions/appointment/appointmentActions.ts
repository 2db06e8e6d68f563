import type { IExecuteFunctions } from 'n8n-workflow';

import { statusLabel } from '../../shared/answers/appointmentRecords';
import { appointmentAction, type AppointmentAction } from '../../transport/appointmentApi';
import type { OperationResult } from '../common.execute';
import { readAppointmentRef } from './appointmentFields';

/**
 * The status each action asks for. Complete may end as CM or CMNP (with or without a
 * prescription), so it claims none; Get the appointment to read it.
 */
const REQUESTED_STATUS: Record<AppointmentAction, string | null> = {
	cancel: 'CN',
	complete: null,
	park: 'PA',
	noShow: 'NS',
};

/** Cancel, Complete, Park, Mark No-Show: one call each, the outcome as one record. */
export async function runAppointmentAction(
	ctx: IExecuteFunctions,
	action: AppointmentAction,
	itemIndex: number,
): Promise<OperationResult> {
	const ref = readAppointmentRef(ctx, itemIndex);
	await appointmentAction(ctx, action, ref, itemIndex);
	const status = REQUESTED_STATUS[action];
	return [
		{
			appointment_id: ref.appointmentId,
			id_type: ref.partnerId ? 'partner' : 'eka',
			action,
			success: true,
			status,
			status_label: status === null ? null : statusLabel(status),
		},
	];
}
