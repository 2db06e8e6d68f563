/**
 * One delivery to the trigger's webhook: size bound, signature, replay, event filter, and the
 * session's results when Include Results is on.
 */
import {
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { clinicEventKind, deliveryEventName, normalizeClinicEvent, type ClinicEvent } from '../shared/clinicEvents';
import { chosenEventNames, isChosenEvent, normalizeCompletionEvent, type CompletionEvent } from '../shared/completionEvents';
import { isResultsOutput, readResultsSource, RESULTS_OUTPUT_PARAMETER, RESULTS_SOURCE_PARAMETER } from '../shared/resultsOutput.description';
import { sessionResultsToRecords } from '../shared/sessionResults';
import {
	DEFAULT_TOLERANCE_SECONDS,
	MAX_DELIVERY_BYTES,
	deliveryKeyOf,
	ReplayGuard,
	SIGNATURE_HEADER,
	verifySignature,
} from '../shared/webhookSignature';
import { fetchSessionApiResults } from '../transport/sessionApi';
import { fetchSessionResults } from '../transport/transcriptionApi';
import { recordOfEvent } from './eventRecords';
import { credentialSigningKey, readStored } from './storedSubscription';

/**
 * Signed deliveries already accepted by this process (see ReplayGuard). Module state by design: the
 * replay cache must outlive one webhook() call and be shared by every workflow's trigger in the
 * process, and it cannot live in static data, which webhook() may only read (it may run in another
 * process in queue mode). Bounded in size and by the signature's timestamp tolerance.
 */
const replayGuard = new ReplayGuard();

/**
 * One delivery to the webhook: refused when too large or not signed by the key the node holds,
 * dropped (acknowledged) when a replay or an event not chosen, else the workflow's items.
 */
export async function receiveDelivery(ctx: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = ctx.getRequestObject();
	// Read-only use of static data: webhook() may run in another process (queue mode).
	const staticData = ctx.getWorkflowStaticData('node');
	const options = ctx.getNodeParameter('options', {}) as IDataObject;

	const rawBody = Buffer.isBuffer(request.rawBody) ? request.rawBody : undefined;
	if (rawBody && rawBody.length > MAX_DELIVERY_BYTES) {
		// Refused before any check or use of it (n8n's own bound, N8N_PAYLOAD_SIZE_MAX, is far larger).
		ctx.logger.warn(`Clinic Scribe Trigger: refused a delivery of ${rawBody.length} bytes (at most ${MAX_DELIVERY_BYTES})`);
		ctx.getResponseObject().status(413).json({ message: 'Delivery too large' });
		return { noWebhookResponse: true };
	}

	const nowSeconds = Math.floor(Date.now() / 1000);
	const signatureHeader = request.headers[SIGNATURE_HEADER] as string | string[] | undefined;
	const signature = Array.isArray(signatureHeader) ? signatureHeader[0] : signatureHeader;
	const verifying = ctx.getNodeParameter('verifySignature', true) !== false;
	const deliveryKey = deliveryKeyOf(rawBody, signature);
	if (verifying) {
		const stored = readStored(staticData, staticData.signingKeyInCredential === true ? await credentialSigningKey(ctx) : undefined);
		const check = verifySignature({
			header: signatureHeader,
			rawBody,
			signingKey: stored.signingKey,
			nowSeconds,
			toleranceSeconds: toleranceOf(options),
		});
		if (!check.valid) {
			// The reason only: nothing of the body is ever logged.
			ctx.logger.warn(`Clinic Scribe Trigger: rejected a delivery (signature ${check.reason})`);
			ctx.getResponseObject().status(401).json({ message: 'Signature check failed' });
			return { noWebhookResponse: true };
		}
		if (deliveryKey && replayGuard.wasAccepted(deliveryKey, nowSeconds)) {
			// The very delivery already started the workflow: a replay, or the service delivering
			// again (perhaps signed afresh). Acknowledged (so a service stops retrying) and dropped, so
			// nothing runs twice.
			ctx.logger.warn('Clinic Scribe Trigger: acknowledged and dropped a delivery already accepted (signature replayed)');
			return {};
		}
	}
	// Claimed before anything is awaited: a copy of this delivery that arrives while this one is still
	// being handled (the fetch of Include Results or Include Appointment or Prescription) is dropped
	// as a replay too. Released when this one starts nothing (an event not chosen) or fails (a failed
	// fetch), so the service may deliver it again.
	const claimed = verifying && signature !== undefined && signature !== '' && deliveryKey !== undefined;
	if (claimed) replayGuard.remember(deliveryKey, nowSeconds, toleranceOf(options));
	let started = false;
	try {
		const result = await workflowItems(ctx, options);
		started = result.workflowData !== undefined;
		return result;
	} finally {
		if (claimed && !started) replayGuard.forget(deliveryKey);
	}
}

/** The items of a verified delivery, or `{}` (acknowledged, nothing started) for an event not chosen. */
async function workflowItems(ctx: IWebhookFunctions, options: IDataObject): Promise<IWebhookResponseData> {
	const body = ctx.getBodyData();
	const chosen = chosenEventNames(ctx.getNodeParameter('events', []), options.additionalEventNames);
	const name = deliveryEventName(body);
	if (name !== undefined && clinicEventKind(name) !== undefined) {
		// A clinic event (appointment, prescription, receipt, …): its own normalised shape.
		const clinicEvent = normalizeClinicEvent(body);
		if (!clinicEvent || !chosen.includes(clinicEvent.event)) {
			ctx.logger.debug('Clinic Scribe Trigger: acknowledged and dropped a delivery of an event not chosen');
			return {};
		}
		if (ctx.getNodeParameter('includeRecord', false) !== true) {
			return { workflowData: [[{ json: clinicEventJson(clinicEvent) }]] };
		}
		const record = await recordOfEvent(ctx, clinicEvent);
		return { workflowData: [[{ json: { ...clinicEventJson(clinicEvent), ...record } }]] };
	}

	// v2rx.* (and names of no clinic family): the transcription shape, as in version 1.
	const event = normalizeCompletionEvent(body);
	if (!event || !isChosenEvent(event, chosen)) {
		// Not even the event name: it comes from the body, which may be unverified.
		ctx.logger.debug('Clinic Scribe Trigger: acknowledged and dropped a delivery of an event not chosen');
		return {};
	}

	if (ctx.getNodeParameter('includeResults', false) !== true) {
		return { workflowData: [[{ json: eventJson(event) }]] };
	}
	return { workflowData: [await itemsWithResults(ctx, event)] };
}

function toleranceOf(options: IDataObject): number {
	const value = Number(options.toleranceSeconds);
	return Number.isFinite(value) && value > 0 ? value : DEFAULT_TOLERANCE_SECONDS;
}

/**
 * The items Transcription → Get Results gives for the session, each with the event under `event`.
 * A failed fetch throws: n8n then records a failed execution and answers the service 500, so the
 * failure is visible and the service may deliver again.
 */
async function itemsWithResults(ctx: IWebhookFunctions, event: CompletionEvent): Promise<INodeExecutionData[]> {
	if (!event.sessionId) {
		throw new NodeOperationError(ctx.getNode(), 'The delivery names no session, so its results cannot be fetched', {
			description: 'Turn off Include Results to receive such deliveries as they are.',
		});
	}
	const chosen = ctx.getNodeParameter(RESULTS_OUTPUT_PARAMETER, 'session');
	const output = isResultsOutput(chosen) ? chosen : 'session';
	// A session of the session API is read there; everything else through the status call.
	const read = readResultsSource(ctx.getNodeParameter(RESULTS_SOURCE_PARAMETER, 'transaction')) === 'session' ? fetchSessionApiResults : fetchSessionResults;
	const results = await read(ctx, event.sessionId);
	return sessionResultsToRecords(results, output).map((record) => ({ json: { ...record, event: eventJson(event) } }));
}

function eventJson(event: CompletionEvent): IDataObject {
	return {
		event: event.event,
		transactionId: event.transactionId,
		sessionId: event.sessionId,
		status: event.status,
		timestamp: event.timestamp,
		shape: event.shape,
		body: event.body,
	};
}


function clinicEventJson(event: ClinicEvent): IDataObject {
	return { ...event };
}
