/**
 * A stand-in for the messaging gateway (WhatsApp / SMS provider) of the appointment reminder example
 * (not part of the clinic API): `npm start` points the example's HTTP Request node here, so it runs
 * with no internet. It checks what the example sends and records every message.
 *
 *   POST /__messages   a JSON object with a non-empty string `appointment_id` (the key a reminder
 *        should be idempotent on), a non-empty string `text`, and `channel` "whatsapp" or "sms"
 *        → 201 {id, appointment_id, received_at, duplicate}
 *
 * No authentication. Checks (first failure wins): Content-Type JSON (415) → valid JSON (400) → a JSON
 * object (400) → appointment_id (400) → text (400) → channel (400). Errors are `{error: {message,
 * code}}`, never echoing a value.
 *
 * Control (in-process through `fakeMessages(api)`, or over HTTP under /__admin/messages/…):
 *   GET  /__admin/messages        every message received, oldest first (the last 1 000)
 *   POST /__admin/messages/clear  forgets them
 */
import { randomBytes } from 'node:crypto';

import type {
	AdminDefinition,
	FakeClinicApi,
	FakeClinicState,
	RouteContext,
	RouteDefinition,
} from '../types';

export const MESSAGES_PATH = '/__messages';

const MAX_MESSAGES = 1000;

export interface GatewayMessage {
	id: string;
	appointment_id: string;
	received_at: string;
	/** A message for the same appointment arrived before. */
	duplicate: boolean;
	/** The JSON as received. */
	body: Record<string, unknown>;
}

const stores = new WeakMap<FakeClinicState, GatewayMessage[]>();

function storeOf(state: FakeClinicState): GatewayMessage[] {
	let store = stores.get(state);
	if (!store) {
		store = [];
		stores.set(state, store);
	}
	return store;
}

export const messageGatewayRoutes: readonly RouteDefinition[] = [
	{
		method: 'POST',
		pattern: MESSAGES_PATH,
		body: 'json',
		errorStyle: 'envelope',
		handler: receiveMessage,
	},
];

function receiveMessage(ctx: RouteContext): void {
	const body = ctx.body;
	if (!body || !body.isJsonMediaType)
		return sendError(ctx, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
	if (body.parseError !== undefined || body.length === 0)
		return sendError(ctx, 400, 'INVALID_REQUEST', 'Request body is not valid JSON');
	const value = body.value;
	if (!isPlainObject(value))
		return sendError(ctx, 400, 'INVALID_REQUEST', 'Request body must be a JSON object');
	if (!nonEmpty(value.appointment_id))
		return sendError(
			ctx,
			400,
			'INVALID_REQUEST',
			'Field appointment_id must be a non-empty string',
		);
	if (!nonEmpty(value.text))
		return sendError(ctx, 400, 'INVALID_REQUEST', 'Field text must be a non-empty string');
	if (value.channel !== 'whatsapp' && value.channel !== 'sms')
		return sendError(ctx, 400, 'INVALID_REQUEST', 'Field channel must be whatsapp or sms');
	const store = storeOf(ctx.state);
	const message: GatewayMessage = {
		id: `msg_${randomBytes(8).toString('hex')}`,
		appointment_id: value.appointment_id as string,
		received_at: new Date().toISOString(),
		duplicate: store.some((m) => m.appointment_id === value.appointment_id),
		body: value,
	};
	store.push(message);
	if (store.length > MAX_MESSAGES) store.splice(0, store.length - MAX_MESSAGES);
	const { body: _body, ...answer } = message;
	ctx.sendJson(201, answer);
}

function nonEmpty(value: unknown): boolean {
	return typeof value === 'string' && value.trim() !== '';
}

function sendError(ctx: RouteContext, status: number, code: string, message: string): void {
	ctx.sendJson(status, { error: { message, code } });
}

export interface FakeMessages {
	/** Every message received, oldest first (copies). */
	messages(): GatewayMessage[];
	clear(): void;
}

function controls(state: FakeClinicState): FakeMessages {
	const store = storeOf(state);
	return {
		messages: () => store.map((m) => ({ ...m, body: structuredClone(m.body) })),
		clear: () => {
			store.length = 0;
		},
	};
}

/** In-process control of a fake API's message gateway. */
export function fakeMessages(api: FakeClinicApi): FakeMessages {
	return controls(api.state);
}

export const messageGatewayAdmin: readonly AdminDefinition[] = [
	{ method: 'GET', action: '/messages', handler: ({ state }) => controls(state).messages() },
	{
		method: 'POST',
		action: '/messages/clear',
		handler: ({ state }) => {
			controls(state).clear();
			return { ok: true };
		},
	},
];

function isPlainObject(v: unknown): v is Record<string, unknown> {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}
