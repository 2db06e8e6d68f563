/**
 * A decoded document (JSON of any shape, or text) as a person reads it: plain text for a text
 * e-mail or a chat message (`readableText`), and an HTML fragment for an HTML e-mail
 * (`readableHtml`: sections as headings, lists, tables for rows of the same fields). The HTML is
 * escaped here, once, so text from a consultation ("BP < 120", a quote) can never become markup.
 * Inline styles only: e-mail programs drop <style> blocks. Empty fields are left out of both.
 */
import { capitalised } from '../values';

/**
 * "Label: value" lines, nested sections indented, lists as "- item". Strings pass unchanged.
 */
export function readableText(value: unknown): string {
	return textLines(value, 0).join('\n').trim();
}

function textLines(value: unknown, depth: number): string[] {
	const pad = '  '.repeat(depth);
	if (isEmptyValue(value)) return [];
	if (typeof value !== 'object' || value === null)
		return String(value)
			.split('\n')
			.map((line) => `${pad}${line}`);
	if (Array.isArray(value)) {
		const lines: string[] = [];
		for (const entry of value) {
			if (isEmptyValue(entry)) continue;
			if (typeof entry !== 'object' || entry === null) {
				lines.push(`${pad}- ${String(entry)}`);
				continue;
			}
			const inner = textLines(entry, depth + 1);
			if (inner.length === 0) continue;
			lines.push(`${pad}- ${inner[0].trimStart()}`, ...inner.slice(1));
		}
		return lines;
	}
	const lines: string[] = [];
	for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
		if (isEmptyValue(entry)) continue;
		const label = humanise(key);
		if (typeof entry !== 'object' || entry === null) {
			const [first, ...rest] = String(entry).split('\n');
			lines.push(`${pad}${label}: ${first}`, ...rest.map((line) => `${pad}  ${line}`));
		} else {
			lines.push(`${pad}${label}:`, ...textLines(entry, depth + 1));
		}
	}
	return lines;
}

const STYLE = {
	heading: 'margin:18px 0 6px;font-size:15px;',
	paragraph: 'margin:0 0 8px;',
	list: 'margin:0 0 8px;padding-left:22px;',
	table: 'border-collapse:collapse;margin:0 0 8px;',
	cell: 'border:1px solid #d0d7de;padding:4px 10px;text-align:left;vertical-align:top;',
	headerCell:
		'border:1px solid #d0d7de;padding:4px 10px;text-align:left;vertical-align:top;background:#f6f8fa;',
};

/**
 * An HTML fragment: a JSON object's fields as sections (a heading each), text as paragraphs, a list
 * of values as a bulleted list, a list of records with the same simple fields (medications) as a
 * table with a column per field, a record of simple fields (vitals) as a two-column table. Text
 * alone becomes paragraphs. Empty: ''.
 */
export function readableHtml(value: unknown): string {
	if (isEmptyValue(value)) return '';
	if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
		return Object.entries(value as Record<string, unknown>)
			.filter(([, entry]) => !isEmptyValue(entry))
			.map(
				([key, entry]) =>
					`<h3 style="${STYLE.heading}">${escapeHtml(humanise(key))}</h3>\n${htmlBlock(entry)}`,
			)
			.join('\n');
	}
	return htmlBlock(value);
}

function htmlBlock(value: unknown): string {
	if (typeof value !== 'object' || value === null) return paragraphs(String(value));
	if (Array.isArray(value)) {
		const entries = value.filter((entry) => !isEmptyValue(entry));
		if (entries.length > 0 && entries.every(isFlatRecord))
			return recordsTable(entries as Array<Record<string, unknown>>);
		return `<ul style="${STYLE.list}">${entries.map((entry) => `<li>${inlineHtml(entry)}</li>`).join('')}</ul>`;
	}
	if (isFlatRecord(value)) return fieldsTable(value as Record<string, unknown>);
	return `<ul style="${STYLE.list}">${fieldItems(value as Record<string, unknown>)}</ul>`;
}

