/**
 * Fake clinic API: the server. Listens on 127.0.0.1 and runs each request through its pipeline:
 * admin endpoints (admin.ts) → record (recording.ts) → fault (faults.ts; a delay waits in
 * delays.ts) → body (http.ts) → route (dispatch.ts, the route modules in routes/).
 *
 * Route modules only `import type` from types.ts; they talk to the framework through RouteContext.
 * To add a module: export a RouteDefinition[] and add it to ROUTE_MODULES (dispatch.ts).
 *
 * Bodies: 'json' routes get their body read here, bounded by maxJsonBodyBytes (default 1 MiB);
 * 'raw' routes get the untouched request stream (ctx.req, or ctx.rawBody() which also counts bytes
 * for the record), so multi-GB uploads never sit in memory; 'none' routes have their body drained.
 *
 * Every public type and helper is re-exported here, so tests import from this one file.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transform, pipeline } from 'node:stream';

import { ADMIN_PREFIX, handleAdmin, type AdminServer } from './admin';
import { PendingDelays } from './delays';
import { ROUTE_MODULES, Router } from './dispatch';
import { applyFault, takeFault, validateFaultSpec, type PendingFault } from './faults';
import { DEFAULT_CREDENTIALS } from './fixtures';
import {
	authError,
	drainCounting,
	envelopeError,
	interpretJsonBody,
	linkResponseRecord,
	readBoundedBody,
	sendError,
	sendJson,
	sendNotFound,
} from './http';
import { DEFAULT_RUNTIME_OPTIONS, validateOptionsPatch } from './options';
import { recordRequest, requestsTo } from './recording';
import { TokenStore } from './tokens';
import type {
	Counters,
	ErrorStyle,
	FakeClinicApi,
	FakeClinicApiOptions,
	FakeClinicState,
	FaultSpec,
	JsonBody,
	RecordedRequest,
	RouteContext,
	RouteDefinition,
	RuntimeOptions,
	ValidCredentials,
} from './types';

export type * from './types';
export { authError, envelopeError, parseMediaType, sendJson, sendText } from './http';
export { faultSpecFromJson, validateFaultSpec } from './faults';
export { validateOptionsPatch } from './options';

class FakeClinicApiServer implements AdminServer {
	readonly requests: RecordedRequest[] = [];
	readonly counters: Counters = { tokenExchanges: 0, tokenRefreshes: 0 };
	readonly options: RuntimeOptions;
	readonly validCredentials: Readonly<ValidCredentials>;
	url = '';
	port = 0;
	readonly startedAt = Date.now();
	readonly maxJsonBodyBytes: number;
	readonly state: FakeClinicState;
	readonly server: Server;

	private readonly initialOptions: RuntimeOptions;
	private readonly tokens: TokenStore;
	private readonly router: Router;
	private readonly faults: PendingFault[] = [];
	private readonly delays = new PendingDelays();
	private readonly maxRecordedRequests: number;
	private readonly onRequestDone?: (record: RecordedRequest) => void;
	private nextId = 1;
	private closed = false;

	constructor(options: FakeClinicApiOptions) {
		const {
			port: _port,
			credentials,
			maxJsonBodyBytes,
			maxRecordedRequests,
			extraRoutes,
			onRequestDone,
			...runtime
		} = options;
		this.initialOptions = { ...DEFAULT_RUNTIME_OPTIONS, ...validateOptionsPatch(runtime) };
		this.options = { ...this.initialOptions };
		this.validCredentials = Object.freeze({ ...DEFAULT_CREDENTIALS, ...credentials });
		this.maxJsonBodyBytes = maxJsonBodyBytes ?? 1024 * 1024;
		this.maxRecordedRequests = maxRecordedRequests ?? 10_000;
		this.onRequestDone = onRequestDone;
		this.tokens = new TokenStore(this.validCredentials.staticToken);
		this.state = {
			options: this.options,
			credentials: this.validCredentials,
			tokens: this.tokens,
			counters: this.counters,
		};
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
		return requestsTo(this.requests, path, method);
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
		return this.faults.map((f) => ({
			method: f.method,
			path: f.path,
			times: f.remaining,
			fault: f.fault,
		}));
	}

	clearFaults(): void {
		this.faults.length = 0;
	}

	reset(): void {
		this.requests.length = 0;
		this.faults.length = 0;
		this.counters.tokenExchanges = 0;
		this.counters.tokenRefreshes = 0;
		for (const key of Object.keys(this.options) as Array<keyof RuntimeOptions>)
			delete this.options[key];
		Object.assign(this.options, this.initialOptions);
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		this.delays.cancelAll();
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
			return handleAdmin(
				this,
				req,
				res,
				method,
				rawPath.slice(ADMIN_PREFIX.length),
				new URLSearchParams(rawQuery),
			);
		}

		const query = new URLSearchParams(rawQuery);
		const record = recordRequest(this.requests, this.maxRecordedRequests, this.nextId++, {
			req,
			method,
			url: target,
			rawPath,
			query,
		});
		res.setHeader('x-request-id', String(record.id));
		linkResponseRecord(res, record);
		res.once('finish', () => {
			record.status = res.statusCode;
		});
		res.once('close', () => this.onRequestDone?.(record));

		if (!rawPath.startsWith('/')) {
			await drainCounting(req, record);
			return sendJson(
				res,
				400,
				envelopeError(400, 'BAD_REQUEST', 'request target must be an absolute path'),
			);
		}

		const match = this.router.match(method, rawPath);
		const route = match.kind === 'route' ? match.route : undefined;
		if (route) record.route = route.pattern;
		const errorStyle: ErrorStyle =
			match.kind === 'route'
				? match.route.errorStyle
				: match.kind === 'not-found'
					? 'envelope'
					: match.errorStyle;
		const fault = takeFault(this.faults, method, record.pathname);
		if (fault) record.fault = fault.kind;

		if (fault?.kind === 'delay') {
			if (!(await this.delays.sleep(fault.ms))) return;
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
				record.body =
					body.value !== undefined ? body.value : read.length > 0 ? read.length : undefined;
			}
		} else if (route?.body === 'raw') {
			// A fault answers at once, as a storage service would, and discards the upload unread.
			if (fault && fault.kind !== 'delay') void drainCounting(req, record);
		} else {
			await drainCounting(req, record);
		}

		if (fault && fault.kind !== 'delay') return applyFault(req, res, fault, route, this.state);

		switch (match.kind) {
			case 'not-found':
				return sendNotFound(res, method, rawPath);
			case 'bad-path':
				return sendError(
					res,
					errorStyle,
					400,
					'BAD_REQUEST',
					'path holds an invalid percent-encoding',
				);
			case 'method-not-allowed':
				return sendError(
					res,
					errorStyle,
					405,
					'METHOD_NOT_ALLOWED',
					`method ${method} is not allowed here`,
					{
						allow: match.allowed.join(', '),
					},
				);
			case 'route':
				break;
		}
		if (tooLarge) {
			return sendError(
				res,
				errorStyle,
				413,
				'PAYLOAD_TOO_LARGE',
				`body exceeds ${this.maxJsonBodyBytes} bytes`,
			);
		}
		await match.route.handler(
			this.context(req, res, record, match.route, match.params, query, body),
		);
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
			sendEnvelopeError: (status, code, message, headers) =>
				sendJson(res, status, envelopeError(status, code, message), headers),
			sendAuthError: (status, code, message) => sendJson(res, status, authError(code, message)),
			sendRouteNotFound: () => sendNotFound(res, record.method, record.path),
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

	private handlerFailed(res: ServerResponse, error: unknown): void {
		const message = error instanceof Error ? error.message : String(error);
		if (!res.headersSent)
			sendJson(res, 500, envelopeError(500, 'SERVER_ERROR', `fake API handler failed: ${message}`));
		else res.destroy();
	}
}

export async function startFakeClinicApi(
	options: FakeClinicApiOptions = {},
): Promise<FakeClinicApi> {
	const api = new FakeClinicApiServer(options);
	await api.listen(options.port ?? 0);
	return api;
}
