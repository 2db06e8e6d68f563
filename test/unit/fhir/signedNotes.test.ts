/**
 * The notes as the doctor signed them (shared/fhir/signedNotes.ts, docs/fhir.md "Notes as signed"):
 * with Notes as Signed, the signed bundle files the doctor's text in a DocumentReference (R4, its
 * derived id, the visit's patient, Encounter and doctor, the text as a Markdown attachment), a
 * Composition section that refers to it and shows the text, and the Provenance names it; the audit
 * says edited when the text is not the review's notes; a text beyond the bound fails the field.
 */
import type { FhirOutputSettings } from '../../../nodes/ClinicScribe/shared/fhir/fhirOutput';
import { readFhirSettings } from '../../../nodes/ClinicScribe/shared/fhir/fields';
import type { NotesSignature } from '../../../nodes/ClinicScribe/shared/fhir/signature';
import {
	normalisedNotes,
	SIGNED_NOTES_MAX_CHARACTERS,
} from '../../../nodes/ClinicScribe/shared/fhir/signedNotes';
import { emrDocument } from '../../fake-api/routes/transcription';
import { entriesOf, loadR4, referenceProblems, resourcesOf, type R4 } from '../../support/fhirR4';
import { built, emrResults, EXISTING, EXISTING_REFERENCES } from './fixtures';

let r4: R4;
beforeAll(async () => {
	r4 = await loadR4();
});

const SIGNATURE: NotesSignature = {
	signedAt: '2026-11-27T17:00:00.000+05:30',
	channel: 'form',
	edited: false,
};
const NOTES = emrDocument(true).prescription;
const draft = built(emrResults(NOTES));
const reviewed = (draft.review as { notes: string }).notes;
// The doctor corrects one line in the form (a browser sends its lines with \r\n).
const corrected = reviewed
	.replace('Cetirizine 10 mg Tablet', 'Cetirizine 5 mg Tablet')
	.replace(/\n/g, '\r\n');
const signedWith = (notes: string, signature: Partial<NotesSignature> = {}) =>
	built(emrResults(NOTES), {
		...EXISTING,
		signature: { ...SIGNATURE, ...signature, notes },
	} satisfies FhirOutputSettings);
const signed = signedWith(corrected);
const [document] = resourcesOf(signed.bundle, 'DocumentReference');
const decoded = (resource: Record<string, unknown>) => {
	const [{ attachment }] = resource.content as Array<{ attachment: { data: string } }>;
	return Buffer.from(attachment.data, 'base64').toString('utf8');
};

