/**
 * Add Codes (shared/fhir/codes.ts, docs/fhir.md "Codes"): which terms of which sections are asked in
 * which code system, and what MedLink's answers add: a coding beside the text only for a linked
 * candidate at or above the minimum score, nothing for the others (named in adjustments), the unit
 * LOINC normalises on a lab value without one, and a bundle that still passes R4.
 */
import {
	codableConcepts,
	codingFailureMessage,
	termsToCode,
	type CodingSettings,
} from '../../../nodes/ClinicScribe/shared/fhir/codes';
import type { BundleEntry } from '../../../nodes/ClinicScribe/shared/fhir/resources';
import { readFhirSettings } from '../../../nodes/ClinicScribe/shared/fhir/fields';
import {
	MEDLINK_ONTOLOGIES,
	termKey,
	type CodeLookup,
	type MedLinkOntology,
	type TermCode,
} from '../../../nodes/ClinicScribe/shared/answers/medLinkTerms';
import { emrDocument } from '../../fake-api/routes/transcription/documents';
import { entriesOf, loadR4, resourcesOf, type R4 } from '../../support/fhirR4';
import { built, emrResults, EXISTING, properties } from './fixtures';

let r4: R4;
beforeAll(async () => {
	r4 = await loadR4();
});

const CODING: CodingSettings = { minScore: 0.8, onFailure: 'uncoded' };
const NOTES = {
	...emrDocument(true).prescription,
	// A Hindi symptom, a low-score one and one the service does not link, beside the English.
	symptoms: [
		{ id: 's-1', name: 'बुखार', properties: properties({ Since: ['3', 'Days'] }) },
		{ id: 's-2', name: 'Feeling off', properties: {} },
		{ id: 's-3', name: 'General weakness', properties: {} },
	],
	labVitals: [{ id: 'lv-1', name: 'Haemoglobin', value: '10.2' }],
};

function code(
	ontology: MedLinkOntology,
	term: string,
	answer: Partial<TermCode> & Pick<TermCode, 'code'>,
): [string, TermCode] {
	return [
		termKey(ontology, term),
		{
			term,
			ontology,
			system: MEDLINK_ONTOLOGIES[ontology].system,
			version: {
				snomed: '20250401_extended',
				loinc: 'v1.0',
				'icd-10-cm': 'comprehend',
				medication: 'v5.0',
			}[ontology],
			display: null,
			score: 0.95,
			linked: true,
			...answer,
		},
	];
}

/** MedLink's answers for the visit: most terms coded, a few not. */
const LOOKUP: CodeLookup = {
	codes: new Map([
		code('snomed', 'बुखार', { code: '386661006', display: 'Fever', score: 0.93 }),
		code('snomed', 'Feeling off', { code: '367391008', display: 'Malaise', score: 0.32 }),
		code('snomed', 'General weakness', { code: '13791008', display: 'Asthenia', linked: false }),
		code('snomed', 'Acute upper respiratory tract infection', {
			code: '54150009',
			display: 'URTI',
		}),
		code('icd-10-cm', 'Acute upper respiratory tract infection', { code: 'J06.9' }),
		code('snomed', 'Viral fever', { code: null }),
		code('icd-10-cm', 'Viral fever', { code: null }),
		code('snomed', 'Type 2 diabetes', { code: '44054006', display: 'Diabetes mellitus type 2' }),
		code('icd-10-cm', 'Type 2 diabetes', { code: 'E11', score: 0.91 }),
		code('snomed', 'Hypertension', { code: '38341003' }),
		code('icd-10-cm', 'Hypertension', { code: 'I10', score: 0.9 }),
		code('loinc', 'Complete blood count (CBC)', { code: '58410-2', score: 0.85 }),
		code('loinc', 'Haemoglobin', { code: '718-7', score: 1, unit: 'g/dl' }),
		code('medication', 'Paracetamol 650 mg Tablet', { code: 'b-1020304050', score: null }),
		code('medication', 'Cetirizine 10 mg Tablet', { code: 'b-1020304051', score: null }),
		code('medication', 'Metformin 500 mg Tablet', { code: 'b-200', score: null }),
	]),
	failed: new Map(),
};

const uncoded = built(emrResults(NOTES));
const entries = () => entriesOf(built(emrResults(NOTES)).bundle) as unknown as BundleEntry[];

function coded(lookup: CodeLookup = LOOKUP, settings = CODING) {
	return built(emrResults(NOTES), { ...EXISTING, coding: settings }, { codes: lookup });
}

