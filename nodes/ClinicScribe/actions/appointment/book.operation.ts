import {
	NodeApiError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { isoInZone } from '../../shared/timeZones';
import { readPatientDetails, patientDetailsField } from './patientDetails';
import { textOf, trimmedString } from '../../shared/values';
import { bookAppointment } from '../../transport/appointmentApi';
import { unexpectedBodyError } from '../../transport/errors';
import type { OperationResult } from '../common.execute';
import {
	idSetFields,
	inputError,
	MODE_OPTIONS,
	readIdSet,
	readJsonObject,
	readMode,
	readOptions,
	readTime,
	readTimeZone,
	showFor,
	TIME_DESCRIPTION,
	timeZoneOption,
} from './appointmentFields';

const show = showFor('book');

export const description: INodeProperties[] = [
	...idSetFields(['book']),
	{
		displayName: 'Start Time',
		name: 'startTime',
		type: 'dateTime',
		default: '',
		required: true,
		description: `When the appointment starts. ${TIME_DESCRIPTION}.`,
		displayOptions: { show },
	},
	{
		displayName: 'Mode',
		name: 'mode',
		type: 'options',
		default: 'INCLINIC',
		options: MODE_OPTIONS,
		displayOptions: { show },
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Display Meta (JSON)',
				name: 'displayMeta',
				type: 'json',
				default: '{}',
				description:
					'Shown on the appointment card: keys up to 30 characters, values text or numbers up to 50',
			},
			{
				displayName: 'End Time',
				name: 'endTime',
				type: 'dateTime',
				default: '',
				description: `When the appointment ends. ${TIME_DESCRIPTION}.`,
			},
			{
				displayName: 'Notes',
				name: 'notes',
				type: 'string',
				typeOptions: { rows: 3 },
				default: '',
				description: 'Plain text or HTML',
			},
			{
				displayName: 'Partner Appointment ID',
				name: 'partnerAppointmentId',
				type: 'string',
				default: '',
				description:
					'Your own ID for the appointment. Recommended: with it a booking whose answer was lost can be looked up (Get with ID Type "Partner Appointment ID"), and booking it again is refused.',
			},
			{
				displayName: 'Partner Meta (JSON)',
				name: 'partnerMeta',
				type: 'json',
				default: '{}',
				description: 'Your data, echoed back and hidden from the queue',
			},
			{
				displayName: 'Queue Token',
				name: 'token',
				type: 'number',
				default: 0,
				description: 'Position in the queue',
			},
		],
	},
	patientDetailsField(show),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [timeZoneOption()],
	},
];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const options = readOptions(this, itemIndex);
	const timeZone = readTimeZone(this, itemIndex, options);
	const ids = readIdSet(this, itemIndex);
	const start = readTime(
		this,
		itemIndex,
		this.getNodeParameter('startTime', itemIndex, ''),
		'Start Time',
		timeZone,
	);
	const mode = readMode(this, itemIndex, this.getNodeParameter('mode', itemIndex, 'INCLINIC'));
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const details: IDataObject = { start_time: start, mode };
	if (extra.endTime !== undefined && extra.endTime !== '') {
		const end = readTime(this, itemIndex, extra.endTime, 'End Time', timeZone);
		if (end <= start)
			throw inputError(
				this,
				itemIndex,
				'The End Time',
				'is not after the Start Time',
				'Give an End Time later than the Start Time, or leave it out.',
			);
		details.end_time = end;
	}
	const body: IDataObject = { ...ids, appointment_details: details };
	const partnerAppointmentId = trimmedString(extra.partnerAppointmentId);
	if (partnerAppointmentId !== '') body.partner_appointment_id = partnerAppointmentId;
	const notes = trimmedString(extra.notes);
	if (notes !== '') body.notes = notes;
	const partnerMeta = readJsonObject(this, itemIndex, extra.partnerMeta, 'Partner Meta');
	if (partnerMeta && Object.keys(partnerMeta).length > 0) body.partner_meta = partnerMeta;
	const displayMeta = readJsonObject(this, itemIndex, extra.displayMeta, 'Display Meta');
	if (displayMeta && Object.keys(displayMeta).length > 0) body.display_meta = displayMeta;
	if (typeof extra.token === 'number' && extra.token > 0) body.token = Math.floor(extra.token);
	const patient = readPatientDetails(this, itemIndex);
	if (patient) body.patient_details = patient.details;

	let response;
	try {
		response = await bookAppointment(this, body, patient?.redact ?? [], itemIndex);
	} catch (error) {
		throw withOutcomeAdvice(error, partnerAppointmentId);
	}
	const appointmentId = textOf((response.body as IDataObject | undefined)?.appointment_id);
	if (!appointmentId)
		throw unexpectedBodyError(this, { purpose: 'the booking', itemIndex }, response.statusCode);
	return [
		{
			appointment_id: appointmentId,
			partner_appointment_id: body.partner_appointment_id ?? null,
			...ids,
			mode,
			start_time: start,
			start_time_iso: isoInZone(start, timeZone),
			end_time: details.end_time ?? null,
			end_time_iso:
				typeof details.end_time === 'number' ? isoInZone(details.end_time, timeZone) : null,
			time_zone: timeZone,
		},
	];
}

/**
 * A booking that failed without a clear answer (a 5xx, a lost answer) may have been made: the
 * transport did not repeat it, and the user is told how to check before booking again.
 */
function withOutcomeAdvice(error: unknown, partnerAppointmentId: string): unknown {
	if (!(error instanceof NodeApiError)) return error;
	const status = Number(error.httpCode);
	const known = Number.isInteger(status) && status >= 400 && status < 500;
	if (known) return error;
	const check = partnerAppointmentId
		? `Check with Appointment → Get, ID Type "Partner Appointment ID", ID "${partnerAppointmentId}": if it exists the booking was made; if not (404), book again.`
		: 'Check with Appointment → Get Many (the doctor, the clinic and the day) whether it is there before booking again. Giving a Partner Appointment ID makes this check exact, and a second booking with it is refused.';
	error.description = `The booking may have been made: the answer was not received, and the request was not repeated so the patient is not booked twice. ${check}`;
	return error;
}
