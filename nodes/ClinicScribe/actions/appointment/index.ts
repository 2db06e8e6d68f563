import type { INodeProperties } from 'n8n-workflow';

import * as book from './book.operation';
import * as cancel from './cancel.operation';
import * as complete from './complete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as getSlots from './getSlots.operation';
import * as noShow from './noShow.operation';
import * as park from './park.operation';
import * as reschedule from './reschedule.operation';
import * as update from './update.operation';

export const operations = {
	book,
	cancel,
	complete,
	get,
	getAll,
	getSlots,
	noShow,
	park,
	reschedule,
	update,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['appointment'] } },
		options: [
			{
				name: 'Book',
				value: 'book',
				action: 'Book an appointment',
				description: 'Book an appointment for a patient with a doctor at a clinic',
			},
			{
				name: 'Cancel',
				value: 'cancel',
				action: 'Cancel an appointment',
				description: 'Cancel an appointment',
			},
			{
				name: 'Complete',
				value: 'complete',
				action: 'Complete an appointment',
				description: 'Mark an appointment as completed',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get an appointment',
				description: 'Get one appointment by its ID or your partner ID',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many appointments',
				description: 'List appointments of a patient, or over a date range',
			},
			{
				name: 'Get Slots',
				value: 'getSlots',
				action: 'Get slots of a doctor',
				description: "List a doctor's slots at a clinic over a date range, with their availability",
			},
			{
				name: 'Mark No-Show',
				value: 'noShow',
				action: 'Mark an appointment as no show',
				description: 'Mark that the patient did not come',
			},
			{
				name: 'Park',
				value: 'park',
				action: 'Park an appointment',
				description: 'Park an appointment in the queue',
			},
			{
				name: 'Reschedule',
				value: 'reschedule',
				action: 'Reschedule an appointment',
				description: 'Move an appointment to a new time (the service makes a new appointment)',
			},
			{
				name: 'Update',
				value: 'update',
				action: 'Update an appointment',
				description: "Change an appointment's time, mode, meta or attributes",
			},
		],
		default: 'getAll',
	},
	...book.description,
	...cancel.description,
	...complete.description,
	...get.description,
	...getAll.description,
	...getSlots.description,
	...noShow.description,
	...park.description,
	...reschedule.description,
	...update.description,
];