/** The codings of the resources of a type whose concept text is `text`. */
function codingsOf(record: ReturnType<typeof built>, type: string, text: string): unknown[] {
	for (const resource of resourcesOf(record.bundle, type)) {
		const concepts = [
			resource.code,
			resource.medicationCodeableConcept,
			...((resource.condition as Array<{ code: unknown }> | undefined) ?? []).map((c) => c.code),
		] as Array<{ text?: string; coding?: unknown[] } | undefined>;
		const concept = concepts.find((c) => c?.text === text);
		if (concept) return concept.coding ?? [];
	}
	throw new Error(`no ${type} "${text}"`);
}

describe('which terms are asked, in which code system', () => {
	test('symptoms and examinations SNOMED CT; diagnoses and history also ICD-10-CM; labs LOINC; medicines the medication database', () => {
		const asked = Object.fromEntries(
			termsToCode(entries()).map(({ ontology, terms }) => [ontology, [...terms].sort()]),
		);
		expect(asked.snomed).toEqual(
			expect.arrayContaining([
				'बुखार',
				'Feeling off',
				'General weakness',
				'Acute upper respiratory tract infection',
				'Viral fever',
				'Type 2 diabetes',
				'Hypertension',
			]),
		);
		expect(asked['icd-10-cm']).toEqual(
			expect.arrayContaining([
				'Acute upper respiratory tract infection',
				'Viral fever',
				'Type 2 diabetes',
			]),
		);
		expect(asked['icd-10-cm']).not.toContain('बुखार');
		expect(asked.loinc).toEqual(
			expect.arrayContaining(['Complete blood count (CBC)', 'Haemoglobin']),
		);
		expect(asked.medication).toEqual(
			expect.arrayContaining([
				'Paracetamol 650 mg Tablet',
				'Cetirizine 10 mg Tablet',
				'Metformin 500 mg Tablet',
			]),
		);
	});

	test('vital signs (already LOINC), allergies, advice and notes are not asked', () => {
		const all = termsToCode(entries()).flatMap(({ terms }) => terms);
		expect(all).not.toContain('Penicillin');
		expect(all.some((term) => /warm fluids/i.test(term))).toBe(false);
		for (const { resource } of codableConcepts(entries()))
			expect(['AllergyIntolerance', 'CarePlan', 'Appointment']).not.toContain(
				resource.resourceType,
			);
	});

	test('a term is asked once per code system however often it appears', () => {
		const doubled = {
			...NOTES,
			symptoms: [...NOTES.symptoms, { id: 's-9', name: 'बुखार', properties: {} }],
		};
		const asked = termsToCode(
			entriesOf(built(emrResults(doubled)).bundle) as unknown as BundleEntry[],
		);
		const snomed = asked.find((entry) => entry.ontology === 'snomed')?.terms ?? [];
		expect(snomed.filter((term) => term === 'बुखार')).toHaveLength(1);
	});
});

