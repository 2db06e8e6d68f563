/**
 * "Add Codes": which terms of a visit's bundle are coded in which code system, and the codings
 * MedLink's answers give them ([EKA-MEDLINK]). Pure: the caller asks MedLink (transport/medLinkApi.ts)
 * for the terms `termsToCode` lists and hands the answers to `addCodes`.
 *
 * A coding is added only for a candidate the service linked whose score reaches the minimum (a code
 * the service links without a score, as its medication database does, counts as linked). The text
 * stays as written beside it; a concept already coded in that system is left alone; every term left
 * uncoded is named in the adjustments. No code is made up here.
 */
import type { Composition, Resource } from '@medplum/fhirtypes';

import {
	MEDLINK_MAX_TERM_LENGTH,
	MEDLINK_ONTOLOGIES,
	termKey,
	type CodeLookup,
	type MedLinkOntology,
	type TermCode,
} from '../answers/medLinkTerms';
import { isRecord } from '../values';
import type { BundleEntry } from './resources';
import { SECTIONS, type SectionKey } from './sections';

/** What the user chose (FHIR Options → Add Codes). */
export interface CodingSettings {
	/** 0–1: a linked candidate scoring lower is not used. */
	minScore: number;
	/** When MedLink cannot be asked: make the bundle without the codes, or fail the item. */
	onFailure: 'uncoded' | 'fail';
}

export const DEFAULT_MIN_CODE_SCORE = 0.8;

/** The code systems of each section's terms; sections not named here are not coded. */
const CODED_SECTIONS: Readonly<Partial<Record<SectionKey, readonly MedLinkOntology[]>>> = {
	symptoms: ['snomed'],
	examinations: ['snomed'],
	diagnoses: ['snomed', 'icd-10-cm'],
	medicalHistory: ['snomed', 'icd-10-cm'],
	familyHistory: ['snomed', 'icd-10-cm'],
	pastProcedures: ['snomed'],
	labTests: ['loinc'],
	labResults: ['loinc'],
	medications: ['medication'],
	currentMedications: ['medication'],
};

interface Codable {
	resource: Resource;
	concept: Record<string, unknown>;
	term: string;
	/** The code systems still to code it in (those it has a coding of already are left out). */
	ontologies: MedLinkOntology[];
}

/** The CodeableConcepts that name what a resource is about. */
function conceptsOf(resource: Resource): unknown[] {
	switch (resource.resourceType) {
		case 'MedicationRequest':
		case 'MedicationStatement':
			return [resource.medicationCodeableConcept];
		case 'FamilyMemberHistory':
			return (resource.condition ?? []).map((condition) => condition.code);
		default:
			return ['code' in resource ? resource.code : undefined];
	}
}

function codingsOf(concept: Record<string, unknown>): Array<Record<string, unknown>> {
	return (Array.isArray(concept.coding) ? concept.coding : []).filter(isRecord);
}

/** The term of a concept: its text, else the display of its first coding. */
function termOf(concept: Record<string, unknown>): string | undefined {
	const display = codingsOf(concept).find((coding) => typeof coding.display === 'string')?.display;
	const raw =
		typeof concept.text === 'string' && concept.text.trim() !== '' ? concept.text : display;
	const term = typeof raw === 'string' ? raw.replace(/\s+/g, ' ').trim() : '';
	return term !== '' && [...term].length <= MEDLINK_MAX_TERM_LENGTH ? term : undefined;
}

/** Each entry's section, as the bundle's Composition lists it. */
function sectionsOfEntries(entries: BundleEntry[]): Map<string, SectionKey> {
	const keyOfTitle = new Map<string, SectionKey>(
		Object.entries(SECTIONS).map(([key, title]) => [title, key as SectionKey]),
	);
	const sections = new Map<string, SectionKey>();
	const composition = entries
		.map((entry) => entry.resource)
		.find((resource): resource is Composition => resource.resourceType === 'Composition');
	for (const section of composition?.section ?? []) {
		const key = section.title === undefined ? undefined : keyOfTitle.get(section.title);
		if (key) for (const member of section.entry ?? []) sections.set(String(member.reference), key);
	}
	return sections;
}

/** The concepts of the bundle's entries to code, with their terms and code systems. */
export function codableConcepts(entries: BundleEntry[]): Codable[] {
	const sections = sectionsOfEntries(entries);
	const codable: Codable[] = [];
	for (const entry of entries) {
		const section = sections.get(entry.fullUrl);
		const wanted = section ? CODED_SECTIONS[section] : undefined;
		if (!wanted) continue;
		for (const concept of conceptsOf(entry.resource)) {
			if (!isRecord(concept)) continue;
			const term = termOf(concept);
			if (!term) continue;
			const held = new Set(codingsOf(concept).map((coding) => coding.system));
			const ontologies = wanted.filter(
				(ontology) => !held.has(MEDLINK_ONTOLOGIES[ontology].system),
			);
			if (ontologies.length > 0)
				codable.push({ resource: entry.resource, concept, term, ontologies });
		}
	}
	return codable;
}

