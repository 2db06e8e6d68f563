import {
	NodeApiError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { normalizeAppointment, readAppointmentBody } from '../../shared/answers/appointmentRecords';
import { trimmedString } from '../../shared/values';
import { rescheduleAppointment } from '../../transport/appointmentApi';
import { unexpectedBodyError } from '../../transport/errors';
import { patientDataForAgentProperties } from '../common.descriptions';
import { assertPatientDataMayGoToAgent, type OperationResult } from '../common.execute';
import {
	appointmentIdFields,
	inputError,
	readAppointmentRef,
	readOptions,
	readTime,
	readTimeZone,
	showFor,
	TIME_DESCRIPTION,
	timeZoneOption,
} from './appointmentFields';

const show = showFor('reschedule');

export const description: INodeProperties[] = [
	// The reschedule that answers the new appointment takes Eka's ID only (no partner_id).
	...appointmentIdFields(['reschedule'], false),
	{
		displayName: 'New Start Time',
		name: 'startTime',
		type: 'dateTime',
		default: '',
		required: true,
		description: TIME_DESCRIPTION,
		displayOptions: { show },
	},
	{
		displayName: 'New End Time',
		name: 'endTime',
		type: 'dateTime',
		default: '',
		required: true,
		description: TIME_DESCRIPTION,
		displayOptions: { show },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'New Partner Appointment ID',
				name: 'partnerAppointmentId',
				type: 'string',
				default: '',
				description: 'Your own ID for the new appointment',
			},
			timeZoneOption(),
		],
	},
	...patientDataForAgentProperties(show),
];

/**
 * `PATCH /appointments/v1/{id}/reschedule` makes a new appointment (the old one becomes RES); the
 * output is the new one, with `prev_aids` naming the old.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	assertPatientDataMayGoToAgent(this, itemIndex, 'Appointment → Reschedule');
	const { appointmentId } = readAppointmentRef(this, itemIndex);
	const options = readOptions(this, itemIndex);
	const timeZone = readTimeZone(this, itemIndex, options);
	const start = readTime(
		this,
		itemIndex,
		this.getNodeParameter('startTime', itemIndex, ''),
		'New Start Time',
		timeZone,
	);
	const end = readTime(
		this,
		itemIndex,
		this.getNodeParameter('endTime', itemIndex, ''),
		'New End Time',
		timeZone,
	);
	if (end <= start)
		throw inputError(
			this,
			itemIndex,
			'The New End Time',
			'is not after the New Start Time',
			'Give an end later than the start.',
		);
	const body: IDataObject = { start_time: start, end_time: end };
	const partnerAppointmentId = trimmedString(options.partnerAppointmentId);
	if (partnerAppointmentId !== '') body.partner_appointment_id = partnerAppointmentId;
	let response;
	try {
		response = await rescheduleAppointment(this, appointmentId, body, itemIndex);
	} catch (error) {
		throw withOutcomeAdvice(error, appointmentId);
	}
	const appointment = readAppointmentBody(response.body);
	if (!appointment)
		throw unexpectedBodyError(
			this,
			{ purpose: 'the rescheduling', itemIndex },
			response.statusCode,
		);
	return [{ ...normalizeAppointment(appointment, timeZone), rescheduled_from: appointmentId }];
}

/** A rescheduling that failed without a clear answer may have been made (it was not repeated): say how to check. */
function withOutcomeAdvice(error: unknown, appointmentId: string): unknown {
	if (!(error instanceof NodeApiError)) return error;
	const status = Number(error.httpCode);
	if (Number.isInteger(status) && status >= 400 && status < 500) return error;
	error.description = `The rescheduling may have been made: the answer was not received and the request was not repeated. Get appointment "${appointmentId}": status RES (Rescheduled by Staff) with a next_aid means it was moved.`;
	return error;
}
