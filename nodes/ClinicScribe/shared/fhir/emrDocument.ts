/**
 * Reading the EMR template's JSON: `{"prescription": {symptoms, diagnosis, medications, labTests,
 * followup, prescriptionNotes, medicalHistory: {patientHistory, vitals, examinations}, …}}` ([EKA-EMR]
 * for the wrapper and a medication; the sections and their shapes as [EKA-EMR-ADAPTER] writes them).
 * An entry is `{name, notes, properties: {"pg-…": {name, selection: [{value, unit}]}}}`; strings are
 * read as names. Text is kept exactly as written (Hindi and all), only trimmed. Pure.
 */
import { asRecord, isRecord, textOf } from '../values';

interface EmrProperty {
	/** The property's own name ("Since", "Severity"). */
	label: string;
	/** Each selection as text: "3 Days", "Moderate". */
	values: string[];
}

export interface EmrEntry {
	name?: string;
	notes?: string;
	properties: EmrProperty[];
	raw: Record<string, unknown>;
}

/** The sections of the EMR document: `prescription`, or the document itself when it has no wrapper. */
export function emrPrescription(value: unknown): Record<string, unknown> | undefined {
	const root = asRecord(value);
	if (!root) return undefined;
	const inner = asRecord(root.prescription);
	return inner ?? root;
}

/** The entries of a section (a list of objects or strings); anything else: none. */
export function emrEntries(value: unknown): EmrEntry[] {
	if (!Array.isArray(value)) return [];
	return value.flatMap((entry): EmrEntry[] => {
		if (typeof entry === 'string' || typeof entry === 'number') {
			const name = textOf(entry);
			return name ? [{ name, properties: [], raw: {} }] : [];
		}
		if (!isRecord(entry)) return [];
		const result: EmrEntry = { properties: propertiesOf(entry.properties), raw: entry };
		const name =
			textOf(entry.name) ??
			textOf(entry.common_name) ??
			textOf(entry.dis_name) ??
			textOf(entry.text);
		if (name) result.name = name;
		const notes =
			textOf(entry.notes) ?? textOf(entry.remark) ?? textOf(entry.remarks) ?? textOf(entry.note);
		if (notes) result.notes = notes;
		return [result];
	});
}

function propertiesOf(value: unknown): EmrProperty[] {
	const record = asRecord(value);
	if (!record) return [];
	return Object.values(record).flatMap((property): EmrProperty[] => {
		const entry = asRecord(property);
		const label = textOf(entry?.name);
		if (!entry || !label) return [];
		const selection = Array.isArray(entry.selection) ? entry.selection : [];
		const values = selection
			.map((choice) => {
				const picked = asRecord(choice);
				if (!picked) return textOf(choice);
				const text = textOf(picked.value) ?? textOf(picked.name);
				const unit = textOf(picked.unit);
				return text && unit ? `${text} ${unit}` : text;
			})
			.filter((text): text is string => text !== undefined);
		return values.length > 0 ? [{ label, values }] : [];
	});
}

/** The value of the first property whose name is one of `labels` (any case), as text. */
export function propertyText(entry: EmrEntry, ...labels: string[]): string | undefined {
	const wanted = labels.map((label) => label.toLowerCase());
	const property = entry.properties.find((candidate) =>
		wanted.includes(candidate.label.toLowerCase()),
	);
	return property?.values.join(', ');
}

/** The entry's notes and the properties not mapped elsewhere, as lines for `note`. */
export function noteLines(entry: EmrEntry, mappedLabels: string[] = []): string[] {
	const mapped = mappedLabels.map((label) => label.toLowerCase());
	const lines = entry.properties
		.filter((property) => !mapped.includes(property.label.toLowerCase()))
		.map((property) => `${property.label}: ${property.values.join(', ')}`);
	return entry.notes ? [...lines, entry.notes] : lines;
}

/** Text of a rich-text field: `parsedText`, else `text` without its HTML tags ([EKA-EMR-ADAPTER] prescriptionNotes). */
export function richText(value: unknown): string | undefined {
	if (typeof value === 'string') return plainText(value);
	const record = asRecord(value);
	if (!record) return undefined;
	return (
		textOf(record.parsedText) ??
		(typeof record.text === 'string' ? plainText(record.text) : undefined)
	);
}

const ENTITIES: Readonly<Record<string, string>> = {
	amp: '&',
	lt: '<',
	gt: '>',
	quot: '"',
	'#39': "'",
	nbsp: ' ',
};

function plainText(html: string): string | undefined {
	const text = html
		.replace(/<br\s*\/?>|<\/p>/gi, '\n')
		.replace(/<[^>]*>/g, '')
		.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => ENTITIES[name]);
	return textOf(text.replace(/\n{3,}/g, '\n\n'));
}
