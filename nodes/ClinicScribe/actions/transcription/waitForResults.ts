/**
 * "Wait for Completion": polls the status call until the session is done, bounded by the user's
 * timeout, pausing with n8n's `sleep` and the execution's cancel signal (never a raw timer), so a
 * stopped execution stops waiting at once and no wait outlives its limit (queue mode included).
 */
import {
	NodeOperationError,
	type IDisplayOptions,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { abortableSleep } from '../../shared/abortableSleep';
import { fhirOutputFields } from '../../shared/fhir/fields';
import { isFinalStatus, type ResultsOutput, type SessionResults } from '../../shared/sessionResults';
import { deadlineSignal } from '../../shared/deadline';
import { PRODUCTION_POLICY } from '../../transport/retryPolicy';
import { isResultsOutput, RESULTS_OUTPUT_PARAMETER, resultsOutputProperty, type ResultsSource } from '../../shared/resultsOutput.description';
import { fetchResults } from '../../transport/transcriptionApi';

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
		...fhirOutputFields({ ...(alwaysShowOutput ? show : whenWaiting), [RESULTS_OUTPUT_PARAMETER]: ['fhirBundle'] }, 'action'),
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

/** Fail on Incomplete Results (off for workflows made before it existed). */
export function readFailIfIncomplete(ctx: IExecuteFunctions, itemIndex: number): boolean {
	return ctx.getNodeParameter(FAIL_IF_INCOMPLETE_PARAMETER, itemIndex, false) === true;
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

/**
 * Polls until the session is no longer processing or the deadline passes. Returns the final
 * results (completed, partial, failed, or unknown after the grace time); throws on timeout, on Stop,
 * and (with Fail on Incomplete Results) on a failed or partial session.
 *
 * The poll interval counts from each status call's start, not its answer: the server holds a call
 * up to ~14 s and answers as soon as the session is done, so the next call goes out at once after a
 * held "still processing" and the results arrive within moments of completion.
 * Every call runs under a signal that fires on Stop or at the deadline, and its own timeout is cut to
 * the time left, so the wait never outlives its timeout by more than one status call's timeout.
 */
export async function waitForSessionResults(
	ctx: IExecuteFunctions,
	source: ResultsSource,
	sessionId: string,
	settings: WaitSettings,
	itemIndex: number,
	waitStartedAt: number = Date.now(),
): Promise<SessionResults> {
	// All items of a run share one start; an item reached after the deadline still gets one quick check.
	const deadline = Math.max(waitStartedAt + settings.timeoutMs, Date.now() + MIN_STATUS_TIMEOUT_MS);
	const cancel = ctx.getExecutionCancelSignal?.();
	const bound = deadlineSignal(deadline - Date.now(), cancel);
	let checks = 0;
	try {
		for (;;) {
			if (cancel?.aborted) throw stoppedError(ctx, sessionId, itemIndex);
			if (bound.signal.aborted) throw timeoutError(ctx, sessionId, Date.now() - waitStartedAt, checks, itemIndex);
			const checkStartedAt = Date.now();
			const timeoutMs = Math.min(PRODUCTION_POLICY.timeouts.statusMs, Math.max(deadline - checkStartedAt, 1));
			const check = await fetchResults(ctx, source, sessionId, itemIndex, { timeoutMs, abortSignal: bound.signal }).then(
				(answer) => ({ answer }),
				(error: unknown) => ({ error }),
			);
			checks++;
			if ('error' in check) {
				// Cut short by Stop or the deadline: say that, not the call's own error.
				if (cancel?.aborted) throw stoppedError(ctx, sessionId, itemIndex);
				if (bound.signal.aborted) throw timeoutError(ctx, sessionId, Date.now() - waitStartedAt, checks, itemIndex);
				throw check.error;
			}
			const results = check.answer;
			const stillUnknownEarly = results.status === 'not_found' && Date.now() - waitStartedAt < settings.notFoundGraceMs;
			if (isFinalStatus(results.status) && !stillUnknownEarly) {
				if (settings.failIfIncomplete) assertSessionComplete(ctx, results, itemIndex);
				return results;
			}
			const now = Date.now();
			if (deadline - now <= 0) throw timeoutError(ctx, sessionId, now - waitStartedAt, checks, itemIndex);
			const pauseMs = Math.min(checkStartedAt + settings.pollIntervalMs - now, deadline - now);
			if (pauseMs <= 0) continue;
			try {
				await abortableSleep(pauseMs, bound.signal);
			} catch {
				if (cancel?.aborted) throw stoppedError(ctx, sessionId, itemIndex);
				throw timeoutError(ctx, sessionId, Date.now() - waitStartedAt, checks, itemIndex);
			}
		}
	} finally {
		bound.dispose();
	}
}

/** A status call needs a moment to be answered at all: every item's wait lasts at least this. */
const MIN_STATUS_TIMEOUT_MS = 1_000;

/**
 * "Fail on Incomplete Results": a failed, partial, expired or cancelled session fails the item, saying which templates
 * failed and what the user can do, instead of going on with missing documents.
 */
export function assertSessionComplete(ctx: IExecuteFunctions, results: SessionResults, itemIndex: number): void {
	if (results.status !== 'failed' && results.status !== 'partial' && results.status !== 'expired' && results.status !== 'cancelled') return;
	const failed = results.templates.filter((t) => t.status === 'failure').map(templateLabel);
	const partly = results.templates.filter((t) => t.status === 'partial_success').map(templateLabel);
	const parts: string[] = [];
	if (failed.length > 0) parts.push(`failed: ${failed.join(', ')}`);
	if (partly.length > 0) parts.push(`only partly produced: ${partly.join(', ')}`);
	const what = { failed: 'failed', expired: 'expired before it was ended', cancelled: 'was cancelled', partial: 'is only partly done' }[results.status];
	const detail = parts.length > 0 ? ` (${parts.join('; ')})` : results.error?.message ? ` (the API said: ${results.error.message})` : '';
	throw new NodeOperationError(ctx.getNode(), `Session "${results.sessionId}" ${what}${detail}`, {
		description:
			'The templates that succeeded stay at the API. Run Get Results with this session ID later to read them again, or send the recording again with a new Transaction ID. To output such sessions with their status instead of failing, turn off "Fail on Incomplete Results".',
		itemIndex,
	});
}

function templateLabel(template: { name: string; templateId: string }): string {
	return template.name && template.name !== template.templateId ? `${template.name} (${template.templateId})` : template.templateId;
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
