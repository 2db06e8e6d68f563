/**
 * Pure shaping of the workspace template endpoints ([EKA-OAS] `/voice/api/v1/template`): what the
 * node reads from their answers, what it sends, and what a refusal means.
 */
import type { IDataObject } from 'n8n-workflow';

import { firstText, isRecord, textOf } from '../values';

/** One template as the node outputs it, whatever spelling the service used. */
interface TemplateRecord extends IDataObject {
	id: string;
	title: string | null;
	description: string | null;
	sections: string[];
	/** One of the service's own templates (not editable); null when the answer does not say. */
	default: boolean | null;
	is_favorite: boolean | null;
}

/**
 * The list answer, in either spelling: `{items:[{id, title, desc, section_ids, default, is_favorite}]}`
 * ([EKA-OAS]) and `{templates:[{id, name, description}]}` (the undocumented
 * `/voice/v1/templates` of [EKA-SCRIBE]). Undefined when the body is neither.
 */
export function readTemplateList(body: unknown): TemplateRecord[] | undefined {
	if (!isRecord(body)) return undefined;
	const list = Array.isArray(body.items)
		? body.items
		: Array.isArray(body.templates)
			? body.templates
			: undefined;
	if (!list) return undefined;
	return list
		.filter(isRecord)
		.map(toTemplateRecord)
		.filter((record): record is TemplateRecord => record !== undefined);
}

function toTemplateRecord(entry: IDataObject): TemplateRecord | undefined {
	const id = textOf(entry.id) ?? textOf(entry.template_id);
	if (id === undefined) return undefined;
	return {
		id,
		title: firstText(entry.title, entry.name) ?? null,
		description:
			typeof entry.desc === 'string'
				? entry.desc
				: typeof entry.description === 'string'
					? entry.description
					: null,
		sections: sectionIdsOf(entry.section_ids),
		// [EKA-JS] types items with `is_editable` instead of `default`: the service's own templates
		// are the ones that cannot be edited ("Template not editable", [EKA-SCRIBE]).
		default:
			typeof entry.default === 'boolean'
				? entry.default
				: typeof entry.is_editable === 'boolean'
					? !entry.is_editable
					: null,
		is_favorite: typeof entry.is_favorite === 'boolean' ? entry.is_favorite : null,
	};
}

function sectionIdsOf(value: unknown): string[] {
	if (!Array.isArray(value)) return [];
	return value
		.map((entry) => (isRecord(entry) ? textOf(entry.id) : textOf(entry)))
		.filter((id): id is string => id !== undefined);
}

/** The created template's id: `template_id` ([EKA-OAS]), or `id` as some answers spell it. */
export function readCreatedTemplateId(body: unknown): string | undefined {
	if (!isRecord(body)) return undefined;
	return firstText(
		body.template_id,
		body.id,
		isRecord(body.data) ? body.data.template_id : undefined,
	);
}

/** The service's confirmation text (`msg` in [EKA-OAS], `message` in [EKA-SCRIBE]). */
export function readTemplateMessage(body: unknown): string | null {
	if (!isRecord(body)) return null;
	return firstText(body.msg, body.message) ?? null;
}

type SectionIdsCheck = { ok: true; ids: string[] } | { ok: false; problem: string };

/**
 * Section IDs as the user gives them: a list (from an expression) or text with commas. Empty is
 * fine: [EKA-OAS] create-template.mdx sends `section_ids: []` and puts the whole instruction in the
 * description.
 */
export function parseSectionIds(value: unknown): SectionIdsCheck {
	if (value === undefined || value === null || value === '') return { ok: true, ids: [] };
	const parts = Array.isArray(value)
		? value
		: typeof value === 'string'
			? value.split(',')
			: [value];
	const ids: string[] = [];
	for (const [position, part] of parts.entries()) {
		const id = textOf(part);
		if (id === undefined) {
			if (typeof part === 'string' && !Array.isArray(value)) continue;
			return {
				ok: false,
				problem: `entry ${position + 1} is ${describeValue(part)}, not a section ID`,
			};
		}
		if (!ids.includes(id)) ids.push(id);
	}
	return { ok: true, ids };
}

function describeValue(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'string') return 'empty';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

type TemplateRefusal = 'not-found' | 'not-editable' | 'invalid' | 'other';

/**
 * What a refusal means. [EKA-OAS] answers 404 for an unknown id and 422 for a bad body;
 * [EKA-SCRIBE] turns every 4xx into 400 and says what in the message ("Template not found or
 * already archived", "Template not editable"). Both are read.
 */
export function classifyTemplateRefusal(
	statusCode: number,
	message: string | undefined,
): TemplateRefusal {
	const text = (message ?? '').toLowerCase();
	if (/not editable|cannot be (modified|edited|changed|deleted)|read[- ]only/.test(text))
		return 'not-editable';
	if (
		statusCode === 404 ||
		/not found|archived|does not exist|not available|unknown template/.test(text)
	)
		return 'not-found';
	if (statusCode === 422 || /required|invalid|missing|must|unknown|too long|exceed/.test(text))
		return 'invalid';
	return 'other';
}

/**
 * A template id parameter, in either shape saved workflows hold: a plain string (Upload Audio's
 * Custom Template ID may hold one) or a resource locator (`{__rl: true, mode, value}`). Trimmed; ''
 * when there is none.
 */
export function templateIdOf(value: unknown): string {
	const raw = isRecord(value) ? value.value : value;
	return textOf(raw) ?? '';
}
