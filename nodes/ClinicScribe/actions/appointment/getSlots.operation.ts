import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { addDays, daysBetween } from '../../shared/timeInput';
import { readSlots, SLOTS_MAX_DAYS } from '../../shared/answers/appointmentSlots';
import { unexpectedBodyError } from '../../transport/errors';
import { getSlots } from '../../transport/appointmentApi';
import type { OperationResult } from '../common.execute';
import {
	clinicLocator,
	doctorLocator,
	inputError,
	readDate,
	readOptions,
	readRequiredLocator,
	readTimeZone,
	showFor,
	timeZoneOption,
} from './appointmentFields';

const show = showFor('getSlots');

export const description: INodeProperties[] = [
	doctorLocator(show),
	clinicLocator(show),
	{
		displayName: 'Start Date',
		name: 'startDate',
		type: 'dateTime',
		default: '',
		required: true,
		description:
			"First day of the range (the date in the clinic's time zone; YYYY-MM-DD, a date-time or epoch seconds)",
		displayOptions: { show },
	},
	{
		displayName: 'End Date',
		name: 'endDate',
		type: 'dateTime',
		default: '',
		required: true,
		description: `Last day of the range, included (at most ${SLOTS_MAX_DAYS} days in all)`,
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
				displayName: 'Only Available',
				name: 'onlyAvailable',
				type: 'boolean',
				default: false,
				description: 'Whether to leave out slots that are already taken',
			},
			timeZoneOption(),
		],
	},
];

/** Only reads: the router sends several items at once (ItemOperation.readsOnly). */
export const readsOnly = true;

/**
 * One request per day (`start_date` = `end_date` = that day): [EKA-APPT-GS] allows only D to D+1,
 * [EKA-MCP] asks for up to 10 days; one day is within both.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const doctorId = readRequiredLocator(
		this,
		'doctorId',
		'Doctor',
		itemIndex,
		'Pick a doctor from the list, or enter a doctor ID.',
	);
	const clinicId = readRequiredLocator(
		this,
		'clinicId',
		'Clinic',
		itemIndex,
		'Pick a clinic from the list, or enter a clinic ID.',
	);
	const options = readOptions(this, itemIndex);
	const timeZone = readTimeZone(this, itemIndex, options);
	const startDate = readDate(
		this,
		itemIndex,
		this.getNodeParameter('startDate', itemIndex, ''),
		'Start Date',
		timeZone,
	);
	const endDate = readDate(
		this,
		itemIndex,
		this.getNodeParameter('endDate', itemIndex, ''),
		'End Date',
		timeZone,
	);
	const span = daysBetween(startDate, endDate);
	if (span < 0)
		throw inputError(
			this,
			itemIndex,
			'The End Date',
			`${endDate} is before the Start Date ${startDate}`,
			'Give an End Date on or after the Start Date.',
		);
	if (span + 1 > SLOTS_MAX_DAYS) {
		throw inputError(
			this,
			itemIndex,
			'The date range',
			`${startDate} to ${endDate} spans ${span + 1} days (at most ${SLOTS_MAX_DAYS})`,
			`Shorten the range to ${SLOTS_MAX_DAYS} days or fewer.`,
		);
	}
	const records: IDataObject[] = [];
	const seen = new Set<string>();
	for (let day = 0; day <= span; day++) {
		const date = addDays(startDate, day);
		const response = await getSlots(
			this,
			{ doctorId, clinicId, startDate: date, endDate: date },
			itemIndex,
		);
		const slots = readSlots(response.body, { clinicId, doctorId, date, timeZone });
		if (!slots)
			throw unexpectedBodyError(this, { purpose: 'the slots', itemIndex }, response.statusCode);
		for (const slot of slots) {
			const key = `${String(slot.conf_id)}|${String(slot.start_time)}`;
			if (seen.has(key)) continue;
			seen.add(key);
			if (options.onlyAvailable === true && slot.available !== true) continue;
			records.push(slot);
		}
	}
	return records;
}
