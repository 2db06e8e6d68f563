import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { checkEpochSeconds, readProfilePage } from '../../shared/answers/patientDirectoryRecords';
import { listPatientsPage } from '../../transport/patientApi';
import { unexpectedBodyError } from '../../transport/errors';
import { patientDataForAgentProperties, returnAllAndLimit } from '../common.descriptions';
import {
	assertPatientDataMayGoToAgent,
	pageBoundError,
	type OperationResult,
} from '../common.execute';
import { badInput, SELECT_FIELD_OPTIONS, showFor } from './patientFields';

const show = showFor('getAll');

/** [EKA-PD]: default 500, at most 2000 a page. */
export const PAGE_SIZE_DEFAULT = 500;
export const PAGE_SIZE_MAX = 2000;
/**
 * The first page: [EKA-PD]'s examples and [EKA-PDTS] use 1, [EKA-MCP] says 0. 1 is sent, then
 * `nextPage` is followed until the directory answers -1, so either reading lists every profile.
 */
export const FIRST_PAGE = 1;
/**
 * A listing that never ends stops here instead of looping: a directory longer than this fails the
 * item with what to narrow (pageBoundError), never comes out cut short.
 */
export const MAX_PAGES = 10_000;

export const description: INodeProperties[] = [
	...patientDataForAgentProperties(show),
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
				displayName: 'Created Since',
				name: 'since',
				type: 'dateTime',
				default: '',
				description:
					"Only patients added after this time (in the workflow's time zone unless the value has one; sent as the directory's from, in epoch seconds, which it documents as the creation time)",
			},
			{
				displayName: 'Extra Fields',
				name: 'select',
				type: 'multiOptions',
				options: SELECT_FIELD_OPTIONS,
				default: [],
				description: 'Fields to return beside ID, username, name and mobile',
			},
			{
				displayName: 'Include Archived',
				name: 'includeArchived',
				type: 'boolean',
				default: false,
				description: 'Whether to list archived patients too (with arc: true)',
			},
			{
				displayName: 'Page Size',
				name: 'pageSize',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: PAGE_SIZE_MAX },
				default: PAGE_SIZE_DEFAULT,
				description: 'How many patients to ask for per request',
			},
		],
	},
];

interface ListOptions {
	since?: unknown;
	select?: string[];
	includeArchived?: boolean;
	pageSize?: number;
}

/** Only reads: the router sends several items at once (ItemOperation.readsOnly). */
export const readsOnly = true;

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const options = this.getNodeParameter('options', itemIndex, {}) as ListOptions;
	let from: number | undefined;
	if (options.since !== undefined && options.since !== '') {
		const since = checkEpochSeconds(options.since, Date.now(), this.getTimezone());
		if (!since.ok)
			throw badInput(
				this,
				itemIndex,
				`The Created Since ${since.problem}`,
				'Pick a date and time in the past, or remove the option.',
			);
		from = since.value;
	}
	const pageSizeOption = options.pageSize ?? PAGE_SIZE_DEFAULT;
	if (!Number.isInteger(pageSizeOption) || pageSizeOption < 1 || pageSizeOption > PAGE_SIZE_MAX) {
		throw badInput(
			this,
			itemIndex,
			`The Page Size is not a whole number from 1 to ${PAGE_SIZE_MAX}`,
			`Enter a Page Size from 1 to ${PAGE_SIZE_MAX}.`,
		);
	}
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? Infinity : Number(this.getNodeParameter('limit', itemIndex, 50));
	if (!returnAll && (!Number.isInteger(limit) || limit < 1))
		throw badInput(
			this,
			itemIndex,
			'The Limit is not a whole number of 1 or more',
			'Enter a Limit of 1 or more, or turn on Return All.',
		);
	assertPatientDataMayGoToAgent(this, itemIndex, 'Patient Get Many');
	// No larger page than needed for a small Limit.
	const pageSize = Math.min(pageSizeOption, limit);

	const profiles: OperationResult = [];
	const seen = new Set<number>();
	let pageNo: number | undefined = FIRST_PAGE;
	while (pageNo !== undefined && profiles.length < limit && !seen.has(pageNo)) {
		if (seen.size === MAX_PAGES) {
			throw pageBoundError(this, itemIndex, {
				records: 'patients',
				pages: MAX_PAGES,
				read: profiles.length,
				narrow: `Ask for larger pages (Page Size up to ${PAGE_SIZE_MAX}), list only the patients added since a date (Created Since), or turn off Return All and set a Limit.`,
			});
		}
		seen.add(pageNo);
		const response = await listPatientsPage(
			this,
			{
				pageNo,
				pageSize,
				select: options.select,
				from,
				includeArchived: options.includeArchived === true,
			},
			itemIndex,
		);
		const page = readProfilePage(response.body, pageSize);
		if (!page)
			throw unexpectedBodyError(
				this,
				{ purpose: 'the patient list', itemIndex },
				response.statusCode,
			);
		profiles.push(...page.profiles);
		pageNo = page.profiles.length === 0 ? undefined : page.nextPage;
	}
	return returnAll ? profiles : profiles.slice(0, limit);
}
