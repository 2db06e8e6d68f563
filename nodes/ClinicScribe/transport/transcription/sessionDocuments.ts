/**
 * A session's documents ([EKA-OAS] create-update-document.mdx): the session's listing and Save
 * Edited Notes' save of a document (update, or create and link to the session).
 */
import { NodeApiError, type IDataObject, type JsonObject } from 'n8n-workflow';

import { asRecord, textOf } from '../../shared/values';
import type { ClinicApiContext } from '../apiCall';
import { clinicApiError, readErrorFields, unexpectedBodyError } from '../errors';
import { clinicApiRequest, pathSegment } from '../request';
import { PRODUCTION_POLICY } from '../retryPolicy';
import { putToLink } from '../storage';

const DOCUMENTS_PATH = '/voice/api/v1/documents';
const SESSION_DOCUMENTS_PATH = '/voice/api/v1/sessions/';

/** One document of a session's listing, as far as Save Edited Notes reads it ([EKA-OAS] SessionDocument). */
export interface SessionDocumentSummary {
	documentId: string;
	documentName: string | null;
	type: string | null;
	templateId: string | null;
}

/** `GET /voice/api/v1/sessions/{id}`: the session's documents; 404 is an unknown session. */
export async function listSessionDocuments(
	ctx: ClinicApiContext,
	sessionId: string,
	itemIndex?: number,
): Promise<SessionDocumentSummary[]> {
	const purpose = `the documents of session "${sessionId}"`;
	const response = await clinicApiRequest(ctx, {
		method: 'GET',
		path: `${SESSION_DOCUMENTS_PATH}${pathSegment(ctx, sessionId, 'Session ID', itemIndex)}`,
		idempotent: true,
		acceptStatuses: [404],
		timeoutMs: PRODUCTION_POLICY.timeouts.apiCallMs,
		purpose,
		itemIndex,
	});
	if (response.statusCode === 404) throw unknownSessionError(ctx, sessionId, itemIndex);
	const documents = asRecord(asRecord(response.body)?.data)?.documents;
	if (!Array.isArray(documents))
		throw unexpectedBodyError(ctx, { purpose, itemIndex }, response.statusCode);
	return documents.flatMap((entry) => {
		const document = asRecord(entry);
		const documentId = textOf(document?.document_id);
		if (!document || !documentId) return [];
		return [
			{
				documentId,
				documentName: textOf(document.document_name) ?? null,
				type: textOf(document.type) ?? null,
				templateId: textOf(document.template_id) ?? null,
			},
		];
	});
}

function unknownSessionError(ctx: ClinicApiContext, sessionId: string, itemIndex?: number) {
	return new NodeApiError(ctx.getNode(), { status_code: 404 } as JsonObject, {
		message: `Session "${sessionId}" was not found (HTTP 404)`,
		description:
			'Check the Session ID: use the session_id of the session whose notes were edited. Nothing was saved.',
		httpCode: '404',
		itemIndex,
	});
}

interface DocumentSave {
	sessionId: string;
	/** The document to update; absent: a new document is created. */
	documentId?: string;
	documentName?: string;
	templateId?: string;
	markdown: string;
}

interface SavedDocument {
	documentId: string;
	created: boolean;
	bytes: number;
	documentName: string | null;
}

/**
 * Creates (no document_id, 201) or updates (200) a session's document, then stores its markdown at
 * the presigned PUT URL the answer carries (no token). An update is safe to repeat (same document,
 * same body); a create is not (a repeat after a lost answer could make a second document), so it is
 * sent again only when the answer says it was not taken (408/429). A failure after the POST says
 * which document now exists and that its content was not stored.
 */
