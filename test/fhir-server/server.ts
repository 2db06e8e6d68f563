/**
 * The local EHR: a FHIR R4 REST server on 127.0.0.1, in memory, for development and tests (never
 * shipped). Medplum's FHIR engine (@medplum/fhir-router over repository.ts) answers the FHIR
 * requests; this file is the HTTP side:
 *
 *   <url>/fhir                  FHIR base: POST a transaction or batch Bundle
 *   <url>/fhir/metadata         CapabilityStatement
 *   <url>/fhir/<Type>[/<id>]    create (POST), read (GET), update or create with the client's id
 *                               (PUT), PATCH, DELETE, search (GET with parameters, or POST _search)
 *   <url>/                      HTML: what the EHR holds (page.ts); /view/Patient/<id> one patient
 *   <url>/__admin/counts        GET: resources held per type (not FHIR)
 *   <url>/__admin/reset         POST: forget everything (not FHIR)
 *
 * Requests touch the store one at a time (a queue; bodies are read first), so a transaction never
 * interleaves with another request.
 * Runs under Node >= 22.18 only (Medplum's engines; test/support/fhirServer.ts starts it under
 * the cached Node 24 as its own process).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import {
	badRequest,
	created,
	getResourceTypes,
	getSearchParameters,
	getStatus,
	isOk,
	isResourceType,
	normalizeOperationOutcome,
} from '@medplum/core';
import { FhirRouter } from '@medplum/fhir-router';
import type { FhirRequest, FhirRouteHandler, HttpMethod } from '@medplum/fhir-router';
import type { Bundle, CapabilityStatement, OperationOutcome, Resource } from '@medplum/fhirtypes';

import { interpretJsonBody, readBoundedBody, sendText } from '../fake-api/http';
import { loadR4Definitions } from './definitions';
import { indexPage, patientPage } from './page';
import { EhrRepository, referenceKey } from './repository';
import { bundleResponse, processTransaction, type RouterLimits } from './transaction';

export const FHIR_PATH = '/fhir';
export const ADMIN_PREFIX = '/__admin';

export interface FhirServerOptions {
	/** 0 (default): any free port. */
	port?: number;
	/** Largest request body accepted, in bytes (default 32 MiB). */
	maxBodyBytes?: number;
	/**
	 * 'medplum': transactions are refused as a Medplum-hosted EHR refuses them (its fhir-router's
	 * limits: more than 50 updates, or a conditional create among more than 8 entries); default
	 * 'none': this server takes any size (transaction.ts says why it can).
	 */
	routerLimits?: RouterLimits;
	/** Called once per request when answered (method, path, status; never bodies). */
	onRequestDone?: (record: { method: string; path: string; status: number; ms: number }) => void;
}

export interface FhirServer {
	/** http://127.0.0.1:<port> (the HTML page is here). */
	url: string;
	/** The FHIR base URL: <url>/fhir. */
	fhirBaseUrl: string;
	port: number;
	/** How long loading the R4 definitions took in this process (0 when already loaded). */
	definitionsLoadedInMs: number;
	repository: EhrRepository;
	close(): Promise<void>;
}

const FHIR_JSON = 'application/fhir+json; charset=utf-8';
/** Search parameters every type takes that are not SearchParameters of the type (result and format controls). */
const RESULT_PARAMETERS = new Set([
	'_count',
	'_offset',
	'_sort',
	'_total',
	'_summary',
	'_elements',
	'_include',
	'_revinclude',
	'_format',
	'_pretty',
	'_fields',
]);

