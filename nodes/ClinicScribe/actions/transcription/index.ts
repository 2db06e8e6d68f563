import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import * as cancelSession from './cancelSession.operation';
import * as convertTranscript from './convertTranscript.operation';
import * as getResults from './getResults.operation';
import * as getSessionAudio from './getSessionAudio.operation';
import * as saveEditedNotes from './saveEditedNotes.operation';
import * as uploadAudio from './uploadAudio.operation';

export const operations = {
	cancelSession,
	convertTranscript,
	getResults,
	getSessionAudio,
	saveEditedNotes,
	uploadAudio,
};

const getResultsOption: INodePropertyOptions = {
	name: 'Get Results',
	value: 'getResults',
	action: 'Get the results of a transcription',
	description:
		"Get the documents of a session (clinical notes, EMR, transcript), decoded; optionally wait until done. As an AI agent tool, the clinical notes go to the agent's model provider.",
};

const convertTranscriptOption: INodePropertyOptions = {
	name: 'Convert Transcript',
	value: 'convertTranscript',
	action: 'Convert a transcript to a clinical document',
	description:
		"Structure text (typed notes, another speech-to-text node's output) with a template into a clinical document, decoded; optionally wait until done. As an AI agent tool, the clinical notes go to the agent's model provider.",
};

const cancelSessionOption: INodePropertyOptions = {
	name: 'Cancel Session',
	value: 'cancelSession',
	action: 'Cancel a session',
	description:
		'Cancel a session of the session API (Upload Method "Session"), so it is not processed',
};

const getSessionAudioOption: INodePropertyOptions = {
	name: 'Get Session Audio',
	value: 'getSessionAudio',
	action: 'Get the audio of a session',
	description:
		"Download a session's whole audio as binary data, where the workspace keeps session audio",
};

const saveEditedNotesOption: INodePropertyOptions = {
	name: 'Save Edited Notes',
	value: 'saveEditedNotes',
	action: "Save a doctor's edited notes",
	description:
		"Save the doctor's edited notes (Markdown) as a document of the session; running again updates the same document",
};

const uploadAudioOption: INodePropertyOptions = {
	name: 'Upload Audio',
	value: 'uploadAudio',
	action: 'Upload audio for transcription',
	description:
		'Send recordings from binary data to be transcribed into structured clinical documents',
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['transcription'], '@tool': [false] } },
		options: [
			cancelSessionOption,
			convertTranscriptOption,
			getResultsOption,
			getSessionAudioOption,
			saveEditedNotesOption,
			uploadAudioOption,
		],
		default: 'uploadAudio',
	},
	{
		// As an AI agent tool the node cannot receive binary files, so Upload Audio is not offered.
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['transcription'], '@tool': [true] } },
		options: [convertTranscriptOption, getResultsOption],
		default: 'getResults',
	},
	...uploadAudio.description,
	...getResults.description,
	...convertTranscript.description,
	...cancelSession.description,
	...getSessionAudio.description,
	...saveEditedNotes.description,
];
