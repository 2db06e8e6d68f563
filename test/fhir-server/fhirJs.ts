/**
 * The local EHR's second judge: FHIR.js (the npm package `fhir`, by Lantana Consulting Group), an R4
 * validator with its own code and its own copy of R4's StructureDefinitions and value sets, shipped
 * inside the package (nothing is fetched). Medplum's engine and this one share nothing, so a bundle
 * the tests see stored has passed two readings of R4, not one engine's.
 *
 * What FHIR.js finds of severity error or fatal refuses the write, as Medplum's findings do:
 * elements R4 does not define (errorOnUnexpected), a required element missing, a code outside a
 * required value set, malformed dates, ids, codes and numbers, a reference to a type the element
 * does not allow. Its warnings (a code outside an extensible or preferred value set) are not
 * refusals in R4 and are dropped. It does not check the form of a `uri` (Medplum's engine does).
 */
import { Fhir } from 'fhir';
import type { ValidatorMessage } from 'fhir';
import type { OperationOutcomeIssue } from '@medplum/fhirtypes';

/** Loaded once per process (its pre-parsed R4 definitions load in tens of milliseconds). */
let fhirJs: Fhir | undefined;

/** The problems FHIR.js finds in one resource, each marked as its finding (empty when it finds none). */
export function fhirJsIssues(resource: object): OperationOutcomeIssue[] {
	fhirJs ??= new Fhir();
	let messages: ValidatorMessage[];
	try {
		// As JSON carries it: FHIR.js reads an element set to undefined as present (a transaction's
		// envelope is checked with its entries' resources left out).
		messages = fhirJs.validate(JSON.parse(JSON.stringify(resource)) as object, {
			errorOnUnexpected: true,
		}).messages;
	} catch (error) {
		// A resource the second engine cannot read is not stored on the first engine's word alone.
		return [
			{
				severity: 'error',
				code: 'exception',
				details: { text: `FHIR.js (R4) could not read it: ${String(error)}` },
			},
		];
	}
	return messages
		.filter((message) => message.severity === 'error' || message.severity === 'fatal')
		.map(asIssue);
}

function asIssue(message: ValidatorMessage): OperationOutcomeIssue {
	const text = message.message ?? 'invalid';
	return {
		severity: 'error',
		code: /^Missing property/.test(text)
			? 'required'
			: /^Unexpected property/.test(text)
				? 'structure'
				: /not found in value set/.test(text)
					? 'code-invalid'
					: 'value',
		details: { text: `FHIR.js (R4): ${text}` },
		...(message.location ? { expression: [message.location] } : {}),
	};
}
