/**
 * Where real EHR servers differ (docs/fhir.md): the local EHR with Medplum's transaction limits on
 * (`routerLimits: 'medplum'`, refused by Medplum's own code, as a Medplum-hosted EHR would), over
 * real HTTP as its own process under the cached Node 24. Today's bundle with the patient found by
 * an identifier is refused; the way the package offers such a server (the Patient and Practitioner
 * found or created first, one request each, then the bundle naming them by their EHR IDs) is
 * stored, as a draft and signed; the package refuses to make a bundle beyond the limits it is told.
 */
import type { Bundle, OperationOutcome, Patient, Practitioner } from '@medplum/fhirtypes';

import {
	buildFhirOutput,
	type FhirOutputSettings,
} from '../../../nodes/ClinicScribe/shared/fhir/fhirOutput';
import { startFhirServer, type RunningFhirServer } from '../../support/fhirServer';
import { visitTransaction } from '../../support/fhirBundles';
import { describeWithNode24 } from '../../support/node24';
import { serviceFhirExample } from '../../support/serviceFhirExample';
import { fhirResults } from '../../unit/fhir/fixtures';

const describeLocalEhr = describeWithNode24('medplumLimits.test.ts');

const MRN = { system: 'https://clinic.example/mrn', value: 'MRN-LIMITS-1' };
const DOCTOR = { system: 'https://clinic.example/doctor', value: 'do-limits-1' };
const SIGNATURE = {
	signedAt: '2026-11-27T11:30:00.000Z',
	channel: 'email' as const,
	edited: false,
};
const FOUND_BY_IDENTIFIER: FhirOutputSettings = {
	patient: { kind: 'identifier', ...MRN },
	practitioner: { kind: 'clinicDoctor', doctorId: DOCTOR.value, system: DOCTOR.system },
};

/** The package's bundle for a visit in the shape of the service's 44-entry FHIR example. */
function serviceVisit(settings: FhirOutputSettings): ReturnType<typeof buildFhirOutput> {
	return buildFhirOutput(
		fhirResults(serviceFhirExample(), { sessionId: 'visit-limits-1' }),
		settings,
		{ clinicDoctors: [{ doctor_id: DOCTOR.value, name: 'Dr. Asha Rao' }] },
		'2026-11-27T12:00:00.000Z',
	);
}

function bundleOf(outcome: ReturnType<typeof buildFhirOutput>): Bundle {
	if (!outcome.ok) throw new Error(outcome.problem.message);
	return outcome.record.bundle as unknown as Bundle;
}

const textsOf = (body: unknown) =>
	((body as OperationOutcome).issue ?? []).map((i) => i.details?.text ?? '');

let ehr: RunningFhirServer;

