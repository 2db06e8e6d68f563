/**
 * Fault injection: what a test may ask for (validated), how it is matched to a request (first
 * pending fault whose method and path match, used up after `times`), and how each kind answers:
 * status (with a default error body in the route's style), delay (see delays.ts), drop, malformed
 * JSON, redirect, and echo (an error answer that repeats the credential's secrets back).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { SIGN_IN } from './fixtures';
import { authError, envelopeError, recordOfResponse, sendJson, sendText } from './http';
import { isPlainObject } from './options';
import { pathMatches } from './recording';
import type { FakeClinicState, FaultAction, FaultSpec, RouteDefinition } from './types';

export interface PendingFault {
	method?: string;
	path: string | RegExp;
	remaining: number;
	fault: FaultAction;
}

/** Throws on anything injectFault must not accept. Returns a normalised copy. */
export function validateFaultSpec(spec: FaultSpec): PendingFault {
	if (!spec || typeof spec !== 'object') throw new Error('fault spec must be an object');
	if (typeof spec.path !== 'string' && !(spec.path instanceof RegExp))
		throw new Error('fault path must be a string or RegExp');
	if (spec.method !== undefined && typeof spec.method !== 'string')
		throw new Error('fault method must be a string');
	const times = spec.times ?? 1;
	if (!(times === Infinity || (Number.isInteger(times) && times >= 1)))
		throw new Error('fault times must be an integer >= 1 or Infinity');
	const f = spec.fault as FaultAction | undefined;
	if (!f || typeof f !== 'object') throw new Error('fault.fault must be an object');
	switch (f.kind) {
		case 'status':
			if (!Number.isInteger(f.status) || f.status < 200 || f.status > 599)
				throw new Error('status fault needs an integer status 200..599');
			if (
				f.headers !== undefined &&
				(typeof f.headers !== 'object' ||
					f.headers === null ||
					Object.values(f.headers).some((v) => typeof v !== 'string'))
			)
				throw new Error('status fault headers must map names to strings');
			return {
				method: spec.method?.toUpperCase(),
				path: spec.path,
				remaining: times,
				fault: { kind: 'status', status: f.status, body: f.body, headers: f.headers },
			};
		case 'delay':
			if (typeof f.ms !== 'number' || !(f.ms >= 0) || f.ms > 600_000)
				throw new Error('delay fault needs ms between 0 and 600000');
			return {
				method: spec.method?.toUpperCase(),
				path: spec.path,
				remaining: times,
				fault: { kind: 'delay', ms: f.ms },
			};
		case 'drop':
		case 'malformed':
			return {
				method: spec.method?.toUpperCase(),
				path: spec.path,
				remaining: times,
				fault: { kind: f.kind },
			};
		case 'redirect':
			if (![301, 302, 303, 307, 308].includes(f.status))
				throw new Error('redirect fault needs status 301, 302, 303, 307 or 308');
			if (typeof f.location !== 'string' || f.location === '')
				throw new Error('redirect fault needs a location');
			return {
				method: spec.method?.toUpperCase(),
				path: spec.path,
				remaining: times,
				fault: { kind: 'redirect', status: f.status, location: f.location },
			};
		case 'echo': {
			const status = f.status ?? 400;
			if (!Number.isInteger(status) || status < 400 || status > 599)
				throw new Error('echo fault status must be 400..599');
			return {
				method: spec.method?.toUpperCase(),
				path: spec.path,
				remaining: times,
				fault: { kind: 'echo', status },
			};
		}
		default:
			throw new Error(`unknown fault kind ${JSON.stringify((f as { kind?: unknown }).kind)}`);
	}
}

/** Fault spec from admin JSON: RegExp given as {path: "<source>", regex: true, flags?: "i"}; times may be "Infinity". */
export function faultSpecFromJson(input: unknown): FaultSpec {
	if (!isPlainObject(input)) throw new Error('fault must be a JSON object');
	const { path, regex, flags, times, method, fault } = input;
	if (typeof path !== 'string') throw new Error('fault path must be a string');
	if (regex !== undefined && typeof regex !== 'boolean') throw new Error('regex must be a boolean');
	if (flags !== undefined && typeof flags !== 'string') throw new Error('flags must be a string');
	let pattern: string | RegExp = path;
	if (regex) {
		try {
			pattern = new RegExp(path, flags);
		} catch (e) {
			throw new Error(`invalid regex: ${(e as Error).message}`);
		}
	}
	const parsedTimes = times === 'Infinity' || times === null ? Infinity : times;
	if (parsedTimes !== undefined && typeof parsedTimes !== 'number')
		throw new Error('times must be a number or "Infinity"');
	return {
		method: method as string | undefined,
		path: pattern,
		times: parsedTimes,
		fault: fault as FaultAction,
	};
}

