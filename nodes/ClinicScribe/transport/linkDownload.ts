/**
 * Downloads from a link the service gave on another host (a prescription PDF, a session's audio).
 * Through the plain `httpRequest` helper, so no token, `auth` header or client-id goes with it
 * whatever host the link names; no redirect is followed; retried like a read (408/429/5xx and
 * network failures, Retry-After honoured).
 */
import { NodeApiError, type IHttpRequestOptions, type JsonObject } from 'n8n-workflow';

import { describeNetworkFailure, isNetworkFailure } from './errorBodies';
import { executionCancelSignal, type ClinicApiContext } from './request';
import { requestStoppedError, type CallLabel } from './requestErrors';
import { withRetries } from './retry';
import { PRODUCTION_POLICY, RETRYABLE_STATUSES } from './retryPolicy';

export interface LinkRequest extends CallLabel {
	url: string;
	/** Names the link in messages (never the whole link, which may be signed). */
	host: string;
	/** `stream` hands the body on as it arrives; `arraybuffer` reads it whole. */
	encoding: 'arraybuffer' | 'stream';
	accept?: string;
}

export interface LinkAnswer {
	statusCode: number;
	body: unknown;
	headers: Record<string, unknown>;
}

/**
 * The 2xx answer of the link. Any other status is retried when it says "not now" and then thrown
 * as `refused(statusCode, attempts)` makes it; no answer after the retries is "Could not reach".
 */
export async function getFromLink(
	ctx: ClinicApiContext,
	link: LinkRequest,
	refused: (statusCode: number, attempts: number) => Error,
): Promise<LinkAnswer> {
	const signal = executionCancelSignal(ctx);
	const options: IHttpRequestOptions = {
		method: 'GET',
		url: link.url,
		...(link.accept ? { headers: { Accept: link.accept } } : {}),
		encoding: link.encoding,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// A redirect could lead anywhere; a storage link that redirects is not what the sources
		// describe, so it is reported rather than followed.
		disableFollowRedirect: true,
		timeout: PRODUCTION_POLICY.timeouts.apiCallMs,
		...(signal ? { abortSignal: signal } : {}),
	};
	return await withRetries(
		PRODUCTION_POLICY.retry,
		async (attempt) => {
			let response: { statusCode?: number; body?: unknown; headers?: Record<string, unknown> };
			try {
				response = (await ctx.helpers.httpRequest(options)) as typeof response;
			} catch (error) {
				const unreachable = new NodeApiError(ctx.getNode(), { message: 'network' } as JsonObject, {
					message: `Could not reach ${link.host} for ${link.purpose}: ${describeNetworkFailure(error)}`,
					description: `Check that n8n can reach ${link.host}, then run again${attempt > 1 ? ` (tried ${attempt} times)` : ''}.`,
					itemIndex: link.itemIndex,
				});
				if (isNetworkFailure(error)) return { kind: 'retry', error: unreachable };
				// A call Stop ended fails as stopped, not as unreachable.
				throw signal?.aborted ? requestStoppedError(ctx, link) : unreachable;
			}
			const statusCode = Number(response.statusCode ?? 0);
			const headers = response.headers ?? {};
			if (statusCode >= 200 && statusCode < 300) return { kind: 'done', value: { statusCode, body: response.body, headers } };
			// A stream of an answer that is not used is let go at once (its socket with it).
			(response.body as { destroy?: () => void } | undefined)?.destroy?.();
			const error = refused(statusCode, attempt);
			if (!RETRYABLE_STATUSES.has(statusCode)) throw error;
			const retryAfter = headers['retry-after'];
			return { kind: 'retry', error, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined };
		},
		{ signal, stopped: () => requestStoppedError(ctx, link) },
	);
}
