/**
 * What the doctor reviews (shared/fhir/reviewDocument.ts), held against the FHIR bundle of the same
 * visit: the same patient, doctor, diagnoses, medications, allergies and every section, allergies
 * first; a resource that cannot be shown is named; text from the consultation stays text in HTML;
 * Devanagari stays as written; the subject names the patient, never a diagnosis.
 */
import type { FhirOutputSettings } from '../../../nodes/ClinicScribe/shared/fhir/fhirOutput';
import { DIRECTORY_PATIENT_SYSTEM } from '../../../nodes/ClinicScribe/shared/fhir/participants';
import { renderReviewDocument } from '../../../nodes/ClinicScribe/shared/fhir/reviewDocument';
import { humanise } from '../../../nodes/ClinicScribe/shared/answers/readableDocument';
import { emrDocument } from '../../fake-api/routes/transcription';
import { resourcesOf } from '../../support/fhirR4';
import { built, emrResults } from './fixtures';

const PROFILE = {
	oid: '175074536120088',
	fn: 'Ravi',
	ln: 'Kumar',
	fln: 'Ravi Kumar',
	gen: 'M',
	dob: '1985-04-12',
};
const SETTINGS: FhirOutputSettings = {
	patient: { kind: 'directory', directoryId: PROFILE.oid, system: DIRECTORY_PATIENT_SYSTEM },
	practitioner: { kind: 'clinicDoctor', doctorId: 'do-1', system: 'https://clinic.example/doctor' },
	timeZone: 'Asia/Kolkata',
};
const FETCHED = {
	directoryProfile: PROFILE,
	clinicDoctors: [{ doctor_id: 'do-1', name: 'Dr. Asha Rao' }],
};
const NOTES = emrDocument(true).prescription;
const session = emrResults(NOTES, {
	additionalData: { clinic: { name: 'Sunrise Clinic Indiranagar' } },
});
const record = built(session, SETTINGS, FETCHED);
const review = record.review as { subject: string; text: string; html: string };

/** What a resource is called in the bundle: its code's text. */
const named = (type: string) =>
	resourcesOf(record.bundle, type).map(
		(resource) =>
			(resource.code as { text?: string } | undefined)?.text ??
			(resource.medicationCodeableConcept as { text?: string } | undefined)?.text,
	);

describe('the review is the bundle in words', () => {
	test('the header: patient (name, directory ID, sex, age), doctor, clinic, visit time, status', () => {
		const header = review.text.split('\n').slice(0, 10).join('\n');
		expect(header).toContain('Patient: Ravi Kumar');
		expect(header).toContain(`Directory ID: ${PROFILE.oid}`);
		expect(header).toContain('Sex: male');
		// Born 1985-04-12, seen 2026-11-27.
		expect(header).toContain('Age: 41 years');
		expect(header).toContain('Doctor: Dr. Asha Rao');
		expect(header).toContain('Clinic: Sunrise Clinic Indiranagar');
		// 10:15 UTC in the workflow's time zone.
		expect(header).toContain('Visit time: 27 Nov 2026, 15:45 (Asia/Kolkata)');
		expect(header).toContain('Status: Draft, not yet signed');
	});

	test('allergies before everything else, then every section of the Composition in its order', () => {
		const [composition] = resourcesOf(record.bundle, 'Composition');
		const titles = (composition.section as Array<{ title: string }>).map((s) => s.title);
		expect(titles).toContain('Allergies');
		// The text's headings are the section titles as readable labels ("Follow-up" → "Follow up").
		const positions = ['Allergies', ...titles.filter((t) => t !== 'Allergies')].map((title) =>
			review.text.indexOf(`\n\n${humanise(title)}:\n`),
		);
		expect(review.text.startsWith('Visit:')).toBe(true);
		// A blank line before each section: n8n's Send and Wait centres the message, so only the
		// blank lines set the sections apart there.
		expect(review.text).toMatch(/\n\nAllergies:\n {2}- /);
		expect(positions.every((position) => position >= 0)).toBe(true);
		expect([...positions].sort((a, b) => a - b)).toEqual(positions);
	});

	test('every diagnosis, medication and allergy of the bundle, as the EHR receives it', () => {
		for (const type of [
			'Condition',
			'MedicationRequest',
			'MedicationStatement',
			'AllergyIntolerance',
		]) {
			for (const name of named(type)) {
				expect([type, name && review.text.includes(name)]).toEqual([type, true]);
				expect([type, name && review.html.includes(name)]).toEqual([type, true]);
			}
		}
		expect(named('AllergyIntolerance')).toEqual(['Penicillin']);
		// A diagnosis the notes leave open says so.
		expect(review.text).toContain('Viral fever (Unconfirmed)');
		expect(review.text).toContain('Acute upper respiratory tract infection\n');
		// The lab order and the family history the EHR receives are there too.
		for (const name of named('ServiceRequest')) expect(review.text).toContain(name);
		expect(review.text).toContain('Hypertension');
	});

	test('the subject names the patient and the visit, never a diagnosis', () => {
		expect(review.subject).toBe(
			'Please review and sign: notes of Ravi Kumar, visit of 27 Nov 2026',
		);
		for (const name of named('Condition')) expect(review.subject).not.toContain(String(name));
	});
});

describe('what cannot be shown is named, and consultation text stays text', () => {
	const bundle = (resources: Array<Record<string, unknown>>, titles: Record<string, number[]>) => ({
		resourceType: 'Bundle',
		type: 'transaction',
		entry: [
			...resources.map((resource, index) => ({ fullUrl: `urn:uuid:r${index}`, resource })),
			{
				fullUrl: 'urn:uuid:composition',
				resource: {
					resourceType: 'Composition',
					status: 'preliminary',
					section: Object.entries(titles).map(([title, indexes]) => ({
						title,
						entry: indexes.map((index) => ({ reference: `urn:uuid:r${index}` })),
					})),
				},
			},
		],
	});

	test('a resource the review cannot put in words, and a reference the bundle does not carry', () => {
		const rendered = renderReviewDocument(bundle([{ resourceType: 'Basic' }], { Other: [0, 7] }));
		expect(rendered.text).toContain('A Basic that cannot be shown here: open the EHR');
		expect(rendered.text).toContain('A resource this bundle does not carry (urn:uuid:r7)');
		expect(rendered.text).toContain('Allergies: None recorded in these notes');
	});

	test('markup in the notes is escaped in the HTML; Devanagari is kept as written', () => {
		const rendered = renderReviewDocument(
			bundle(
				[
					{ resourceType: 'Condition', code: { text: 'BP <140/90> & "stable"' } },
					{ resourceType: 'Condition', code: { text: 'वायरल बुखार' } },
				],
				{ Diagnoses: [0, 1] },
			),
		);
		expect(rendered.html).not.toContain('<140/90>');
		expect(rendered.html).toContain('BP &#60;140/90&#62; &#38; &#34;stable&#34;');
		expect(rendered.text).toContain('वायरल बुखार');
		expect(rendered.html).toContain('वायरल बुखार');
	});

	test('signed notes say who signed and when', () => {
		const signed = built(
			session,
			{
				...SETTINGS,
				signature: { signedAt: '2026-11-27T11:30:00Z', channel: 'email', edited: false },
			},
			FETCHED,
		);
		expect((signed.review as { text: string }).text).toContain(
			'Status: Signed by Dr. Asha Rao on 27 Nov 2026, 17:00 (Asia/Kolkata)',
		);
	});
});
