/**
 * Notes signed by the doctor (shared/fhir/signature.ts, docs/fhir.md "Signed by the doctor"): the
 * signed bundle against R4 (the Composition final and attested, the statuses of confirmed notes, a
 * Provenance naming the doctor as legal authenticator of every resource of the visit), the same ids
 * as the draft so filing it updates in place, what a signature cannot be, and the audit trail.
 */
import {
	buildFhirOutput,
	type FhirOutputSettings,
} from '../../../nodes/ClinicScribe/shared/fhir/fhirOutput';
import { readFhirSettings } from '../../../nodes/ClinicScribe/shared/fhir/fields';
import type { NotesSignature } from '../../../nodes/ClinicScribe/shared/fhir/signature';
import { emrDocument } from '../../fake-api/routes/transcription';
import { entriesOf, loadR4, referenceProblems, resourcesOf, type R4 } from '../../support/fhirR4';
import { built, emrResults, EXISTING, EXISTING_REFERENCES } from './fixtures';

let r4: R4;
beforeAll(async () => {
	r4 = await loadR4();
});

const SIGNATURE: NotesSignature = {
	// 11:30 UTC: after the visit (10:15 UTC), before the bundle is made (12:00 UTC).
	signedAt: '2026-11-27T17:00:00.000+05:30',
	channel: 'email',
	edited: false,
};
const SIGNED: FhirOutputSettings = { ...EXISTING, signature: SIGNATURE };
const NOTES = {
	...emrDocument(true).prescription,
	// Devanagari as a doctor may dictate it: kept as written.
	diagnosis: [{ name: 'वायरल बुखार', properties: {} }],
};

const draft = built(emrResults(NOTES));
const signed = built(emrResults(NOTES), SIGNED);

describe('the signed bundle', () => {
	test('every resource passes R4, and every reference resolves', () => {
		for (const resource of resourcesOf(signed.bundle))
			expect([resource.resourceType, r4.validate(resource)]).toEqual([resource.resourceType, []]);
		expect(referenceProblems(signed.bundle, EXISTING_REFERENCES)).toEqual([]);
	});

	test('the Composition is final, attested by the doctor (legal, at the signing time)', () => {
		const [composition] = resourcesOf(signed.bundle, 'Composition');
		expect(composition.status).toBe('final');
		expect(composition.attester).toEqual([
			{ mode: 'legal', time: SIGNATURE.signedAt, party: { reference: 'Practitioner/dr-7' } },
		]);
		const [draftComposition] = resourcesOf(draft.bundle, 'Composition');
		expect(draftComposition.status).toBe('preliminary');
		expect(draftComposition.attester).toBeUndefined();
	});

	test('statuses: observations final; what the notes leave open stays open', () => {
		const observations = resourcesOf(signed.bundle, 'Observation');
		expect(observations.length).toBeGreaterThan(0);
		expect(new Set(observations.map((o) => o.status))).toEqual(new Set(['final']));
		expect(new Set(resourcesOf(draft.bundle, 'Observation').map((o) => o.status))).toEqual(
			new Set(['preliminary']),
		);
		// Signing confirms the document, not a diagnosis the doctor left unconfirmed.
		for (const type of ['Condition', 'AllergyIntolerance'])
			expect(resourcesOf(signed.bundle, type).map((r) => r.verificationStatus)).toEqual(
				resourcesOf(draft.bundle, type).map((r) => r.verificationStatus),
			);
		expect(JSON.stringify(signed.bundle)).toContain('वायरल बुखार');
	});

	test('a Provenance names the doctor as legal authenticator of the Composition and every resource of the visit', () => {
		const [provenance, ...more] = resourcesOf(signed.bundle, 'Provenance');
		expect(more).toEqual([]);
		expect(provenance).toMatchObject({
			recorded: SIGNATURE.signedAt,
			agent: [
				{
					type: {
						coding: [
							{
								system: 'http://terminology.hl7.org/CodeSystem/provenance-participant-type',
								code: 'legal',
								display: 'Legal Authenticator',
							},
						],
					},
					who: { reference: 'Practitioner/dr-7' },
				},
			],
		});
		const ofTheVisit = entriesOf(signed.bundle)
			.filter(
				(entry) =>
					!['Patient', 'Practitioner', 'Provenance'].includes(String(entry.resource?.resourceType)),
			)
			.map((entry) => entry.fullUrl);
		expect((provenance.target as Array<{ reference: string }>).map((t) => t.reference)).toEqual(
			ofTheVisit,
		);
		const targeted = resourcesOf(signed.bundle)
			.filter((_resource, index) => ofTheVisit.includes(entriesOf(signed.bundle)[index].fullUrl))
			.map((resource) => resource.resourceType);
		expect(targeted).toEqual(expect.arrayContaining(['Composition', 'Encounter', 'Condition']));
	});

	test('the same ids as the draft, written the same way: filing it updates in place; the Provenance is derived too', () => {
		const requests = (bundle: unknown) =>
			entriesOf(bundle).map((entry) => [entry.fullUrl, entry.request?.method, entry.request?.url]);
		const signedRequests = requests(signed.bundle);
		expect(signedRequests.slice(0, -1)).toEqual(requests(draft.bundle));
		const [provenanceUrl, method, url] = signedRequests[signedRequests.length - 1];
		expect([method, String(url).split('/')[0]]).toEqual(['PUT', 'Provenance']);
		// Signed again (another run of the same approval): the same Provenance, not a second one.
		const again = built(emrResults(NOTES), {
			...SIGNED,
			signature: { ...SIGNATURE, signedAt: '2026-11-27T11:45:00Z' },
		});
		expect(requests(again.bundle).at(-1)?.[0]).toBe(provenanceUrl);
	});

	test('the item says who signed, when, by which channel, and whether the notes were edited', () => {
		const [provenance] = resourcesOf(signed.bundle, 'Provenance');
		expect(signed.notes_status).toBe('final');
		expect(draft.notes_status).toBe('preliminary');
		expect(draft.signature).toBeUndefined();
		expect(signed.signature).toEqual({
			signed_by: 'Practitioner/dr-7',
			signed_by_name: null,
			signed_at: SIGNATURE.signedAt,
			channel: 'email',
			edited: false,
			provenance: `Provenance/${String(provenance.id)}`,
		});
		const edited = built(emrResults(NOTES), {
			...SIGNED,
			signature: { ...SIGNATURE, channel: 'form', edited: true },
		});
		expect(edited.signature).toMatchObject({ channel: 'form', edited: true });
	});
});

