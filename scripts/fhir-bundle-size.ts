/**
 * The size of the transaction bundle the FHIR output makes from a FHIR output in the shape of the
 * service's 44-entry example: entries and bytes of its JSON, as n8n stores it in an item (compact)
 * and pretty-printed, for the two kinds of Patient and Doctor choice (existing in the EHR: two fewer
 * entries; found or created by an identifier). With a path, the bundle in that file (for example
 * the service's published example, saved as JSON); without, the project's own fixture in its shape.
 *
 *   npx tsx scripts/fhir-bundle-size.ts [fhir-bundle.json]
 */
import { readFileSync } from 'node:fs';

import {
	buildFhirOutput,
	type FhirOutputSettings,
} from '../nodes/ClinicScribe/shared/fhir/fhirOutput';
import { DOCTOR_SYSTEM } from '../nodes/ClinicScribe/shared/fhir/participants';
import type { SessionResults } from '../nodes/ClinicScribe/shared/answers/sessionResults';
import { serviceFhirExample } from '../test/support/serviceFhirExample';

const path = process.argv[2];
const source = path
	? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>)
	: serviceFhirExample();
const results: SessionResults = {
	sessionId: 'visit-size-check',
	status: 'completed',
	httpStatus: 200,
	createdAt: '2026-11-27T10:00:00.000Z',
	additionalData: { doctor: { _id: '174097180967921' } },
	templates: [
		{
			templateId: 'fhir',
			name: 'FHIR bundle',
			status: 'success',
			format: 'json',
			value: source,
			errors: [],
			warnings: [],
		},
	],
};
const choices: Array<[string, FhirOutputSettings]> = [
	[
		'existing EHR Patient and Practitioner',
		{
			patient: { kind: 'ehrPatient', id: 'p-42' },
			practitioner: { kind: 'ehrPractitioner', id: 'dr-7' },
		},
	],
	[
		'found or created by identifier',
		{
			patient: {
				kind: 'identifier',
				system: 'https://hospital.example.org/mrn',
				value: 'MRN-0042',
			},
			practitioner: { kind: 'sessionDoctor', system: DOCTOR_SYSTEM },
		},
	],
];

const entriesIn = (bundle: unknown) => ((bundle as { entry?: unknown[] }).entry ?? []).length;
console.log(
	`source: ${path ?? "the project's fixture (test/support/serviceFhirExample.ts)"}: ${entriesIn(source)} entries, ${Buffer.byteLength(JSON.stringify(source))} bytes`,
);
for (const [label, settings] of choices) {
	const outcome = buildFhirOutput(results, settings, {});
	if (!outcome.ok) throw new Error(outcome.problem.message);
	const bundle = outcome.record.bundle;
	console.log(
		`${label}: ${entriesIn(bundle)} entries, ${Buffer.byteLength(JSON.stringify(bundle))} bytes compact, ${Buffer.byteLength(JSON.stringify(bundle, null, 2))} bytes pretty-printed`,
	);
}
