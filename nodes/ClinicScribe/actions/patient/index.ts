import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import * as archive from './archive.operation';
import * as create from './create.operation';
import * as findByMobile from './findByMobile.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as search from './search.operation';
import * as searchByMobileDeprecated from './searchByMobileDeprecated.operation';
import * as update from './update.operation';

/**
 * Keyed by the operation values saved workflows hold. `searchByMobile` is the deprecated search of
 * [IFD §4.2] (its file says so); `findByMobile` is the current Search by Mobile, in the directory.
 */
export const operations = {
	archive,
	create,
	findByMobile,
	get,
	getAll,
	search,
	searchByMobile: searchByMobileDeprecated,
	update,
};

const operationOptions: INodePropertyOptions[] = [
	{
		name: 'Archive',
		value: 'archive',
		action: 'Archive a patient',
		description: 'Archive a patient of the directory: no longer found or listed',
	},
	{
		name: 'Create',
		value: 'create',
		action: 'Create a patient',
		description: "Add a patient to the clinic's directory; returns the new patient ID",
	},
	{
		name: 'Get',
		value: 'get',
		action: 'Get a patient',
		description:
			"Get a patient's profile by patient ID. As an AI agent tool, the patient data it returns goes to the agent's model provider.",
	},
	{
		name: 'Get Many',
		value: 'getAll',
		action: 'Get many patients',
		description:
			"List the patients of the directory, page by page, optionally only those added since a date. As an AI agent tool, the patient data it returns goes to the agent's model provider.",
	},
	{
		name: 'Search',
		value: 'search',
		action: 'Search patients',
		description:
			"Find patients whose name, username or mobile number starts with a text. As an AI agent tool, the patient data it returns goes to the agent's model provider.",
	},
	{
		name: 'Search by Mobile',
		value: 'findByMobile',
		action: 'Search patients by mobile in the directory',
		description:
			"Find the patients of the directory registered with a mobile number. As an AI agent tool, the patient data it returns goes to the agent's model provider.",
	},
	{
		// The value stays for saved workflows (searchByMobileDeprecated.operation.ts); new ones use Search by Mobile (findByMobile).
		name: 'Search by Mobile (Deprecated)',
		value: 'searchByMobile',
		action: 'Search patients by mobile number',
		description:
			"Deprecated: use Search by Mobile. The document's patient search by a 10-digit number. As an AI agent tool, the patient data it returns goes to the agent's model provider.",
	},
	{
		name: 'Update',
		value: 'update',
		action: 'Update a patient',
		description: "Change fields of a patient's profile",
	},
];

/**
 * The operation list is declared once per node version: n8n does not store a parameter left at its
 * default, so a saved workflow takes whatever default its version declares.
 */
export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		// Version 1 keeps the search of [IFD §4.2] as its default (saved workflows rely on it).
		displayOptions: { show: { resource: ['patient'], '@version': [1] } },
		options: operationOptions,
		default: 'searchByMobile',
	},
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['patient'], '@version': [{ _cnd: { gte: 2 } }] } },
		options: operationOptions,
		default: 'findByMobile',
	},
	...archive.description,
	...create.description,
	...findByMobile.description,
	...get.description,
	...getAll.description,
	...search.description,
	...searchByMobileDeprecated.description,
	...update.description,
];
