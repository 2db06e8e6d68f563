/**
 * Notes filed as a draft, then signed, in the local EHR (a FHIR R4 server on Medplum's engine that
 * validates every write, as its own process under the cached Node 24): the signed bundle the
 * package builds updates the draft's resources in place (the counts stay, one Provenance more), the
 * Composition read back is final with the doctor as legal attester, and filing the signed bundle
 * once more changes nothing. With the notes as the doctor signed them (a corrected line): one
 * DocumentReference more, holding the corrected text, in the Composition and the Provenance.
 */
import type {
	Bundle,
	Composition,
	DocumentReference,
	Observation,
	Provenance,
} from '@medplum/fhirtypes';

import {
	buildFhirOutput,
	type FhirOutputSettings,
} from '../../../nodes/ClinicScribe/shared/fhir/fhirOutput';
import { emrDocument } from '../../fake-api/routes/transcription';
import { outcomeText, startFhirServer, type RunningFhirServer } from '../../support/fhirServer';
import { describeWithNode24 } from '../../support/node24';
import { emrResults } from '../../unit/fhir/fixtures';

const describeLocalEhr = describeWithNode24('signedNotes.test.ts');

const DOCTORS = [{ doctor_id: 'do-signing-1', name: 'Dr. Asha Rao' }];
const DRAFT: FhirOutputSettings = {
	patient: { kind: 'identifier', system: 'https://clinic.example/mrn', value: 'MRN-SIGN-1' },
	practitioner: {
		kind: 'clinicDoctor',
		doctorId: 'do-signing-1',
		system: 'https://clinic.example/doctor',
	},
};
const SIGNED: FhirOutputSettings = {
	...DRAFT,
	signature: { signedAt: '2026-11-27T11:30:00.000Z', channel: 'email', edited: true },
};

function bundleOf(settings: FhirOutputSettings, sessionId = 'visit-signing-1'): Bundle {
	const outcome = buildFhirOutput(
		emrResults(emrDocument(true).prescription, { sessionId }),
		settings,
		{ clinicDoctors: DOCTORS },
		'2026-11-27T12:00:00.000Z',
	);
	if (!outcome.ok) throw new Error(outcome.problem.message);
	return outcome.record.bundle as unknown as Bundle;
}

let ehr: RunningFhirServer;