describe('what a signature cannot be: no bundle, the field named, the value never repeated', () => {
	const attempt = (signedAt: string) =>
		buildFhirOutput(
			emrResults(NOTES),
			{ ...EXISTING, signature: { ...SIGNATURE, signedAt } },
			{},
			'2026-11-27T12:00:00.000Z',
		);

	test.each([
		['without a time zone', '2026-11-27T11:30:00', /time zone/],
		['in the future', '2026-11-27T13:00:00Z', /in the future/],
		['before the visit', '2026-11-27T09:00:00Z', /before the visit/],
		['not a date', 'approved', /time zone/],
	])('%s', (_what, signedAt, reason) => {
		const outcome = attempt(signedAt);
		expect(outcome.ok).toBe(false);
		if (outcome.ok) return;
		expect(outcome.problem.message).toMatch(/^Signed At /);
		expect(outcome.problem.message).toMatch(reason);
		expect(outcome.problem.message).not.toContain(signedAt);
		expect(outcome.problem.description).toContain('Nothing was signed');
	});

	test('the fields: a signed status needs Signed At; the channel and the edited flag are checked', () => {
		const read = (values: Record<string, unknown>) =>
			readFhirSettings((name, fallback) => (name in values ? values[name] : fallback), 'action');
		expect(read({ fhirNotesStatus: 'signed' })).toEqual({
			ok: false,
			problem: expect.stringMatching(/^Signed At is empty: signed notes need the time/),
		});
		expect(
			read({
				fhirNotesStatus: 'signed',
				fhirSignedAt: '2020-01-01T00:00:00Z',
				fhirSignedVia: 'fax',
			}),
		).toEqual({ ok: false, problem: 'The Signed Via field is not one of its choices' });
		expect(read({ fhirNotesStatus: 'final' })).toEqual({
			ok: false,
			problem: 'The Notes Status field is not one of its choices',
		});
		expect(
			read({
				fhirNotesStatus: 'signed',
				fhirSignedAt: ' 2020-01-01T00:00:00Z ',
				fhirNotesEdited: true,
			}),
		).toMatchObject({
			ok: true,
			value: { signature: { signedAt: '2020-01-01T00:00:00Z', channel: 'email', edited: true } },
		});
		const draftRead = read({});
		expect(draftRead.ok && draftRead.value.signature).toBeFalsy();
	});

	test('Signed At given to the minute gets its seconds, so attester.time and Provenance.recorded pass R4', () => {
		const read = readFhirSettings(
			(name, fallback) =>
				({ fhirNotesStatus: 'signed', fhirSignedAt: '2026-11-27T17:00+05:30' })[name] ?? fallback,
			'action',
		);
		if (!read.ok) throw new Error(read.problem);
		expect(read.value.signature?.signedAt).toBe('2026-11-27T17:00:00+05:30');
		const record = built(emrResults(NOTES), { ...EXISTING, signature: read.value.signature });
		const [composition] = resourcesOf(record.bundle, 'Composition');
		expect((composition.attester as Array<{ time: string }>)[0].time).toBe(
			'2026-11-27T17:00:00+05:30',
		);
		for (const type of ['Composition', 'Provenance']) {
			const [resource] = resourcesOf(record.bundle, type);
			expect([type, r4.validate(resource)]).toEqual([type, []]);
		}
	});

	test('the trigger files drafts only: it reads no signature', () => {
		const read = readFhirSettings(
			(name, fallback) =>
				name === 'fhirNotesStatus' ? 'signed' : name === 'fhirSignedAt' ? 'x' : fallback,
			'trigger',
		);
		expect(read.ok && read.value.signature).toBeFalsy();
	});
});