describeLocalEhr("the local EHR with Medplum's transaction limits", () => {
	beforeAll(async () => {
		ehr = await startFhirServer({ routerLimits: 'medplum' });
	}, 180_000);
	afterAll(async () => await ehr?.stop());
	beforeEach(async () => await ehr.reset());

	test("today's bundle with the patient found by an identifier (47 entries, 2 conditional creates) is refused as Medplum refuses it; nothing stored", async () => {
		const bundle = bundleOf(serviceVisit(FOUND_BY_IDENTIFIER));
		expect(bundle.entry).toHaveLength(47);
		expect(bundle.entry?.filter((entry) => entry.request?.ifNoneExist)).toHaveLength(2);
		const answer = await ehr.transaction(bundle);
		expect([answer.status, textsOf(answer.body)]).toEqual([
			400,
			['Transaction requires strict isolation but has too many entries'],
		]);
		expect(await ehr.counts()).toEqual({});
	});

	test('a small visit with conditional creates (7 entries) is within the limits and stored', async () => {
		const answer = await ehr.transaction(
			visitTransaction({ id: 'visit-small', patientIdentifier: 'P-s', doctorIdentifier: 'D-s' }),
		);
		expect([answer.status, textsOf(answer.body)]).toEqual([200, []]);
	});

	test("more than 50 updates are refused in Medplum's words; 50 are stored", async () => {
		const patients = (count: number): Bundle => ({
			resourceType: 'Bundle',
			type: 'transaction',
			entry: Array.from({ length: count }, (_, index) => ({
				resource: { resourceType: 'Patient', id: `limits-${index}`, gender: 'unknown' },
				request: { method: 'PUT', url: `Patient/limits-${index}` },
			})),
		});
		const refused = await ehr.transaction(patients(51));
		expect([refused.status, textsOf(refused.body)]).toEqual([
			400,
			['Transaction contains more update operations than allowed'],
		]);
		expect(await ehr.counts()).toEqual({});
		expect((await ehr.transaction(patients(50))).status).toBe(200);
		expect(await ehr.counts()).toEqual({ Patient: 50 });
	});

	test('the way such a server accepts: Patient and Practitioner found or created first (If-None-Exist), then the bundle naming them by EHR ID, draft (45 entries) and signed (46)', async () => {
		// One conditional create each, outside any transaction: Medplum's limits do not apply.
		const findOrCreate = async <T extends Patient | Practitioner>(
			resource: T,
			system: string,
			value: string,
		) => {
			const answer = await ehr.request<T>('POST', resource.resourceType, resource, {
				'if-none-exist': `identifier=${system}|${value}`,
			});
			expect([200, 201]).toContain(answer.status);
			return String((answer.body as T).id);
		};
		const patientId = await findOrCreate<Patient>(
			{ resourceType: 'Patient', identifier: [MRN], name: [{ text: 'Asha Verma' }] },
			MRN.system,
			MRN.value,
		);
		const doctorId = await findOrCreate<Practitioner>(
			{ resourceType: 'Practitioner', identifier: [DOCTOR], name: [{ text: 'Dr. Asha Rao' }] },
			DOCTOR.system,
			DOCTOR.value,
		);
		// Found, not created, the second time.
		expect(
			await findOrCreate<Patient>(
				{ resourceType: 'Patient', identifier: [MRN] },
				MRN.system,
				MRN.value,
			),
		).toBe(patientId);

		const existing: FhirOutputSettings = {
			patient: { kind: 'ehrPatient', id: patientId },
			practitioner: { kind: 'ehrPractitioner', id: doctorId },
			transactionLimits: 'medplum',
		};
		const draft = bundleOf(serviceVisit(existing));
		expect(draft.entry).toHaveLength(45);
		const filed = await ehr.transaction(draft);
		expect([filed.status, textsOf(filed.body)]).toEqual([200, []]);
		const signed = bundleOf(serviceVisit({ ...existing, signature: SIGNATURE }));
		expect(signed.entry).toHaveLength(46);
		const signedAnswer = await ehr.transaction(signed);
		expect([signedAnswer.status, textsOf(signedAnswer.body)]).toEqual([200, []]);
		const counts = await ehr.counts();
		expect(counts).toMatchObject({ Patient: 1, Practitioner: 1, Composition: 1, Provenance: 1 });
		expect(await ehr.search('Composition', { subject: `Patient/${patientId}` })).toHaveLength(1);
	});

	test('told the EHR is Medplum, the package makes no bundle the EHR would refuse, and says what to choose', () => {
		const outcome = serviceVisit({ ...FOUND_BY_IDENTIFIER, transactionLimits: 'medplum' });
		expect(outcome.ok).toBe(false);
		if (outcome.ok) return;
		expect(outcome.problem.message).toBe(
			'The bundle finds or creates the patient or the doctor by an identifier and holds 47 entries: a Medplum EHR refuses such a transaction above 8 entries',
		);
		expect(outcome.problem.description).toContain(
			'Choose Patient → Existing EHR Patient and Doctor → Existing EHR Practitioner',
		);
		expect(outcome.problem.description).toContain('nothing was sent to the EHR');
	});
});
