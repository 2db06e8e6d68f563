/**
 * The fake clinic API's public types: what tests see (FakeClinicApi, options, records, faults) and
 * the interface route modules implement (RouteDefinition, RouteContext, AdminDefinition).
 * Route modules import types from here only.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

import type { ApiVariant, ValidCredentials } from './fixtures';
import type { TokenStore } from './tokens';

export type { ApiVariant, ValidCredentials };

export type PatientsForm = 'profiles' | 'patients';
export type ServicesForm = 'array' | 'object';

/** Options a test may change while the server runs (api.options, api.setOptions, POST /__admin/options). */
export interface RuntimeOptions {
	/** Which token flow is the primary one (document: POST /api/v1/auth/token; public: login). */
	variant: ApiVariant;
	/** [IFD §4.2] response form: data.profiles (default, [IFD §2.2]) or the alternative data.patients. */
	patientsForm: PatientsForm;
	/** [IFD §4.1] response form: services as an array (declared) or as the sample's single object. */
	servicesForm: ServicesForm;
	/** null: per flow (`document` 3600 s, `public` 1800 s; refreshed pairs keep their flow's lifetime). */
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

/** How the framework treats a route's request body (see the file comment). */
export type BodyMode = 'json' | 'raw' | 'none';
/** Error body shape of a route family: the envelope of [IFD §7], or the auth endpoints' {code, error} ([EKA-AUTH]). */
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
	/** [IFD §7] envelope: {status_code, success: false, data: {}, error: {code, message}}. */
	sendEnvelopeError(
		status: number,
		code: string,
		message: string,
		headers?: Record<string, string>,
	): void;
	/** Auth error body {code, error}. */
	sendAuthError(status: number, code: string, message: string): void;
	/** Answer exactly as for a path no route serves. */
	sendRouteNotFound(): void;
	/** 'raw' routes: the request body as a stream whose bytes are counted into the record. Call once. */
	rawBody(): Readable;
}
