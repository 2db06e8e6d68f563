/**
 * "Wait for Completion": polls the status call until the session is done, bounded by the user's
 * timeout, pausing with n8n's `sleep` and the execution's cancel signal (never a raw timer), so a
 * stopped execution stops waiting at once and no wait outlives its limit (queue mode included).
 */
import {
	NodeOperationError,
	sleep,
	type IDisplayOptions,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { isFinalStatus, type ResultsOutput, type SessionResults } from '../../shared/sessionResults';
import { fetchSessionResults } from '../../transport/transcriptionApi';
import { isResultsOutput, RESULTS_OUTPUT_PARAMETER, resultsOutputProperty } from './resultsOutput.description';

export interface WaitSettings {
	timeoutMs: number;
	pollIntervalMs: number;
	/**
	 * Right after an upload the status call may not know the session yet: "unknown" is read as
	 * "not yet" for this long. 0 for a session the user names (Get Results).
	 */
	notFoundGraceMs: number;
}

export const DEFAULT_TIMEOUT_MINUTES = 10;
export const DEFAULT_POLL_INTERVAL_SECONDS = 10;
export const UPLOAD_NOT_FOUND_GRACE_MS = 30_000;

/** The fields of the wait, for an operation whose own fields show under `show`. */
export function waitForCompletionFields(
	show: NonNullable<IDisplayOptions['show']>,
	waitDescription: string,
	alwaysShowOutput: boolean,
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
			description: 'Pause between two status checks (each check itself may take up to about 14 seconds)',
			displayOptions: { show: whenWaiting },
		},
		resultsOutputProperty(alwaysShowOutput ? show : whenWaiting),
	];
}

export function readWaitSettings(ctx: IExecuteFunctions, itemIndex: number, notFoundGraceMs: number): WaitSettings | undefined {
	if (!(ctx.getNodeParameter('waitForCompletion', itemIndex, false) as boolean)) return undefined;
	const timeoutMinutes = Number(ctx.getNodeParameter('timeoutMinutes', itemIndex, DEFAULT_TIMEOUT_MINUTES));
	const pollSeconds = Number(ctx.getNodeParameter('pollIntervalSeconds', itemIndex, DEFAULT_POLL_INTERVAL_SECONDS));
	if (!Number.isFinite(timeoutMinutes) || timeoutMinutes < 0) {
		throw new NodeOperationError(ctx.getNode(), 'The Timeout (Minutes) field is not a number of minutes (0 or more)', {
			description: 'Enter how many minutes to wait for the results at most, for example 10.',
			itemIndex,
		});
	}
	if (!Number.isFinite(pollSeconds) || pollSeconds <= 0) {
		throw new NodeOperationError(ctx.getNode(), 'The Poll Interval (Seconds) field is not a positive number of seconds', {
			description: 'Enter the pause between two status checks in seconds, for example 10.',
			itemIndex,
		});
	}
	return { timeoutMs: Math.round(timeoutMinutes * 60_000), pollIntervalMs: Math.round(pollSeconds * 1000), notFoundGraceMs };
}

export function readResultsOutput(ctx: IExecuteFunctions, itemIndex: number): ResultsOutput {
	const value = ctx.getNodeParameter(RESULTS_OUTPUT_PARAMETER, itemIndex, 'session');
	return isResultsOutput(value) ? value : 'session';
}

/**
 * Polls until the session is no longer processing or the deadline passes. Returns the final
 * results (completed, partial, failed, or unknown after the grace time); throws on timeout.
 */
export async function waitForSessionResults(
	ctx: IExecuteFunctions,
	sessionId: string,
	settings: WaitSettings,
	itemIndex: number,
	waitStartedAt: number = Date.now(),
): Promise<SessionResults> {
	const deadline = waitStartedAt + settings.timeoutMs;
	const signal = ctx.getExecutionCancelSignal?.();
	let checks = 0;
	for (;;) {
		if (signal?.aborted) throw stoppedError(ctx, sessionId, itemIndex);
		const results = await fetchSessionResults(ctx, sessionId, itemIndex);
		checks++;
		const stillUnknownEarly = results.status === 'not_found' && Date.now() - waitStartedAt < settings.notFoundGraceMs;
		if (isFinalStatus(results.status) && !stillUnknownEarly) return results;
		const remaining = deadline - Date.now();
		if (remaining <= 0) throw timeoutError(ctx, sessionId, Date.now() - waitStartedAt, checks, itemIndex);
		try {
			await sleep(Math.min(settings.pollIntervalMs, remaining), signal);
		} catch {
			throw stoppedError(ctx, sessionId, itemIndex);
		}
	}
}

function timeoutError(
	ctx: IExecuteFunctions,
	sessionId: string,
	waitedMs: number,
	checks: number,
	itemIndex: number,
): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`Session "${sessionId}" was still being processed after waiting ${formatDuration(waitedMs)} (${checks} status check${checks === 1 ? '' : 's'})`,
		{
			description:
				'The transcription goes on at the API; nothing is lost. Raise "Timeout (Minutes)" for long recordings, or turn off Wait for Completion and let the Clinic Scribe Trigger start a workflow when the transcription is done (then use Get Results with this session ID).',
			itemIndex,
		},
	);
}

function stoppedError(ctx: IExecuteFunctions, sessionId: string, itemIndex: number): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Stopped waiting for session "${sessionId}" because the execution was cancelled`, {
		itemIndex,
	});
}

export function formatDuration(ms: number): string {
	const seconds = Math.round(ms / 1000);
	if (seconds < 60) return `${seconds} s`;
	const minutes = Math.floor(seconds / 60);
	const rest = seconds % 60;
	return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
}
