/**
 * Required bindings: a coded value whose element R4 binds `required` to a value set must be a code
 * of that value set. @medplum/core's validateResource does not check this (it let
 * `Observation.status: "done"` through); it only collects, per value set, the values it met
 * (its `collect.tokens` option). This module expands R4's value sets from valuesets.json and
 * checks those values.
 *
 * Checked: 220 of the 227 value sets R4's resources and data types bind `required`; each is an
 * enumeration of codes from a CodeSystem that valuesets.json holds completely (or lists its codes).
 * Not checked (no list of codes to check against): mimetypes (BCP 13), currencies (ISO 4217),
 * ucum-units (UCUM is a grammar), and three value sets R4 names but does not define
 * (characteristic-combination, subscription-notification-type, LOINC LL379-9).
 * Not checked at all: extensible, preferred and example bindings (a code outside them is allowed by
 * R4, e.g. Observation.category, Condition.code), and codes of external systems such as SNOMED CT
 * or LOINC (not enumerable here).
 */
import type { TypedValueWithPath } from '@medplum/core';
import type {
	Coding,
	CodeSystem,
	CodeSystemConcept,
	OperationOutcomeIssue,
	ValueSet,
} from '@medplum/fhirtypes';

import type { R4Terminology } from './definitions';

/** The codes of a value set per system, or why they cannot be listed. */
type Expansion = { codes: ReadonlyMap<string, ReadonlySet<string>> } | { notEnumerable: string };

/** How many allowed codes an issue lists before it only counts them. */
const MAX_LISTED_CODES = 25;

export class RequiredBindings {
	private readonly expansions = new Map<string, Expansion>();

	constructor(private readonly terminology: R4Terminology) {}

	/** Issues for every collected value outside its required value set (validateResource's `collect.tokens`). */
	check(tokens: Record<string, TypedValueWithPath[]>): OperationOutcomeIssue[] {
		const issues: OperationOutcomeIssue[] = [];
		for (const [binding, values] of Object.entries(tokens)) {
			const url = binding.split('|')[0];
			const expansion = this.expand(url);
			if ('notEnumerable' in expansion) continue;
			for (const value of values) {
				const problem = problemWith(value, expansion.codes);
				if (problem)
					issues.push(
						bindingIssue(
							value.path,
							`${problem}: not in the value set ${url}, which R4 requires here (${allowed(expansion.codes)})`,
						),
					);
			}
		}
		return issues;
	}

	/** Whether a value set can be checked, and its codes (cached). */
	expand(url: string): Expansion {
		const known = this.expansions.get(url);
		if (known) return known;
		// A value set that includes itself through others would recurse: mark it first.
		this.expansions.set(url, { notEnumerable: `${url} includes itself` });
		const valueSet = this.terminology.valueSets.get(url);
		const expansion = valueSet
			? this.expandValueSet(valueSet)
			: { notEnumerable: `${url} is not among R4's value sets` };
		this.expansions.set(url, expansion);
		return expansion;
	}

	private expandValueSet(valueSet: ValueSet): Expansion {
		const codes = new Map<string, Set<string>>();
		const add = (system: string, code: string) => {
			let set = codes.get(system);
			if (!set) codes.set(system, (set = new Set()));
			set.add(code);
		};
		for (const include of valueSet.compose?.include ?? []) {
			if (include.filter?.length)
				return { notEnumerable: `${valueSet.url} selects codes by filter` };
			if (include.valueSet?.length && include.system)
				return { notEnumerable: `${valueSet.url} intersects value sets` };
			for (const other of include.valueSet ?? []) {
				const inner = this.expand(other.split('|')[0]);
				if ('notEnumerable' in inner) return inner;
				for (const [system, set] of inner.codes) for (const code of set) add(system, code);
			}
			if (!include.system) continue;
			if (include.concept?.length) {
				for (const concept of include.concept) add(include.system, concept.code);
				continue;
			}
			const codeSystem = this.terminology.codeSystems.get(include.system);
			if (!codeSystem || codeSystem.content !== 'complete')
				return {
					notEnumerable: `${valueSet.url} takes every code of ${include.system}, which R4 does not list`,
				};
			for (const code of allCodes(codeSystem)) add(include.system, code);
		}
		for (const exclude of valueSet.compose?.exclude ?? []) {
			if (!exclude.system) continue;
			if (!exclude.concept?.length) codes.delete(exclude.system);
			for (const concept of exclude.concept ?? []) codes.get(exclude.system)?.delete(concept.code);
		}
		if (codes.size === 0)
			return { notEnumerable: `${valueSet.url} has no composition to enumerate` };
		return { codes };
	}
}

function allCodes(codeSystem: CodeSystem): string[] {
	const codes: string[] = [];
	const walk = (concepts: CodeSystemConcept[] | undefined) => {
		for (const concept of concepts ?? []) {
			codes.push(concept.code);
			walk(concept.concept);
		}
	};
	walk(codeSystem.concept);
	return codes;
}

/** What is wrong with one bound value, or undefined when it is a code of the value set. */
function problemWith(
	value: TypedValueWithPath,
	codes: ReadonlyMap<string, ReadonlySet<string>>,
): string | undefined {
	const inValueSet = (coding: Coding) =>
		coding.system !== undefined &&
		coding.code !== undefined &&
		codes.get(coding.system)?.has(coding.code) === true;
	switch (value.type) {
		case 'Coding': {
			const coding = value.value as Coding;
			return inValueSet(coding) ? undefined : describeCoding(coding);
		}
		case 'CodeableConcept': {
			const codings = (value.value as { coding?: Coding[] }).coding ?? [];
			if (codings.some(inValueSet)) return undefined;
			return codings.length === 0
				? 'no coding (text alone does not meet a required binding)'
				: codings.map(describeCoding).join(', ');
		}
		case 'Quantity': {
			const quantity = value.value as { system?: string; code?: string };
			if (quantity.code === undefined) return undefined; // the unit is free text; only a coded unit is bound
			return inValueSet(quantity) ? undefined : describeCoding(quantity);
		}
		default: {
			// code, string, uri: the value is the code, its system implied by the value set
			const code = String(value.value);
			for (const set of codes.values()) if (set.has(code)) return undefined;
			return `"${code}"`;
		}
	}
}

function describeCoding(coding: { system?: string; code?: string }): string {
	if (coding.code === undefined) return 'a coding without a code';
	if (coding.system === undefined) return `code "${coding.code}" without a system`;
	return `code "${coding.code}" of ${coding.system}`;
}

function allowed(codes: ReadonlyMap<string, ReadonlySet<string>>): string {
	const all = [...codes].flatMap(([system, set]) => [...set].map((code) => ({ system, code })));
	const systems = [...codes.keys()];
	if (all.length > MAX_LISTED_CODES) return `${all.length} codes of ${systems.join(', ')}`;
	return `allowed: ${all.map((c) => c.code).join(', ')}${systems.length === 1 ? ` of ${systems[0]}` : ''}`;
}

function bindingIssue(path: string, text: string): OperationOutcomeIssue {
	return { severity: 'error', code: 'code-invalid', details: { text }, expression: [path] };
}
