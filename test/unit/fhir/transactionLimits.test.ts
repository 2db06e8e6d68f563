/**
 * The EHR's transaction limits (shared/fhir/transactionLimits.ts): entries counted as Medplum counts
 * them, the bundles of the package measured against its limits, and the option read from FHIR
 * Options. The refusal by Medplum's own code is tested against the local EHR
 * (test/integration/fhir-server/medplumLimits.test.ts).
 */
import {
	readFhirSettings,
	type ParameterReader,
} from '../../../nodes/ClinicScribe/shared/fhir/fields';
import type { BundleEntry } from '../../../nodes/ClinicScribe/shared/fhir/resources';
import {
	transactionLimitProblem,
	transactionShape,
} from '../../../nodes/ClinicScribe/shared/fhir/transactionLimits';
import { emrDocument } from '../../fake-api/routes/transcription';
import { serviceFhirExample } from '../../support/serviceFhirExample';
import { EXISTING, built, emrResults, fhirResults } from './fixtures';

const put = (index: number): BundleEntry => ({
	fullUrl: `urn:uuid:${index}`,
	resource: {
		resourceType: 'Observation',
		id: `o-${index}`,
		status: 'final',
		code: { text: 'Pulse' },
	},
	request: { method: 'PUT', url: `Observation/o-${index}` },
});
const conditional: BundleEntry = {
	fullUrl: 'urn:uuid:p',
	resource: { resourceType: 'Patient' },
	request: { method: 'POST', url: 'Patient', ifNoneExist: 'identifier=s|v' },
};
const puts = (count: number) => Array.from({ length: count }, (_, index) => put(index));
const BY_IDENTIFIER = {
	patient: { kind: 'identifier', system: 'https://clinic.example/mrn', value: 'M-1' },
	practitioner: { kind: 'ehrPractitioner', id: 'dr-7' },
} as const;

describe("Medplum's limits on one transaction", () => {
	test('counted as Medplum counts: every PUT an update; a conditional create or a PUT by search needs strict isolation', () => {
		const byUrl: BundleEntry = {
			...put(9),
			request: { method: 'PUT', url: 'Patient?identifier=s|v' },
		};
		expect(transactionShape([conditional, byUrl, ...puts(3)])).toEqual({
			entries: 5,
			updates: 4,
			conditional: 2,
		});
	});

	test('the edges: 50 updates and 8 entries with a conditional create pass; 51 and 9 do not', () => {
		expect(transactionLimitProblem(puts(50), 'medplum')).toBeUndefined();
		expect(transactionLimitProblem(puts(51), 'medplum')?.message).toBe(
			'The bundle holds 51 updates: a Medplum EHR refuses a transaction with more than 50',
		);
		expect(transactionLimitProblem([conditional, ...puts(7)], 'medplum')).toBeUndefined();
		expect(transactionLimitProblem([conditional, ...puts(8)], 'medplum')?.message).toMatch(
			/by an identifier and holds 9 entries: a Medplum EHR refuses such a transaction above 8 entries$/,
		);
		// No limits known: nothing is refused.
		expect(transactionLimitProblem([conditional, ...puts(60)], 'none')).toBeUndefined();
		expect(transactionLimitProblem([conditional, ...puts(60)], undefined)).toBeUndefined();
	});

	test("the package's bundles: with EHR IDs they fit (the service example's 45 entries, the fake API's 21); found by an identifier they do not", () => {
		const limits = { transactionLimits: 'medplum' } as const;
		expect(built(fhirResults(serviceFhirExample()), { ...EXISTING, ...limits }).entry_count).toBe(
			45,
		);
		expect(
			built(emrResults(emrDocument(true).prescription), { ...EXISTING, ...limits }).entry_count,
		).toBe(21);
		expect(() => built(fhirResults(serviceFhirExample()), { ...BY_IDENTIFIER, ...limits })).toThrow(
			/holds 46 entries: a Medplum EHR refuses/,
		);
		// Without the option the same bundle is made, as before.
		expect(built(fhirResults(serviceFhirExample()), BY_IDENTIFIER).entry_count).toBe(46);
	});
});

describe('FHIR Options → EHR Transaction Limits', () => {
	const reader =
		(values: Record<string, unknown>): ParameterReader =>
		(name, fallback) =>
			name in values ? values[name] : fallback;

	test('Medplum is carried to the bundle (action and trigger); None Known and the default add nothing; another value is refused', () => {
		for (const node of ['action', 'trigger'] as const) {
			const medplum = readFhirSettings(
				reader({ fhirOptions: { ehrTransactionLimits: 'medplum' } }),
				node,
			);
			expect(medplum).toMatchObject({ ok: true, value: { transactionLimits: 'medplum' } });
			const none = readFhirSettings(
				reader({ fhirOptions: { ehrTransactionLimits: 'none' } }),
				node,
			);
			expect(none.ok && 'transactionLimits' in none.value).toBe(false);
			expect(none).toEqual(readFhirSettings(reader({}), node));
		}
		expect(
			readFhirSettings(reader({ fhirOptions: { ehrTransactionLimits: 'hapi' } }), 'action'),
		).toEqual({
			ok: false,
			problem: 'FHIR Options → EHR Transaction Limits is not one of its choices',
		});
	});
});
