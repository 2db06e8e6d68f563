/**
 * What the doctor reads before signing, rendered from the FHIR bundle that will be filed, so the
 * doctor reviews exactly what the EHR receives (docs/fhir.md, "What the doctor reviews"): the
 * patient, the doctor, the clinic and the visit time at the top, the notes' status, allergies before
 * everything else, then every section of the Composition in its order, each resource in words. A
 * resource it cannot put in words is named, never dropped. Text for an e-mail's message (n8n's Send
 * and Wait escapes HTML), HTML for an HTML e-mail (escaped once, in readableDocument.ts). The
 * subject names the patient and the visit, never a diagnosis. Pure.
 */
import { readableHtml, readableText } from '../answers/readableDocument';
import { asRecord, isRecord, textOf } from '../values';

/** A value as text, '' when it is none. */
const text = (value: unknown): string => textOf(value) ?? '';

interface ReviewDocument {
	subject: string;
	text: string;
	html: string;
	/**
	 * The clinical notes alone (allergies, then every section), as in `text` but without the visit's
	 * header: what a doctor may correct before signing (the patient, the doctor and the time are not
	 * the doctor's to edit in the notes). signedNotes.ts compares the notes as signed with it.
	 */
	notes: string;
}

/** Who the visit is about and where it happened, as the bundle and the session say. */
interface ReviewContext {
	/** The clinic's name, when the session names it. */
	clinic?: string;
	/** The time zone to show times in (the workflow's); UTC otherwise. */
	timeZone?: string;
}

/**
 * A resource as this reads it: any bundle's JSON, read defensively (the review must show whatever
 * the bundle holds, not only what R4's types allow).
 */
type ResourceJson = Record<string, unknown>;

export function renderReviewDocument(bundle: unknown, context: ReviewContext = {}): ReviewDocument {
	const listed = asRecord(bundle)?.entry;
	const entries = (Array.isArray(listed) ? listed : []).flatMap((entry) => {
		const resource = asRecord(asRecord(entry)?.resource);
		return resource ? [{ fullUrl: asRecord(entry)?.fullUrl, resource }] : [];
	});
	const byUrl = new Map(entries.map((entry) => [entry.fullUrl, entry.resource]));
	const first = (type: string) =>
		entries.find((entry) => entry.resource.resourceType === type)?.resource;
	const composition = first('Composition');
	const encounter = first('Encounter');
	const patient = resolved(composition?.subject, byUrl, 'Patient');
	const doctor = resolved(asArray(composition?.author)[0], byUrl, 'Practitioner');
	const visitTime = text(asRecord(encounter?.period)?.start) || text(composition?.date);

	const patientName =
		nameOf(patient.resource) || `the patient (${patient.reference || 'not named'})`;
	const visit: Record<string, string> = {
		Patient: patientName,
		'Directory ID': identifierOf(patient.resource, /directory|eka|oid/i),
		Sex: text(patient.resource?.gender),
		Age: ageAt(text(patient.resource?.birthDate), visitTime),
		Doctor: nameOf(doctor.resource) || doctor.reference || 'not named',
		Clinic: context.clinic ?? 'not named by the session',
		'Visit time': formatTime(visitTime, context.timeZone),
		Status: statusLine(composition, doctor.resource, context.timeZone),
	};

	const notes: Record<string, unknown> = {};
	const sections = asArray(composition?.section).filter(isRecord);
	const allergies = sections.filter((section) => text(section.title) === 'Allergies');
	notes.Allergies = allergies.length
		? allergies.flatMap((section) => sectionLines(section, byUrl))
		: 'None recorded in these notes';
	for (const section of sections) {
		const title = text(section.title) || 'Untitled section';
		if (title === 'Allergies') continue;
		const lines = sectionLines(section, byUrl);
		notes[title] = lines.length ? lines : 'Nothing in this section could be shown: open the EHR';
	}
	const content: Record<string, unknown> = { Visit: visit, ...notes };
	const date = formatTime(visitTime, context.timeZone).split(',')[0];
	return {
		subject: `Please review and sign: notes of ${patientName}${date ? `, visit of ${date}` : ''}`,
		text: sectionsText(content),
		html: readableHtml(content),
		notes: sectionsText(notes),
	};
}

/**
 * Text with a blank line between sections: n8n's Send and Wait centres its message, so the blank
 * lines are what sets one section apart from the next there.
 */
function sectionsText(content: Record<string, unknown>): string {
	return Object.entries(content)
		.map(([title, value]) => readableText({ [title]: value }))
		.filter(Boolean)
		.join('\n\n');
}

function sectionLines(
	section: Record<string, unknown>,
	byUrl: Map<unknown, ResourceJson>,
): string[] {
	return asArray(section.entry).map((reference) => {
		const target = text(asRecord(reference)?.reference);
		const resource = byUrl.get(target);
		if (!resource) return `A resource this bundle does not carry (${target}): open the EHR`;
		return (
			describe(resource) ??
			`A ${String(resource.resourceType)} that cannot be shown here: open the EHR`
		);
	});
}

