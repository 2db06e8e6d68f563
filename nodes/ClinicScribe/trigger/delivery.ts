/**
 * One delivery to the trigger's webhook: size bound, signature, replay, event filter, and the
 * session's results or the event's record when Include Results or Include Appointment or
 * Prescription is on.
 */
import type {
	IDataObject,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import {
	clinicEventKind,
	deliveryEventName,
	normalizeClinicEvent,
	type ClinicEvent,
} from './clinicEvents';
import {
	chosenEventNames,
	isChosenEvent,
	normalizeCompletionEvent,
	type CompletionEvent,
} from './completionEvents';
import {
	isResultsOutput,
	readResultsSource,
	RESULTS_OUTPUT_PARAMETER,
	RESULTS_SOURCE_PARAMETER,
} from '../shared/fields/resultsOutput.description';
import { sessionResultsToRecords } from '../shared/answers/resultsOutput';
import {
	DEFAULT_TOLERANCE_SECONDS,
	MAX_DELIVERY_BYTES,
	deliveryKeyOf,
	ReplayGuard,
	SIGNATURE_HEADER,
	verifySignature,
	type DeliveryReceiver,
} from './webhookSignature';
import { deadlineSignal, settledBefore } from '../shared/deadline';
import { PRODUCTION_POLICY } from '../transport/retryPolicy';
import { fetchResults } from '../transport/transcription/transaction';
import { fetchWithinBudget, type IncludedFetch } from './boundedFetch';
import { fhirRecordOfSession } from './fhirResults';
import { fetchRecord, includedRecord, recordFamilyOf } from './eventRecords';
import { credentialSigningKey, readStored } from './storedSubscription';

/**
 * Signed deliveries accepted by this process, and those being handled (see ReplayGuard). Module
 * state by design: the replay cache must outlive one webhook() call, and it cannot live in static
 * data, which webhook() may only read (it may run in another process in queue mode). Its keys name
 * the receiving trigger (workflow, node, production or test URL), so the workflows that share an
 * event never replay one another. Bounded in size and by the signature's timestamp tolerance.
 */
const replayGuard = new ReplayGuard();

/** What the service is told when a copy of a delivery is still being handled after the bound: try again. */
const RETRY_AFTER_SECONDS = 10;

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
		ctx.logger.warn(
			`Clinic Scribe Trigger: refused a delivery of ${rawBody.length} bytes (at most ${MAX_DELIVERY_BYTES})`,
		);
		ctx.getResponseObject().status(413).json({ message: 'Delivery too large' });
		return { noWebhookResponse: true };
	}

	const nowSeconds = Math.floor(Date.now() / 1000);
	const signatureHeader = request.headers[SIGNATURE_HEADER] as string | string[] | undefined;
	const signature = Array.isArray(signatureHeader) ? signatureHeader[0] : signatureHeader;
	if (ctx.getNodeParameter('verifySignature', true) === false)
		return await workflowItems(ctx, options);

	const stored = readStored(
		staticData,
		staticData.signingKeyInCredential === true ? await credentialSigningKey(ctx) : undefined,
	);
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
	const deliveryKey = deliveryKeyOf(receiverOf(ctx), rawBody, signature);
	if (!deliveryKey) return await workflowItems(ctx, options);
	return await handledOnce(
		ctx,
		deliveryKey,
		nowSeconds,
		toleranceOf(options),
		async () => await workflowItems(ctx, options),
	);
}

/** This trigger: the same event delivered to another workflow, node or URL (test vs production) is another delivery. */
function receiverOf(ctx: IWebhookFunctions): DeliveryReceiver {
	const node = ctx.getNode();
	return {
		workflowId: String(ctx.getWorkflow().id ?? ''),
		nodeId: node.id || node.name,
		mode: ctx.getMode(),
	};
}

/**
 * Runs `handle` for the first copy of a delivery only. A copy arriving while the first is handled
 * waits for it (the first is bounded by the fetch budget): acknowledged once the first has started the
 * workflow, handled itself if the first started nothing (it failed), and answered 503 (retry) if the
 * first is still not done when this copy's own bound runs out. So a delivery is never acknowledged
 * before a run has started with it or it was refused for good.
 */
