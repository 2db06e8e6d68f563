/**
 * Fake clinic API: the framework. Listens on 127.0.0.1, routes requests to the route modules
 * (routes/*.ts), records every request, injects faults, and serves the admin endpoints under
 * /__admin/ for tests that run it in another process (cli.ts).
 *
 * Route modules only `import type` from this file; they talk to the framework through RouteContext.
 * To add a module (upload, results, webhooks): export a RouteDefinition[] and add it to ROUTE_MODULES.
 *
 * Bodies: 'json' routes get their body read here, bounded by maxJsonBodyBytes (default 1 MiB);
 * 'raw' routes get the untouched request stream (ctx.req, or ctx.rawBody() which also counts bytes
 * for the record), so multi-GB uploads never sit in memory; 'none' routes have their body drained.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transform, pipeline } from 'node:stream';
import type { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';

import {
	API_VARIANTS,
	DEFAULT_CREDENTIALS,
	DEFAULT_REFRESH_TOKEN_LIFETIME_SECONDS,
	type ApiVariant,
	type ValidCredentials,
} from './fixtures';
import { authRoutes } from './routes/auth';
import { directoryRoutes } from './routes/directory';
import { ehrReceiverAdmin, ehrReceiverRoutes } from './routes/ehrReceiver';
import { transcriptionAdmin, transcriptionRoutes } from './routes/transcription';
import { webhookAdmin, webhookRoutes } from './routes/webhooks';
import { TokenStore } from './tokens';

export type { ApiVariant, ValidCredentials };

// ---------------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------------

export type PatientsForm = 'profiles' | 'patients';
export type ServicesForm = 'array' | 'object';

/** Options a test may change while the server runs (api.options, api.setOptions, POST /__admin/options). */
export interface RuntimeOptions {
	/** Which token flow is the primary one (document: POST /api/v1/auth/token; public: login). */
	variant: ApiVariant;
	/** 4.2 response form: data.profiles (default, 2.2) or the alternative data.patients. */
	patientsForm: PatientsForm;
	/** 4.1 response form: services as an array (declared) or as the sample's single object. */
	servicesForm: ServicesForm;
	/** null: per flow (document 3600 s, public 1800 s; refreshed pairs keep their flow's lifetime). */
	accessTokenLifetimeSeconds: number | null;
	refreshTokenLifetimeSeconds: number;
	/** When true the token endpoint of the other variant answers 404, as a service without it would. */
	rejectOtherTokenFlow: boolean;
	/** When true a refresh token dies once used (not documented either way; default false). */
	rotateRefreshTokens: boolean;
}

export interface FakeClinicApiOptions extends Partial<RuntimeOptions> {
	/** 0 (default): a free port. Always bound to 127.0.0.1. */
	port?: number;
	credentials?: Partial<ValidCredentials>;
	/** Bound on a JSON body read into memory; larger bodies get 413. Default 1 MiB. */
	maxJsonBodyBytes?: number;
	/** Oldest records are dropped beyond this many. Default 10 000. */
	maxRecordedRequests?: number;
	/** Extra routes, matched before the built-in ones (framework tests, modules under development). */
	extraRoutes?: readonly RouteDefinition[];
	/** Called once per recorded request when its response is done (or the socket closed). */
	onRequestDone?: (record: RecordedRequest) => void;
}

export interface RecordedRequest {
	/** 1, 2, 3… in arrival order; also sent back as header x-request-id. */
	id: number;
	/** Arrival time, epoch milliseconds. */
	time: number;
	method: string;
	/** Request target as received (path and query, still percent-encoded). */
	url: string;
	/** Path as received, still percent-encoded, without the query. */
	path: string;
	/** Path percent-decoded (equal to `path` when it holds an invalid escape). */
	pathname: string;
	query: Record<string, string | string[]>;
	/** Header names lower-case, as Node gives them. */
	headers: IncomingHttpHeaders;
	/** Parsed JSON when the body was JSON (JSON media type and valid); else its byte length; undefined when empty. */
	body: unknown;
	bodyLength: number;
	/** Pattern of the route that matched, if any. */
	route?: string;
	/** HTTP status answered (undefined when the socket was dropped or the client went away). */
	status?: number;
	/** Fault applied to this request, if any. */
	fault?: FaultKind;
}

