/**
 * Upload Method "Session", in the transaction's place in the batch (same gate, halts, own IDs and
 * outcomes): create the session under its id → upload every file as raw bytes (several at once,
 * through the run's gate) → End (the paid step).
 */
import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { storedAudioName } from '../../../shared/answers/sessionResults';
import {
	createSession,
	endSession,
	readSessionState,
	uploadSessionAudio,
	type SessionState,
} from '../../../transport/transcription/session';
import { fileFields, fileUploads, type BatchRun, type UploadProgress } from './batchRunner';
import type { PlannedFile } from './files';
import { describeItems, type UploadPlan } from './plan';

/**
 * What a session receipt says happened: this try created the session, uploaded and ended it; an
 * earlier try created it and this one uploaded and ended it; or an earlier try had already ended it
 * (nothing sent again).
 */
type SessionOutcome = 'uploaded_and_ended' | 'continued_and_ended' | 'ended_by_earlier_try';

/**
 * Sends one session; its receipts, one per file. The id joins the run's own IDs before the create
 * is sent, so n8n's Retry On Fail reads a conflict as its own session. A session the service already
 * holds is read (its body's `status`, never the HTTP status beside it): one still open gets the files
 * (a repeat replaces a file) and is ended; one an earlier try ended is reported so, not sent again;
 * anything else fails the item, saying why nothing was sent.
 */
export async function runSession(
	ctx: IExecuteFunctions,
	plan: UploadPlan,
	run: BatchRun,
	progress: UploadProgress,
): Promise<IDataObject[]> {
	const { settings } = plan;
	const itemIndex = plan.itemIndexes[0];
	run.throwIfHalted();
	// An earlier try of this node run may have made it (n8n's Retry On Fail): a generated id, or one of the run's own.
	const earlierTry = plan.generatedId || run.ownIds.has(plan.id);
	// Remembered before sending: if no clear answer comes, a retry of this node knows the session is its own.
	run.ownIds.add(plan.id);
	const created = await createSession(
		ctx,
		{
			session_id: plan.id,
			upload_type: 'single',
			templates: settings.templates.map((template) => template.template_id),
			language_hint: settings.inputLanguages,
			model: settings.modelType,
			// Not in [EKA-OAS]'s create schema, accepted by [EKA-SCRIBE]'s (default consultation): sent so a dictation stays one.
			session_mode: settings.mode,
			...(settings.additionalData ? { additional_data: settings.additionalData } : {}),
		},
		itemIndex,
	);
	let sessionOutcome: SessionOutcome = 'uploaded_and_ended';
	if (created.alreadyCreated) {
		// Held before this try: not ours unless continued below (a retry must not take it for ours).
		if (!earlierTry) run.ownIds.forget(plan.id);
		const existing = await readSessionState(ctx, plan.id, itemIndex);
		if (continuationOf(ctx, plan, earlierTry, existing) === 'ended') {
			return plan.files.map((file) => endedByEarlierTryReceipt(plan, file, existing));
		}
		run.ownIds.add(plan.id);
		// Our own create whose answer was lost made it: uploaded and ended as if the answer had come.
		sessionOutcome =
			created.afterLostAnswer && !earlierTry ? 'uploaded_and_ended' : 'continued_and_ended';
	}
	const uploads = fileUploads(run, plan, progress);
	const uploaded = uploads.answers(
		await Promise.all(
			plan.files.map((file) =>
				uploads.send(() =>
					uploadSessionAudio(
						ctx,
						plan.id,
						{ ...file, sessionFileName: file.fileName },
						file.itemIndex,
					),
				),
			),
		),
	);
	run.throwIfHalted();
	progress.startRequestSent = true;
	const ended = await endSession(ctx, plan.id, plan.files.length, itemIndex);
	return plan.files.map((file, index) => ({
		...fileFields(plan, file),
		outcome: sessionOutcome,
		upload_status: 'uploaded',
		upload_status_code: uploaded[index].statusCode,
		files_in_session: plan.files.length,
		end: {
			status: ended.alreadyEnded ? 'already_ended' : 'ended',
			http_status: ended.statusCode,
			message: typeof ended.body.message === 'string' ? ended.body.message : null,
			session_status: typeof ended.body.status === 'string' ? ended.body.status : null,
			audio_files_received:
				typeof ended.body.audio_files_received === 'number'
					? ended.body.audio_files_received
					: null,
		},
	}));
}

