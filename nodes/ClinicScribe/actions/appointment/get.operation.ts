import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { normalizeAppointment } from '../../shared/answers/appointmentRecords';
import { getAppointment } from '../../transport/appointmentApi';
import { patientDataForAgentProperties } from '../common.descriptions';
import { assertPatientDataMayGoToAgent, type OperationResult } from '../common.execute';
import {
	appointmentIdFields,
	readAppointmentRef,
	readOptions,
	readTimeZone,
	showFor,
	timeZoneOption,
} from './appointmentFields';

const show = showFor('get');

export const description: INodeProperties[] = [
	...appointmentIdFields(['get']),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [timeZoneOption()],
	},
	...patientDataForAgentProperties(show),
];

/** Only reads: the router sends several items at once (ItemOperation.readsOnly). */
export const readsOnly = true;

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	assertPatientDataMayGoToAgent(this, itemIndex, 'Appointment → Get');
	const ref = readAppointmentRef(this, itemIndex);
	const timeZone = readTimeZone(this, itemIndex, readOptions(this, itemIndex));
	const appointment = await getAppointment(this, ref.appointmentId, {
		partnerId: ref.partnerId,
		itemIndex,
	});
	return [normalizeAppointment(appointment, timeZone)];
}
