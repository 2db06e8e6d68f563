/**
 * MedLink ([EKA-MEDLINK]) without HTTP: the ontologies the node offers, distinct terms in batches of
 * at most 5, and the answers read into codes. The Link Terms operation's input is read by
 * actions/medLink/medLinkFields.ts.
 */

export const MEDLINK_ONTOLOGIES = {
	snomed: { label: 'SNOMED CT', system: 'http://snomed.info/sct' },
	loinc: { label: 'LOINC', system: 'http://loinc.org' },
	'icd-10-cm': { label: 'ICD-10-CM', system: 'http://hl7.org/fhir/sid/icd-10-cm' },
	// The service's own medication database has no R4 system URI: this one is the package's own.
	medication: {
		label: 'Medication',
		system: 'urn:n8n-nodes-clinic-scribe:code-system:eka-medication',
	},
} as const;

export type MedLinkOntology = keyof typeof MEDLINK_ONTOLOGIES;

/** The batch endpoint takes 1–5 queries ([EKA-MEDLINK] NELBatchRequest.maxItems). */
export const MEDLINK_BATCH_SIZE = 5;
/** The package's bound (the docs give none): a term is a phrase, not a note. */
export const MEDLINK_MAX_TERM_LENGTH = 200;

/** Two spellings that differ only in case or spacing are the same term, asked once. */
export function termKey(ontology: string, term: string): string {
	return `${ontology}\n${term.replace(/\s+/g, ' ').trim().toLocaleLowerCase()}`;
}

interface TermBatch {
	ontology: MedLinkOntology;
	/** Keys (termKey) in the order of `queries`. */
	keys: string[];
	queries: string[];
}

/** Each distinct term once, per ontology, in batches of at most 5, in the order first asked. */
export function planBatches(
	asked: Array<{ ontology: MedLinkOntology; terms: string[] }>,
): TermBatch[] {
	const distinct = new Map<MedLinkOntology, Map<string, string>>();
	for (const { ontology, terms } of asked) {
		const ofOntology = distinct.get(ontology) ?? new Map<string, string>();
		distinct.set(ontology, ofOntology);
		for (const term of terms) {
			const key = termKey(ontology, term);
			if (!ofOntology.has(key)) ofOntology.set(key, term);
		}
	}
	const batches: TermBatch[] = [];
	for (const [ontology, terms] of distinct) {
		const entries = [...terms];
		for (let start = 0; start < entries.length; start += MEDLINK_BATCH_SIZE) {
			const slice = entries.slice(start, start + MEDLINK_BATCH_SIZE);
			batches.push({
				ontology,
				keys: slice.map(([key]) => key),
				queries: slice.map(([, term]) => term),
			});
		}
	}
	return batches;
}

/** The version to ask for: the registry's first for the ontology, or undefined when not offered. */
export function registryVersion(body: unknown, ontology: MedLinkOntology): string | undefined {
	const ontologies = isObject(body) && Array.isArray(body.ontologies) ? body.ontologies : [];
	for (const entry of ontologies) {
		if (!isObject(entry) || entry.name !== ontology || !Array.isArray(entry.versions)) continue;
		const version = entry.versions.find((v) => typeof v === 'string' && v !== '');
		if (typeof version === 'string') return version;
	}
	return undefined;
}

export function readsAsRegistry(body: unknown): boolean {
	return isObject(body) && Array.isArray(body.ontologies);
}

export interface TermCode {
	term: string;
	ontology: MedLinkOntology;
	system: string;
	version: string;
	/** null when the service found no candidate: no code is made up. */
	code: string | null;
	display: string | null;
	score: number | null;
	linked: boolean;
	/** LOINC's normalised unit, when the service gave one. */
	unit?: string;
}

/**
 * The code of one term from its result block: the candidate the service linked, else its top
 * candidate marked `linked: false`, else no code.
 */
export function readTermCode(
	block: unknown,
	facts: { term: string; ontology: MedLinkOntology; version: string },
): TermCode {
	const results = isObject(block) && Array.isArray(block.results) ? block.results : [];
	const candidates = results.filter(
		(result): result is Record<string, unknown> =>
			isObject(result) && typeof result.term_id === 'string' && result.term_id !== '',
	);
	const chosen = candidates.find((result) => result.is_linked === true) ?? candidates[0];
	const code: TermCode = {
		term: facts.term,
		ontology: facts.ontology,
		system: MEDLINK_ONTOLOGIES[facts.ontology].system,
		version: facts.version,
		code: chosen ? (chosen.term_id as string) : null,
		display: chosen && typeof chosen.term_name === 'string' ? chosen.term_name : null,
		score: chosen && typeof chosen.score === 'number' ? chosen.score : null,
		linked: chosen?.is_linked === true,
	};
	const unit = chosen && isObject(chosen.metadata) ? chosen.metadata.unit_normalised : undefined;
	if (facts.ontology === 'loinc' && typeof unit === 'string' && unit !== '') code.unit = unit;
	return code;
}

/** What MedLink answered for terms, by termKey: a code, or the error that kept the term uncoded. */
export interface CodeLookup {
	codes: Map<string, TermCode>;
	failed: Map<string, unknown>;
}

/** The result blocks of a batch answer, when there is one per query. */
export function readBatchBlocks(body: unknown, queryCount: number): unknown[] | undefined {
	if (!isObject(body) || !Array.isArray(body.results)) return undefined;
	return body.results.length === queryCount ? body.results : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
