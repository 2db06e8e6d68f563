/**
 * The admin endpoints under /__admin, for tests that run the fake API in another process (cli.ts):
 * one table of the built-in ones, then the route modules' own (AdminDefinition).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { API_VARIANTS } from './fixtures';
import { faultSpecFromJson, faultToJson, validateFaultSpec } from './faults';
import { readBoundedBody, sendJson } from './http';
import { isPlainObject, validateOptionsPatch } from './options';
import { appointmentAdmin } from './routes/appointment';
import { ehrReceiverAdmin } from './routes/ehrReceiver';
import { messageGatewayAdmin } from './routes/messageGateway';
import { prescriptionAdmin } from './routes/prescription';
import { sessionAdmin } from './routes/transcription/sessionStore';
import { signInAdmin } from './routes/signIn';
import { transcriptionAdmin } from './routes/transcription';
import { webhookAdmin } from './routes/webhooks';
import type { AdminDefinition, FakeClinicApi } from './types';

export const ADMIN_PREFIX = '/__admin';

/** What the admin endpoints reach of the server beyond its test-facing API. */
export interface AdminServer extends FakeClinicApi {
	readonly startedAt: number;
	readonly maxJsonBodyBytes: number;
}

interface BuiltInAdmin {
	method: string;
	action: string;
	/** Default 200. */
	status?: number;
	handler: (server: AdminServer, input: unknown, query: URLSearchParams) => unknown;
}

const BUILT_IN: readonly BuiltInAdmin[] = [
	{
		method: 'GET',
		action: '/requests',
		handler: (server, _input, query) => {
			let list = server.requests;
			const path = query.get('path');
			if (path !== null)
				list = server.requestsTo(
					query.get('regex') === 'true' ? new RegExp(path, query.get('flags') ?? undefined) : path,
				);
			const wanted = query.get('method')?.toUpperCase();
			if (wanted) list = list.filter((r) => r.method === wanted);
			const since = Number(query.get('since') ?? 0);
			if (since > 0) list = list.filter((r) => r.id > since);
			return list;
		},
	},
	{
		method: 'POST',
		action: '/reset',
		handler: (server) => {
			server.reset();
			return { ok: true };
		},
	},
	{
		method: 'GET',
		action: '/faults',
		handler: (server) => server.pendingFaults().map(faultToJson),
	},
	{
		method: 'POST',
		action: '/faults',
		status: 201,
		handler: (server, input) => {
			const list = Array.isArray(input) ? input : [input];
			// All checked before any is added: a bad one adds none.
			const specs = list.map((item) => faultSpecFromJson(item));
			for (const spec of specs) validateFaultSpec(spec);
			for (const spec of specs) server.injectFault(spec);
			return { ok: true, pending: server.pendingFaults().length };
		},
	},
	{
		method: 'DELETE',
		action: '/faults',
		handler: (server) => {
			server.clearFaults();
			return { ok: true };
		},
	},
	{
		method: 'POST',
		action: '/expire-tokens',
		handler: (server, input) => {
			if (!isPlainObject(input)) throw new Error('body must be an object');
			const { access = true, refresh = false } = input as { access?: unknown; refresh?: unknown };
			if (typeof access !== 'boolean' || typeof refresh !== 'boolean')
				throw new Error('access and refresh must be booleans');
			if (access) server.expireAccessTokens();
			if (refresh) server.expireRefreshTokens();
			return { ok: true, access, refresh };
		},
	},
	{ method: 'GET', action: '/options', handler: (server) => server.options },
	{
		method: 'POST',
		action: '/options',
		handler: (server, input) => server.setOptions(validateOptionsPatch(input)),
	},
	{
		method: 'GET',
		action: '/stats',
		handler: (server) => ({
			counters: server.counters,
			requestCount: server.requests.length,
			pendingFaults: server.pendingFaults().length,
			options: server.options,
			tokens: server.state.tokens.stats(),
			uptimeMs: Date.now() - server.startedAt,
		}),
	},
	{
		method: 'GET',
		action: '/credentials',
		handler: (server) => ({
			url: server.url,
			credentials: server.validCredentials,
			variants: API_VARIANTS,
		}),
	},
];

/** Admin endpoints of route modules. */
const ADMIN_MODULES: ReadonlyArray<readonly AdminDefinition[]> = [
	webhookAdmin,
	transcriptionAdmin,
	sessionAdmin,
	ehrReceiverAdmin,
	prescriptionAdmin,
	appointmentAdmin,
	messageGatewayAdmin,
	signInAdmin,
];

/** Answers one admin request; `action` is the path below /__admin. A thrown Error becomes 400 {error}. */
export async function handleAdmin(
	server: AdminServer,
	req: IncomingMessage,
	res: ServerResponse,
	method: string,
	action: string,
	query: URLSearchParams,
): Promise<void> {
	let input: unknown = {};
	if (method === 'POST') {
		const read = await readBoundedBody(req, server.maxJsonBodyBytes);
		if (read === 'aborted') return;
		if (read.tooLarge) return sendJson(res, 413, { error: 'admin body too large' });
		const text = read.bytes.toString('utf8').trim();
		if (text !== '') {
			try {
				input = JSON.parse(text);
			} catch {
				return sendJson(res, 400, { error: 'admin body must be JSON' });
			}
		}
	} else {
		req.resume();
	}
	try {
		const builtIn = BUILT_IN.find((a) => a.method === method && a.action === action);
		if (builtIn) return sendJson(res, builtIn.status ?? 200, builtIn.handler(server, input, query));
		const extra = ADMIN_MODULES.flat().find((a) => a.method === method && a.action === action);
		if (extra)
			return sendJson(res, 200, await extra.handler({ state: server.state, input, query }));
		return sendJson(res, 404, { error: `no admin endpoint ${method} ${ADMIN_PREFIX}${action}` });
	} catch (e) {
		return sendJson(res, 400, { error: (e as Error).message });
	}
}