const DEFAULT_ENVELOPE_CODES: Readonly<Record<number, string>> = {
	400: 'BAD_REQUEST',
	401: 'UNAUTHORIZED',
	403: 'UNAUTHORIZED_ACCESS',
	404: 'NOT_FOUND',
	405: 'METHOD_NOT_ALLOWED',
	408: 'REQUEST_TIMEOUT',
	409: 'CONFLICT',
	413: 'PAYLOAD_TOO_LARGE',
	422: 'UNPROCESSABLE_ENTITY',
	429: 'TOO_MANY_REQUESTS',
	500: 'SERVER_ERROR',
	502: 'BAD_GATEWAY',
	503: 'SERVICE_UNAVAILABLE',
	504: 'GATEWAY_TIMEOUT',
};

function defaultFaultBody(status: number, route: RouteDefinition | undefined): unknown {
	if (status < 400) return {};
	const code =
		route?.faultErrorCodes?.[status] ??
		DEFAULT_ENVELOPE_CODES[status] ??
		(status >= 500 ? 'SERVER_ERROR' : 'ERROR');
	const message = `injected fault: HTTP ${status}`;
	return route?.errorStyle === 'auth'
		? authError(code.toLowerCase(), message)
		: envelopeError(status, code, message);
}

/** Deliberately truncated JSON sent with a JSON content type and status 200. */
const MALFORMED_JSON =
	'{"status_code": 200, "success": true, "data": {"services": [{"service_name": "Gen';

/** Takes the first pending fault for this request (one use of it), or undefined. */
export function takeFault(
	faults: PendingFault[],
	method: string,
	pathname: string,
): FaultAction | undefined {
	const index = faults.findIndex(
		(f) => (!f.method || f.method === method) && pathMatches(f.path, pathname),
	);
	if (index === -1) return undefined;
	const pending = faults[index];
	pending.remaining -= 1;
	if (pending.remaining <= 0) faults.splice(index, 1);
	return pending.fault;
}

/** Answers with the fault instead of the route (a delay is waited out before routing instead). */
export function applyFault(
	req: IncomingMessage,
	res: ServerResponse,
	fault: FaultAction,
	route: RouteDefinition | undefined,
	state: FakeClinicState,
): void {
	switch (fault.kind) {
		case 'drop':
			req.socket.destroy();
			return;
		case 'malformed':
			return sendText(res, 200, MALFORMED_JSON, {
				'content-type': 'application/json; charset=utf-8',
			});
		case 'status': {
			const body = fault.body === undefined ? defaultFaultBody(fault.status, route) : fault.body;
			if (typeof body === 'string') return sendText(res, fault.status, body, fault.headers);
			return sendJson(res, fault.status, body, fault.headers);
		}
		case 'redirect':
			return sendText(res, fault.status, '', { location: fault.location });
		case 'echo':
			return sendEcho(req, res, fault.status ?? 400, route, state);
		case 'delay':
			return; // handled before routing
	}
}

function sendEcho(
	req: IncomingMessage,
	res: ServerResponse,
	status: number,
	route: RouteDefinition | undefined,
	state: FakeClinicState,
): void {
	const record = recordOfResponse(res);
	const authorization = req.headers.authorization;
	const presented =
		typeof authorization === 'string' && authorization.startsWith('Bearer ')
			? authorization.slice('Bearer '.length)
			: typeof req.headers.auth === 'string'
				? req.headers.auth
				: undefined;
	const refreshToken = presented ? state.tokens.refreshTokenIssuedWith(presented) : undefined;
	// A token of the sign-in provider: its client's secret is the one that client holds.
	const signedIn =
		presented !== undefined && state.tokens.accessTokenSubject(presented)?.flow === 'signIn';
	const echoed = {
		client_secret: signedIn ? SIGN_IN.clientSecret : state.credentials.clientSecret,
		api_key: state.credentials.apiKey,
		access_token: presented,
		refresh_token: refreshToken,
		headers: { authorization, auth: req.headers.auth, 'x-api-key': req.headers['x-api-key'] },
		body: record?.body,
	};
	const text = `echo of what you sent: ${JSON.stringify(echoed)}`;
	const body =
		route?.errorStyle === 'auth'
			? { code: 'echo', error: text, message: text, details: echoed }
			: { ...envelopeError(status, 'ECHO', text), message: text, details: echoed };
	sendJson(res, status, body);
}

/** A fault spec as the admin endpoint shows it (a RegExp path as its source and flags). */
export function faultToJson(spec: FaultSpec) {
	const { path } = spec;
	return {
		method: spec.method,
		...(path instanceof RegExp ? { path: path.source, regex: true, flags: path.flags } : { path }),
		times: spec.times === Infinity ? 'Infinity' : spec.times,
		fault: spec.fault,
	};
}
