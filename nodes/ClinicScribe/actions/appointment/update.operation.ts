import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { isoInZone } from '../../shared/timeZones';
import { updateAppointment } from '../../transport/appointmentApi';
import type { OperationResult } from '../common.execute';
import {
	appointmentIdFields,
	idSetFields,
	inputError,
	MODE_OPTIONS,
	readAppointmentRef,
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

const show = showFor('update');

export const description: INodeProperties[] = [
	...appointmentIdFields(['update']),
	// The v2 update requires the appointment's id set ([EKA-DT]; [EKA-MCP] says the same).
	...idSetFields(['update']),
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Custom Attributes (JSON)',
				name: 'customAttributes',
				type: 'json',
				default: '{}',
				description: 'For example {"label": ["vitals_submitted"]}',
			},
			{ displayName: 'Display Meta (JSON)', name: 'displayMeta', type: 'json', default: '{}' },
			{
				displayName: 'End Time',
				name: 'endTime',
				type: 'dateTime',
				default: '',
				description: TIME_DESCRIPTION,
			},
			{
				displayName: 'Mode',
				name: 'mode',
				type: 'options',
				default: 'INCLINIC',
				options: MODE_OPTIONS,
			},
			{
				displayName: 'Partner Meta (JSON)',
				name: 'partnerMeta',
				type: 'json',
				default: '{}',
				description: 'Replaces the partner meta whole',
			},
			{ displayName: 'Queue Token', name: 'token', type: 'number', default: 0 },
			{
				displayName: 'Start Time',
				name: 'startTime',
				type: 'dateTime',
				default: '',
				description: TIME_DESCRIPTION,
			},
		],
	},
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
	const ref = readAppointmentRef(this, itemIndex);
	const timeZone = readTimeZone(this, itemIndex, readOptions(this, itemIndex));
	const ids = readIdSet(this, itemIndex);
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const details: IDataObject = {};
	const body: IDataObject = { ...ids };
	if (!blank(fields.startTime))
		details.start_time = readTime(this, itemIndex, fields.startTime, 'Start Time', timeZone);
	if (!blank(fields.endTime))
		details.end_time = readTime(this, itemIndex, fields.endTime, 'End Time', timeZone);
	if (
		typeof details.start_time === 'number' &&
		typeof details.end_time === 'number' &&
		details.end_time <= details.start_time
	) {
		throw inputError(
			this,
			itemIndex,
			'The End Time',
			'is not after the Start Time',
			'Give an End Time later than the Start Time.',
		);
	}
	if (fields.mode !== undefined) details.mode = readMode(this, itemIndex, fields.mode);
	const custom = readJsonObject(this, itemIndex, fields.customAttributes, 'Custom Attributes');
	if (custom && Object.keys(custom).length > 0) details.custom_attributes = custom;
	if (Object.keys(details).length > 0) body.appointment_details = details;
	const partnerMeta = readJsonObject(this, itemIndex, fields.partnerMeta, 'Partner Meta');
	if (partnerMeta && fields.partnerMeta !== undefined) body.partner_meta = partnerMeta;
	const displayMeta = readJsonObject(this, itemIndex, fields.displayMeta, 'Display Meta');
	if (displayMeta && Object.keys(displayMeta).length > 0) body.display_meta = displayMeta;
	if (typeof fields.token === 'number' && fields.token > 0) body.token = Math.floor(fields.token);
	const changed = Object.keys(body).filter((key) => !(key in ids));
	if (changed.length === 0) {
		throw inputError(
			this,
			itemIndex,
			'Update Fields',
			'are empty',
			'Add at least one field to change (Add Field).',
		);
	}
	await updateAppointment(this, ref, body, [], itemIndex);
	return [
		{
			appointment_id: ref.appointmentId,
			id_type: ref.partnerId ? 'partner' : 'eka',
			updated: true,
			updated_fields: changed,
			...(typeof details.start_time === 'number'
				? {
						start_time: details.start_time,
						start_time_iso: isoInZone(details.start_time, timeZone),
					}
				: {}),
			...(typeof details.end_time === 'number'
				? { end_time: details.end_time, end_time_iso: isoInZone(details.end_time, timeZone) }
				: {}),
		},
	];
}

function blank(value: unknown): boolean {
	return value === undefined || value === null || value === '';
}
