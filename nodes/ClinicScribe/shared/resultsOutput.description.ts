import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import type { ResultsOutput } from './sessionResults';

export const RESULTS_OUTPUT_PARAMETER = 'resultsOutput';

/**
 * The "Output" choice for transcription results, shared by Get Results, Upload Audio (with Wait for
 * Completion) and the trigger, so every node offers the same three forms (sessionResultsToRecords).
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
				name: 'One Item per Session',
				value: 'session',
				description:
					'All templates of a session in one item; each decoded document also under "documents", keyed by template ID',
			},
			{
				name: 'One Item per Template',
				value: 'templates',
				description: 'One item for each template (clinical notes, EMR, transcript…), ready for an e-mail or EHR node',
			},
			{
				name: 'Simple',
				value: 'simple',
				description: 'The clinical notes and the transcript as readable text, plus any problems in words',
			},
		],
		default: defaultOutput,
		description: 'How the transcription results become output items',
	};
	if (show) property.displayOptions = { show };
	return property;
}

export function isResultsOutput(value: unknown): value is ResultsOutput {
	return value === 'session' || value === 'templates' || value === 'simple';
}
