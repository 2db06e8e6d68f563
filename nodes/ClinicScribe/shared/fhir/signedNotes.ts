/**
 * The notes as the doctor signed them (docs/fhir.md, "Notes as signed"): the text the doctor
 * approved, after any correction, filed with the signed bundle so the EHR holds what the doctor
 * actually signed. One DocumentReference (the text as a Markdown attachment, the doctor as author
 * and authenticator), a section "Notes as signed" of the Composition that refers to it and shows
 * the text, and, through signature.ts, a target of the Provenance. The structured resources
 * (diagnoses, medications, …) still come from the service's document: a correction in the text
 * does not change them. Its id is derived like every other, so filing again updates it in place.
 * Pure: only node:crypto.
 */
import { createHash } from 'node:crypto';

import type { DocumentReference } from '@medplum/fhirtypes';

import { uuidUrl } from './ids';
import type { BundleEntry, Reference } from './resources';

/** The package's bound on the notes as signed (characters): a consultation note is a few thousand. */
export const SIGNED_NOTES_MAX_CHARACTERS = 100_000;

const SIGNED_NOTES_SECTION = 'Notes as signed';
const ATTACHMENT_TITLE = 'Notes as signed by the doctor';
const CONSULT_NOTE = { system: 'http://loinc.org', code: '11488-4', display: 'Consult note' };

/**
 * The text as it is filed and compared: line ends as `\n` (a browser's form sends `\r\n`), no
 * trailing spaces on a line, no blank lines around it. Everything else stays as the doctor wrote it.
 */
export function normalisedNotes(text: string): string {
	return text
		.replace(/\r\n?/g, '\n')
		.split('\n')
		.map((line) => line.trimEnd())
		.join('\n')
		.replace(/^\n+|\n+$/g, '');
}

/** Why a Notes as Signed value cannot be filed, or undefined; messages never repeat the text. */
export function signedNotesProblem(value: unknown): string | undefined {
	if (typeof value !== 'string') return 'is not text';
	if (value.length > SIGNED_NOTES_MAX_CHARACTERS)
		return `is ${value.length.toLocaleString('en-US')} characters, more than the ${SIGNED_NOTES_MAX_CHARACTERS.toLocaleString('en-US')} a note of one visit can be here`;
	return undefined;
}

/** A Composition section that shows the text (its narrative) and refers to the DocumentReference. */
interface SignedNotesSection {
	title: string;
	text: { status: 'additional'; div: string };
	entry: Array<{ reference: string }>;
}

interface SignedNotesContext {
	/** The DocumentReference's derived id. */
	id: string;
	patient: Reference;
	encounter: Reference;
	practitioner: Reference;
	signedAt: string;
}

/** The DocumentReference entry and the Composition section that files the notes as signed. */
export function signedNotesDocument(
	notes: string,
	context: SignedNotesContext,
): { entry: BundleEntry<DocumentReference>; section: SignedNotesSection } {
	const bytes = Buffer.from(notes, 'utf8');
	// Signed At is checked and given its seconds when read (signingFields.ts): an R4 dateTime.
	const { signedAt } = context;
	const resource: DocumentReference = {
		resourceType: 'DocumentReference',
		id: context.id,
		status: 'current',
		docStatus: 'final',
		type: { coding: [CONSULT_NOTE], text: ATTACHMENT_TITLE },
		category: [{ text: 'Clinical note' }],
		subject: { ...context.patient },
		date: new Date(Date.parse(signedAt)).toISOString(),
		author: [{ ...context.practitioner }],
		authenticator: { ...context.practitioner },
		description: `${ATTACHMENT_TITLE} (${notes.split('\n').length} lines), filed as written`,
		content: [
			{
				attachment: {
					contentType: 'text/markdown; charset=utf-8',
					data: bytes.toString('base64'),
					size: bytes.length,
					hash: createHash('sha1').update(bytes).digest('base64'),
					title: ATTACHMENT_TITLE,
					creation: signedAt,
				},
			},
		],
		context: { encounter: [{ ...context.encounter }] },
	};
	const fullUrl = uuidUrl(context.id);
	return {
		entry: {
			fullUrl,
			resource,
			request: { method: 'PUT', url: `DocumentReference/${context.id}` },
		},
		section: {
			title: SIGNED_NOTES_SECTION,
			text: {
				status: 'additional',
				div: `<div xmlns="http://www.w3.org/1999/xhtml"><pre>${escapeXhtml(notes)}</pre></div>`,
			},
			entry: [{ reference: fullUrl }],
		},
	};
}

function escapeXhtml(text: string): string {
	return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
