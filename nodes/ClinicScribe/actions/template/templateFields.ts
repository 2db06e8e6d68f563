import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { parseSectionIds } from '../../shared/answers/templateRecords';
import { trimmedString } from '../../shared/values';
import { pathIdProblem } from '../../transport/request';

/** The template an operation acts on: picked from the workspace's list, or typed. */
export function templateIdField(operation: string, description: string): INodeProperties {
	return {
		displayName: 'Template',
		name: 'templateId',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description,
		displayOptions: { show: { resource: ['template'], operation: [operation] } },
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchTemplates', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. tpl_7d1a2b3c4d5e',
			},
		],
	};
}

/**
 * The item's template id, refused before any request when empty or made only of dots (Get reads the
 * list, Update and Delete put the id in the path: every operation refuses the same ids alike).
 */
export function readTemplateId(ctx: IExecuteFunctions, itemIndex: number): string {
	const value = ctx.getNodeParameter('templateId', itemIndex, '', { extractValue: true });
	const templateId = typeof value === 'number' ? String(value) : trimmedString(value);
	if (templateId === '') {
		throw new NodeOperationError(
			ctx.getNode(),
			`The Template field of item ${itemIndex} is empty`,
			{
				description:
					'Pick a template from the list, or enter its ID (Template → Get Many lists them). Nothing was sent.',
				itemIndex,
			},
		);
	}
	const problem = pathIdProblem(templateId);
	if (problem) {
		throw new NodeOperationError(ctx.getNode(), `The Template ID of item ${itemIndex} ${problem}`, {
			description:
				'Pick a template from the list, or enter its ID as Template → Get Many lists it (letters, digits and the like). Nothing was sent.',
			itemIndex,
		});
	}
	return templateId;
}

/** Section IDs of the item, refused before any request when an entry is not an ID. */
export function readSectionIds(
	ctx: IExecuteFunctions,
	itemIndex: number,
	value: unknown,
): string[] {
	const check = parseSectionIds(value);
	if (!check.ok) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Section IDs of item ${itemIndex}: ${check.problem}`,
			{
				description:
					'Give section IDs separated by commas (or a list of IDs from an expression), or leave the field empty. Nothing was sent.',
				itemIndex,
			},
		);
	}
	return check.ids;
}

/** A title given for a create or an update: text with something in it. */
export function readTitle(ctx: IExecuteFunctions, itemIndex: number, value: unknown): string {
	const title = typeof value === 'number' ? String(value) : trimmedString(value);
	if (title === '') {
		throw new NodeOperationError(ctx.getNode(), `The Title of item ${itemIndex} is empty`, {
			description:
				'Give the template a title (for example "Cardiology OPD Note"). Nothing was sent.',
			itemIndex,
		});
	}
	return title;
}

export const INSTRUCTIONS_DESCRIPTION =
	'What the document should contain and how to write it, in text or Markdown (sent as the template description, which carries the whole instruction)';

export const SECTION_IDS_DESCRIPTION =
	'IDs of existing template sections, separated by commas. Usually empty: the instructions describe the whole document.';