export async function startFhirServerInProcess(
	options: FhirServerOptions = {},
): Promise<FhirServer> {
	const { loadedInMs } = loadR4Definitions();
	const repository = new EhrRepository();
	const router = ehrRouter();
	const maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
	let queue: Promise<void> = Promise.resolve();
	let fhirBaseUrl = '';

	const server: Server = createServer((req, res) => {
		const started = performance.now();
		res.once('finish', () =>
			options.onRequestDone?.({
				method: req.method ?? '?',
				path: (req.url ?? '').split('?')[0],
				status: res.statusCode,
				ms: Math.round(performance.now() - started),
			}),
		);
		handle(req, res).catch((error: unknown) => {
			if (!res.headersSent)
				sendFhir(res, 500, {
					resourceType: 'OperationOutcome',
					issue: [
						{
							severity: 'fatal',
							code: 'exception',
							details: { text: `Internal error: ${String(error)}` },
						},
					],
				});
			else res.destroy();
		});
	});

	/** Runs work on the store after every earlier request's work is done (bodies are read before, so a slow client holds up no one). */
	function exclusive<T>(work: () => Promise<T> | T): Promise<T> {
		const turn = queue.then(work);
		queue = turn.then(
			() => undefined,
			() => undefined,
		);
		return turn;
	}

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const method = (req.method ?? 'GET').toUpperCase();
		const target = new URL(req.url ?? '/', 'http://127.0.0.1');
		const path = target.pathname;
		if (path === FHIR_PATH || path.startsWith(`${FHIR_PATH}/`))
			return await handleFhir(
				req,
				res,
				method,
				path.slice(FHIR_PATH.length).replace(/^\/+/, ''),
				target.search,
			);
		if (path.startsWith(`${ADMIN_PREFIX}/`))
			return await exclusive(() => handleAdmin(res, method, path.slice(ADMIN_PREFIX.length)));
		if (method === 'GET' && path === '/')
			return sendHtml(res, 200, await exclusive(() => indexPage(repository, fhirBaseUrl)));
		const view = /^\/view\/Patient\/([^/]+)$/.exec(path);
		if (method === 'GET' && view) {
			const html = await exclusive(() =>
				patientPage(repository, decodeURIComponent(view[1]), fhirBaseUrl),
			);
			return html
				? sendHtml(res, 200, html)
				: sendText(res, 404, `This EHR holds no Patient/${view[1]}\n`);
		}
		sendText(
			res,
			404,
			`Nothing at ${method} ${path}. The FHIR base is ${fhirBaseUrl}; what the EHR holds: ${fhirBaseUrl.slice(0, -FHIR_PATH.length)}/\n`,
		);
	}

	function handleAdmin(res: ServerResponse, method: string, action: string): void {
		if (method === 'GET' && action === '/counts')
			return sendText(res, 200, JSON.stringify(repository.counts()), {
				'content-type': 'application/json; charset=utf-8',
			});
		if (method === 'POST' && action === '/reset') {
			repository.clear();
			return sendText(res, 200, JSON.stringify({ ok: true }), {
				'content-type': 'application/json; charset=utf-8',
			});
		}
		sendText(
			res,
			404,
			`No admin action ${method} ${ADMIN_PREFIX}${action} (GET ${ADMIN_PREFIX}/counts, POST ${ADMIN_PREFIX}/reset)\n`,
		);
	}

	async function handleFhir(
		req: IncomingMessage,
		res: ServerResponse,
		method: string,
		path: string,
		search: string,
	): Promise<void> {
		if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) {
			return sendOutcome(
				res,
				405,
				`${method} is not a FHIR interaction here (GET, POST, PUT, PATCH, DELETE)`,
			);
		}
		if (method === 'GET' && path === 'metadata')
			return sendFhir(res, 200, capabilityStatement(fhirBaseUrl));

		let body: unknown;
		if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
			const read = await readBoundedBody(req, maxBodyBytes);
			if (read === 'aborted') return;
			if (read.tooLarge)
				return sendOutcome(
					res,
					413,
					`The body is ${read.length} bytes; this server accepts at most ${maxBodyBytes}`,
				);
			const contentType = req.headers['content-type'];
			if (
				method === 'POST' &&
				path.endsWith('/_search') &&
				contentType?.startsWith('application/x-www-form-urlencoded')
			) {
				body = Object.fromEntries(new URLSearchParams(read.bytes.toString('utf8')));
			} else {
				const json = interpretJsonBody(contentType, read.bytes);
				if (!json.isJsonMediaType)
					return sendOutcome(
						res,
						415,
						`Send the body as application/fhir+json (Content-Type was ${contentType ?? 'missing'})`,
					);
				if (json.parseError)
					return sendOutcome(res, 400, `The body is not JSON: ${json.parseError}`);
				body = json.value;
			}
		}

		const queryIssue = method === 'GET' ? searchProblem(path, search) : undefined;
		if (queryIssue) return sendOutcome(res, 400, queryIssue);

		if (
			method === 'POST' &&
			path === '' &&
			(body as Bundle | undefined)?.resourceType === 'Bundle' &&
			(body as Bundle).type === 'transaction'
		) {
			try {
				return sendFhir(
					res,
					200,
					await exclusive(() =>
						processTransaction(body as Bundle, {
							repo: repository,
							router,
							baseUrl: fhirBaseUrl,
							routerLimits: options.routerLimits,
						}),
					),
				);
			} catch (error) {
				const outcome = normalizeOperationOutcome(error);
				return sendFhir(res, getStatus(outcome), outcome);
			}
		}

		const request: FhirRequest = {
			method: method as HttpMethod,
			url: `${path}${method === 'GET' ? normalizedSearch(path, search) : search}`,
			pathname: '',
			body,
			params: {},
			query: {},
			headers: req.headers,
		};
		const [outcome, resource] = await exclusive(() => router.handleRequest(request, repository));
		const status = getStatus(outcome);
		if (status === 404 && method === 'GET' && /^[A-Za-z]+\/[^/]+$/.test(path))
			return sendFhir(res, 404, {
				...outcome,
				issue: [
					{ severity: 'error', code: 'not-found', details: { text: `This EHR holds no ${path}` } },
				],
			});
		if (!resource) return sendFhir(res, status, outcome);
		const headers: Record<string, string> = {};
		const version = resource.meta?.versionId;
		if (resource.resourceType !== 'Bundle' && version) headers.etag = `W/"${version}"`;
		if (resource.resourceType !== 'Bundle' && resource.meta?.lastUpdated)
			headers['last-modified'] = new Date(resource.meta.lastUpdated).toUTCString();
		if (status === 201 && resource.id)
			headers.location = `${fhirBaseUrl}/${referenceKey(resource)}${version ? `/_history/${version}` : ''}`;
		if (resource.resourceType === 'Bundle' && resource.type === 'batch-response')
			return sendFhir(
				res,
				status,
				bundleResponse('batch-response', resource.entry ?? [], fhirBaseUrl),
			);
		sendFhir(
			res,
			status,
			withFullUrls(resource, fhirBaseUrl, `${fhirBaseUrl}/${path}${search}`),
			headers,
		);
	}

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	const port = (server.address() as AddressInfo).port;
	const url = `http://127.0.0.1:${port}`;
	fhirBaseUrl = `${url}${FHIR_PATH}`;
	repository.ownBaseUrl = fhirBaseUrl;
	let closed: Promise<void> | undefined;
	return {
		url,
		fhirBaseUrl,
		port,
		definitionsLoadedInMs: loadedInMs,
		repository,
		close: () =>
			(closed ??= new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			})),
	};
}

