import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import {
	listSessionDocuments,
	saveSessionDocument,
	type SessionDocumentSummary,
} from '../../transport/transcription/sessionDocuments';
import type { OperationResult } from '../common.execute';
import { readSessionIdField, sessionIdField } from './cancelSession.operation';

/**
 * The package's own bound on the markdown saved (UTF-8 bytes): the service documents none. A
 * consultation note is a few kilobytes; 1 MB keeps a wrong field (a whole file, a transcript of
 * hours) from being stored as notes.
 */
export const EDITED_NOTES_MAX_BYTES = 1_000_000;

/** Letters, digits and `_ - . :` (the service's ids: `ses_…`, `doc_…`, ours `n8n…`), at most 128. */
const DOCUMENT_ID_SHAPE = /^[A-Za-z0-9_.:-]{1,128}$/;

const DEFAULT_DOCUMENT_NAME = 'Edited clinical notes';

const show = { show: { resource: ['transcription'], operation: ['saveEditedNotes'] } };

export const description: INodeProperties[] = [
	sessionIdField(
		'saveEditedNotes',
		'The session whose notes the doctor edited: the session_id Upload Audio or Get Results output. The edited notes are saved as a document of this session.',
	),
	{
		displayName: 'Edited Notes',
		name: 'editedNotes',
		type: 'string',
		typeOptions: { rows: 8 },
		default: '',
		required: true,
		placeholder: 'e.g. {{ $json.notes }}',
		description: `The doctor's edited notes as Markdown (at most ${EDITED_NOTES_MAX_BYTES.toLocaleString('en-US')} bytes)`,
		displayOptions: show,
	},
	{
		displayName: 'Document ID',
		name: 'documentId',
		type: 'string',
		default: '',
		placeholder: 'e.g. doc_9f8e7d6c',
		description:
			'The document to update, e.g. the document_id of the generated notes. Leave empty to save into the document named by Document Name on this session: it is updated if it exists, created once if not, so running again never makes a second one.',
		displayOptions: show,
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: show,
		options: [
			{
				displayName: 'Document Name',
				name: 'documentName',
				type: 'string',
				default: DEFAULT_DOCUMENT_NAME,
				description:
					'The name of the document. With Document ID empty, also how an earlier save of this operation is found on the session.',
			},
			{
				displayName: 'Include Notes in Output',
				name: 'includeNotes',
				type: 'boolean',
				default: false,
				description: 'Whether to output the saved notes text as well',
			},
			{
				displayName: 'Template ID',
				name: 'templateId',
				type: 'string',
				default: '',
				description:
					'The template the notes follow, if any (the template_id of the generated notes)',
			},
		],
	},
];

interface SaveInput {
	sessionId: string;
	documentId?: string;
	markdown: string;
	documentName: string;
	templateId?: string;
	includeNotes: boolean;
}

/** Reads and checks the item's fields; throws before anything is sent. */
export function readSaveInput(ctx: IExecuteFunctions, itemIndex: number): SaveInput {
	const refuse = (message: string, fix: string) =>
		new NodeOperationError(ctx.getNode(), message, {
			description: `${fix} Nothing was sent.`,
			itemIndex,
		});
	const sessionId = readSessionIdField(ctx, itemIndex);
	if (!DOCUMENT_ID_SHAPE.test(sessionId) || /^\.+$/.test(sessionId))
		throw refuse(
			`The Session ID of item ${itemIndex} is not a session ID`,
			'A session ID has only letters, digits and _ - . : (at most 128); use the session_id the service gave.',
		);
	const documentIdValue = ctx.getNodeParameter('documentId', itemIndex, '') as unknown;
	const documentId = typeof documentIdValue === 'string' ? documentIdValue.trim() : '';
	if (documentId !== '' && (!DOCUMENT_ID_SHAPE.test(documentId) || /^\.+$/.test(documentId)))
		throw refuse(
			`The Document ID of item ${itemIndex} is not a document ID`,
			'A document ID has only letters, digits and _ - . : (at most 128); use the document_id the service gave, or leave it empty.',
		);
	const notes = ctx.getNodeParameter('editedNotes', itemIndex, '') as unknown;
	if (typeof notes !== 'string' || notes.trim() === '')
		throw refuse(
			`The Edited Notes of item ${itemIndex} are empty`,
			"Map the doctor's edited notes (Markdown text) into Edited Notes.",
		);
	const bytes = Buffer.byteLength(notes, 'utf8');
	if (bytes > EDITED_NOTES_MAX_BYTES)
		throw refuse(
			`The Edited Notes of item ${itemIndex} are ${bytes.toLocaleString('en-US')} bytes, more than the ${EDITED_NOTES_MAX_BYTES.toLocaleString('en-US')} this node saves`,
			'Check that Edited Notes holds the notes and not a whole file or transcript.',
		);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as {
		documentName?: unknown;
		templateId?: unknown;
		includeNotes?: unknown;
	};
	const documentName =
		typeof options.documentName === 'string' && options.documentName.trim() !== ''
			? options.documentName.trim()
			: DEFAULT_DOCUMENT_NAME;
	const templateId = typeof options.templateId === 'string' ? options.templateId.trim() : '';
	return {
		sessionId,
		...(documentId ? { documentId } : {}),
		markdown: notes,
		documentName,
		...(templateId ? { templateId } : {}),
		includeNotes: options.includeNotes === true,
	};
}

/**
 * Saves one item's edited notes. Without a Document ID, the session's documents are read first and
 * an earlier save under the same name is updated: a re-run (after a failure, or of the workflow)
 * never makes a second document.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const input = readSaveInput(this, itemIndex);
	let documentId = input.documentId;
	if (documentId === undefined) {
		const documents = await listSessionDocuments(this, input.sessionId, itemIndex);
		documentId = earlierSave(this, documents, input, itemIndex)?.documentId;
	}
	const saved = await saveSessionDocument(
		this,
		{
			sessionId: input.sessionId,
			documentId,
			documentName: input.documentName,
			templateId: input.templateId,
			markdown: input.markdown,
		},
		itemIndex,
	);
	return [
		{
			document_id: saved.documentId,
			session_id: input.sessionId,
			document_name: saved.documentName,
			action: saved.created ? 'created' : 'updated',
			bytes_saved: saved.bytes,
			...(input.includeNotes ? { notes: input.markdown } : {}),
		},
	];
}

/** The custom document of this name on the session; two of them is a choice the user must make. */
function earlierSave(
	ctx: IExecuteFunctions,
	documents: SessionDocumentSummary[],
	input: SaveInput,
	itemIndex: number,
): SessionDocumentSummary | undefined {
	const matches = documents.filter(
		(document) => document.type === 'custom' && document.documentName === input.documentName,
	);
	if (matches.length > 1)
		throw new NodeOperationError(
			ctx.getNode(),
			`Session "${input.sessionId}" has ${matches.length} documents named "${input.documentName}"`,
			{
				description: `Enter the Document ID of the one to update (${matches.map((m) => m.documentId).join(', ')}). Nothing was saved.`,
				itemIndex,
			},
		);
	return matches[0];
}
