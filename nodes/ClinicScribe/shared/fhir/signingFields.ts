/**
 * The signing fields of the FHIR output (Notes Status, and for signed notes Signed At, Signed Via,
 * Notes Edited, Notes as Signed) and their reading: nothing is filed as signed that the fields do not
 * show a doctor signed. Messages never repeat a value: it may be patient data.
 */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import type { Checked } from './participants';
import {
	SIGNING_CHANNELS,
	signingTimeProblem,
	withSeconds,
	type NotesSignature,
	type SigningChannel,
} from './signature';
import { normalisedNotes, SIGNED_NOTES_MAX_CHARACTERS, signedNotesProblem } from './signedNotes';

const FHIR_NOTES_STATUS_PARAMETER = 'fhirNotesStatus';

export type Show = NonNullable<IDisplayOptions['show']>;

/** Reads one parameter: `name` and the value when it is not set (the caller's getNodeParameter). */
export type ParameterReader = (name: string, fallback: unknown) => unknown;

/** Draft or signed, and for signed notes the approval the doctor gave. */
export function notesStatusFields(when: (extra: Show) => IDisplayOptions): INodeProperties[] {
	const signed = when({ [FHIR_NOTES_STATUS_PARAMETER]: ['signed'] });
	return [
		{
			displayName: 'Notes Status',
			name: FHIR_NOTES_STATUS_PARAMETER,
			type: 'options',
			options: [
				{
					name: "Draft for the Doctor's Review",
					value: 'draft',
					description:
						'The notes as the service wrote them, not yet read by a doctor: the Composition is preliminary',
				},
				{
					name: 'Signed by the Doctor',
					value: 'signed',
					description:
						'Only after the doctor approved these notes (e.g. after Send and Wait for Response): the Composition is final, attested by the doctor, with a Provenance',
				},
			],
			default: 'draft',
			description:
				'Filing the signed notes after the draft updates the same resources in the EHR: nothing is duplicated, no draft is left behind',
			displayOptions: when({}),
		},
		{
			displayName: 'Signed At',
			name: 'fhirSignedAt',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. {{ $now.toISO() }}',
			description:
				'When the doctor approved the notes: a date and time with its time zone, not in the future and not before the visit',
			displayOptions: signed,
		},
		{
			displayName: 'Signed Via',
			name: 'fhirSignedVia',
			type: 'options',
			options: Object.entries(SIGNING_CHANNELS).map(([value, name]) => ({ name, value })),
			default: 'email',
			description: "How the doctor's approval came, for the audit trail",
			displayOptions: signed,
		},
		{
			displayName: 'Notes Edited by the Doctor',
			name: 'fhirNotesEdited',
			type: 'boolean',
			default: false,
			description: 'Whether the doctor corrected the notes before approving, for the audit trail',
			displayOptions: signed,
		},
		{
			displayName: 'Notes as Signed',
			name: 'fhirSignedNotes',
			type: 'string',
			typeOptions: { rows: 10 },
			default: '',
			placeholder: "e.g. {{ $('Ask the Doctor to Sign').item.json.data.Notes }}",
			description: `Optional: the notes text the doctor approved, after any correction (e.g. the review's notes the doctor edited in a form), at most ${SIGNED_NOTES_MAX_CHARACTERS.toLocaleString('en-US')} characters. Filed as written in a DocumentReference and a "Notes as signed" section; when it differs from the review's notes, the audit says edited. Diagnoses, medicines and the other coded resources still come from the service's document: for corrections to those, request changes instead.`,
			displayOptions: signed,
		},
	];
}

/** The signature of signed notes, checked before anything is fetched; undefined for a draft. */
export function readSignature(read: ParameterReader): Checked<NotesSignature | undefined> {
	const status = read(FHIR_NOTES_STATUS_PARAMETER, 'draft');
	if (status === 'draft') return { ok: true, value: undefined };
	if (status !== 'signed')
		return { ok: false, problem: 'The Notes Status field is not one of its choices' };
	const raw = read('fhirSignedAt', '');
	const signedAt = typeof raw === 'string' ? raw.trim() : '';
	if (signedAt === '')
		return {
			ok: false,
			problem:
				'Signed At is empty: signed notes need the time the doctor approved them (the approval step gives it, or {{ $now.toISO() }} right after it)',
		};
	const problem = signingTimeProblem(signedAt, undefined, Date.now());
	if (problem) return { ok: false, problem: `Signed At ${problem}` };
	const channel = read('fhirSignedVia', 'email');
	if (typeof channel !== 'string' || !(channel in SIGNING_CHANNELS))
		return { ok: false, problem: 'The Signed Via field is not one of its choices' };
	const edited = read('fhirNotesEdited', false);
	if (typeof edited !== 'boolean')
		return { ok: false, problem: 'Notes Edited by the Doctor is not true or false' };
	const signature: NotesSignature = {
		// attester.time and Provenance.recorded are R4 dateTime / instant: seconds required.
		signedAt: withSeconds(signedAt),
		channel: channel as SigningChannel,
		edited,
	};
	const given = read('fhirSignedNotes', '');
	const notesProblem = signedNotesProblem(given);
	if (notesProblem) return { ok: false, problem: `Notes as Signed ${notesProblem}` };
	const notes = normalisedNotes(given as string);
	if (notes !== '') signature.notes = notes;
	return { ok: true, value: signature };
}
