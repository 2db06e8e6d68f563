import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import type { ResultsOutput } from '../answers/sessionResults';

export const RESULTS_OUTPUT_PARAMETER = 'resultsOutput';

/**
 * The "Output" choice for transcription results, shared by Get Results, Upload Audio (with Wait for
 * Completion), Convert Transcript and the trigger, so every node offers the same forms
 * (sessionResultsToRecords; the FHIR bundle: fhir/fhirOutput.ts, with its fields in fhir/fields.ts).
 */
export function resultsOutputProperty(
	show?: IDisplayOptions['show'],
	defaultOutput: ResultsOutput = 'session',
): INodeProperties {
	const property: INodeProperties = {
		displayName: 'Output',
		name: RESULTS_OUTPUT_PARAMETER,
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'FHIR Transaction Bundle for the EHR',
				value: 'fhirBundle',
				description:
					'One item per visit holding one FHIR R4 transaction bundle (patient, doctor, visit, notes), ready to POST to your EHR with an HTTP Request node',
			},
			{
				name: 'One Item per Session',
				value: 'session',
				description:
					'All templates of a session in one item; each decoded document also under "documents", keyed by template ID',
			},
			{
				name: 'One Item per Template',
				value: 'templates',
				description:
					'One item for each template (clinical notes, EMR, transcript…), ready for an e-mail or EHR node',
			},
			{
				name: 'Simple',
				value: 'simple',
				description:
					'The clinical notes and the transcript as readable text and as HTML for an e-mail, plus any problems in words',
			},
		],
		default: defaultOutput,
		description: 'How the transcription results become output items',
	};
	if (show) property.displayOptions = { show };
	return property;
}

export function isResultsOutput(value: unknown): value is ResultsOutput {
	return (
		value === 'session' || value === 'templates' || value === 'simple' || value === 'fhirBundle'
	);
}

export const RESULTS_SOURCE_PARAMETER = 'resultsSource';

/** Which API a session id belongs to: the transaction flow ([IFD §4.7]), or the session API ([EKA-OAS]). */
export type ResultsSource = 'transaction' | 'session';

/**
 * "Results Of": a transaction id and a session id cannot be told apart by their form (both may be
 * any text the client chose), so the user says which. Upload Audio outputs `upload_method`, so
 * `{{ $json.upload_method }}` picks the right one after it.
 */
export function resultsSourceProperty(show?: IDisplayOptions['show']): INodeProperties {
	const property: INodeProperties = {
		displayName: 'Results Of',
		name: RESULTS_SOURCE_PARAMETER,
		type: 'options',
		options: [
			{
				name: 'Transaction',
				value: 'transaction',
				description:
					'An upload with Upload Method "Transaction" (the status API, /voice/api/v3/status)',
			},
			{
				name: 'Session',
				value: 'session',
				description: 'An upload with Upload Method "Session" (the session API, /voice/v1/sessions)',
			},
		],
		default: 'transaction',
		description:
			'Which kind of upload the ID belongs to. After Upload Audio, an expression reading its upload_method field gives it.',
	};
	if (show) property.displayOptions = { show };
	return property;
}

export function readResultsSource(value: unknown): ResultsSource | undefined {
	if (value === undefined || value === null || value === '' || value === 'transaction')
		return 'transaction';
	return value === 'session' ? 'session' : undefined;
}