describe('the codings added', () => {
	test('a linked code at or above the minimum score: a coding with system, version, code and display beside the text', () => {
		const record = coded();
		expect(codingsOf(record, 'Observation', 'बुखार')).toEqual([
			{
				system: 'http://snomed.info/sct',
				version: '20250401_extended',
				code: '386661006',
				display: 'Fever',
			},
		]);
		const diagnosis = codingsOf(record, 'Condition', 'Acute upper respiratory tract infection');
		// The ICD-10 the notes carried stays; SNOMED CT and ICD-10-CM are added beside it.
		expect(diagnosis).toEqual([
			expect.objectContaining({ system: 'http://hl7.org/fhir/sid/icd-10', code: 'J06.9' }),
			expect.objectContaining({ system: 'http://snomed.info/sct', code: '54150009' }),
			expect.objectContaining({ system: 'http://hl7.org/fhir/sid/icd-10-cm', code: 'J06.9' }),
		]);
		expect(codingsOf(record, 'ServiceRequest', 'Complete blood count (CBC)')).toEqual([
			expect.objectContaining({ system: 'http://loinc.org', code: '58410-2' }),
		]);
		expect(codingsOf(record, 'MedicationRequest', 'Paracetamol 650 mg Tablet')).toEqual([
			expect.objectContaining({
				system: 'urn:n8n-nodes-clinic-scribe:code-system:eka-medication',
				code: 'b-1020304050',
			}),
		]);
		expect(codingsOf(record, 'FamilyMemberHistory', 'Hypertension')).toHaveLength(2);
		// Four answered without a usable code, and the two examinations this lookup holds no answer for.
		expect(record.coding).toEqual({ codes_added: 12, terms_uncoded: 6, min_score: 0.8 });
	});

	test('below the minimum, not linked, or no candidate: no coding, and adjustments name the term and why', () => {
		const record = coded();
		expect(codingsOf(record, 'Observation', 'Feeling off')).toEqual([]);
		expect(codingsOf(record, 'Observation', 'General weakness')).toEqual([]);
		expect(record.adjustments).toEqual(
			expect.arrayContaining([
				'"Feeling off" not coded in SNOMED CT: its score 0.32 is below the minimum 0.8',
				'"General weakness" not coded in SNOMED CT: MedLink did not link its best candidate',
				'"Viral fever" not coded in SNOMED CT: MedLink found no candidate',
				'"Viral fever" not coded in ICD-10-CM: MedLink found no candidate',
			]),
		);
	});

	test("the minimum is the user's: at 0.3 the low-score term is coded", () => {
		const record = coded(LOOKUP, { ...CODING, minScore: 0.3 });
		expect(codingsOf(record, 'Observation', 'Feeling off')).toEqual([
			expect.objectContaining({ code: '367391008' }),
		]);
	});

	test("LOINC's normalised unit goes on a lab value written without one", () => {
		const [haemoglobin] = resourcesOf(coded().bundle, 'Observation').filter(
			(o) => (o.code as { text?: string }).text === 'Haemoglobin',
		);
		expect(haemoglobin.valueQuantity).toEqual(
			expect.objectContaining({ value: 10.2, unit: 'g/dl' }),
		);
		const [before] = resourcesOf(uncoded.bundle, 'Observation').filter(
			(o) => (o.code as { text?: string }).text === 'Haemoglobin',
		);
		expect((before.valueQuantity as { unit?: string }).unit).toBeUndefined();
	});

	test('the coded bundle passes R4 and holds the same resources as the uncoded one', () => {
		const record = coded();
		for (const resource of resourcesOf(record.bundle))
			expect([resource.resourceType, r4.validate(resource)]).toEqual([resource.resourceType, []]);
		expect(record.resource_counts).toEqual(uncoded.resource_counts);
		expect(uncoded.coding).toBeUndefined();
	});

	test('MedLink unreachable: the bundle is made uncoded and says so; the failure message names it', () => {
		const outage = new Error('The clinic API is unavailable (HTTP 503)');
		const failed: CodeLookup = {
			codes: new Map(),
			failed: new Map([...LOOKUP.codes.keys()].map((key) => [key, outage])),
		};
		const record = coded(failed);
		expect(codingsOf(record, 'Observation', 'बुखार')).toEqual([]);
		expect(record.adjustments).toEqual(
			expect.arrayContaining([
				expect.stringMatching(
					/^not coded, MedLink could not be asked \(The clinic API is unavailable \(HTTP 503\)\): "बुखार"/,
				),
			]),
		);
		expect(codingFailureMessage(failed)?.message).toBe(
			`MedLink could not code the notes' terms (${LOOKUP.codes.size} of them): The clinic API is unavailable (HTTP 503)`,
		);
		expect(codingFailureMessage(LOOKUP)).toBeUndefined();
	});
});

describe('FHIR Options → Add Codes, read and checked', () => {
	const read = (options: Record<string, unknown>) =>
		readFhirSettings(
			(name, fallback) =>
				({
					fhirOptions: options,
					fhirPatient: 'ehrPatient',
					fhirPatientId: 'p-1',
					fhirDoctor: 'ehrPractitioner',
					fhirPractitionerId: 'dr-1',
				})[name] ?? fallback,
			'action',
		);

	test('off by default; on with the documented default minimum 0.8 and "make the bundle uncoded"', () => {
		const off = read({});
		expect(off.ok && off.value.coding).toBeUndefined();
		expect(read({ addCodes: true })).toMatchObject({
			ok: true,
			value: { coding: { minScore: 0.8, onFailure: 'uncoded' } },
		});
		expect(read({ addCodes: true, minCodeScore: 0.5, codingFailure: 'fail' })).toMatchObject({
			ok: true,
			value: { coding: { minScore: 0.5, onFailure: 'fail' } },
		});
	});

	test.each([
		[{ addCodes: 'yes' }, 'FHIR Options → Add Codes is not true or false'],
		[
			{ addCodes: true, minCodeScore: 1.5 },
			'FHIR Options → Minimum Code Score is not a number from 0 to 1 (e.g. 0.8)',
		],
		[
			{ addCodes: true, minCodeScore: '0.8' },
			'FHIR Options → Minimum Code Score is not a number from 0 to 1 (e.g. 0.8)',
		],
		[
			{ addCodes: true, codingFailure: 'retry' },
			'FHIR Options → When Coding Fails is not one of its choices',
		],
	])('%j: %s', (options, problem) => {
		expect(read(options)).toEqual({ ok: false, problem });
	});
});
