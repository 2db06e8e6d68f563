import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	mayHaveNextPage,
	planListFilters,
	LIST_MAX_SPAN_DAYS,
} from '../../shared/appointmentFilters';
import {
	APPOINTMENT_STATUSES,
	normalizeAppointment,
	statusCodeOf,
} from '../../shared/answers/appointmentRecords';
import { isRecord, textOf, trimmedString } from '../../shared/values';
import { listAppointmentsPage } from '../../transport/appointmentApi';
import { unexpectedBodyError } from '../../transport/errors';
import { patientDataForAgentProperties, returnAllAndLimit } from '../common.descriptions';
import {
	assertPatientDataMayGoToAgent,
	pageBoundError,
	type OperationResult,
} from '../common.execute';
import {
	clinicLocator,
	doctorLocator,
	inputError,
	readDate,
	readLocator,
	readOptions,
	readTimeZone,
	showFor,
	timeZoneOption,
} from './appointmentFields';

const show = showFor('getAll');

/**
 * A bound: the service gives no total, and a service that ignored page_no would otherwise loop. A list
 * longer than this fails the item with what to narrow (pageBoundError), never comes out cut short.
 */
export const MAX_PAGES = 200;

export const description: INodeProperties[] = [
	{
		displayName: `Filters the service allows: Patient ID alone, or a date range of at most ${LIST_MAX_SPAN_DAYS} days alone or with a doctor, a clinic or both`,
		name: 'filterNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	{
		displayName: 'Patient ID',
		name: 'patientId',
		type: 'string',
		default: '',
		description: "The patient's appointments (use alone, without doctor, clinic or dates)",
		displayOptions: { show },
	},
	doctorLocator(show, false),
	clinicLocator(show, false),
	{
		displayName: 'Start Date',
		name: 'startDate',
		type: 'dateTime',
		default: '',
		description: "First day (in the clinic's time zone)",
		displayOptions: { show },
	},
	{
		displayName: 'End Date',
		name: 'endDate',
		type: 'dateTime',
		default: '',
		description: `Last day, included (at most ${LIST_MAX_SPAN_DAYS} days from the Start Date, both ends counted)`,
		displayOptions: { show },
	},
	...returnAllAndLimit(show),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Statuses',
				name: 'statuses',
				type: 'multiOptions',
				default: [],
				// The service has no status filter: applied to what it returns.
				description:
					'Keep only appointments in these statuses (applied by the node: the service has no status filter)',
				options: Object.entries(APPOINTMENT_STATUSES).map(([code, { label }]) => ({
					name: `${label} (${code})`,
					value: code,
				})),
			},
			timeZoneOption(),
		],
	},
	...patientDataForAgentProperties(show),
];

/** Only reads: the router sends several items at once (ItemOperation.readsOnly). */
export const readsOnly = true;

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	assertPatientDataMayGoToAgent(this, itemIndex, 'Appointment → Get Many');
	const options = readOptions(this, itemIndex);
	const timeZone = readTimeZone(this, itemIndex, options);
	const statuses = readStatuses(this, itemIndex, options.statuses);
	const optional = (name: string) => readLocator(this, name, itemIndex) || undefined;
	const startValue = this.getNodeParameter('startDate', itemIndex, '');
	const endValue = this.getNodeParameter('endDate', itemIndex, '');
	const plan = planListFilters({
		patientId: trimmedString(this.getNodeParameter('patientId', itemIndex, '')) || undefined,
		doctorId: optional('doctorId'),
		clinicId: optional('clinicId'),
		startDate: isEmpty(startValue)
			? undefined
			: readDate(this, itemIndex, startValue, 'Start Date', timeZone),
		endDate: isEmpty(endValue)
			? undefined
			: readDate(this, itemIndex, endValue, 'End Date', timeZone),
	});
	if (!plan.ok) throw inputError(this, itemIndex, 'The filters', plan.problem, plan.fix);

	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll
		? Infinity
		: Math.max(1, this.getNodeParameter('limit', itemIndex, 50) as number);
	const out: IDataObject[] = [];
	const seen = new Set<string>();
	let read = 0;
	let more = true;
	for (let page = 0; more && out.length < limit; page++) {
		if (page === MAX_PAGES) {
			throw pageBoundError(this, itemIndex, {
				records: 'appointments',
				pages: MAX_PAGES,
				read,
				narrow: NARROW[plan.set === 'patient' ? 'patient' : 'dates'],
			});
		}
		const response = await listAppointmentsPage(this, { ...plan.query, page_no: page }, itemIndex);
		const body = response.body;
		const list = isRecord(body) ? body.appointments : undefined;
		if (!Array.isArray(list))
			throw unexpectedBodyError(
				this,
				{ purpose: 'the list of appointments', itemIndex },
				response.statusCode,
			);
		let fresh = 0;
		for (const entry of list.filter(isRecord)) {
			const id = textOf(entry.appointment_id) ?? '';
			if (id !== '') {
				if (seen.has(id)) continue;
				seen.add(id);
			}
			fresh++;
			const record = normalizeAppointment(entry, timeZone);
			if (statuses.length > 0 && !statuses.includes(String(record.status))) continue;
			if (out.length < limit) out.push(record);
		}
		read += fresh;
		// The last page is shorter than the set's page size; a page of only repeats means the end too.
		more = mayHaveNextPage(list.length, plan.pageSize) && fresh > 0;
	}
	return out;
}

/** What to change when a list is longer than the node reads for one item. */
const NARROW = {
	dates:
		'Narrow the filters: a shorter date range (one day at a time, say, with one item per day), or a doctor or a clinic; or turn off Return All and set a Limit.',
	patient:
		"List this patient's appointments by dates instead (a date range, with their doctor or clinic), or turn off Return All and set a Limit.",
} as const;

function isEmpty(value: unknown): boolean {
	return (
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
	);
}

function readStatuses(ctx: IExecuteFunctions, itemIndex: number, value: unknown): string[] {
	if (value === undefined || value === null || value === '') return [];
	const list = Array.isArray(value) ? value : String(value).split(',');
	const codes: string[] = [];
	for (const entry of list) {
		if (typeof entry === 'string' && entry.trim() === '') continue;
		const code = statusCodeOf(entry);
		if (!code) {
			throw inputError(
				ctx,
				itemIndex,
				'The Statuses option',
				`has "${String(entry)}", which is not an appointment status`,
				`Use codes or labels such as ${Object.keys(APPOINTMENT_STATUSES).slice(0, 6).join(', ')} (see the list).`,
			);
		}
		codes.push(code);
	}
	return codes;
}