export type FaultAction =
	| { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
	| { kind: 'drop' }
	| { kind: 'malformed' }
	| { kind: 'delay'; ms: number }
	/** Answers `status` (3xx) with a Location header; the body is empty. */
	| { kind: 'redirect'; status: number; location: string }
	/**
	 * An error answer (default 400) that echoes every secret the fake knows of for this request: the
	 * client secret and API key it accepts, the bearer/auth token sent and the refresh token issued
	 * with it, and the request's own body (client_secret, signing_key, refresh_token…), in the error
	 * message, a top-level message and a details field.
	 */
	| { kind: 'echo'; status?: number };

export type FaultKind = FaultAction['kind'];

export interface FaultSpec {
	/** Any method when absent. */
	method?: string;
	/** String: prefix of the decoded pathname. RegExp: tested against the decoded pathname. */
	path: string | RegExp;
	/** How many matching requests the fault applies to. Default 1; Infinity for all. */
	times?: number;
	fault: FaultAction;
}

export interface Counters {
	/** Successful token exchanges (either token endpoint). */
	tokenExchanges: number;
	/** Successful refreshes. */
	tokenRefreshes: number;
}

export interface FakeClinicApi {
	/** http://127.0.0.1:<port> */
	readonly url: string;
	readonly port: number;
	readonly validCredentials: Readonly<ValidCredentials>;
	/** Live array of every non-admin request (cleared in place by reset). */
	readonly requests: RecordedRequest[];
	requestsTo(path: string | RegExp, method?: string): RecordedRequest[];
	/** Live object (zeroed in place by reset). */
	readonly counters: Counters;
	/** Live, mutable: assigning a field takes effect on the next request. */
	readonly options: RuntimeOptions;
	/** Validates and applies a partial change; returns the options now in force. */
	setOptions(patch: Partial<RuntimeOptions>): RuntimeOptions;
	/** Every issued access token becomes invalid; refresh tokens and the static token stay valid. */
	expireAccessTokens(): void;
	/** Every issued refresh token becomes invalid. */
	expireRefreshTokens(): void;
	injectFault(fault: FaultSpec): void;
	/** Faults not yet used up, in matching order. */
	pendingFaults(): FaultSpec[];
	clearFaults(): void;
	/** Clears requests, faults and counters and restores the start options. Issued tokens stay as they are. */
	reset(): void;
	close(): Promise<void>;
	/** Per-server state, for route modules' in-process controls (e.g. fakeWebhooks(api)). */
	readonly state: FakeClinicState;
}

// ---------------------------------------------------------------------------------------------
// Route module interface
// ---------------------------------------------------------------------------------------------

/** How the framework treats a route's request body (see the file comment). */
export type BodyMode = 'json' | 'raw' | 'none';
/** Error body shape of a route family: §7 envelope, or the auth endpoints' {code, error}. */
export type ErrorStyle = 'envelope' | 'auth';

export interface RouteDefinition {
	method: string;
	/** Literal segments and `:name` parameters, e.g. /dr/v1/doctor/service/:doctorId. */
	pattern: string;
	body: BodyMode;
	errorStyle: ErrorStyle;
	/** error.code used by default when a 'status' fault hits this route, per HTTP status. */
	faultErrorCodes?: Readonly<Record<number, string>>;
	handler: (ctx: RouteContext) => void | Promise<void>;
}

export interface JsonBody {
	/** Lower-case media type without parameters, undefined without Content-Type. */
	mediaType: string | undefined;
	/** Content-Type is application/json (or +json) with no charset other than UTF-8. */
	isJsonMediaType: boolean;
	length: number;
	/** Parsed value when the media type is JSON and the bytes parse; else undefined. */
	value: unknown;
	/** Set when the media type is JSON but the bytes are not valid UTF-8 JSON. */
	parseError?: string;
}

export interface FakeClinicState {
	readonly options: RuntimeOptions;
	readonly credentials: Readonly<ValidCredentials>;
	readonly tokens: TokenStore;
	readonly counters: Counters;
}

/** An admin endpoint a route module adds under /__admin (matched after the built-in ones). */
export interface AdminDefinition {
	method: string;
	/** Path below /__admin, e.g. /webhooks/deliver. */
	action: string;
	/** Its result is sent as JSON with 200; a thrown Error becomes 400 {error}. */
	handler: (request: { state: FakeClinicState; input: unknown; query: URLSearchParams }) => unknown;
}

export interface RouteContext {
	readonly req: IncomingMessage;
	readonly res: ServerResponse;
	readonly record: RecordedRequest;
	readonly route: RouteDefinition;
	/** Path parameters, percent-decoded (each from exactly one raw segment). */
	readonly params: Readonly<Record<string, string>>;
	readonly query: URLSearchParams;
	/** Present for 'json' routes only. */
	readonly body: JsonBody | undefined;
	readonly state: FakeClinicState;
	sendJson(status: number, value: unknown, headers?: Record<string, string>): void;
	/** §7 envelope: {status_code, success: false, data: {}, error: {code, message}}. */
	sendEnvelopeError(status: number, code: string, message: string, headers?: Record<string, string>): void;
	/** Auth error body {code, error}. */
	sendAuthError(status: number, code: string, message: string): void;
	/** Answer exactly as for a path no route serves. */
	sendRouteNotFound(): void;
	/** 'raw' routes: the request body as a stream whose bytes are counted into the record. Call once. */
	rawBody(): Readable;
}

// ---------------------------------------------------------------------------------------------
// JSON helpers
// ---------------------------------------------------------------------------------------------

export function envelopeError(status: number, code: string, message: string) {
	return { status_code: status, success: false, data: {}, error: { code, message } };
}

export function authError(code: string, message: string) {
	return { code, error: message };
}

/** Lets sendText record the status before the first byte leaves (a test may read the record at once). */
const responseRecords = new WeakMap<ServerResponse, RecordedRequest>();

export function sendText(
	res: ServerResponse,
	status: number,
	text: string,
	headers: Record<string, string> = {},
): void {
	if (res.headersSent || res.destroyed) return;
	const noBody = status === 204 || status === 304 || (status >= 100 && status < 200);
	const payload = noBody ? '' : text;
	const finalHeaders: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8' };
	for (const [name, value] of Object.entries(headers)) finalHeaders[name.toLowerCase()] = value;
	if (noBody) delete finalHeaders['content-type'];
	else finalHeaders['content-length'] = String(Buffer.byteLength(payload));
	const record = responseRecords.get(res);
	if (record) record.status = status; // before the client can see the answer
	res.writeHead(status, finalHeaders);
	res.end(payload);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
	sendText(res, status, JSON.stringify(value), { 'content-type': 'application/json; charset=utf-8', ...lowerKeys(headers) });
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
	return out;
}

/** Parses a Content-Type header value into a lower-case media type and whether it is UTF-8 JSON. */
export function parseMediaType(contentType: string | undefined): { mediaType: string | undefined; isJson: boolean } {
	if (!contentType) return { mediaType: undefined, isJson: false };
	const [type, ...params] = contentType.split(';');
	const mediaType = type.trim().toLowerCase();
	const jsonType = mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
	const charset = params
		.map((p) => p.trim().toLowerCase())
		.find((p) => p.startsWith('charset='))
		?.slice('charset='.length)
		.replace(/^"|"$/g, '');
	const charsetOk = charset === undefined || charset === 'utf-8' || charset === 'utf8';
	return { mediaType, isJson: jsonType && charsetOk };
}

// ---------------------------------------------------------------------------------------------
// Routing table
// ---------------------------------------------------------------------------------------------

/** Built-in route modules, in matching order. Later work appends storage, results, webhooks. */
const ROUTE_MODULES: ReadonlyArray<readonly RouteDefinition[]> = [authRoutes, directoryRoutes, webhookRoutes, transcriptionRoutes, ehrReceiverRoutes];
/** Admin endpoints of route modules. */
const ADMIN_MODULES: ReadonlyArray<readonly AdminDefinition[]> = [webhookAdmin, transcriptionAdmin, ehrReceiverAdmin];

type RouteMatch =
	| { kind: 'route'; route: RouteDefinition; params: Record<string, string> }
	| { kind: 'method-not-allowed'; allowed: string[]; errorStyle: ErrorStyle }
	| { kind: 'bad-path'; errorStyle: ErrorStyle }
	| { kind: 'not-found' };

interface CompiledRoute {
	route: RouteDefinition;
	segments: Array<{ literal: string } | { param: string }>;
}

class Router {
	private readonly compiled: CompiledRoute[];

	constructor(routes: readonly RouteDefinition[]) {
		this.compiled = routes.map((route) => ({
			route,
			segments: route.pattern.split('/').map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s })),
		}));
	}

	match(method: string, rawPath: string): RouteMatch {
		const raw = rawPath.split('/');
		const allowed: string[] = [];
		let otherMethodStyle: ErrorStyle | undefined;
		for (const { route, segments } of this.compiled) {
			const params = matchSegments(segments, raw);
			if (params === undefined) continue;
			if (params === null) return { kind: 'bad-path', errorStyle: route.errorStyle };
			if (route.method === method) return { kind: 'route', route, params };
			allowed.push(route.method);
			otherMethodStyle ??= route.errorStyle;
		}
		if (otherMethodStyle) return { kind: 'method-not-allowed', allowed: [...new Set(allowed)], errorStyle: otherMethodStyle };
		return { kind: 'not-found' };
	}
}