/** Inside a list item: text stays on its line; records and lists nest. */
function inlineHtml(value: unknown): string {
	if (typeof value !== 'object' || value === null) return lineBreaks(String(value));
	if (Array.isArray(value))
		return `<ul style="${STYLE.list}">${value
			.filter((entry) => !isEmptyValue(entry))
			.map((entry) => `<li>${inlineHtml(entry)}</li>`)
			.join('')}</ul>`;
	return `<ul style="${STYLE.list}">${fieldItems(value as Record<string, unknown>)}</ul>`;
}

function fieldItems(record: Record<string, unknown>): string {
	return Object.entries(record)
		.filter(([, entry]) => !isEmptyValue(entry))
		.map(
			([key, entry]) =>
				`<li><strong>${escapeHtml(humanise(key))}:</strong> ${inlineHtml(entry)}</li>`,
		)
		.join('');
}

/** One row per record, one column per field any record has (in the order they first appear). */
function recordsTable(records: Array<Record<string, unknown>>): string {
	const columns: string[] = [];
	for (const record of records) {
		for (const [key, entry] of Object.entries(record))
			if (!isEmptyValue(entry) && !columns.includes(key)) columns.push(key);
	}
	const head = columns
		.map((key) => `<th style="${STYLE.headerCell}">${escapeHtml(humanise(key))}</th>`)
		.join('');
	const rows = records.map(
		(record) =>
			`<tr>${columns.map((key) => `<td style="${STYLE.cell}">${isEmptyValue(record[key]) ? '' : lineBreaks(String(record[key]))}</td>`).join('')}</tr>`,
	);
	return `<table style="${STYLE.table}"><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function fieldsTable(record: Record<string, unknown>): string {
	const rows = Object.entries(record)
		.filter(([, entry]) => !isEmptyValue(entry))
		.map(
			([key, entry]) =>
				`<tr><th style="${STYLE.headerCell}">${escapeHtml(humanise(key))}</th><td style="${STYLE.cell}">${lineBreaks(String(entry))}</td></tr>`,
		);
	return `<table style="${STYLE.table}"><tbody>${rows.join('')}</tbody></table>`;
}

/** A record whose every field is a simple value (text, number, true/false) or empty. */
function isFlatRecord(value: unknown): boolean {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
	return Object.values(value as Record<string, unknown>).every(
		(entry) => isEmptyValue(entry) || typeof entry !== 'object',
	);
}

/** Blank lines separate paragraphs; single line breaks stay. */
function paragraphs(text: string): string {
	return text
		.split(/\n\s*\n/)
		.map((part) => part.trim())
		.filter((part) => part !== '')
		.map((part) => `<p style="${STYLE.paragraph}">${lineBreaks(part)}</p>`)
		.join('\n');
}

function lineBreaks(text: string): string {
	return escapeHtml(text.trim()).replace(/\r?\n/g, '<br>\n');
}

export function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function isEmptyValue(value: unknown): boolean {
	if (value === undefined || value === null) return true;
	if (typeof value === 'string') return value.trim() === '';
	if (Array.isArray(value)) return value.every(isEmptyValue);
	if (typeof value === 'object') return Object.values(value as object).every(isEmptyValue);
	return false;
}

/** Words a clinician writes in capitals (or in their own mixed case): kept that way in labels. */
const CLINICAL_ABBREVIATIONS = new Map([
	['spo2', 'SpO2'],
	['bp', 'BP'],
	['bmi', 'BMI'],
	['ecg', 'ECG'],
	['hba1c', 'HbA1c'],
	['icd', 'ICD'],
	['id', 'ID'],
	['opd', 'OPD'],
	['rbs', 'RBS'],
]);

/** "chief_complaints" → "Chief complaints", "followUpDate" → "Follow up date", "spo2" → "SpO2". */
export function humanise(key: string): string {
	const words = key
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.replace(/[_-]+/g, ' ')
		.trim()
		.toLowerCase();
	if (words === '') return key;
	return capitalised(
		words
			.split(/\s+/)
			.map((word) => CLINICAL_ABBREVIATIONS.get(word) ?? word)
			.join(' '),
	);
}
