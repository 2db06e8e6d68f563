/**
 * docs/fhir.md's "Which EMR sections become which resources" held to the one table the code reads
 * (shared/fhir/emrSections.ts EMR_SECTIONS): the docs' rows name exactly the table's EMR sections,
 * each with the resource type the table gives it and, where the docs name one, its category or
 * intent; and each section's builder makes what its row says, listed in the row's Composition section.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { EmrContext } from '../../../nodes/ClinicScribe/shared/fhir/emrContext';
import {
	EMR_SECTIONS,
	mapEmrDocument,
	sectionOf,
	type EmrSection,
	type ResourceKind,
} from '../../../nodes/ClinicScribe/shared/fhir/emrSections';
import { codeSpans, section, tableRows } from '../../support/markdown';

const DOCS = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'fhir.md'), 'utf8');

interface DocsRow {
	/** The EMR sections the row names (`…drugAllergy` stands for medicalHistory.patientHistory.drugAllergy). */
	paths: string[];
	resourceType: string;
	/** The names in backticks beside the resource type: categories, intents, statuses. */
	codes: string[];
}

function docsRows(markdown: string): DocsRow[] {
	const table = tableRows(section(markdown, 'Which EMR sections become which resources'));
	return table.slice(1).map(([emr, resource]) => ({
		paths: codeSpans(emr),
		resourceType: resource.split(/[\s,]/)[0],
		codes: codeSpans(resource),
	}));
}

/** Whether the docs' name stands for the table's path. */
function names(docsPath: string, path: string): boolean {
	return docsPath === path || (docsPath.startsWith('…') && path.endsWith(`.${docsPath.slice(1)}`));
}

/** What tells a kind apart, as the docs would write it: its intent, or the category it is built with. */
function marker(kind: ResourceKind): string | undefined {
	return kind.intent ?? kind.category?.[0];
}

/** Every category and intent of the table: a docs code that is one of these claims a kind. */
const MARKERS = new Set(
	EMR_SECTIONS.flatMap((emrSection) =>
		emrSection.kinds.flatMap((kind) => [
			...(kind.category ?? []),
			...(kind.intent ? [kind.intent] : []),
		]),
	),
);

function rowOf(rows: DocsRow[], emrSection: EmrSection): DocsRow[] {
	return rows.filter((row) => row.paths.some((docsPath) => names(docsPath, emrSection.paths[0])));
}

/** The ways the docs can be wrong about the table, in words; none when they agree. */
function disagreements(rows: DocsRow[]): string[] {
	const problems: string[] = [];
	for (const emrSection of EMR_SECTIONS) {
		const label = emrSection.paths[0];
		const matches = rowOf(rows, emrSection);
		if (matches.length !== 1) {
			problems.push(`${label}: ${matches.length} rows of the docs name it`);
			continue;
		}
		const [row] = matches;
		const types = [...new Set(emrSection.kinds.map((kind) => kind.resourceType))];
		if (types.length !== 1 || row.resourceType !== types[0])
			problems.push(`${label}: the docs say ${row.resourceType}, the table ${types.join(', ')}`);
		const own = new Set(
			emrSection.kinds.flatMap((kind) => [
				...(kind.category ?? []),
				...(kind.intent ? [kind.intent] : []),
			]),
		);
		const words = emrSection.kinds
			.map(marker)
			.filter((code): code is string => code !== undefined && /^[a-z-]+$/.test(code));
		for (const word of words)
			if (!row.codes.includes(word)) problems.push(`${label}: the docs do not say \`${word}\``);
		for (const code of row.codes)
			if (MARKERS.has(code) && !own.has(code))
				problems.push(`${label}: the docs say \`${code}\`, which is another section's`);
	}
	for (const row of rows) {
		if (row.paths.length === 0) problems.push(`a row of the docs names no EMR section`);
		for (const docsPath of row.paths)
			if (
				!EMR_SECTIONS.some((emrSection) => emrSection.paths.some((path) => names(docsPath, path)))
			)
				problems.push(`the docs name ${docsPath}, which the table does not read`);
	}
	return problems;
}