/**
 * Medplum's router, with one change: an update that creates the resource (PUT with a new id)
 * answers 201 Created, as R4 requires (Medplum answers 200 either way).
 */
function ehrRouter(): FhirRouter {
	const router = new FhirRouter();
	const update = router.router.routes.find(
		(route) =>
			route.method === 'PUT' &&
			route.path.length === 2 &&
			route.path.every((segment) => segment.param),
	);
	if (!update)
		throw new Error(
			'@medplum/fhir-router has no PUT :resourceType/:id route any more: update test/fhir-server/server.ts',
		);
	const medplumUpdate = update.handler;
	const updateOrCreate: FhirRouteHandler = async (req, repo, fhirRouter, options) => {
		const { resourceType, id } = req.params;
		const existed = await repo.readResource(resourceType, id).then(
			() => true,
			() => false,
		);
		const [outcome, ...rest] = await medplumUpdate(req, repo, fhirRouter, options);
		return !existed && isOk(outcome) ? [created, ...rest] : [outcome, ...rest];
	};
	update.handler = updateOrCreate;
	return router;
}

/** Why a search cannot be answered (an unknown parameter would otherwise match nothing, silently). */
function searchProblem(path: string, search: string): string | undefined {
	const type = path.split('/')[0];
	if (path.includes('/') || !isResourceType(type) || search === '') return undefined;
	const known = getSearchParameters(type) ?? {};
	for (const name of new URLSearchParams(search).keys()) {
		const base = name.split(/[:.]/)[0];
		if (!RESULT_PARAMETERS.has(base) && !(base in known)) {
			return `Unknown search parameter "${name}" for ${type}. Known: ${Object.keys(known)
				.filter((k) => k !== '_project' && k !== '_compartment')
				.join(', ')}`;
		}
	}
	return undefined;
}