/** The terms to ask MedLink for, per code system, each once. */
export function termsToCode(entries: BundleEntry[]): Array<{
	ontology: MedLinkOntology;
	terms: string[];
}> {
	const asked = new Map<MedLinkOntology, Map<string, string>>();
	for (const { term, ontologies } of codableConcepts(entries))
		for (const ontology of ontologies) {
			const terms = asked.get(ontology) ?? new Map<string, string>();
			asked.set(ontology, terms);
			if (!terms.has(termKey(ontology, term))) terms.set(termKey(ontology, term), term);
		}
	return [...asked].map(([ontology, terms]) => ({ ontology, terms: [...terms.values()] }));
}

/** Why a term got no code, in words; undefined when the code is good to add. */
function whyNotCoded(code: TermCode, minScore: number): string | undefined {
	if (code.code === null) return 'MedLink found no candidate';
	if (!code.linked) return 'MedLink did not link its best candidate';
	if (code.score !== null && code.score < minScore)
		return `its score ${code.score} is below the minimum ${minScore}`;
	return undefined;
}

/** What addCodes did, for the item. */
export interface CodingOutcome {
	added: number;
	uncoded: number;
	/** Terms MedLink could not be asked about (an outage, a refusal): by the error's message. */
	failures: Map<string, string[]>;
}

/**
 * Adds MedLink's codings to the entries' concepts (in place), LOINC's normalised unit to a lab
 * result that has a value without a unit, and says in `adjust` which terms stay uncoded and why.
 */
export function addCodes(
	entries: BundleEntry[],
	lookup: CodeLookup,
	settings: CodingSettings,
	adjust: (message: string) => void,
): CodingOutcome {
	const outcome: CodingOutcome = { added: 0, uncoded: 0, failures: new Map() };
	for (const { resource, concept, term, ontologies } of codableConcepts(entries)) {
		for (const ontology of ontologies) {
			const key = termKey(ontology, term);
			const label = MEDLINK_ONTOLOGIES[ontology].label;
			const code = lookup.codes.get(key);
			if (!code) {
				outcome.uncoded++;
				const failure = lookup.failed.get(key);
				const why = failure instanceof Error ? failure.message : 'MedLink was not asked';
				const terms = outcome.failures.get(why) ?? [];
				if (!terms.includes(term)) terms.push(term);
				outcome.failures.set(why, terms);
				continue;
			}
			const why = whyNotCoded(code, settings.minScore);
			if (why !== undefined) {
				outcome.uncoded++;
				adjust(`"${term}" not coded in ${label}: ${why}`);
				continue;
			}
			concept.coding = [
				...codingsOf(concept),
				{
					system: code.system,
					...(code.version ? { version: code.version } : {}),
					code: code.code as string,
					...(code.display ? { display: code.display } : {}),
				},
			];
			outcome.added++;
			if (ontology === 'loinc' && code.unit) addUnit(resource, code.unit);
		}
	}
	for (const [why, terms] of outcome.failures)
		adjust(
			`not coded, MedLink could not be asked (${why}): ${terms.map((term) => `"${term}"`).join(', ')}`,
		);
	return outcome;
}

/** LOINC's normalised unit on a lab value given without one; a unit written in the notes stays. */
function addUnit(resource: Resource, unit: string): void {
	if (resource.resourceType !== 'Observation' || !resource.valueQuantity) return;
	const quantity = resource.valueQuantity;
	if (typeof quantity.unit !== 'string' || quantity.unit.trim() === '') quantity.unit = unit;
}

/** With When Coding Fails = Fail the Item: why no bundle is made, when MedLink could not be asked. */
export function codingFailureMessage(
	lookup: CodeLookup,
): { message: string; description: string } | undefined {
	const first = lookup.failed.values().next();
	if (first.done) return undefined;
	const why = first.value instanceof Error ? first.value.message : 'no answer';
	return {
		message: `MedLink could not code the notes' terms (${lookup.failed.size} of them): ${why}`,
		description:
			'No bundle was made and nothing was sent to the EHR. Run again later, or set FHIR Options → When Coding Fails to "Make the Bundle Without Those Codes" to file the notes uncoded.',
	};
}
