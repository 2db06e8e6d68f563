/**
 * "Wait for Completion": polls the status call until the session is done, bounded by the user's
 * timeout, pausing with n8n's `sleep` and the execution's cancel signal (never a raw timer), so a
 * stopped execution stops waiting at once and no wait outlives its limit (queue mode included).
 */
import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import { abortableSleep } from '../../shared/abortableSleep';
import { isFinalStatus, type SessionResults } from '../../shared/answers/sessionResults';
import { deadlineSignal } from '../../shared/deadline';
import type { ResultsSource } from '../../shared/fields/resultsOutput.description';
import { PRODUCTION_POLICY } from '../../transport/retryPolicy';
import { fetchResults } from '../../transport/transcription/transaction';
import type { WaitSettings } from './resultsSettings';

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
			if (bound.signal.aborted)
				throw timeoutError(ctx, sessionId, Date.now() - waitStartedAt, checks, itemIndex);
			const checkStartedAt = Date.now();
			const timeoutMs = Math.min(
				PRODUCTION_POLICY.timeouts.statusMs,
				Math.max(deadline - checkStartedAt, 1),
			);
			const check = await fetchResults(ctx, source, sessionId, itemIndex, {
				timeoutMs,
				abortSignal: bound.signal,
			}).then(
				(answer) => ({ answer }),
				(error: unknown) => ({ error }),
			);
			checks++;
			if ('error' in check) {
				// Cut short by Stop or the deadline: say that, not the call's own error.
				if (cancel?.aborted) throw stoppedError(ctx, sessionId, itemIndex);
				if (bound.signal.aborted)
					throw timeoutError(ctx, sessionId, Date.now() - waitStartedAt, checks, itemIndex);
				throw check.error;
			}
			const results = check.answer;
			const stillUnknownEarly =
				results.status === 'not_found' && Date.now() - waitStartedAt < settings.notFoundGraceMs;
			if (isFinalStatus(results.status) && !stillUnknownEarly) {
				if (settings.failIfIncomplete) assertSessionComplete(ctx, results, itemIndex);
				return results;
			}
			const now = Date.now();
			if (deadline - now <= 0)
				throw timeoutError(ctx, sessionId, now - waitStartedAt, checks, itemIndex);
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
export function assertSessionComplete(
	ctx: IExecuteFunctions,
	results: SessionResults,
	itemIndex: number,
): void {
	if (
		results.status !== 'failed' &&
		results.status !== 'partial' &&
		results.status !== 'expired' &&
		results.status !== 'cancelled'
	)
		return;
	const failed = results.templates.filter((t) => t.status === 'failure').map(templateLabel);
	const partly = results.templates.filter((t) => t.status === 'partial_success').map(templateLabel);
	const parts: string[] = [];
	if (failed.length > 0) parts.push(`failed: ${failed.join(', ')}`);
	if (partly.length > 0) parts.push(`only partly produced: ${partly.join(', ')}`);
	const what = {
		failed: 'failed',
		expired: 'expired before it was ended',
		cancelled: 'was cancelled',
		partial: 'is only partly done',
	}[results.status];
	const detail =
		parts.length > 0
			? ` (${parts.join('; ')})`
			: results.error?.message
				? ` (the API said: ${results.error.message})`
				: '';
	throw new NodeOperationError(ctx.getNode(), `Session "${results.sessionId}" ${what}${detail}`, {
		description:
			'The templates that succeeded stay at the API. Run Get Results with this session ID later to read them again, or send the recording again with a new Transaction ID. To output such sessions with their status instead of failing, turn off "Fail on Incomplete Results".',
		itemIndex,
	});
}

function templateLabel(template: { name: string; templateId: string }): string {
	return template.name && template.name !== template.templateId
		? `${template.name} (${template.templateId})`
		: template.templateId;
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

function stoppedError(
	ctx: IExecuteFunctions,
	sessionId: string,
	itemIndex: number,
): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`Stopped waiting for session "${sessionId}" because the execution was cancelled`,
		{
			itemIndex,
		},
	);
}

export function formatDuration(ms: number): string {
	const seconds = Math.round(ms / 1000);
	if (seconds < 60) return `${seconds} s`;
	const minutes = Math.floor(seconds / 60);
	const rest = seconds % 60;
	return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
}