describeLocalEhr('a draft, then the signed notes, in the local EHR', () => {
	beforeAll(async () => {
		ehr = await startFhirServer();
	}, 180_000);
	afterAll(async () => await ehr?.stop());

	test('the signed bundle updates the draft in place: the same counts, one Provenance more, the Composition final and attested', async () => {
		const draft = await ehr.transaction(bundleOf(DRAFT));
		expect([draft.status, outcomeText(draft.body)]).toEqual([200, expect.any(String)]);
		const afterDraft = await ehr.counts();
		expect(afterDraft.Composition).toBe(1);
		expect(afterDraft.Provenance ?? 0).toBe(0);

		const signed = await ehr.transaction(bundleOf(SIGNED));
		expect([signed.status, outcomeText(signed.body)]).toEqual([200, expect.any(String)]);
		expect(await ehr.counts()).toEqual({ ...afterDraft, Provenance: 1 });

		const [composition, ...moreCompositions] = await ehr.search<Composition>('Composition');
		expect(moreCompositions).toEqual([]);
		expect(composition.status).toBe('final');
		const [practitioner] = await ehr.search('Practitioner', {
			identifier: 'https://clinic.example/doctor|do-signing-1',
		});
		expect(composition.attester).toEqual([
			{
				mode: 'legal',
				time: '2026-11-27T11:30:00.000Z',
				party: { reference: `Practitioner/${String(practitioner.id)}` },
			},
		]);
		const observations = await ehr.search<Observation>('Observation');
		expect(observations.length).toBeGreaterThan(0);
		expect(new Set(observations.map((o) => o.status))).toEqual(new Set(['final']));
		const [provenance] = await ehr.search<Provenance>('Provenance');
		expect(provenance.target.map((t) => t.reference)).toContain(
			`Composition/${String(composition.id)}`,
		);
		expect(provenance.agent[0].who.reference).toBe(`Practitioner/${String(practitioner.id)}`);

		// The same approval filed once more (a retry of the run): nothing changes.
		expect((await ehr.transaction(bundleOf(SIGNED))).status).toBe(200);
		expect(await ehr.counts()).toEqual({ ...afterDraft, Provenance: 1 });
	});

	test('signed with the corrected notes: one DocumentReference more, holding the edit, named by the Composition and the Provenance; filing again adds nothing', async () => {
		const visit = 'visit-signing-2';
		const second: FhirOutputSettings = {
			...DRAFT,
			patient: { kind: 'identifier', system: 'https://clinic.example/mrn', value: 'MRN-SIGN-2' },
		};
		const before = await ehr.counts();
		expect((await ehr.transaction(bundleOf(second, visit))).status).toBe(200);
		const afterDraft = await ehr.counts();
		const draftOutcome = buildFhirOutput(
			emrResults(emrDocument(true).prescription, { sessionId: visit }),
			second,
			{ clinicDoctors: DOCTORS },
			'2026-11-27T12:00:00.000Z',
		);
		if (!draftOutcome.ok) throw new Error(draftOutcome.problem.message);
		const reviewed = (draftOutcome.record.review as { notes: string }).notes;
		const corrected = reviewed.replace('Cetirizine 10 mg Tablet', 'Cetirizine 5 mg Tablet');
		expect(corrected).not.toBe(reviewed);
		const signedWithNotes: FhirOutputSettings = {
			...second,
			signature: {
				signedAt: '2026-11-27T11:30:00.000Z',
				channel: 'form',
				edited: true,
				notes: corrected,
			},
		};
		const signed = await ehr.transaction(bundleOf(signedWithNotes, visit));
		expect([signed.status, outcomeText(signed.body)]).toEqual([200, expect.any(String)]);
		const afterSigned = await ehr.counts();
		expect(afterSigned).toEqual({
			...afterDraft,
			Provenance: (afterDraft.Provenance ?? 0) + 1,
			DocumentReference: (afterDraft.DocumentReference ?? 0) + 1,
		});
		expect(afterDraft.Composition).toBe((before.Composition ?? 0) + 1);

		const [patient] = await ehr.search('Patient', {
			identifier: 'https://clinic.example/mrn|MRN-SIGN-2',
		});
		const [document, ...moreDocuments] = await ehr.search<DocumentReference>('DocumentReference', {
			subject: `Patient/${String(patient.id)}`,
		});
		expect(moreDocuments).toEqual([]);
		expect(document.docStatus).toBe('final');
		const text = Buffer.from(String(document.content[0].attachment.data), 'base64').toString(
			'utf8',
		);
		expect(text).toContain('Cetirizine 5 mg Tablet');
		expect(text).not.toContain('Cetirizine 10 mg Tablet');
		const [composition] = await ehr.search<Composition>('Composition', {
			subject: `Patient/${String(patient.id)}`,
		});
		const section = composition.section?.find((s) => s.title === 'Notes as signed');
		expect(section?.entry).toEqual([{ reference: `DocumentReference/${String(document.id)}` }]);
		expect(section?.text?.div).toContain('Cetirizine 5 mg Tablet');
		const [provenance] = await ehr.search<Provenance>('Provenance', {
			target: `Composition/${String(composition.id)}`,
		});
		expect(provenance.target.map((t) => t.reference)).toContain(
			`DocumentReference/${String(document.id)}`,
		);

		// Filed twice more (a retry, a re-run): nothing is added.
		for (let run = 0; run < 2; run++)
			expect((await ehr.transaction(bundleOf(signedWithNotes, visit))).status).toBe(200);
		expect(await ehr.counts()).toEqual(afterSigned);
	});
});
