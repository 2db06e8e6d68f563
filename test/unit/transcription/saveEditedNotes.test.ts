/** Save Edited Notes' input checks: what is refused before anything is sent, and what is read. */
import type { IExecuteFunctions } from 'n8n-workflow';

import {
	EDITED_NOTES_MAX_BYTES,
	readSaveInput,
} from '../../../nodes/ClinicScribe/actions/transcription/saveEditedNotes.operation';
import { clinicScribeNode } from '../../support/nodeContext';

function contextWith(parameters: Record<string, unknown>): IExecuteFunctions {
	const values: Record<string, unknown> = {
		sessionId: 'ses_abc123def456',
		documentId: '',
		editedNotes: '## Plan\n\nRest.',
		options: {},
		...parameters,
	};
	return {
		getNode: () => clinicScribeNode(),
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) =>
			name in values ? values[name] : fallback,
	} as unknown as IExecuteFunctions;
}

describe('Save Edited Notes input', () => {
	test('reads the fields; an empty Document ID and options take the defaults', () => {
		expect(readSaveInput(contextWith({}), 0)).toEqual({
			sessionId: 'ses_abc123def456',
			markdown: '## Plan\n\nRest.',
			documentName: 'Edited clinical notes',
			includeNotes: false,
		});
	});

	test('trims the ids and keeps the options given', () => {
		expect(
			readSaveInput(
				contextWith({
					sessionId: ' ses_abc123def456 ',
					documentId: ' doc_9f8e7d6c ',
					options: {
						documentName: ' Final note ',
						templateId: 'tpl-soap-note',
						includeNotes: true,
					},
				}),
				2,
			),
		).toMatchObject({
			sessionId: 'ses_abc123def456',
			documentId: 'doc_9f8e7d6c',
			documentName: 'Final note',
			templateId: 'tpl-soap-note',
			includeNotes: true,
		});
	});

	test.each([
		['empty notes', { editedNotes: '' }, 'The Edited Notes of item 3 are empty'],
		['whitespace-only notes', { editedNotes: ' \n\t' }, 'The Edited Notes of item 3 are empty'],
		['notes that are not text', { editedNotes: { a: 1 } }, 'The Edited Notes of item 3 are empty'],
		['an empty Session ID', { sessionId: '  ' }, 'The Session ID field of item 3 is empty'],
		[
			'a Session ID with a slash',
			{ sessionId: 'ses/x' },
			'The Session ID of item 3 is not a session ID',
		],
		['a Session ID of dots', { sessionId: '..' }, 'The Session ID of item 3 is not a session ID'],
		[
			'a Document ID with a space',
			{ documentId: 'doc 1' },
			'The Document ID of item 3 is not a document ID',
		],
		[
			'a Document ID too long',
			{ documentId: 'd'.repeat(129) },
			'The Document ID of item 3 is not a document ID',
		],
	])('%s is refused and says nothing was sent', (_name, parameters, message) => {
		let thrown: unknown;
		try {
			readSaveInput(contextWith(parameters), 3);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toMatchObject({
			message,
			description: expect.stringMatching(/Nothing was sent\.$/),
		});
	});

	test('the bound is on UTF-8 bytes: at the bound it is read, one byte over it is refused', () => {
		const atBound = `${'é'.repeat((EDITED_NOTES_MAX_BYTES - 2) / 2)}ab`;
		expect(Buffer.byteLength(atBound)).toBe(EDITED_NOTES_MAX_BYTES);
		expect(readSaveInput(contextWith({ editedNotes: atBound }), 0).markdown).toBe(atBound);
		expect(() => readSaveInput(contextWith({ editedNotes: `${atBound}x` }), 0)).toThrow(
			'The Edited Notes of item 0 are 1,000,001 bytes, more than the 1,000,000 this node saves',
		);
	});
});
