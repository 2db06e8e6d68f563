/**
 * What every write must pass before the local EHR stores it (repository.ts calls it for each
 * create, update, patch and each batch/transaction entry):
 *   - structure, cardinality, types and formats against the R4 StructureDefinitions, and R4's
 *     invariants of severity error (@medplum/core validateResource: unknown properties, missing
 *     required elements, a value of the wrong type, a malformed date, an array where one value
 *     belongs, …);
 *   - three findings Medplum reports only as warnings "to avoid breaking existing code" (its
 *     words), which R4 makes errors: a reference to a resource type the element does not allow
 *     (Condition.subject → Practitioner), two values of one choice element (valueString and
 *     valueQuantity), a primitive extension of the wrong type;
 *   - resource ids (and contained ids) of R4's id type: letters, digits, `-` and `.`, 1–64 long;
 *   - codes of required bindings (valueSets.ts);
 *   - and, read a second time by an engine that shares nothing with Medplum's, what FHIR.js finds
 *     in error (fhirJs.ts; its issues say "FHIR.js (R4)"), so no write rests on one engine.
 * References must also resolve; that needs the store, so repository.ts checks it (references.ts).
 */
import { OperationOutcomeError, isResourceType, validateResource } from '@medplum/core';
import type { TypedValueWithPath } from '@medplum/core';
import type { OperationOutcomeIssue, Resource } from '@medplum/fhirtypes';

import { loadR4Definitions } from './definitions';
import { fhirJsIssues } from './fhirJs';
import { RequiredBindings } from './valueSets';

/** R4's id datatype. */
export const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;

let bindings: RequiredBindings | undefined;

/** The reasons a resource may not be stored (empty when it may). */
export function validationIssues(resource: unknown): OperationOutcomeIssue[] {
	if (typeof resource !== 'object' || resource === null || Array.isArray(resource))
		return [
			issue('structure', 'The body is not a FHIR resource (a JSON object with resourceType)', ''),
		];
	const { resourceType } = resource as { resourceType?: unknown };
	if (typeof resourceType !== 'string' || !isResourceType(resourceType)) {
		return [
			issue(
				'structure',
				`Unknown resourceType ${JSON.stringify(resourceType)}: not an R4 resource type`,
				'resourceType',
			),
		];
	}
	bindings ??= new RequiredBindings(loadR4Definitions().terminology);
	const tokens: Record<string, TypedValueWithPath[]> = {};
	let found: OperationOutcomeIssue[];
	try {
		found = validateResource(resource as Resource, { collect: { tokens } });
	} catch (error) {
		if (!(error instanceof OperationOutcomeError)) throw error;
		found = error.outcome.issue ?? [];
	}
	// Every warning validateResource gives is one of the three R4 errors above. Its reference-type
	// check reads the type from the text before "/", so it misnames urn:uuid and absolute
	// references; references.ts judges those (with a clearer reason).
	const structural = found
		.filter((i) => !/^Invalid reference: got "[^"]*:/.test(i.details?.text ?? ''))
		.map((i) => ({ ...i, severity: 'error' as const }));
	return [
		...structural,
		...idIssues(resource as Resource),
		...bindings.check(tokens),
		...fhirJsIssues(resource),
	];
}

function idIssues(resource: Resource): OperationOutcomeIssue[] {
	const issues: OperationOutcomeIssue[] = [];
	const check = (id: unknown, path: string) => {
		if (id !== undefined && (typeof id !== 'string' || !FHIR_ID.test(id))) {
			issues.push(
				issue(
					'value',
					`${JSON.stringify(id)} is not a FHIR id (letters, digits, "-" and "." only, 1 to 64 of them)`,
					path,
				),
			);
		}
	};
	check(resource.id, `${resource.resourceType}.id`);
	const contained = (resource as { contained?: Resource[] }).contained;
	if (Array.isArray(contained))
		contained.forEach((inner, index) =>
			check(inner?.id, `${resource.resourceType}.contained[${index}].id`),
		);
	return issues;
}

export function issue(
	code: OperationOutcomeIssue['code'],
	text: string,
	expression: string,
): OperationOutcomeIssue {
	return {
		severity: 'error',
		code,
		details: { text },
		...(expression ? { expression: [expression] } : {}),
	};
}