export async function saveSessionDocument(
	ctx: ClinicApiContext,
	save: DocumentSave,
	itemIndex?: number,
): Promise<SavedDocument> {
	const updating = save.documentId !== undefined;
	const purpose = updating
		? `updating document "${save.documentId}" of session "${save.sessionId}"`
		: `creating a document on session "${save.sessionId}"`;
	const body: IDataObject = {
		session_id: save.sessionId,
		type: 'custom',
		status: 'success',
		...(updating ? { document_id: save.documentId } : {}),
		...(save.documentName ? { document_name: save.documentName } : {}),
		...(save.templateId ? { template_id: save.templateId } : {}),
	};
	const response = await clinicApiRequest(ctx, {
		method: 'POST',
		path: DOCUMENTS_PATH,
		body,
		idempotent: updating,
		acceptStatuses: [404, 422],
		timeoutMs: PRODUCTION_POLICY.timeouts.apiCallMs,
		purpose,
		itemIndex,
		// An update is the same write again; a create that got no clear answer may have made the
		// document, so it is not repeated, and the error says how to finish without a second one.
		...(updating
			? {}
			: {
					failedAfterLostAnswer: (error: NodeApiError) =>
						new NodeApiError(ctx.getNode(), { message: error.message } as JsonObject, {
							message: error.message,
							description:
								'No clear answer came, and a create is not sent again: the service may have made the document. Its markdown was not stored. Run the node again with the same input: it finds the document by its name on the session and updates it, so no second document is made.',
							httpCode: error.httpCode ?? undefined,
							itemIndex,
						}),
				}),
	});
	if (response.statusCode === 404) {
		if (!updating) throw unknownSessionError(ctx, save.sessionId, itemIndex);
		const said = readErrorFields(response.body).message;
		throw new NodeApiError(ctx.getNode(), { status_code: 404 } as JsonObject, {
			message: `Document "${save.documentId}" of session "${save.sessionId}" was not found (HTTP 404)${said ? `: ${said}` : ''}`,
			description:
				"Check the Document ID (the document_id of the session's generated notes) and the Session ID it belongs to. Nothing was saved.",
			httpCode: '404',
			itemIndex,
		});
	}
	if (response.statusCode === 422)
		throw clinicApiError(ctx, { purpose, itemIndex }, 422, response.body);
	const data = asRecord(asRecord(response.body)?.data);
	const documentId = textOf(data?.document_id);
	const uploadUrl = textOf(data?.presigned_url);
	if (!documentId || !uploadUrl)
		throw unexpectedBodyError(ctx, { purpose, itemIndex }, response.statusCode);
	const done = `Document "${documentId}" was ${updating ? 'updated' : 'created'} on session "${save.sessionId}"`;
	const content = Buffer.from(save.markdown, 'utf8');
	let host: string;
	try {
		host = new URL(uploadUrl).host;
	} catch {
		throw halfDoneError(
			ctx,
			done,
			documentId,
			'the upload address it gave is not a URL',
			itemIndex,
		);
	}
	await putToLink(
		ctx,
		{
			url: uploadUrl,
			host,
			body: content,
			contentType: 'text/markdown',
			purpose: `storing the markdown of document "${documentId}"`,
			itemIndex,
		},
		(statusCode, detail) =>
			halfDoneError(
				ctx,
				done,
				documentId,
				`the storage host refused it (HTTP ${statusCode}${detail ? `: ${detail}` : ''})`,
				itemIndex,
			),
	).catch((error: unknown) => {
		if (error instanceof NodeApiError && error.message.startsWith(done)) throw error;
		const cause = error instanceof Error ? error.message : String(error);
		throw halfDoneError(ctx, done, documentId, cause, itemIndex);
	});
	return {
		documentId,
		created: !updating,
		bytes: content.length,
		documentName: textOf(data?.document_name) ?? save.documentName ?? null,
	};
}

/** The POST was done, the content was not stored: what exists, and how to finish without a second document. */
function halfDoneError(
	ctx: ClinicApiContext,
	done: string,
	documentId: string,
	cause: string,
	itemIndex?: number,
): NodeApiError {
	return new NodeApiError(ctx.getNode(), { message: cause } as JsonObject, {
		message: `${done}, but its markdown was not stored: ${cause}`,
		description: `Run the node again with Document ID "${documentId}" to store the notes in that document; no new document is made.`,
		itemIndex,
	});
}