describe("docs/fhir.md's table of EMR sections and emrSections.ts's table", () => {
	test('the docs name exactly the EMR sections of the table, each with its resource type and category', () => {
		const rows = docsRows(DOCS);
		expect(rows.length).toBeGreaterThan(0);
		expect(disagreements(rows)).toEqual([]);
	});

	test('a docs row left out, or a resource or category changed, is found', () => {
		const rows = docsRows(DOCS);
		expect(disagreements(rows.filter((row) => !row.paths.includes('labVitals')))).toEqual([
			'labVitals: 0 rows of the docs name it',
		]);
		const changed = rows.map((row) =>
			row.paths.includes('diagnosis') ? { ...row, resourceType: 'Observation' } : row,
		);
		expect(disagreements(changed)).toEqual([
			'diagnosis: the docs say Observation, the table Condition',
		]);
		const swapped = rows.map((row) =>
			row.paths.includes('medicalHistory.examinations') ? { ...row, codes: ['laboratory'] } : row,
		);
		expect(disagreements(swapped)).toEqual([
			'medicalHistory.examinations: the docs do not say `exam`',
			"medicalHistory.examinations: the docs say `laboratory`, which is another section's",
		]);
	});
});

const CTX: EmrContext = {
	patient: { reference: 'Patient/p-42' },
	encounter: { reference: 'urn:uuid:5b0d3c3e-8a0e-4c55-9d0b-2a3c1f6e7d10' },
	practitioner: { reference: 'Practitioner/dr-7' },
	recorded: '2026-11-29T10:15:00+05:30',
	adjust: () => undefined,
};

/** A document holding only `path`, with one entry (a name, or the follow-up's words). */
function documentWith(path: string): Record<string, unknown> {
	const value: unknown = path === 'followup' ? 'In a week' : ['Fever'];
	const keys = path.split('.');
	return keys.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<
		string,
		unknown
	>;
}

describe("each section's builder makes what its row of the table says", () => {
	test.each(EMR_SECTIONS.map((emrSection) => [emrSection.paths[0], emrSection] as const))(
		'%s',
		(_, emrSection) => {
			const { resources } = mapEmrDocument(documentWith(emrSection.paths[0]), CTX);
			expect(resources.length).toBeGreaterThan(0);
			for (const { resource, section: listedIn } of resources)
				expect(emrSection.kinds).toContainEqual(
					expect.objectContaining({ resourceType: resource.resourceType, section: listedIn }),
				);
		},
	);
});

describe("sectionOf: the section of a resource of the service's own bundle", () => {
	const observation = (...codes: string[]) =>
		({
			resourceType: 'Observation',
			status: 'final',
			code: { text: 'x' },
			category: codes.map((code) => ({ coding: [{ code }] })),
		}) as const;

	test.each([
		[['vital-signs', 'symptom'], 'vitals'],
		[['418799008', 'exam'], 'examinations'],
		[['symptom', 'laboratory'], 'labResults'],
		[['418799008'], 'symptoms'],
		[['survey'], 'other'],
	])(
		"an Observation of categories %j goes in %s: R4's own categories before the service's symptom",
		(codes, expected) => {
			expect(sectionOf(observation(...codes))).toBe(expected);
		},
	);

	test('a Condition, ServiceRequest and CarePlan go by their mark, else by their type', () => {
		const condition = (code?: string) => ({
			resourceType: 'Condition' as const,
			subject: { reference: 'Patient/p' },
			category: code ? [{ coding: [{ code }] }] : undefined,
		});
		expect(sectionOf(condition('problem-list-item'))).toBe('medicalHistory');
		expect(sectionOf(condition())).toBe('diagnoses');
		const order = (code?: string) => ({
			resourceType: 'ServiceRequest' as const,
			status: 'active' as const,
			intent: 'order' as const,
			subject: { reference: 'Patient/p' },
			category: code ? [{ coding: [{ code }] }] : undefined,
		});
		expect(sectionOf(order('363679005'))).toBe('imaging');
		expect(sectionOf(order('387713003'))).toBe('procedures');
		expect(sectionOf(order())).toBe('labTests');
		const plan = (intent: 'plan' | 'proposal') => ({
			resourceType: 'CarePlan' as const,
			status: 'active' as const,
			intent,
			subject: { reference: 'Patient/p' },
		});
		expect(sectionOf(plan('proposal'))).toBe('notes');
		expect(sectionOf(plan('plan'))).toBe('advice');
	});
});
