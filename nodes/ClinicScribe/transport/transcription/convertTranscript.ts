/**
 * Convert Transcript's calls ([EKA-OAS] upload-transcript.mdx): an empty session of ours that will
 * hold the document, then the conversion of the transcript into the template's document.
 */
import type { IDataObject } from 'n8n-workflow';

import { asRecord } from '../../shared/values';
import type { ClinicApiContext } from '../apiCall';
import { clinicApiError, unexpectedBodyError } from '../errors';
import { clinicApiRequest, pathSegment } from '../request';
import { PRODUCTION_POLICY } from '../retryPolicy';
import { createSession, newSessionId, type CreateWording } from './session';

const CONVERT_PATH_PREFIX = '/voice/api/v1/transaction/';

const CREATE_WORDING: CreateWording = {
	purpose: 'creating a session for the transcript',
	afterLostCreate:
		'The transcript was not sent, so no document was made (a session left empty is never processed and expires unused). Run the node again.',
};

/**
 * Creates an empty session that will hold the converted document; returns its id. The id is ours,
 * so a create whose answer was lost is sent again like the session upload's: "exists" then is the
 * session the first attempt made, and no second one is left behind.
 */
export async function createTranscriptSession(
	ctx: ClinicApiContext,
	templateId: string,
	itemIndex?: number,
): Promise<string> {
	const created = await createSession(
		ctx,
		{ session_id: newSessionId(), upload_type: 'single', templates: [templateId] },
		itemIndex,
		CREATE_WORDING,
	);
	// "Exists" without a lost answer: the new id was taken (it never is in practice); nothing was sent.
	if (created.alreadyCreated && !created.afterLostAnswer) {
		const refused = clinicApiError(ctx, { purpose: CREATE_WORDING.purpose, itemIndex }, 409, {});
		refused.description = `The service already has a session under the ID just generated for this transcript (${created.sessionId}), so the transcript was not sent. Run the node again: each run generates a new ID.`;
		throw refused;
	}
	return created.sessionId;
}

interface ConvertStarted {
	documentId: string;
	templateId: string;
	body: IDataObject;
}

/**
 * Starts the conversion (the service answers 202 and works in the background). No `flavour` header:
 * with one the service only stores the transcript ([EKA-SCRIBE]).
 */
export async function convertTranscript(
	ctx: ClinicApiContext,
	sessionId: string,
	transcript: string,
	templateId: string,
	itemIndex?: number,
): Promise<ConvertStarted> {
	const purpose = `converting the transcript of session "${sessionId}" to template "${templateId}"`;
	const response = await clinicApiRequest(ctx, {
		method: 'POST',
		path: `${CONVERT_PATH_PREFIX}${pathSegment(ctx, sessionId, 'Session ID', itemIndex)}/convert-to-template`,
		body: { transcript, template_id: templateId },
		// Not idempotent: each call creates a new document (and is paid), so it is never repeated.
		idempotent: false,
		acceptStatuses: [400, 404],
		timeoutMs: PRODUCTION_POLICY.timeouts.initMs,
		purpose,
		itemIndex,
		// The transcript is patient data: an error that echoes it must not show it.
		redact: [transcript],
	});
	if (response.statusCode === 400 || response.statusCode === 404)
		throw clinicApiError(
			ctx,
			{ purpose, itemIndex, redact: [transcript] },
			response.statusCode,
			response.body,
		);
	const body = (asRecord(response.body) ?? {}) as IDataObject;
	// Read document_id, not status: [EKA-OAS] answers "in-progress", [EKA-JS] types "success" | "failed".
	if (typeof body.document_id !== 'string' || body.document_id === '')
		throw unexpectedBodyError(ctx, { purpose, itemIndex }, response.statusCode);
	return {
		documentId: body.document_id,
		templateId: typeof body.template_id === 'string' ? body.template_id : templateId,
		body,
	};
}
