/**
 * Referential integrity: every `Reference.reference` a stored resource holds must resolve to a
 * resource this EHR holds (as HAPI FHIR enforces by default). A reference that resolves to nothing
 * is refused with the element's path and the reference as written.
 *
 * Resolves: `Type/id` (and `Type/id/_history/n`) of a stored resource; this server's own absolute
 * URL of one; `#id` of a contained resource (`#` alone: the container). Within a transaction,
 * `urn:uuid:` references to entries' fullUrls are rewritten to `Type/id` before this check.
 * Refused: a reference to a resource not held, an empty or malformed id (`Practitioner/`), a
 * `urn:uuid:` no entry carries, a conditional reference (`Patient?identifier=…`, not resolved
 * here), and absolute URLs of other servers (this EHR cannot check them). A Reference with only an
 * identifier or display (no `reference`) has nothing to resolve and is allowed.
 */
import { crawlTypedValue, isResourceType, toTypedValue } from '@medplum/core';
import type { OperationOutcomeIssue, Resource } from '@medplum/fhirtypes';

import { FHIR_ID, issue } from './validation';

export interface FoundReference {
	/** Where it is, as validateResource names paths: `Composition.section[0].entry[1]`. */
	path: string;
	reference: string;
}

/** Every Reference.reference in a resource, contained resources and extensions included. */
export function referencesIn(resource: Resource): FoundReference[] {
	const found: FoundReference[] = [];
	crawlTypedValue(toTypedValue(resource), {
		visitProperty: (_parent, _key, _path, values) => {
			for (const value of values.flat()) {
				const reference =
					value.type === 'Reference'
						? (value.value as { reference?: unknown }).reference
						: undefined;
				if (typeof reference === 'string') found.push({ path: value.path, reference });
			}
		},
	});
	return found;
}

/** A literal reference `Type/id` split, or why it is not one. */
export function parseLiteralReference(
	reference: string,
	ownBaseUrl?: string,
): { type: string; id: string } | { problem: string } {
	let relative = reference;
	if (/^https?:\/\//i.test(reference)) {
		if (!ownBaseUrl || !reference.startsWith(`${ownBaseUrl}/`)) {
			return {
				problem:
					'is an absolute URL of another server; this EHR only stores references it can resolve',
			};
		}
		relative = reference.slice(ownBaseUrl.length + 1);
	}
	if (/^urn:(uuid|oid):/i.test(relative))
		return {
			problem:
				'is a bundle-local reference that no entry of this transaction carries as its fullUrl',
		};
	if (relative.includes('?'))
		return {
			problem:
				'is a conditional reference; this EHR resolves only literal ones (Type/id, or urn:uuid within a transaction)',
		};
	const [type, id, history, version, ...rest] = relative.split('/');
	if (rest.length > 0 || (history !== undefined && (history !== '_history' || !version)))
		return { problem: 'is not a FHIR reference (Type/id)' };
	if (!isResourceType(type)) return { problem: `names no R4 resource type ("${type}")` };
	if (id === undefined || id === '') return { problem: 'has no id after the resource type' };
	if (!FHIR_ID.test(id))
		return {
			problem: `has an id that is not a FHIR id ("${id}": letters, digits, "-" and "." only)`,
		};
	return { type, id };
}

/**
 * Issues for the references of `resource` that resolve to nothing. `holds(type, id)` says whether
 * the store holds a resource; the resource itself counts as held (a self-reference resolves).
 */
export function unresolvedReferences(
	resource: Resource,
	holds: (type: string, id: string) => boolean,
	ownBaseUrl?: string,
): OperationOutcomeIssue[] {
	const containedIds = new Set(
		((resource as { contained?: Resource[] }).contained ?? [])
			.map((inner) => inner?.id)
			.filter(Boolean),
	);
	const issues: OperationOutcomeIssue[] = [];
	for (const { path, reference } of referencesIn(resource)) {
		if (reference.startsWith('#')) {
			const id = reference.slice(1);
			if (id !== '' && !containedIds.has(id))
				issues.push(
					issue(
						'not-found',
						`${path} refers to ${reference}, but no contained resource has the id "${id}"`,
						path,
					),
				);
			continue;
		}
		const parsed = parseLiteralReference(reference, ownBaseUrl);
		if ('problem' in parsed) {
			issues.push(
				issue('invalid', `${path} refers to "${reference}", which ${parsed.problem}`, path),
			);
		} else if (
			!(parsed.type === resource.resourceType && parsed.id === resource.id) &&
			!holds(parsed.type, parsed.id)
		) {
			issues.push(
				issue(
					'not-found',
					`${path} refers to ${reference}, which resolves to nothing: this EHR holds no ${parsed.type} with the id "${parsed.id}"`,
					path,
				),
			);
		}
	}
	return issues;
}