/**
 * Whether a session the service already holds is continued (`open`: this try uploads and ends it) or
 * was ended by an earlier try of this node run (`ended`: nothing sent again); anything else throws,
 * saying why nothing was sent. Read from the body's `status` (see readSessionState).
 */
function continuationOf(
	ctx: IExecuteFunctions,
	plan: UploadPlan,
	earlierTry: boolean,
	existing: SessionState,
): 'open' | 'ended' {
	const itemIndex = plan.itemIndexes[0];
	const items = describeItems(plan.itemIndexes);
	switch (existing.lifecycle) {
		case 'open': {
			// Unless an earlier try of this run made it, it is continued only while it holds no audio
			// but files this upload replaces: no other recording's audio is processed with this one.
			const ourNames = new Set(plan.files.map((file) => storedAudioName(file.fileName)));
			if (!earlierTry && (existing.audioFiles ?? []).some((name) => !ourNames.has(name)))
				throw sessionIdUsedError(ctx, plan.id, itemIndex);
			return 'open';
		}
		case 'ended':
			// Only an earlier try can have ended it: a session this very create made cannot be ended yet.
			if (!earlierTry) throw sessionIdUsedError(ctx, plan.id, itemIndex);
			return 'ended';
		case 'expired':
			throw new NodeOperationError(
				ctx.getNode(),
				`Session "${plan.id}" of ${items} expired before it was ended`,
				{
					description:
						'Nothing of this item was uploaded: an expired session takes no more audio and is not processed. Run again with another Transaction ID, or leave the field empty to have one generated.',
					itemIndex,
				},
			);
		case 'cancelled':
			throw new NodeOperationError(
				ctx.getNode(),
				`Session "${plan.id}" of ${items} was cancelled`,
				{
					description:
						'Nothing of this item was uploaded: a cancelled session takes no audio and is not processed. Run again with another Transaction ID, or leave the field empty to have one generated.',
					itemIndex,
				},
			);
		case 'not_found':
			throw sessionIdUsedError(ctx, plan.id, itemIndex);
		case 'unknown':
			throw new NodeOperationError(
				ctx.getNode(),
				`Session "${plan.id}" of ${items} exists, but its state "${existing.bodyStatus ?? '(none given)'}" does not say whether it is still open`,
				{
					description:
						'Nothing of this item was uploaded and the session was not ended. Check it with Get Results (Results Of "Session") before sending the recording again.',
					itemIndex,
				},
			);
	}
}

/** The receipt of a file of a session an earlier try of this node uploaded and ended: nothing sent again. */
function endedByEarlierTryReceipt(
	plan: UploadPlan,
	file: PlannedFile,
	existing: SessionState,
): IDataObject {
	return {
		...fileFields(plan, file),
		outcome: 'ended_by_earlier_try',
		upload_status: 'uploaded_by_earlier_try',
		upload_status_code: null,
		files_in_session: plan.files.length,
		end: {
			status: 'ended_by_earlier_try',
			http_status: null,
			message: null,
			session_status: existing.bodyStatus,
			audio_files_received: null,
		},
	};
}

/** The Session ID names a session the service holds that is not this node run's to continue. */
function sessionIdUsedError(
	ctx: IExecuteFunctions,
	sessionId: string,
	itemIndex: number | undefined,
): NodeApiError {
	return new NodeApiError(
		ctx.getNode(),
		{ status_code: 409, code: 'session_exists' } as JsonObject,
		{
			message: `The Session ID "${sessionId}"${itemIndex === undefined ? '' : ` of item ${itemIndex}`} was already used: the service has a session with this ID`,
			description: `Nothing of this item was uploaded. One session ID holds one recording session. To read the earlier session, use Get Results with Results Of "Session" and this ID. To upload this recording, give it an ID that was never used (16 to 32 characters), or leave the field empty to have one generated.`,
			httpCode: '409',
			itemIndex,
		},
	);
}
