/**
 * Webhook subscriptions ([IFD §4.4]; list and delete from [EKA-WH]), and the service's
 * side of a delivery: a signed `v2rx.completed` POSTed to every subscription for it.
 *
 *   POST   /notification/v1/connect/webhook/subscriptions       → 201 {id, status: "success"}
 *   GET    /notification/v1/connect/webhook/subscriptions       → 200 {data: [{id, event_names, endpoint, signing_key, protocol, created_at}]}
 *   DELETE /notification/v1/connect/webhook/subscriptions/:id   → 200 {status: "success"} | 404
 *
 * All take `Authorization: Bearer <access token>` (401 otherwise; the raw `auth` header is not
 * accepted). Registration checks (first failure wins): Content-Type (415) → JSON object (400) →
 * exact keys (400) → event_names a non-empty array of names (400) → endpoint an absolute http(s) URL
 * (400) → signing_key a string (400; empty means unsigned deliveries) → protocol "http"/"https" and
 * equal to the endpoint's scheme (400) → endpoint not yet registered by this business (400
 * "requested endpoint is already registered"). Errors are `{error: {message, code}}`.
 *
 * Signature of a delivery ([EKA-WH] webhook-signature.mdx): header `Eka-Webhook-Signature: t=<unix s>,v1=<hex>` with
 * v1 = HMAC-SHA256(signing_key, "<t>.<raw body>"). Computed here independently of the node's code.
 *
 * Control (in-process through `fakeWebhooks(api)`, or over HTTP under /__admin/webhooks/…):
 *   GET  /__admin/webhooks/subscriptions     every subscription, keys included
 *   POST /__admin/webhooks/deliver           DeliveryRequest → DeliveryReport
 *   POST /__admin/webhooks/register          {event_names, endpoint, signing_key?} behind the node's back
 *   POST /__admin/webhooks/remove            {id} behind the node's back → {removed}
 *   POST /__admin/webhooks/clear             every subscription and the delivery log
 *   GET  /__admin/webhooks/deliveries        the delivery log
 */
import { createHmac, randomBytes } from 'node:crypto';

import { BUSINESS } from '../fixtures';
import type {
	AdminDefinition,
	FakeClinicApi,
	FakeClinicState,
	RouteContext,
	RouteDefinition,
} from '../types';

export const SUBSCRIPTIONS_PATH = '/notification/v1/connect/webhook/subscriptions';
export const ALREADY_REGISTERED_MESSAGE = 'requested endpoint is already registered';
export const SIGNATURE_HEADER = 'Eka-Webhook-Signature';

export interface FakeSubscription {
	id: string;
	businessId: string;
	event_names: string[];
	endpoint: string;
	signing_key: string;
	protocol: string;
	created_at: string;
}

export type EventShape = 'flat' | 'envelope';

/** How a delivery is spoiled, to test the receiver's checks. */
export type Forgery =
	/** Signed with a key other than the subscription's. */
	| 'wrong-key'
	/** Signed correctly, but with a timestamp `staleSeconds` in the past. */
	| 'stale'
	/** No signature header at all. */
	| 'no-header'
	/** A header that is not `t=…,v1=…`. */
	| 'malformed-header'
	/** Signed correctly, then one byte of the body changed (a replayed, tampered body). */
	| 'changed-body';

export interface DeliveryRequest {
	/** Default v2rx.completed. */
	event?: string;
	/** Default flat ([IFD §6]). */
	shape?: EventShape;
	/** Default a fresh `txn-…`. */
	transactionId?: string;
	/** Default equal to the transaction id ([IFD §6]). */
	sessionId?: string;
	forgery?: Forgery;
	/** For forgery 'stale': how old the timestamp is. Default 600 s. */
	staleSeconds?: number;
	/** Only the subscription(s) at this endpoint. */
	endpoint?: string;
	/** Also subscriptions whose event_names do not include the event (to test "dropped" events). */
	ignoreEventNames?: boolean;
	/** Send the same body this many times, each signed as it is sent (the service may deliver duplicates; a later one may carry a later timestamp). Default 1. */
	times?: number;
	/** Per-request timeout. Default 30 s. */
	timeoutMs?: number;
	/**
	 * A body to send instead of a `v2rx.completed` one (a clinic event, test/fake-api/clinicEventSamples.ts).
	 * Its event name (`event` ?? `event_type` ?? `payload.event`) picks the subscriptions.
	 */
	body?: Record<string, unknown>;
}

