/**
 * Fixtures of the FHIR mapping tests: sessions as the nodes read them (SessionResults) holding an
 * EMR document or the service's FHIR output, in the shapes the service documents ([EKA-EMR] for the
 * `prescription` wrapper and a medication, [EKA-EMR-ADAPTER] for the sections), and the choices of
 * Patient and Doctor.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	buildFhirOutput,
	type FhirFetched,
	type FhirOutputSettings,
} from '../../../nodes/ClinicScribe/shared/fhir/fhirOutput';
import type { SessionResults } from '../../../nodes/ClinicScribe/shared/answers/sessionResults';
import { resourcesOf } from '../../support/fhirR4';

/** An existing EHR patient and practitioner: the bundle refers to them as they are. */
export const EXISTING: FhirOutputSettings = {
	patient: { kind: 'ehrPatient', id: 'p-42' },
	practitioner: { kind: 'ehrPractitioner', id: 'dr-7' },
};
export const EXISTING_REFERENCES = ['Patient/p-42', 'Practitioner/dr-7'];

export const RECORDED_AT = '2026-11-27T10:15:00.000Z';

export function emrResults(
	prescription: Record<string, unknown>,
	overrides: Partial<SessionResults> = {},
): SessionResults {
	return {
		sessionId: 'visit-0042',
		status: 'completed',
		httpStatus: 200,
		createdAt: RECORDED_AT,
		templates: [
			{
				templateId: 'clinical_notes_template',
				name: 'Clinical Notes',
				status: 'success',
				format: 'json',
				value: { chief_complaints: ['Fever'] },
				errors: [],
				warnings: [],
			},
			{
				templateId: 'eka_emr_template',
				name: 'EKA EMR Template',
				status: 'success',
				type: 'eka_emr',
				format: 'json',
				value: { prescription },
				errors: [],
				warnings: [],
			},
		],
		...overrides,
	};
}

export function fhirResults(
	bundle: unknown,
	overrides: Partial<SessionResults> = {},
): SessionResults {
	return {
		sessionId: 'visit-0042',
		status: 'completed',
		httpStatus: 200,
		createdAt: RECORDED_AT,
		templates: [
			{
				templateId: 'fhir',
				name: 'FHIR bundle',
				status: 'success',
				format: 'json',
				value: bundle,
				errors: [],
				warnings: [],
			},
		],
		...overrides,
	};
}

/** The item of a visit; fails the test with the problem when no bundle is made. */
export function built(
	results: SessionResults,
	settings: FhirOutputSettings = EXISTING,
	fetched: FhirFetched = {},
): IDataObject {
	const outcome = buildFhirOutput(results, settings, fetched, '2026-11-27T12:00:00.000Z');
	if (!outcome.ok) throw new Error(`no bundle: ${outcome.problem.message}`);
	return outcome.record;
}

/** The resources of one type in the bundle of an EMR document. */
export function mapped(
	prescription: Record<string, unknown>,
	type: string,
): Array<Record<string, unknown>> {
	return resourcesOf(built(emrResults(prescription)).bundle, type);
}

/** `properties` as the EMR writes them ([EKA-EMR-ADAPTER] symptoms.js, diagnosis.js). */
export function properties(
	values: Record<string, string | [string, string]>,
): Record<string, unknown> {
	return Object.fromEntries(
		Object.entries(values).map(([name, value], index) => [
			`pg-${1000 + index}`,
			{ name, selection: [Array.isArray(value) ? { value: value[0], unit: value[1] } : { value }] },
		]),
	);
}
