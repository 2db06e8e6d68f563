import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { runAppointmentAction } from './appointmentActions';
import type { OperationResult } from '../common.execute';
import { appointmentIdFields } from './appointmentFields';

export const description: INodeProperties[] = [...appointmentIdFields(['noShow'])];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	return await runAppointmentAction(this, 'noShow', itemIndex);
}