export interface DeliveryAttempt {
	subscriptionId: string;
	endpoint: string;
	/** HTTP status the receiver answered; null when no answer (refused, timed out). */
	status: number | null;
	/** First 500 characters of the answer, or the network error. */
	response: string;
	forgery?: Forgery;
}

export interface DeliveryReport {
	/** The event as sent (before any forgery changed a byte). */
	body: Record<string, unknown>;
	attempts: DeliveryAttempt[];
}

interface WebhookStore {
	subscriptions: Map<string, FakeSubscription>;
	deliveries: Array<DeliveryAttempt & { time: number; event: string }>;
}

const stores = new WeakMap<FakeClinicState, WebhookStore>();

function storeOf(state: FakeClinicState): WebhookStore {
	let store = stores.get(state);
	if (!store) {
		store = { subscriptions: new Map(), deliveries: [] };
		stores.set(state, store);
	}
	return store;
}

// ---------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------

export const webhookRoutes: readonly RouteDefinition[] = [
	{
		method: 'POST',
		pattern: SUBSCRIPTIONS_PATH,
		body: 'json',
		errorStyle: 'envelope',
		handler: registerSubscription,
	},
	{
		method: 'GET',
		pattern: SUBSCRIPTIONS_PATH,
		body: 'none',
		errorStyle: 'envelope',
		handler: listSubscriptions,
	},
	{
		method: 'DELETE',
		pattern: `${SUBSCRIPTIONS_PATH}/:id`,
		body: 'none',
		errorStyle: 'envelope',
		handler: deleteSubscription,
	},
];

