/**
 * Webhook subscriptions ([IFD §4.4]; list and delete from [EKA-WH]), as calls. They take
 * `Authorization: Bearer` (the credential adds it). Deciding what to do with the answers is in
 * trigger/subscriptionPlan.ts.
 */

import { isRecord, textOf } from '../shared/values';
import type { ClinicApiContext } from './apiCall';
import { clinicApiError, readErrorFields, unexpectedBodyError } from './errors';
import { clinicApiRequest, pathSegment } from './request';

/** One entry of the service's subscription list. */
export interface RemoteSubscription {
	id: string;
	endpoint: string;
	eventNames: string[];
	/** Shown by the list endpoint ([EKA-WH]); may be absent or masked. */
	signingKey?: string;
}

const SUBSCRIPTIONS_PATH = '/notification/v1/connect/webhook/subscriptions';

interface NewSubscription {
	eventNames: string[];
	endpoint: string;
	signingKey: string;
	protocol: string;
}

type CreateOutcome =
	| { kind: 'created'; id: string }
	| { kind: 'refused'; statusCode: number; message?: string; body: unknown };

export async function listSubscriptions(ctx: ClinicApiContext): Promise<RemoteSubscription[]> {
	const purpose = 'the list of webhook subscriptions';
	const response = await clinicApiRequest(ctx, {
		method: 'GET',
		path: SUBSCRIPTIONS_PATH,
		idempotent: true,
		purpose,
	});
	const list = readSubscriptionList(response.body);
	if (!list) throw unexpectedBodyError(ctx, { purpose }, response.statusCode);
	return list;
}

/**
 * 400/409 come back as `refused` with the service's message, so the caller can recognise "requested
 * endpoint is already registered" and recover; every other failure throws.
 */
export async function createSubscription(
	ctx: ClinicApiContext,
	subscription: NewSubscription,
): Promise<CreateOutcome> {
	const purpose = 'the registration of the webhook subscription';
	const response = await clinicApiRequest(ctx, {
		method: 'POST',
		path: SUBSCRIPTIONS_PATH,
		body: {
			event_names: subscription.eventNames,
			endpoint: subscription.endpoint,
			signing_key: subscription.signingKey,
			protocol: subscription.protocol,
		},
		// Not repeated after a network error: a lost answer may hide a registration, which the next
		// activation finds by its URL and replaces. A 5xx/429 is repeated: should the first attempt
		// have registered after all, the repeat answers "already registered", which create() in the
		// trigger recovers from by removing what is at its URL and registering once more.
		idempotent: false,
		repeatAfterServerError: true,
		acceptStatuses: [400, 409],
		purpose,
		// A generated key is in no credential: it is scrubbed from any error like the credential's.
		redact: [subscription.signingKey],
	});
	if (response.statusCode === 400 || response.statusCode === 409) {
		return {
			kind: 'refused',
			statusCode: response.statusCode,
			message: readErrorFields(response.body).message,
			body: response.body,
		};
	}
	const id = subscriptionIdOf(response.body);
	if (!id) throw unexpectedBodyError(ctx, { purpose }, response.statusCode);
	return { kind: 'created', id };
}

/** 404 ("already gone") counts as done. */
export async function deleteSubscription(
	ctx: ClinicApiContext,
	id: string,
): Promise<'deleted' | 'gone'> {
	const response = await clinicApiRequest(ctx, {
		method: 'DELETE',
		path: `${SUBSCRIPTIONS_PATH}/${pathSegment(ctx, id, 'webhook subscription ID')}`,
		idempotent: true,
		acceptStatuses: [404],
		purpose: 'the removal of the webhook subscription',
	});
	return response.statusCode === 404 ? 'gone' : 'deleted';
}

/** The error for a registration the service refused (after any recovery was tried). */
export function registrationRefusedError(
	ctx: ClinicApiContext,
	outcome: Extract<CreateOutcome, { kind: 'refused' }>,
	endpointTaken: boolean,
) {
	const error = clinicApiError(
		ctx,
		{ purpose: 'the registration of the webhook subscription' },
		outcome.statusCode,
		outcome.body,
	);
	if (endpointTaken) {
		error.description =
			"The service still holds a subscription for this n8n webhook URL that this credential cannot see or remove (perhaps registered with another workspace). Remove it in the clinic API's developer console, or use a credential of that workspace, then activate the workflow again.";
	}
	return error;
}

/** `{data: [...]}` as documented; a bare array or `data.subscriptions` are read too. */
function readSubscriptionList(body: unknown): RemoteSubscription[] | undefined {
	const data = isRecord(body) ? body.data : body;
	const list = Array.isArray(data)
		? data
		: isRecord(data) && Array.isArray(data.subscriptions)
			? data.subscriptions
			: undefined;
	if (!list) return undefined;
	const out: RemoteSubscription[] = [];
	for (const entry of list) {
		if (!isRecord(entry)) continue;
		const id = textOf(entry.id) ?? textOf(entry.subscription_id);
		const endpoint = textOf(entry.endpoint) ?? textOf(entry.url);
		if (!id || !endpoint) continue;
		const names = Array.isArray(entry.event_names)
			? entry.event_names.filter((n): n is string => typeof n === 'string')
			: [];
		out.push({ id, endpoint, eventNames: names, signingKey: textOf(entry.signing_key) });
	}
	return out;
}

function subscriptionIdOf(body: unknown): string | undefined {
	if (!isRecord(body)) return undefined;
	return textOf(body.id) ?? (isRecord(body.data) ? textOf(body.data.id) : undefined);
}