/**
 * `subject:Patient=<id>` as `subject=Patient/<id>`, and `subject=<id>` as `subject=Patient/<id>,Group/<id>`
 * (each type the parameter may point to): R4 allows these forms; Medplum's in-memory search matches
 * only `Type/id`.
 */
function normalizedSearch(path: string, search: string): string {
	const type = path.split('/')[0];
	if (path.includes('/') || !isResourceType(type) || search === '') return search;
	const known = getSearchParameters(type) ?? {};
	const out = new URLSearchParams();
	for (const [name, value] of new URLSearchParams(search)) {
		const [code, modifier] = name.split(':');
		const parameter = known[code];
		if (parameter?.type === 'reference' && !value.includes('/') && !value.includes(',')) {
			const targets = modifier && isResourceType(modifier) ? [modifier] : (parameter.target ?? []);
			if (targets.length > 0) {
				out.append(code, targets.map((target) => `${target}/${value}`).join(','));
				continue;
			}
		}
		out.append(name, value);
	}
	return `?${out.toString()}`;
}

/** A search Bundle's entries get their fullUrl, and the Bundle its self link. */
function withFullUrls(resource: Resource, baseUrl: string, self: string): Resource {
	if (resource.resourceType !== 'Bundle' || resource.type !== 'searchset') return resource;
	return {
		...resource,
		link: [{ relation: 'self', url: self }],
		entry: resource.entry?.map((entry) =>
			entry.resource?.id
				? { fullUrl: `${baseUrl}/${referenceKey(entry.resource)}`, ...entry }
				: entry,
		),
	};
}

function capabilityStatement(baseUrl: string): CapabilityStatement {
	const interactions = [
		'read',
		'vread',
		'update',
		'patch',
		'delete',
		'history-instance',
		'create',
		'search-type',
	] as const;
	const resourceTypes = getResourceTypes()
		.filter((type) => getSearchParameters(type))
		.sort();
	return {
		resourceType: 'CapabilityStatement',
		status: 'active',
		date: new Date().toISOString(),
		kind: 'instance',
		software: { name: 'clinic-scribe local EHR (Medplum FHIR engine, in memory)' },
		implementation: {
			description:
				'Local FHIR R4 server for development and tests: validates every write, refuses references that resolve to nothing, transactions all or nothing',
			url: baseUrl,
		},
		fhirVersion: '4.0.1',
		format: ['application/fhir+json', 'json'],
		rest: [
			{
				mode: 'server',
				interaction: [{ code: 'transaction' }, { code: 'batch' }],
				resource: resourceTypes.map((type) => ({
					type: type as never,
					interaction: interactions.map((code) => ({ code })),
					versioning: 'versioned',
					updateCreate: true,
					conditionalCreate: true,
					referencePolicy: ['literal', 'local', 'enforced'],
					searchParam: Object.values(getSearchParameters(type) ?? {})
						.filter((p) => p.code !== '_project' && p.code !== '_compartment')
						.map((p) => ({ name: p.code as string, type: p.type as never })),
				})),
			},
		],
	};
}

function sendFhir(
	res: ServerResponse,
	status: number,
	resource: Resource | OperationOutcome,
	headers: Record<string, string> = {},
): void {
	sendText(res, status, JSON.stringify(resource), { 'content-type': FHIR_JSON, ...headers });
}

function sendOutcome(res: ServerResponse, status: number, text: string): void {
	sendFhir(res, status, { ...badRequest(text) });
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
	sendText(res, status, html, { 'content-type': 'text/html; charset=utf-8' });
}