function registerSubscription(ctx: RouteContext): void {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return;
	const body = ctx.body;
	if (!body || !body.isJsonMediaType)
		return sendError(ctx, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
	if (body.parseError !== undefined || body.length === 0)
		return sendError(ctx, 400, 'INVALID_REQUEST', 'Request body is not valid JSON');
	const value = body.value;
	if (!isPlainObject(value))
		return sendError(ctx, 400, 'INVALID_REQUEST', 'Request body must be a JSON object');
	const problem = registrationProblem(value);
	if (problem) return sendError(ctx, 400, 'INVALID_REQUEST', problem);
	const result = addSubscription(ctx.state, businessId, value as unknown as RegistrationBody);
	if ('conflict' in result)
		return sendError(ctx, 400, 'ENDPOINT_ALREADY_REGISTERED', ALREADY_REGISTERED_MESSAGE);
	ctx.sendJson(201, { id: result.id, status: 'success' });
}

function listSubscriptions(ctx: RouteContext): void {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return;
	const data = [...storeOf(ctx.state).subscriptions.values()]
		.filter((s) => s.businessId === businessId)
		.map(({ businessId: _b, ...visible }) => visible);
	ctx.sendJson(200, { data });
}

function deleteSubscription(ctx: RouteContext): void {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return;
	const { subscriptions } = storeOf(ctx.state);
	const found = subscriptions.get(ctx.params.id);
	if (!found || found.businessId !== businessId)
		return sendError(ctx, 404, 'SUBSCRIPTION_NOT_FOUND', 'subscription not found');
	subscriptions.delete(found.id);
	ctx.sendJson(200, { status: 'success' });
}

interface RegistrationBody {
	event_names: string[];
	endpoint: string;
	signing_key: string;
	protocol: string;
}

const REGISTRATION_KEYS = ['event_names', 'endpoint', 'signing_key', 'protocol'];

/** What is wrong with a registration body (naming the field, never echoing a value), or undefined. */
export function registrationProblem(body: Record<string, unknown>): string | undefined {
	for (const key of Object.keys(body))
		if (!REGISTRATION_KEYS.includes(key)) return `Unexpected field ${key}`;
	for (const key of REGISTRATION_KEYS) if (!(key in body)) return `Field ${key} is required`;
	const names = body.event_names;
	if (
		!Array.isArray(names) ||
		names.length === 0 ||
		!names.every((n) => typeof n === 'string' && /^[a-z0-9_.-]+$/i.test(n))
	)
		return 'Field event_names must be a non-empty array of event names';
	if (new Set(names).size !== names.length) return 'Field event_names holds a name twice';
	if (typeof body.endpoint !== 'string') return 'Field endpoint must be a string';
	let url: URL;
	try {
		url = new URL(body.endpoint);
	} catch {
		return 'Field endpoint must be an absolute URL';
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:')
		return 'Field endpoint must be an http or https URL';
	if (typeof body.signing_key !== 'string') return 'Field signing_key must be a string';
	if (body.protocol !== 'https' && body.protocol !== 'http')
		return 'Field protocol must be https or http';
	if (`${body.protocol}:` !== url.protocol) return 'Field protocol does not match the endpoint';
	return undefined;
}

function addSubscription(
	state: FakeClinicState,
	businessId: string,
	body: RegistrationBody,
): { id: string } | { conflict: true } {
	const { subscriptions } = storeOf(state);
	for (const existing of subscriptions.values()) {
		if (existing.businessId === businessId && existing.endpoint === body.endpoint)
			return { conflict: true };
	}
	const id = `whs_${randomBytes(8).toString('hex')}`;
	subscriptions.set(id, {
		id,
		businessId,
		event_names: [...body.event_names],
		endpoint: body.endpoint,
		signing_key: body.signing_key,
		protocol: body.protocol,
		created_at: new Date().toISOString(),
	});
	return { id };
}

/** The business of a valid Bearer token, or undefined after answering 401. */
function bearerBusiness(ctx: RouteContext): string | undefined {
	const header = ctx.req.headers.authorization;
	const match = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
	const check = ctx.state.tokens.checkAccess(match ? match[1] : undefined);
	if (!check.valid) {
		sendError(ctx, 401, 'UNAUTHORIZED', 'token expired or invalid');
		return undefined;
	}
	return check.subject === 'static' ? BUSINESS.business_id : check.subject.businessId;
}

function sendError(ctx: RouteContext, status: number, code: string, message: string): void {
	ctx.sendJson(status, { error: { message, code } });
}

// ---------------------------------------------------------------------------------------------
// Delivery
// ---------------------------------------------------------------------------------------------

/** The event body in one of the two documented shapes. */
export function completionEventBody(options: {
	event?: string;
	shape?: EventShape;
	transactionId: string;
	sessionId?: string;
	now?: Date;
}): Record<string, unknown> {
	const event = options.event ?? 'v2rx.completed';
	const now = options.now ?? new Date();
	if ((options.shape ?? 'flat') === 'flat') {
		return {
			event,
			data: {
				transaction_id: options.transactionId,
				status: 'completed',
				session_id: options.sessionId ?? options.transactionId,
			},
			timestamp: now.toISOString(),
		};
	}
	return {
		business_id: BUSINESS.business_id,
		client_id: 'cs-test-client-7f3a',
		service_id: 'v2rx',
		event_id: event,
		payload: {
			service: 'v2rx',
			event,
			event_time: Math.floor(now.getTime() / 1000),
			transaction_id: options.transactionId,
			data: {},
		},
	};
}

export function signBody(signingKey: string, timestampSeconds: number, raw: string): string {
	const v1 = createHmac('sha256', signingKey)
		.update(`${timestampSeconds}.${raw}`, 'utf8')
		.digest('hex');
	return `t=${timestampSeconds},v1=${v1}`;
}

/** Builds the bytes and headers of one delivery, spoiled as asked. */
export function prepareDelivery(
	subscription: Pick<FakeSubscription, 'signing_key'>,
	body: Record<string, unknown>,
	forgery: Forgery | undefined,
	options: { staleSeconds?: number; nowSeconds?: number } = {},
): { raw: string; headers: Record<string, string> } {
	let raw = JSON.stringify(body);
	const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
	const headers: Record<string, string> = { 'content-type': 'application/json' };
	// The service signs only when a key was registered.
	if (subscription.signing_key === '' && forgery === undefined) return { raw, headers };
	switch (forgery) {
		case undefined:
			headers[SIGNATURE_HEADER] = signBody(subscription.signing_key, now, raw);
			break;
		case 'wrong-key':
			headers[SIGNATURE_HEADER] = signBody(randomBytes(32).toString('hex'), now, raw);
			break;
		case 'stale':
			headers[SIGNATURE_HEADER] = signBody(
				subscription.signing_key,
				now - (options.staleSeconds ?? 600),
				raw,
			);
			break;
		case 'no-header':
			break;
		case 'malformed-header':
			headers[SIGNATURE_HEADER] =
				`sha256=${createHmac('sha256', subscription.signing_key).update(raw).digest('hex')}`;
			break;
		case 'changed-body': {
			headers[SIGNATURE_HEADER] = signBody(subscription.signing_key, now, raw);
			raw = changeOneByte(raw);
			break;
		}
	}
	return { raw, headers };
}

/** Changes one character inside the first string value, so the JSON stays valid but differs. */
function changeOneByte(raw: string): string {
	const at = raw.indexOf(':"') + 2;
	if (at < 2 || at >= raw.length - 1 || raw[at] === '"')
		throw new Error('changed-body needs a string value in the body');
	const replacement = raw[at] === 'x' ? 'y' : 'x';
	return raw.slice(0, at) + replacement + raw.slice(at + 1);
}

async function deliver(state: FakeClinicState, request: DeliveryRequest): Promise<DeliveryReport> {
	const store = storeOf(state);
	const transactionId = request.transactionId ?? `txn-${randomBytes(6).toString('hex')}`;
	const event = request.body ? eventNameOf(request.body) : (request.event ?? 'v2rx.completed');
	const body =
		request.body ??
		completionEventBody({
			event,
			shape: request.shape,
			transactionId,
			sessionId: request.sessionId,
		});
	const targets = [...store.subscriptions.values()].filter(
		(s) =>
			(request.ignoreEventNames || s.event_names.includes(event)) &&
			(request.endpoint === undefined || s.endpoint === request.endpoint),
	);
	const attempts: DeliveryAttempt[] = [];
	for (let round = 0; round < (request.times ?? 1); round++) {
		for (const subscription of targets) {
			const { raw, headers } = prepareDelivery(subscription, body, request.forgery, {
				staleSeconds: request.staleSeconds,
			});
			const attempt = await post(subscription, raw, headers, request.timeoutMs ?? 30_000);
			if (request.forgery) attempt.forgery = request.forgery;
			attempts.push(attempt);
			store.deliveries.push({ ...attempt, time: Date.now(), event });
			if (store.deliveries.length > 1000)
				store.deliveries.splice(0, store.deliveries.length - 1000);
		}
	}
	return { body, attempts };
}

/** The event name of a custom body, as the node reads it: event ?? event_type ?? payload.event ([EKA-PW], [EKA-WH-SAMPLES]). */
function eventNameOf(body: Record<string, unknown>): string {
	const payload = isPlainObject(body.payload) ? body.payload : {};
	for (const value of [body.event, body.event_type, payload.event])
		if (typeof value === 'string' && value !== '') return value;
	throw new Error('a custom delivery body needs event, event_type or payload.event');
}

async function post(
	subscription: FakeSubscription,
	raw: string,
	headers: Record<string, string>,
	timeoutMs: number,
): Promise<DeliveryAttempt> {
	const base = { subscriptionId: subscription.id, endpoint: subscription.endpoint };
	try {
		const response = await fetch(subscription.endpoint, {
			method: 'POST',
			headers,
			body: raw,
			signal: AbortSignal.timeout(timeoutMs),
		});
		const text = await response.text();
		return { ...base, status: response.status, response: text.slice(0, 500) };
	} catch (error) {
		return {
			...base,
			status: null,
			response: String((error as Error).cause ?? (error as Error).message),
		};
	}
}

// ---------------------------------------------------------------------------------------------
// Control: in-process and /__admin/webhooks/…
// ---------------------------------------------------------------------------------------------

export interface FakeWebhooks {
	subscriptions(): FakeSubscription[];
	deliver(request?: DeliveryRequest): Promise<DeliveryReport>;
	/** Registers as the service would, but behind the node's back (default business). */
	register(body: {
		event_names: string[];
		endpoint: string;
		signing_key?: string;
	}): FakeSubscription;
	/** Deletes behind the node's back; false when unknown. */
	remove(id: string): boolean;
	clear(): void;
	deliveries(): Array<DeliveryAttempt & { time: number; event: string }>;
}

function controls(state: FakeClinicState): FakeWebhooks {
	const store = storeOf(state);
	return {
		subscriptions: () =>
			[...store.subscriptions.values()].map((s) => ({ ...s, event_names: [...s.event_names] })),
		deliver: async (request = {}) => await deliver(state, request),
		register: (input) => {
			const body = {
				event_names: input.event_names,
				endpoint: input.endpoint,
				signing_key: input.signing_key ?? '',
				protocol: '',
			};
			body.protocol = /^https:/i.test(input.endpoint) ? 'https' : 'http';
			const problem = registrationProblem(body);
			if (problem) throw new Error(problem);
			const result = addSubscription(state, BUSINESS.business_id, body);
			if ('conflict' in result) throw new Error(ALREADY_REGISTERED_MESSAGE);
			return { ...store.subscriptions.get(result.id)! };
		},
		remove: (id) => store.subscriptions.delete(id),
		clear: () => {
			store.subscriptions.clear();
			store.deliveries.length = 0;
		},
		deliveries: () => [...store.deliveries],
	};
}

/** In-process control of a fake API's webhooks. */
export function fakeWebhooks(api: FakeClinicApi): FakeWebhooks {
	return controls(api.state);
}

/** Control over HTTP, for a fake API running in another process (test/fake-api/cli.ts). */
export function remoteFakeWebhooks(baseUrl: string): {
	subscriptions(): Promise<FakeSubscription[]>;
	deliver(request?: DeliveryRequest): Promise<DeliveryReport>;
	register(body: {
		event_names: string[];
		endpoint: string;
		signing_key?: string;
	}): Promise<FakeSubscription>;
	remove(id: string): Promise<boolean>;
	clear(): Promise<void>;
} {
	const call = async <T>(method: string, action: string, body?: unknown): Promise<T> => {
		const response = await fetch(`${baseUrl}/__admin/webhooks/${action}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(120_000),
		});
		const text = await response.text();
		if (!response.ok)
			throw new Error(`fake API /__admin/webhooks/${action} answered ${response.status}: ${text}`);
		return JSON.parse(text) as T;
	};
	return {
		subscriptions: async () => await call<FakeSubscription[]>('GET', 'subscriptions'),
		deliver: async (request = {}) => await call<DeliveryReport>('POST', 'deliver', request),
		register: async (body) => await call<FakeSubscription>('POST', 'register', body),
		remove: async (id) => (await call<{ removed: boolean }>('POST', 'remove', { id })).removed,
		clear: async () => {
			await call('POST', 'clear', {});
		},
	};
}

const FORGERIES: readonly Forgery[] = [
	'wrong-key',
	'stale',
	'no-header',
	'malformed-header',
	'changed-body',
];

function deliveryRequestFromJson(input: unknown): DeliveryRequest {
	if (!isPlainObject(input)) throw new Error('body must be an object');
	const {
		event,
		shape,
		transactionId,
		sessionId,
		forgery,
		staleSeconds,
		endpoint,
		ignoreEventNames,
		times,
		timeoutMs,
		body,
		...rest
	} = input;
	const unknown = Object.keys(rest);
	if (unknown.length > 0) throw new Error(`unknown field ${unknown[0]}`);
	const optionalString = (v: unknown, name: string) => {
		if (v !== undefined && typeof v !== 'string') throw new Error(`${name} must be a string`);
		return v as string | undefined;
	};
	const optionalNumber = (v: unknown, name: string) => {
		if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0))
			throw new Error(`${name} must be a number >= 0`);
		return v as number | undefined;
	};
	if (shape !== undefined && shape !== 'flat' && shape !== 'envelope')
		throw new Error('shape must be flat or envelope');
	if (forgery !== undefined && !FORGERIES.includes(forgery as Forgery))
		throw new Error(`forgery must be one of ${FORGERIES.join(', ')}`);
	if (body !== undefined && !isPlainObject(body)) throw new Error('body must be an object');
	if (ignoreEventNames !== undefined && typeof ignoreEventNames !== 'boolean')
		throw new Error('ignoreEventNames must be a boolean');
	const count = optionalNumber(times, 'times');
	if (count !== undefined && (!Number.isInteger(count) || count < 1 || count > 20))
		throw new Error('times must be an integer 1..20');
	return {
		event: optionalString(event, 'event'),
		shape: shape as EventShape | undefined,
		transactionId: optionalString(transactionId, 'transactionId'),
		sessionId: optionalString(sessionId, 'sessionId'),
		forgery: forgery as Forgery | undefined,
		staleSeconds: optionalNumber(staleSeconds, 'staleSeconds'),
		endpoint: optionalString(endpoint, 'endpoint'),
		ignoreEventNames: ignoreEventNames as boolean | undefined,
		times: count,
		timeoutMs: optionalNumber(timeoutMs, 'timeoutMs'),
		body: body as Record<string, unknown> | undefined,
	};
}

export const webhookAdmin: readonly AdminDefinition[] = [
	{
		method: 'GET',
		action: '/webhooks/subscriptions',
		handler: ({ state }) => controls(state).subscriptions(),
	},
	{
		method: 'GET',
		action: '/webhooks/deliveries',
		handler: ({ state }) => controls(state).deliveries(),
	},
	{
		method: 'POST',
		action: '/webhooks/deliver',
		handler: async ({ state, input }) =>
			await controls(state).deliver(deliveryRequestFromJson(input)),
	},
	{
		method: 'POST',
		action: '/webhooks/register',
		handler: ({ state, input }) => {
			if (!isPlainObject(input)) throw new Error('body must be an object');
			return controls(state).register(
				input as { event_names: string[]; endpoint: string; signing_key?: string },
			);
		},
	},
	{
		method: 'POST',
		action: '/webhooks/remove',
		handler: ({ state, input }) => {
			if (!isPlainObject(input) || typeof input.id !== 'string')
				throw new Error('body must be {"id": "<subscription id>"}');
			return { removed: controls(state).remove(input.id) };
		},
	},
	{
		method: 'POST',
		action: '/webhooks/clear',
		handler: ({ state }) => {
			controls(state).clear();
			return { ok: true };
		},
	},
];

function isPlainObject(v: unknown): v is Record<string, unknown> {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}