/** One resource in words, or undefined when it has nothing to say. */
function describe(resource: ResourceJson): string | undefined {
	const what = conceptText(resource.code) || conceptText(resource.medicationCodeableConcept);
	const parts: string[] = [];
	switch (resource.resourceType) {
		case 'Condition':
		case 'AllergyIntolerance': {
			parts.push(what);
			// Said only when the notes leave it open (unconfirmed, provisional, refuted, …).
			const verification = asRecord(asArray(asRecord(resource.verificationStatus)?.coding)[0]);
			if (verification && text(verification.code) !== 'confirmed')
				parts.push(`(${text(verification.display) || text(verification.code)})`);
			if (resource.criticality) parts.push(`criticality ${text(resource.criticality)}`);
			const reactions = asArray(resource.reaction)
				.flatMap((reaction) => asArray(asRecord(reaction)?.manifestation))
				.map(conceptText)
				.filter(Boolean);
			if (reactions.length) parts.push(`reaction: ${reactions.join(', ')}`);
			if (resource.onsetString) parts.push(`since ${text(resource.onsetString)}`);
			break;
		}
		case 'Observation':
			parts.push(what ? `${what}: ${valueOf(resource)}` : valueOf(resource));
			break;
		case 'MedicationRequest':
		case 'MedicationStatement':
			parts.push(what);
			for (const dosage of asArray(resource.dosageInstruction ?? resource.dosage))
				parts.push(text(asRecord(dosage)?.text));
			break;
		case 'FamilyMemberHistory':
			parts.push(
				[
					conceptText(resource.relationship),
					...asArray(resource.condition).map((c) => conceptText(asRecord(c)?.code)),
				]
					.filter(Boolean)
					.join(': '),
			);
			break;
		case 'Appointment':
			parts.push(text(resource.description), text(resource.start));
			break;
		default:
			parts.push(what || text(resource.description) || conceptText(resource.category));
	}
	for (const note of asArray(resource.note)) parts.push(`(${text(asRecord(note)?.text)})`);
	const line = parts
		.map((part) => part.trim())
		.filter((part) => part !== '' && part !== '()')
		.join(' ');
	return line === '' ? undefined : line;
}

function valueOf(resource: ResourceJson): string {
	const quantity = asRecord(resource.valueQuantity);
	if (quantity) return `${text(quantity.value)} ${text(quantity.unit)}`.trim();
	if (resource.valueString !== undefined) return text(resource.valueString);
	if (resource.valueCodeableConcept) return conceptText(resource.valueCodeableConcept);
	const components = asArray(resource.component).map((component) => {
		const record = asRecord(component) ?? {};
		return `${conceptText(record.code)} ${valueOf(record)}`.trim();
	});
	return components.join(', ');
}

function conceptText(value: unknown): string {
	const concept = asRecord(value);
	if (!concept) return typeof value === 'string' ? value : '';
	const coding = asArray(concept.coding).map(asRecord);
	return text(concept.text) || text(coding[0]?.display) || text(coding[0]?.code);
}

function resolved(
	reference: unknown,
	byUrl: Map<unknown, ResourceJson>,
	type: string,
): { reference: string; resource?: ResourceJson } {
	const target = text(asRecord(reference)?.reference);
	const resource = byUrl.get(target);
	return { reference: target, resource: resource?.resourceType === type ? resource : undefined };
}

function nameOf(resource: ResourceJson | undefined): string {
	const name = asRecord(asArray(resource?.name)[0]);
	if (!name) return '';
	return (
		text(name.text) || [...asArray(name.given).map(textOf), text(name.family)].join(' ').trim()
	);
}

function identifierOf(resource: ResourceJson | undefined, system: RegExp): string {
	const identifiers = asArray(resource?.identifier).map(asRecord);
	const found = identifiers.find((identifier) => system.test(text(identifier?.system)));
	return text((found ?? identifiers[0])?.value);
}

function ageAt(birthDate: string, at: string): string {
	const born = Date.parse(birthDate);
	const when = Date.parse(at) || Date.now();
	if (Number.isNaN(born)) return '';
	const years = Math.floor((when - born) / (365.2425 * 24 * 3600 * 1000));
	return years >= 0 ? `${years} years` : '';
}

function statusLine(
	composition: ResourceJson | undefined,
	doctor: ResourceJson | undefined,
	timeZone: string | undefined,
): string {
	const attester = asRecord(asArray(composition?.attester)[0]);
	if (composition?.status === 'final' && attester)
		return `Signed by ${nameOf(doctor) || 'the doctor'} on ${formatTime(text(attester.time), timeZone)}`;
	return 'Draft, not yet signed: nothing has been filed as signed';
}

function formatTime(value: string, timeZone: string | undefined): string {
	const at = Date.parse(value);
	if (Number.isNaN(at)) return '';
	const zone = timeZone || 'UTC';
	try {
		return `${new Intl.DateTimeFormat('en-GB', {
			dateStyle: 'medium',
			timeStyle: 'short',
			timeZone: zone,
		}).format(at)} (${zone})`;
	} catch {
		return new Date(at).toISOString();
	}
}

function asArray(value: unknown): unknown[] {
	return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}
