/**
 * A session's whole audio (Get Session Audio): the service's link to it ([EKA-OAS]
 * `GET /voice/v1/sessions/{id}/audio`), then the audio from that link, which points at another host
 * (a presigned storage URL): it is fetched as a link (storage.ts), with no token and no auth header.
 */
import { NodeApiError, type IExecuteFunctions, type JsonObject } from 'n8n-workflow';

import { asRecord, textOf } from '../../shared/values';
import type { ClinicApiContext } from '../apiCall';
import { readErrorFields, unexpectedBodyError } from '../errors';
import { clinicApiRequest } from '../request';
import { mayRetry } from '../retryPolicy';
import { getFromLink } from '../storage';
import { sessionPath } from './session';

interface SessionAudioLink {
	audioUrl: string;
	expiresIn?: number;
	expiresAt?: unknown;
}

/** `GET …/{id}/audio`: a link to the whole session's audio; 403 audio_not_enabled, 404 audio_not_available. */
async function getSessionAudioLink(
	ctx: ClinicApiContext,
	sessionId: string,
	itemIndex?: number,
): Promise<SessionAudioLink> {
	const purpose = `the audio of session "${sessionId}"`;
	const response = await clinicApiRequest(ctx, {
		method: 'GET',
		path: `${sessionPath(ctx, sessionId, itemIndex)}/audio`,
		idempotent: true,
		acceptStatuses: [403, 404],
		purpose,
		itemIndex,
	});
	if (response.statusCode === 403 || response.statusCode === 404) {
		const { code } = readErrorFields(response.body);
		const notEnabled = response.statusCode === 403;
		throw new NodeApiError(
			ctx.getNode(),
			{ status_code: response.statusCode, code: code ?? null } as JsonObject,
			{
				message: notEnabled
					? `The workspace does not keep session audio, so session "${sessionId}" has none to download (HTTP 403${code ? ` ${code}` : ''})`
					: `Session "${sessionId}" has no audio to download (HTTP 404${code ? ` ${code}` : ''})`,
				description: notEnabled
					? 'Session audio is a feature the API provider turns on per workspace. Ask them to enable it; until then keep the recording where it came from.'
					: 'The audio is kept for 24 hours after the session, and only for sessions that received audio. Check the Session ID, or keep the recording where it came from.',
				httpCode: String(response.statusCode),
				itemIndex,
			},
		);
	}
	const body = asRecord(response.body);
	const audioUrl = textOf(body?.audio_url);
	if (!audioUrl || !/^https?:\/\//i.test(audioUrl))
		throw unexpectedBodyError(ctx, { purpose, itemIndex }, response.statusCode);
	const link: SessionAudioLink = { audioUrl };
	if (typeof body?.expires_in === 'number') link.expiresIn = body.expires_in;
	if (body?.expires_at !== undefined) link.expiresAt = body.expires_at;
	return link;
}

interface DownloadedAudio {
	/** The service's link the audio came from (signed: never output). */
	link: SessionAudioLink;
	stream: unknown;
	contentType: string;
	contentLength?: number;
}

/**
 * A session's whole audio: the service's link to it, then the audio itself from that link, which
 * points at another host (a presigned storage URL, no token goes there: storage.ts).
 */
export async function downloadSessionAudio(
	ctx: IExecuteFunctions,
	sessionId: string,
	itemIndex: number,
): Promise<DownloadedAudio> {
	const link = await getSessionAudioLink(ctx, sessionId, itemIndex);
	let host = 'the audio host';
	try {
		host = new URL(link.audioUrl).host;
	} catch {
		// Checked to be http(s) before.
	}
	const answer = await getFromLink(
		ctx,
		{
			url: link.audioUrl,
			host,
			purpose: `the audio of session "${sessionId}"`,
			itemIndex,
			encoding: 'stream',
		},
		(statusCode, attempts) => {
			const retried = attempts > 1 ? ` (tried ${attempts} times)` : '';
			return new NodeApiError(ctx.getNode(), { status_code: statusCode } as JsonObject, {
				message: `Could not download the audio of session "${sessionId}" from ${host} (HTTP ${statusCode})`,
				description:
					statusCode >= 300 && statusCode < 400
						? `The audio link redirected elsewhere, which is not followed. Run again; if it persists, contact the API provider${retried}.`
						: mayRetry({ status: statusCode })
							? `The storage host did not serve the audio. Run again later${retried}.`
							: `The link may have expired (it is valid for 24 hours). Run again to get a fresh link${retried}.`,
				httpCode: String(statusCode),
				itemIndex,
			});
		},
	);
	const contentType =
		String(answer.headers['content-type'] ?? 'audio/wav')
			.split(';')[0]
			.trim() || 'audio/wav';
	const length = Number(answer.headers['content-length']);
	return {
		link,
		stream: answer.body,
		contentType,
		...(Number.isFinite(length) ? { contentLength: length } : {}),
	};
}
