import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import {
	MEDLINK_MAX_TERM_LENGTH,
	MEDLINK_ONTOLOGIES,
	termKey,
	type MedLinkOntology,
	type TermCode,
} from '../../shared/answers/medLinkTerms';
import { linkDistinctTerms, medLinkVersions } from '../../transport/medLinkApi';
import { asNodeError, errorRecord } from '../errorItems';
import { isMedLinkOntology, readTerms } from './medLinkFields';

const show = { resource: ['medLink'], operation: ['linkTerms'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Terms',
		name: 'terms',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		required: true,
		placeholder: 'e.g. fever, cough, type 2 diabetes',
		description: `The terms to code: one per line or separated by commas, or an expression giving a list. At most ${MEDLINK_MAX_TERM_LENGTH} characters a term.`,
		displayOptions: { show },
	},
	{
		displayName: 'Code System',
		name: 'ontology',
		type: 'options',
		default: 'snomed',
		description: 'The code system to code the terms in',
		displayOptions: { show },
		options: [
			{
				name: 'ICD-10-CM',
				value: 'icd-10-cm',
				description: 'Diagnoses, as ICD-10-CM codes',
			},
			{
				name: 'LOINC',
				value: 'loinc',
				description: 'Lab tests, as LOINC codes with the normalised unit',
			},
			{
				name: 'Medication',
				value: 'medication',
				description: "Medicines, as IDs of the service's medication database",
			},
			{
				name: 'SNOMED CT',
				value: 'snomed',
				description: 'Symptoms, findings, diagnoses, allergies and history',
			},
		],
	},
];

interface AskedItem {
	itemIndex: number;
	ontology: MedLinkOntology;
	terms: string[];
}

/**
 * All items at once: the registry is read once, each distinct term (per code system) is asked once
 * in batches of at most 5, a bounded number of batches in flight. One output item per input item.
 */
export async function executeBatch(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const outcomes: Array<{ codes?: TermCode[]; error?: unknown }> = items.map(() => ({}));
	const asked: AskedItem[] = [];
	// Every item is checked before anything is sent.
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			asked.push(readItem(this, itemIndex));
		} catch (error) {
			if (!this.continueOnFail()) throw asNodeError(this, error, itemIndex);
			outcomes[itemIndex].error = error;
		}
	}
	if (asked.length > 0) await linkAll(this, asked, outcomes);
	return outcomes.map((outcome, itemIndex) => ({
		json: outcome.codes
			? ({ codes: outcome.codes as unknown as IDataObject[] } as IDataObject)
			: errorRecord(outcome.error),
		pairedItem: { item: itemIndex },
	}));
}

function readItem(ctx: IExecuteFunctions, itemIndex: number): AskedItem {
	const ontology = ctx.getNodeParameter('ontology', itemIndex, 'snomed');
	if (!isMedLinkOntology(ontology))
		throw new NodeOperationError(
			ctx.getNode(),
			`The Code System of item ${itemIndex} is "${String(ontology)}", which MedLink does not offer`,
			{
				description: `Use one of: ${Object.keys(MEDLINK_ONTOLOGIES).join(', ')}. Nothing was sent.`,
				itemIndex,
			},
		);
	const reading = readTerms(ctx.getNodeParameter('terms', itemIndex, ''));
	if (!reading.ok)
		throw new NodeOperationError(
			ctx.getNode(),
			`The Terms of item ${itemIndex} ${reading.problem}`,
			{
				description: `Give one term per line or separated by commas (or a list), each at most ${MEDLINK_MAX_TERM_LENGTH} characters. Nothing was sent.`,
				itemIndex,
			},
		);
	return { itemIndex, ontology, terms: reading.terms };
}

async function linkAll(
	ctx: IExecuteFunctions,
	asked: AskedItem[],
	outcomes: Array<{ codes?: TermCode[]; error?: unknown }>,
): Promise<void> {
	const firstItem = asked[0].itemIndex;
	let versions: Map<MedLinkOntology, string>;
	try {
		versions = await medLinkVersions(ctx, firstItem);
	} catch (error) {
		// Every item needs the registry: the run fails, or each item says why.
		if (!ctx.continueOnFail()) throw asNodeError(ctx, error, firstItem);
		for (const item of asked) outcomes[item.itemIndex].error = error;
		return;
	}

	const linkable: Array<AskedItem & { version: string }> = [];
	for (const item of asked) {
		const version = versions.get(item.ontology);
		if (version !== undefined) {
			linkable.push({ ...item, version });
			continue;
		}
		const error = new NodeOperationError(
			ctx.getNode(),
			`MedLink's registry offers no version of ${MEDLINK_ONTOLOGIES[item.ontology].label} (item ${item.itemIndex})`,
			{
				description: 'Pick another Code System, or ask the service to enable this one.',
				itemIndex: item.itemIndex,
			},
		);
		if (!ctx.continueOnFail()) throw error;
		outcomes[item.itemIndex].error = error;
	}

	// Without Continue On Fail the run stops at the first failure: no batch is sent after it.
	const lookup = await linkDistinctTerms(ctx, linkable, {
		itemIndex: firstItem,
		stopAtFirstFailure: !ctx.continueOnFail(),
	});
	for (const item of linkable) {
		const keys = item.terms.map((term) => termKey(item.ontology, term));
		const failedKey = keys.find((key) => !lookup.codes.has(key));
		if (failedKey === undefined) {
			outcomes[item.itemIndex].codes = item.terms.map((term, index) => ({
				...(lookup.codes.get(keys[index]) as TermCode),
				term,
			}));
			continue;
		}
		const error = lookup.failed.get(failedKey) ?? notAskedError(ctx, item.itemIndex);
		if (!ctx.continueOnFail()) throw asNodeError(ctx, error, item.itemIndex);
		outcomes[item.itemIndex].error = error;
	}
}

/** A term with neither a code nor an error (not expected: every asked term gets one or the other). */
function notAskedError(ctx: IExecuteFunctions, itemIndex: number): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`The terms of item ${itemIndex} were not coded because an earlier MedLink call failed`,
		{ itemIndex },
	);
}
