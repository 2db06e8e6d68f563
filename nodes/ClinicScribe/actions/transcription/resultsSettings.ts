/**
 * The fields of a session's results that Get Results, Convert Transcript and Upload Audio share
 * (Wait for Completion, its Timeout and Poll Interval, Output and the FHIR bundle's choices, Fail on
 * Incomplete Results) and their reading for one item, checked before anything is sent. A leaf:
 * Upload Audio's item settings (uploadAudio/settings.ts), the wait (waitForResults.ts) and the
 * output items (resultsRecords.ts) all read them from here.
 */
import {
	NodeOperationError,
	type IDisplayOptions,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { fhirOutputFields, readFhirSettings } from '../../shared/fhir/fields';
import type { FhirOutputSettings } from '../../shared/fhir/fhirOutput';
import {
	isResultsOutput,
	RESULTS_OUTPUT_PARAMETER,
	resultsOutputProperty,
} from '../../shared/fields/resultsOutput.description';
import type { ResultsOutput } from '../../shared/answers/sessionResults';

export interface WaitSettings {
	timeoutMs: number;
	pollIntervalMs: number;
	/**
	 * Right after an upload the status call may not know the session yet: "unknown" is read as
	 * "not yet" for this long. 0 for a session the user names (Get Results).
	 */
	notFoundGraceMs: number;
	/** A failed or partial session fails the item ("Fail on Incomplete Results"). */
	failIfIncomplete?: boolean;
}

export const DEFAULT_TIMEOUT_MINUTES = 10;
export const DEFAULT_POLL_INTERVAL_SECONDS = 10;
export const UPLOAD_NOT_FOUND_GRACE_MS = 30_000;

/** The fields of the wait, for an operation whose own fields show under `show`. */
export function waitForCompletionFields(
	show: NonNullable<IDisplayOptions['show']>,
	waitDescription: string,
	alwaysShowOutput: boolean,
	/** Get Results only: it reads notes a doctor can have approved since, so it may file them signed. */
	offerSigning = false,
): INodeProperties[] {
	const whenWaiting = { ...show, waitForCompletion: [true] };
	return [
		{
			displayName: 'Wait for Completion',
			name: 'waitForCompletion',
			type: 'boolean',
			default: false,
			description: waitDescription,
			displayOptions: { show },
		},
		{
			displayName: 'Timeout (Minutes)',
			name: 'timeoutMinutes',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: DEFAULT_TIMEOUT_MINUTES,
			description:
				'How long to wait for the results at most. After that the node fails and says so; for long recordings, raise it or use the Clinic Scribe Trigger instead.',
			displayOptions: { show: whenWaiting },
		},
		{
			displayName: 'Poll Interval (Seconds)',
			name: 'pollIntervalSeconds',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: DEFAULT_POLL_INTERVAL_SECONDS,
			description:
				'How often to check the status, counted from the start of each check. The API holds a check up to about 14 seconds and answers as soon as the session is done, so a longer check is followed by the next one at once.',
			displayOptions: { show: whenWaiting },
		},
		resultsOutputProperty(alwaysShowOutput ? show : whenWaiting),
		...fhirOutputFields(
			{ ...(alwaysShowOutput ? show : whenWaiting), [RESULTS_OUTPUT_PARAMETER]: ['fhirBundle'] },
			'action',
			offerSigning,
		),
		{
			displayName: 'Fail on Incomplete Results',
			name: FAIL_IF_INCOMPLETE_PARAMETER,
			type: 'boolean',
			default: false,
			description:
				'Whether a session whose templates all failed (status "failed") or only some succeeded ("partial") fails the item, so the workflow does not go on without its clinical notes. Off: the session is output with its status and the workflow goes on.',
			displayOptions: { show: alwaysShowOutput ? show : whenWaiting },
		},
	];
}

export const FAIL_IF_INCOMPLETE_PARAMETER = 'failIfIncomplete';

/** Fail on Incomplete Results; off unless set, so the session is output with its status. */
export function readFailIfIncomplete(ctx: IExecuteFunctions, itemIndex: number): boolean {
	return ctx.getNodeParameter(FAIL_IF_INCOMPLETE_PARAMETER, itemIndex, false) === true;
}

export function readWaitSettings(
	ctx: IExecuteFunctions,
	itemIndex: number,
	notFoundGraceMs: number,
): WaitSettings | undefined {
	if (!(ctx.getNodeParameter('waitForCompletion', itemIndex, false) as boolean)) return undefined;
	const timeoutMinutes = Number(
		ctx.getNodeParameter('timeoutMinutes', itemIndex, DEFAULT_TIMEOUT_MINUTES),
	);
	const pollSeconds = Number(
		ctx.getNodeParameter('pollIntervalSeconds', itemIndex, DEFAULT_POLL_INTERVAL_SECONDS),
	);
	if (!Number.isFinite(timeoutMinutes) || timeoutMinutes < 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			'The Timeout (Minutes) field is not a number of minutes (0 or more)',
			{
				description: 'Enter how many minutes to wait for the results at most, for example 10.',
				itemIndex,
			},
		);
	}
	if (!Number.isFinite(pollSeconds) || pollSeconds <= 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			'The Poll Interval (Seconds) field is not a positive number of seconds',
			{
				description: 'Enter the pause between two status checks in seconds, for example 10.',
				itemIndex,
			},
		);
	}
	return {
		timeoutMs: Math.round(timeoutMinutes * 60_000),
		pollIntervalMs: Math.round(pollSeconds * 1000),
		notFoundGraceMs,
		failIfIncomplete: readFailIfIncomplete(ctx, itemIndex),
	};
}

export function readResultsOutput(ctx: IExecuteFunctions, itemIndex: number): ResultsOutput {
	const value = ctx.getNodeParameter(RESULTS_OUTPUT_PARAMETER, itemIndex, 'session');
	return isResultsOutput(value) ? value : 'session';
}

/** The Output form, with the FHIR bundle's choices when it is chosen. */
export interface ChosenOutput {
	form: ResultsOutput;
	fhir?: FhirOutputSettings;
}

/** The FHIR bundle's choices of an item, checked: a wrong one fails the item before anything is sent. */
export function readFhirOutputSettings(
	ctx: IExecuteFunctions,
	itemIndex: number,
): FhirOutputSettings {
	const settings = readFhirSettings(
		(name, fallback) => ctx.getNodeParameter(name, itemIndex, fallback),
		'action',
	);
	if (!settings.ok) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${settings.problem} (item ${itemIndex}, Output "FHIR Transaction Bundle for the EHR")`,
			{
				description:
					'Correct the field, or make its expression give a valid value. Nothing was sent.',
				itemIndex,
			},
		);
	}
	return settings.value;
}

export function chosenOutput(
	ctx: IExecuteFunctions,
	form: ResultsOutput,
	itemIndex: number,
): ChosenOutput {
	return form === 'fhirBundle' ? { form, fhir: readFhirOutputSettings(ctx, itemIndex) } : { form };
}