async function handledOnce(
	ctx: IWebhookFunctions,
	deliveryKey: string,
	nowSeconds: number,
	toleranceSeconds: number,
	handle: () => Promise<IWebhookResponseData>,
): Promise<IWebhookResponseData> {
	const wait = deadlineSignal(PRODUCTION_POLICY.timeouts.triggerFetchMs);
	try {
		for (;;) {
			const claim = replayGuard.claim(deliveryKey, nowSeconds, toleranceSeconds);
			if (claim.kind === 'accepted') {
				// The very delivery already started this workflow: a replay, or the service delivering again
				// (perhaps signed afresh). Acknowledged, so a service stops retrying, and dropped.
				ctx.logger.warn(
					'Clinic Scribe Trigger: acknowledged and dropped a delivery already accepted (signature replayed)',
				);
				return {};
			}
			if (claim.kind === 'in-flight') {
				const first = await settledBefore(claim.outcome, wait.signal);
				if ('expired' in first) {
					ctx.logger.warn(
						'Clinic Scribe Trigger: asked the service to deliver again later: a copy of this delivery is still being handled',
					);
					const response = ctx.getResponseObject();
					response.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
					response.status(503).json({
						message: 'A copy of this delivery is still being handled; deliver it again later',
					});
					return { noWebhookResponse: true };
				}
				if ('value' in first && first.value) {
					ctx.logger.warn(
						'Clinic Scribe Trigger: acknowledged and dropped a copy of a delivery that started the workflow meanwhile',
					);
					return {};
				}
				// The first copy started nothing: this one is handled in its place.
				continue;
			}
			let started = false;
			try {
				const result = await handle();
				started = result.workflowData !== undefined;
				return result;
			} finally {
				claim.settle(started);
			}
		}
	} finally {
		wait.dispose();
	}
}

/** The items of a verified delivery, or `{}` (acknowledged, nothing started) for an event not chosen. */
async function workflowItems(
	ctx: IWebhookFunctions,
	options: IDataObject,
): Promise<IWebhookResponseData> {
	const body = ctx.getBodyData();
	const chosen = chosenEventNames(ctx.getNodeParameter('events', []), options.additionalEventNames);
	const name = deliveryEventName(body);
	if (name !== undefined && clinicEventKind(name) !== undefined) {
		// A clinic event (appointment, prescription, receipt, …): its own normalised shape.
		const clinicEvent = normalizeClinicEvent(body);
		if (!clinicEvent || !chosen.includes(clinicEvent.event)) {
			ctx.logger.debug(
				'Clinic Scribe Trigger: acknowledged and dropped a delivery of an event not chosen',
			);
			return {};
		}
		const family =
			ctx.getNodeParameter('includeRecord', false) === true
				? recordFamilyOf(clinicEvent)
				: undefined;
		if (!family) return { workflowData: [[{ json: clinicEventJson(clinicEvent) }]] };
		const fetched = await fetchWithinBudget(
			ctx,
			includedRecord(family),
			async (bounds) => await fetchRecord(ctx, clinicEvent, family, bounds),
		);
		const json =
			'value' in fetched
				? { ...clinicEventJson(clinicEvent), [family]: fetched.value }
				: { ...clinicEventJson(clinicEvent), [family]: null, error: fetched.error };
		return { workflowData: [[{ json }]] };
	}

	// v2rx.* (and names of no clinic family): the transcription shape, as in version 1.
	const event = normalizeCompletionEvent(body);
	if (!event || !isChosenEvent(event, chosen)) {
		// Not even the event name: it comes from the body, which may be unverified.
		ctx.logger.debug(
			'Clinic Scribe Trigger: acknowledged and dropped a delivery of an event not chosen',
		);
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

const INCLUDED_RESULTS: IncludedFetch = {
	what: 'the results of the session',
	later: 'Transcription → Get Results (its ID is in sessionId, Results Of as set here)',
};

/**
 * The items Transcription → Get Results gives for the session, each with the event under `event`;
 * when they cannot be had in time, one item with the event and an `error` (see boundedFetch.ts).
 */
async function itemsWithResults(
	ctx: IWebhookFunctions,
	event: CompletionEvent,
): Promise<INodeExecutionData[]> {
	const chosen = ctx.getNodeParameter(RESULTS_OUTPUT_PARAMETER, 'session');
	const output = isResultsOutput(chosen) ? chosen : 'session';
	// A session of the session API is read there; everything else through the status call.
	const source =
		readResultsSource(ctx.getNodeParameter(RESULTS_SOURCE_PARAMETER, 'transaction')) ??
		'transaction';
	const sessionId = event.sessionId;
	if (!sessionId) {
		const error = {
			message: 'The delivery names no session, so its results cannot be fetched',
			description:
				'The workflow started with the event alone. Turn off Include Results to receive such deliveries without this error.',
			httpCode: null,
		};
		return [{ json: { session_id: null, error, event: eventJson(event) } }];
	}
	if (output === 'fhirBundle')
		return [
			{ json: { ...(await fhirRecordOfSession(ctx, sessionId, source)), event: eventJson(event) } },
		];
	const fetched = await fetchWithinBudget(
		ctx,
		INCLUDED_RESULTS,
		async (bounds) => await fetchResults(ctx, source, sessionId, undefined, bounds),
	);
	if ('error' in fetched)
		return [{ json: { session_id: sessionId, error: fetched.error, event: eventJson(event) } }];
	return sessionResultsToRecords(fetched.value, output).map((record) => ({
		json: { ...record, event: eventJson(event) },
	}));
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