/** Params when the raw segments match; undefined when not; null when a parameter has a bad escape. */
function matchSegments(
	segments: CompiledRoute['segments'],
	raw: string[],
): Record<string, string> | undefined | null {
	if (segments.length !== raw.length) return undefined;
	const params: Record<string, string> = {};
	for (let i = 0; i < segments.length; i++) {
		const segment = segments[i];
		if ('literal' in segment) {
			if (segment.literal !== raw[i]) return undefined;
		} else {
			if (raw[i] === '') return undefined;
			try {
				params[segment.param] = decodeURIComponent(raw[i]);
			} catch {
				return null;
			}
		}
	}
	return params;
}

// ---------------------------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------------------------

interface PendingFault {
	method?: string;
	path: string | RegExp;
	remaining: number;
	fault: FaultAction;
}

function pathMatches(pattern: string | RegExp, pathname: string): boolean {
	if (typeof pattern === 'string') return pathname.startsWith(pattern);
	pattern.lastIndex = 0;
	return pattern.test(pathname);
}

/** Throws on anything injectFault must not accept. Returns a normalised copy. */
export function validateFaultSpec(spec: FaultSpec): PendingFault {
	if (!spec || typeof spec !== 'object') throw new Error('fault spec must be an object');
	if (typeof spec.path !== 'string' && !(spec.path instanceof RegExp)) throw new Error('fault path must be a string or RegExp');
	if (spec.method !== undefined && typeof spec.method !== 'string') throw new Error('fault method must be a string');
	const times = spec.times ?? 1;
	if (!(times === Infinity || (Number.isInteger(times) && times >= 1))) throw new Error('fault times must be an integer >= 1 or Infinity');
	const f = spec.fault as FaultAction | undefined;
	if (!f || typeof f !== 'object') throw new Error('fault.fault must be an object');
	switch (f.kind) {
		case 'status':
			if (!Number.isInteger(f.status) || f.status < 200 || f.status > 599) throw new Error('status fault needs an integer status 200..599');
			if (f.headers !== undefined && (typeof f.headers !== 'object' || f.headers === null || Object.values(f.headers).some((v) => typeof v !== 'string')))
				throw new Error('status fault headers must map names to strings');
			return { method: spec.method?.toUpperCase(), path: spec.path, remaining: times, fault: { kind: 'status', status: f.status, body: f.body, headers: f.headers } };
		case 'delay':
			if (typeof f.ms !== 'number' || !(f.ms >= 0) || f.ms > 600_000) throw new Error('delay fault needs ms between 0 and 600000');
			return { method: spec.method?.toUpperCase(), path: spec.path, remaining: times, fault: { kind: 'delay', ms: f.ms } };
		case 'drop':
		case 'malformed':
			return { method: spec.method?.toUpperCase(), path: spec.path, remaining: times, fault: { kind: f.kind } };
		case 'redirect':
			if (![301, 302, 303, 307, 308].includes(f.status)) throw new Error('redirect fault needs status 301, 302, 303, 307 or 308');
			if (typeof f.location !== 'string' || f.location === '') throw new Error('redirect fault needs a location');
			return { method: spec.method?.toUpperCase(), path: spec.path, remaining: times, fault: { kind: 'redirect', status: f.status, location: f.location } };
		case 'echo': {
			const status = f.status ?? 400;
			if (!Number.isInteger(status) || status < 400 || status > 599) throw new Error('echo fault status must be 400..599');
			return { method: spec.method?.toUpperCase(), path: spec.path, remaining: times, fault: { kind: 'echo', status } };
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
	if (parsedTimes !== undefined && typeof parsedTimes !== 'number') throw new Error('times must be a number or "Infinity"');
	return { method: method as string | undefined, path: pattern, times: parsedTimes, fault: fault as FaultAction };
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
	const code = route?.faultErrorCodes?.[status] ?? DEFAULT_ENVELOPE_CODES[status] ?? (status >= 500 ? 'SERVER_ERROR' : 'ERROR');
	const message = `injected fault: HTTP ${status}`;
	return route?.errorStyle === 'auth' ? authError(code.toLowerCase(), message) : envelopeError(status, code, message);
}

/** Deliberately truncated JSON sent with a JSON content type and status 200. */
const MALFORMED_JSON = '{"status_code": 200, "success": true, "data": {"services": [{"service_name": "Gen';

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

const RUNTIME_OPTION_CHECKS: { [K in keyof RuntimeOptions]: (v: unknown) => boolean } = {
	variant: (v) => v === 'document' || v === 'public',
	patientsForm: (v) => v === 'profiles' || v === 'patients',
	servicesForm: (v) => v === 'array' || v === 'object',
	accessTokenLifetimeSeconds: (v) => v === null || (Number.isInteger(v) && (v as number) >= 1),
	refreshTokenLifetimeSeconds: (v) => Number.isInteger(v) && (v as number) >= 1,
	rejectOtherTokenFlow: (v) => typeof v === 'boolean',
	rotateRefreshTokens: (v) => typeof v === 'boolean',
};

/** Validates a partial RuntimeOptions (from code or admin JSON); throws naming the bad field. */
export function validateOptionsPatch(patch: unknown): Partial<RuntimeOptions> {
	if (!isPlainObject(patch)) throw new Error('options must be an object');
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(patch)) {
		if (value === undefined) continue;
		const check = RUNTIME_OPTION_CHECKS[key as keyof RuntimeOptions];
		if (!check) throw new Error(`unknown option ${key}`);
		if (!check(value)) throw new Error(`invalid value for option ${key}: ${JSON.stringify(value)}`);
		out[key] = value;
	}
	return out as Partial<RuntimeOptions>;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------------
// Body reading
// ---------------------------------------------------------------------------------------------

type BoundedRead = { bytes: Buffer; length: number; tooLarge: false } | { length: number; tooLarge: true } | 'aborted';

/** Reads at most `limit` bytes; beyond that stops buffering and lets the rest drain unread. */
function readBoundedBody(req: IncomingMessage, limit: number): Promise<BoundedRead> {
	const declared = Number(req.headers['content-length']);
	if (Number.isFinite(declared) && declared > limit) {
		req.resume();
		return Promise.resolve({ length: declared, tooLarge: true });
	}
	return new Promise((resolve) => {
		const chunks: Buffer[] = [];
		let length = 0;
		const cleanup = () => {
			req.off('data', onData);
			req.off('end', onEnd);
			req.off('error', onAbort);
			req.off('close', onClose);
		};
		const onData = (chunk: Buffer) => {
			length += chunk.length;
			if (length > limit) {
				cleanup();
				req.resume();
				resolve({ length, tooLarge: true });
				return;
			}
			chunks.push(chunk);
		};
		const onEnd = () => {
			cleanup();
			resolve({ bytes: Buffer.concat(chunks, length), length, tooLarge: false });
		};
		const onAbort = () => {
			cleanup();
			resolve('aborted');
		};
		const onClose = () => {
			if (!req.complete) onAbort();
		};
		req.on('data', onData);
		req.on('end', onEnd);
		req.on('error', onAbort);
		req.on('close', onClose);
	});
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function interpretJsonBody(contentType: string | undefined, bytes: Buffer): JsonBody {
	const { mediaType, isJson } = parseMediaType(contentType);
	const body: JsonBody = { mediaType, isJsonMediaType: isJson, length: bytes.length, value: undefined };
	if (!isJson || bytes.length === 0) return body;
	try {
		body.value = JSON.parse(utf8.decode(bytes));
	} catch (e) {
		body.parseError = (e as Error).message;
	}
	return body;
}

/**
 * Drains a body nobody reads, counting its bytes into the record; resolves when it ended (or the
 * client went away). Callers answer after this: if they answered first, Node's response-finish
 * handling would dump the request and drop our 'data' listener. Nothing is buffered.
 */
function drainCounting(req: IncomingMessage, record: RecordedRequest): Promise<void> {
	if (req.readableEnded) return Promise.resolve();
	return new Promise((resolve) => {
		req.on('data', (chunk: Buffer) => {
			record.bodyLength += chunk.length;
		});
		req.on('end', () => {
			if (record.bodyLength > 0 && record.body === undefined) record.body = record.bodyLength;
			resolve();
		});
		req.on('error', () => resolve());
		req.on('close', () => resolve());
		req.resume();
	});
}

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

const ADMIN_PREFIX = '/__admin';

class FakeClinicApiServer implements FakeClinicApi {
	readonly requests: RecordedRequest[] = [];
	readonly counters: Counters = { tokenExchanges: 0, tokenRefreshes: 0 };
	readonly options: RuntimeOptions;
	readonly validCredentials: Readonly<ValidCredentials>;
	url = '';
	port = 0;

	private readonly initialOptions: RuntimeOptions;
	private readonly tokens: TokenStore;
	readonly state: FakeClinicState;
	private readonly router: Router;
	private readonly faults: PendingFault[] = [];
	private readonly delays = new Set<{ timer: NodeJS.Timeout; resolve: (completed: boolean) => void }>();
	private readonly maxJsonBodyBytes: number;
	private readonly maxRecordedRequests: number;
	private readonly onRequestDone?: (record: RecordedRequest) => void;
	private readonly startedAt = Date.now();
	private nextId = 1;
	private closed = false;
	readonly server: Server;

	constructor(options: FakeClinicApiOptions) {
		const { port: _port, credentials, maxJsonBodyBytes, maxRecordedRequests, extraRoutes, onRequestDone, ...runtime } = options;
		this.initialOptions = {
			variant: 'document',
			patientsForm: 'profiles',
			servicesForm: 'array',
			accessTokenLifetimeSeconds: null,
			refreshTokenLifetimeSeconds: DEFAULT_REFRESH_TOKEN_LIFETIME_SECONDS,
			rejectOtherTokenFlow: false,
			rotateRefreshTokens: false,
			...validateOptionsPatch(runtime),
		};
		this.options = { ...this.initialOptions };
		this.validCredentials = Object.freeze({ ...DEFAULT_CREDENTIALS, ...credentials });
		this.maxJsonBodyBytes = maxJsonBodyBytes ?? 1024 * 1024;
		this.maxRecordedRequests = maxRecordedRequests ?? 10_000;
		this.onRequestDone = onRequestDone;
		this.tokens = new TokenStore(this.validCredentials.staticToken);
		this.state = { options: this.options, credentials: this.validCredentials, tokens: this.tokens, counters: this.counters };
		this.router = new Router([...(extraRoutes ?? []), ...ROUTE_MODULES.flat()]);
		this.server = createServer({ requestTimeout: 0 }, (req, res) => {
			this.handle(req, res).catch((error: unknown) => this.handlerFailed(res, error));
		});
	}

	async listen(port: number): Promise<void> {
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(port, '127.0.0.1', () => {
				this.server.off('error', reject);
				resolve();
			});
		});
		this.port = (this.server.address() as AddressInfo).port;
		this.url = `http://127.0.0.1:${this.port}`;
	}

	// --- test-facing API ---------------------------------------------------------------------

	requestsTo(path: string | RegExp, method?: string): RecordedRequest[] {
		const wanted = method?.toUpperCase();
		return this.requests.filter((r) => (!wanted || r.method === wanted) && pathMatches(path, r.pathname));
	}

	setOptions(patch: Partial<RuntimeOptions>): RuntimeOptions {
		Object.assign(this.options, validateOptionsPatch(patch));
		return { ...this.options };
	}

	expireAccessTokens(): void {
		this.tokens.expireAccessTokens();
	}

	expireRefreshTokens(): void {
		this.tokens.expireRefreshTokens();
	}

	injectFault(spec: FaultSpec): void {
		this.faults.push(validateFaultSpec(spec));
	}

	pendingFaults(): FaultSpec[] {
		return this.faults.map((f) => ({ method: f.method, path: f.path, times: f.remaining, fault: f.fault }));
	}

	clearFaults(): void {
		this.faults.length = 0;
	}

	reset(): void {
		this.requests.length = 0;
		this.faults.length = 0;
		this.counters.tokenExchanges = 0;
		this.counters.tokenRefreshes = 0;
		for (const key of Object.keys(this.options) as Array<keyof RuntimeOptions>) delete this.options[key];
		Object.assign(this.options, this.initialOptions);
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		for (const delay of this.delays) {
			clearTimeout(delay.timer);
			delay.resolve(false);
		}
		this.delays.clear();
		const closing = new Promise<void>((resolve) => this.server.close(() => resolve()));
		this.server.closeAllConnections();
		await closing;
	}

	// --- request pipeline --------------------------------------------------------------------

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const method = (req.method ?? 'GET').toUpperCase();
		const target = req.url ?? '/';
		const queryAt = target.indexOf('?');
		const rawPath = queryAt === -1 ? target : target.slice(0, queryAt);
		const rawQuery = queryAt === -1 ? '' : target.slice(queryAt + 1);

		if (rawPath === ADMIN_PREFIX || rawPath.startsWith(`${ADMIN_PREFIX}/`)) {
			return this.handleAdmin(req, res, method, rawPath.slice(ADMIN_PREFIX.length), new URLSearchParams(rawQuery));
		}

		const query = new URLSearchParams(rawQuery);
		const record = this.record(req, method, target, rawPath, query);
		res.setHeader('x-request-id', String(record.id));
		responseRecords.set(res, record);
		res.once('finish', () => {
			record.status = res.statusCode;
		});
		res.once('close', () => this.onRequestDone?.(record));

		if (!rawPath.startsWith('/')) {
			await drainCounting(req, record);
			return sendJson(res, 400, envelopeError(400, 'BAD_REQUEST', 'request target must be an absolute path'));
		}

		const match = this.router.match(method, rawPath);
		const route = match.kind === 'route' ? match.route : undefined;
		if (route) record.route = route.pattern;
		const errorStyle: ErrorStyle = match.kind === 'route' ? match.route.errorStyle : match.kind === 'not-found' ? 'envelope' : match.errorStyle;
		const fault = this.takeFault(method, record.pathname);
		if (fault) record.fault = fault.kind;

		if (fault?.kind === 'delay') {
			if (!(await this.sleep(fault.ms))) return;
		}

		let body: JsonBody | undefined;
		let tooLarge = false;
		if (route?.body === 'json') {
			const read = await readBoundedBody(req, this.maxJsonBodyBytes);
			if (read === 'aborted') return;
			record.bodyLength = read.length;
			if (read.tooLarge) {
				tooLarge = true;
				record.body = read.length;
			} else {
				body = interpretJsonBody(req.headers['content-type'], read.bytes);
				record.body = body.value !== undefined ? body.value : read.length > 0 ? read.length : undefined;
			}
		} else if (route?.body === 'raw') {
			// A fault answers at once, as a storage service would, and discards the upload unread.
			if (fault && fault.kind !== 'delay') void drainCounting(req, record);
		} else {
			await drainCounting(req, record);
		}

		if (fault && fault.kind !== 'delay') return this.applyFault(req, res, fault, route);

		switch (match.kind) {
			case 'not-found':
				return this.sendNotFound(res, method, rawPath);
			case 'bad-path':
				return this.sendError(res, errorStyle, 400, 'BAD_REQUEST', 'path holds an invalid percent-encoding');
			case 'method-not-allowed':
				return this.sendError(res, errorStyle, 405, 'METHOD_NOT_ALLOWED', `method ${method} is not allowed here`, {
					allow: match.allowed.join(', '),
				});
			case 'route':
				break;
		}
		if (tooLarge) {
			return this.sendError(res, errorStyle, 413, 'PAYLOAD_TOO_LARGE', `body exceeds ${this.maxJsonBodyBytes} bytes`);
		}
		await match.route.handler(this.context(req, res, record, match.route, match.params, query, body));
	}

	private record(req: IncomingMessage, method: string, url: string, rawPath: string, query: URLSearchParams): RecordedRequest {
		let pathname = rawPath;
		try {
			pathname = decodeURIComponent(rawPath);
		} catch {
			// keep raw: invalid escape
		}
		const queryObject: Record<string, string | string[]> = {};
		for (const [key, value] of query) {
			const existing = queryObject[key];
			queryObject[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
		}
		const record: RecordedRequest = {
			id: this.nextId++,
			time: Date.now(),
			method,
			url,
			path: rawPath,
			pathname,
			query: queryObject,
			headers: { ...req.headers },
			body: undefined,
			bodyLength: 0,
		};
		this.requests.push(record);
		if (this.requests.length > this.maxRecordedRequests) this.requests.splice(0, this.requests.length - this.maxRecordedRequests);
		return record;
	}

	private context(
		req: IncomingMessage,
		res: ServerResponse,
		record: RecordedRequest,
		route: RouteDefinition,
		params: Record<string, string>,
		query: URLSearchParams,
		body: JsonBody | undefined,
	): RouteContext {
		let rawUsed = false;
		return {
			req,
			res,
			record,
			route,
			params,
			query,
			body,
			state: this.state,
			sendJson: (status, value, headers) => sendJson(res, status, value, headers),
			sendEnvelopeError: (status, code, message, headers) => sendJson(res, status, envelopeError(status, code, message), headers),
			sendAuthError: (status, code, message) => sendJson(res, status, authError(code, message)),
			sendRouteNotFound: () => this.sendNotFound(res, record.method, record.path),
			rawBody: () => {
				if (rawUsed) throw new Error('rawBody() may be called once');
				rawUsed = true;
				const counter = new Transform({
					transform(chunk: Buffer, _encoding, callback) {
						record.bodyLength += chunk.length;
						callback(null, chunk);
					},
					flush(callback) {
						record.body = record.bodyLength > 0 ? record.bodyLength : undefined;
						callback();
					},
				});
				pipeline(req, counter, () => undefined);
				return counter;
			},
		};
	}

	private takeFault(method: string, pathname: string): FaultAction | undefined {
		const index = this.faults.findIndex((f) => (!f.method || f.method === method) && pathMatches(f.path, pathname));
		if (index === -1) return undefined;
		const pending = this.faults[index];
		pending.remaining -= 1;
		if (pending.remaining <= 0) this.faults.splice(index, 1);
		return pending.fault;
	}

	private applyFault(req: IncomingMessage, res: ServerResponse, fault: FaultAction, route: RouteDefinition | undefined): void {
		switch (fault.kind) {
			case 'drop':
				req.socket.destroy();
				return;
			case 'malformed':
				return sendText(res, 200, MALFORMED_JSON, { 'content-type': 'application/json; charset=utf-8' });
			case 'status': {
				const body = fault.body === undefined ? defaultFaultBody(fault.status, route) : fault.body;
				if (typeof body === 'string') return sendText(res, fault.status, body, fault.headers);
				return sendJson(res, fault.status, body, fault.headers);
			}
			case 'redirect':
				return sendText(res, fault.status, '', { location: fault.location });
			case 'echo':
				return this.sendEcho(req, res, fault.status ?? 400, route);
			case 'delay':
				return; // handled before routing
		}
	}

	private sendEcho(req: IncomingMessage, res: ServerResponse, status: number, route: RouteDefinition | undefined): void {
		const record = responseRecords.get(res);
		const authorization = req.headers.authorization;
		const presented =
			typeof authorization === 'string' && authorization.startsWith('Bearer ')
				? authorization.slice('Bearer '.length)
				: typeof req.headers.auth === 'string'
					? req.headers.auth
					: undefined;
		const refreshToken = presented ? this.tokens.refreshTokenIssuedWith(presented) : undefined;
		const echoed = {
			client_secret: this.validCredentials.clientSecret,
			api_key: this.validCredentials.apiKey,
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

	private sleep(ms: number): Promise<boolean> {
		return new Promise((resolve) => {
			const entry = {
				timer: setTimeout(() => {
					this.delays.delete(entry);
					resolve(true);
				}, ms),
				resolve,
			};
			this.delays.add(entry);
		});
	}

	private sendError(
		res: ServerResponse,
		style: ErrorStyle,
		status: number,
		code: string,
		message: string,
		headers: Record<string, string> = {},
	): void {
		const body = style === 'auth' ? authError(code.toLowerCase(), message) : envelopeError(status, code, message);
		sendJson(res, status, body, headers);
	}

	private sendNotFound(res: ServerResponse, method: string, rawPath: string): void {
		sendJson(res, 404, envelopeError(404, 'NOT_FOUND', `no route for ${method} ${rawPath}`));
	}

	private handlerFailed(res: ServerResponse, error: unknown): void {
		const message = error instanceof Error ? error.message : String(error);
		if (!res.headersSent) sendJson(res, 500, envelopeError(500, 'SERVER_ERROR', `fake API handler failed: ${message}`));
		else res.destroy();
	}

	// --- admin endpoints ---------------------------------------------------------------------

	private async handleAdmin(
		req: IncomingMessage,
		res: ServerResponse,
		method: string,
		action: string,
		query: URLSearchParams,
	): Promise<void> {
		let input: unknown = {};
		if (method === 'POST') {
			const read = await readBoundedBody(req, this.maxJsonBodyBytes);
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
			switch (`${method} ${action}`) {
				case 'GET /requests': {
					let list = this.requests;
					const path = query.get('path');
					if (path !== null) list = this.requestsTo(query.get('regex') === 'true' ? new RegExp(path, query.get('flags') ?? undefined) : path);
					const wanted = query.get('method')?.toUpperCase();
					if (wanted) list = list.filter((r) => r.method === wanted);
					const since = Number(query.get('since') ?? 0);
					if (since > 0) list = list.filter((r) => r.id > since);
					return sendJson(res, 200, list);
				}
				case 'POST /reset':
					this.reset();
					return sendJson(res, 200, { ok: true });
				case 'GET /faults':
					return sendJson(res, 200, this.pendingFaults().map(faultToJson));
				case 'POST /faults': {
					const list = Array.isArray(input) ? input : [input];
					const specs = list.map((item) => validateFaultSpec(faultSpecFromJson(item)));
					this.faults.push(...specs);
					return sendJson(res, 201, { ok: true, pending: this.faults.length });
				}
				case 'DELETE /faults':
					this.clearFaults();
					return sendJson(res, 200, { ok: true });
				case 'POST /expire-tokens': {
					if (!isPlainObject(input)) throw new Error('body must be an object');
					const { access = true, refresh = false } = input as { access?: unknown; refresh?: unknown };
					if (typeof access !== 'boolean' || typeof refresh !== 'boolean') throw new Error('access and refresh must be booleans');
					if (access) this.expireAccessTokens();
					if (refresh) this.expireRefreshTokens();
					return sendJson(res, 200, { ok: true, access, refresh });
				}
				case 'GET /options':
					return sendJson(res, 200, this.options);
				case 'POST /options':
					return sendJson(res, 200, this.setOptions(validateOptionsPatch(input)));
				case 'GET /stats':
					return sendJson(res, 200, {
						counters: this.counters,
						requestCount: this.requests.length,
						pendingFaults: this.faults.length,
						options: this.options,
						tokens: this.tokens.stats(),
						uptimeMs: Date.now() - this.startedAt,
					});
				case 'GET /credentials':
					return sendJson(res, 200, { url: this.url, credentials: this.validCredentials, variants: API_VARIANTS });
				default: {
					const extra = ADMIN_MODULES.flat().find((a) => a.method === method && a.action === action);
					if (extra) return sendJson(res, 200, await extra.handler({ state: this.state, input, query }));
					return sendJson(res, 404, { error: `no admin endpoint ${method} ${ADMIN_PREFIX}${action}` });
				}
			}
		} catch (e) {
			return sendJson(res, 400, { error: (e as Error).message });
		}
	}
}

function faultToJson(spec: FaultSpec) {
	const { path } = spec;
	return {
		method: spec.method,
		...(path instanceof RegExp ? { path: path.source, regex: true, flags: path.flags } : { path }),
		times: spec.times === Infinity ? 'Infinity' : spec.times,
		fault: spec.fault,
	};
}

export async function startFakeClinicApi(options: FakeClinicApiOptions = {}): Promise<FakeClinicApi> {
	const api = new FakeClinicApiServer(options);
	await api.listen(options.port ?? 0);
	return api;
}