describe('the notes as signed in the bundle', () => {
	test('the review offers the notes alone: its text without the visit header', () => {
		const review = draft.review as { text: string; notes: string };
		expect(reviewed.startsWith('Allergies:')).toBe(true);
		expect(reviewed).toContain('Cetirizine 10 mg Tablet');
		expect(review.text.endsWith(reviewed)).toBe(true);
		expect(reviewed).not.toContain('Patient:');
	});

	test('every resource passes R4, every reference resolves', () => {
		for (const resource of resourcesOf(signed.bundle))
			expect([resource.resourceType, r4.validate(resource)]).toEqual([resource.resourceType, []]);
		expect(referenceProblems(signed.bundle, EXISTING_REFERENCES)).toEqual([]);
	});

	test('one DocumentReference: current, final, the visit and the doctor, the text as Markdown', () => {
		expect(resourcesOf(signed.bundle, 'DocumentReference')).toHaveLength(1);
		const [encounter] = entriesOf(signed.bundle).filter(
			(entry) => entry.resource?.resourceType === 'Encounter',
		);
		expect(document).toMatchObject({
			status: 'current',
			docStatus: 'final',
			subject: { reference: 'Patient/p-42' },
			author: [{ reference: 'Practitioner/dr-7' }],
			authenticator: { reference: 'Practitioner/dr-7' },
			context: { encounter: [{ reference: encounter.fullUrl }] },
			content: [
				{
					attachment: {
						contentType: 'text/markdown; charset=utf-8',
						title: 'Notes as signed by the doctor',
						creation: SIGNATURE.signedAt,
					},
				},
			],
		});
		// The doctor's text, its line ends as \n, the correction kept.
		expect(decoded(document)).toBe(normalisedNotes(corrected));
		expect(decoded(document)).toContain('Cetirizine 5 mg Tablet');
		expect(decoded(document)).not.toContain('\r');
	});

	test('the Composition has a section "Notes as signed" with the text, referring to it; the Provenance names it', () => {
		const [composition] = resourcesOf(signed.bundle, 'Composition');
		const documentUrl = entriesOf(signed.bundle).find(
			(entry) => entry.resource?.resourceType === 'DocumentReference',
		)?.fullUrl;
		const section = (
			composition.section as Array<{
				title: string;
				text?: { div: string };
				entry: Array<{ reference: string }>;
			}>
		).find((s) => s.title === 'Notes as signed');
		expect(section?.entry).toEqual([{ reference: documentUrl }]);
		expect(section?.text?.div).toContain('Cetirizine 5 mg Tablet');
		expect(signed.sections).toContain('Notes as signed');
		const [provenance] = resourcesOf(signed.bundle, 'Provenance');
		expect((provenance.target as Array<{ reference: string }>).map((t) => t.reference)).toContain(
			documentUrl,
		);
	});

	test('text that could be markup stays text in the narrative', () => {
		const withMarkup = signedWith(`${reviewed}\n<script>alert(1)</script> & more`);
		const [composition] = resourcesOf(withMarkup.bundle, 'Composition');
		const div = JSON.stringify(composition.section);
		expect(div).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; more');
		expect(div).not.toContain('<script>');
	});

	test('the id is derived: signed again, the same DocumentReference; a draft has none', () => {
		const again = signedWith(reviewed, { signedAt: '2026-11-27T11:45:00Z' });
		const url = (bundle: unknown) =>
			entriesOf(bundle).find((entry) => entry.resource?.resourceType === 'DocumentReference')
				?.request?.url;
		expect(url(again.bundle)).toBe(url(signed.bundle));
		expect(url(signed.bundle)).toBe(`DocumentReference/${String(document.id)}`);
		expect(resourcesOf(draft.bundle, 'DocumentReference')).toEqual([]);
		// The structured resources do not change with the text: they are the service's.
		expect(resourcesOf(signed.bundle, 'MedicationRequest')).toEqual(
			resourcesOf(again.bundle, 'MedicationRequest'),
		);
	});

	test('the audit: edited when the text is not the review notes, or when the doctor said so', () => {
		expect(signed.signature).toMatchObject({
			channel: 'form',
			edited: true,
			notes: normalisedNotes(corrected),
			document_reference: `DocumentReference/${String(document.id)}`,
		});
		// The review's notes as they were (a form sends \r\n, trailing spaces): not edited.
		const unchanged = signedWith(`${reviewed.replace(/\n/g, '  \r\n')}\r\n`);
		expect(unchanged.signature).toMatchObject({ edited: false });
		expect(decoded(resourcesOf(unchanged.bundle, 'DocumentReference')[0])).toBe(reviewed);
		expect(signedWith(reviewed, { edited: true }).signature).toMatchObject({ edited: true });
	});
});

describe('the Notes as Signed field', () => {
	const read = (values: Record<string, unknown>) =>
		readFhirSettings(
			(name, fallback) =>
				name in values
					? values[name]
					: name === 'fhirNotesStatus'
						? 'signed'
						: name === 'fhirSignedAt'
							? '2026-11-27T11:30:00Z'
							: fallback,
			'action',
		);

	test('empty: no notes; given: normalised', () => {
		const none = read({ fhirSignedNotes: ' \n ' });
		expect(none.ok && none.value.signature).toEqual({
			signedAt: '2026-11-27T11:30:00Z',
			channel: 'email',
			edited: false,
		});
		const given = read({ fhirSignedNotes: 'Diagnoses:\r\n  - Viral fever  \r\n' });
		expect(given.ok && given.value.signature?.notes).toBe('Diagnoses:\n  - Viral fever');
	});

	test('beyond the bound or not text: the field named, the text never repeated', () => {
		const long = 'x'.repeat(SIGNED_NOTES_MAX_CHARACTERS + 1);
		const outcome = read({ fhirSignedNotes: long });
		expect(outcome).toEqual({
			ok: false,
			problem: expect.stringMatching(
				/^Notes as Signed is 100,001 characters, more than the 100,000/,
			),
		});
		expect(outcome.ok ? '' : outcome.problem).not.toContain('xxxx');
		expect(read({ fhirSignedNotes: { text: 'a' } })).toEqual({
			ok: false,
			problem: 'Notes as Signed is not text',
		});
		// Exactly the bound is fine.
		expect(read({ fhirSignedNotes: 'y'.repeat(SIGNED_NOTES_MAX_CHARACTERS) }).ok).toBe(true);
	});
});
