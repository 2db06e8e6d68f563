import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import {
	readResultsSource,
	RESULTS_SOURCE_PARAMETER,
	resultsSourceProperty,
	type ResultsSource,
} from '../../shared/fields/resultsOutput.description';
import { fetchResults } from '../../transport/transcription/transaction';
import { patientDataForAgentProperties } from '../common.descriptions';
import { assertPatientDataMayGoToAgent, type OperationResult } from '../common.execute';
import { resultsToRecords } from './resultsRecords';
import {
	chosenOutput,
	readFailIfIncomplete,
	readResultsOutput,
	readWaitSettings,
	waitForCompletionFields,
} from './resultsSettings';
import { assertSessionComplete, waitForSessionResults } from './waitForResults';

const show = { resource: ['transcription'], operation: ['getResults'] };

export const description: INodeProperties[] = [
	...patientDataForAgentProperties(show),
	{
		displayName: 'Session ID',
		name: 'sessionId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. visit-2024-0042',
		description:
			'The transaction ID the recordings were uploaded with (Upload Audio outputs it as transaction_id; the trigger as session_id)',
		displayOptions: { show },
	},
	resultsSourceProperty(show),
	...waitForCompletionFields(
		show,
		'Whether to wait until the session is done. Otherwise the current state is output at once (status "processing" while it is not done).',
		true,
		true,
	),
];

/** One session per item; the waits of all items count from the run's start (see `ItemOperation`). */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	runStartedAt: number,
): Promise<OperationResult> {
	assertPatientDataMayGoToAgent(this, itemIndex, 'Get Results');
	const sessionId = readSessionId(this, itemIndex);
	const output = chosenOutput(this, readResultsOutput(this, itemIndex), itemIndex);
	const wait = readWaitSettings(this, itemIndex, 0);
	const source = readSource(this, itemIndex);
	const results = wait
		? await waitForSessionResults(this, source, sessionId, wait, itemIndex, runStartedAt)
		: await fetchResults(this, source, sessionId, itemIndex);
	if (readFailIfIncomplete(this, itemIndex)) assertSessionComplete(this, results, itemIndex);
	return await resultsToRecords(this, results, output, itemIndex);
}

function readSessionId(ctx: IExecuteFunctions, itemIndex: number): string {
	const value = ctx.getNodeParameter('sessionId', itemIndex, '') as unknown;
	const sessionId =
		typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
	if (sessionId === '') {
		throw new NodeOperationError(
			ctx.getNode(),
			`The Session ID field of item ${itemIndex} is empty`,
			{
				description:
					'Enter the transaction ID the recordings were uploaded with, for example {{ $json.transaction_id }} after Upload Audio or {{ $json.session_id }} after the trigger.',
				itemIndex,
			},
		);
	}
	return sessionId;
}

/** Results Of: a transaction (the status call) or a session (the session API's read). */
function readSource(ctx: IExecuteFunctions, itemIndex: number): ResultsSource {
	const source = readResultsSource(
		ctx.getNodeParameter(RESULTS_SOURCE_PARAMETER, itemIndex, 'transaction'),
	);
	if (!source) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The Results Of field of item ${itemIndex} must be "transaction" or "session"`,
			{
				description:
					'After Upload Audio, {{ $json.upload_method }} gives the right value. Nothing was sent.',
				itemIndex,
			},
		);
	}
	return source;
}
