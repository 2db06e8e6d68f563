/**
 * The local EHR (test/fhir-server: a FHIR R4 server on Medplum's engine) for tests and `npm start`:
 * startFhirServer() runs it as its own process under the cached Node 24 (Medplum needs Node
 * >= 22.18), waits until it answers, and returns its URLs and a small client. Nothing here imports
 * Medplum, so this module loads under the repository's Node 20.
 *
 *   const ehr = await startFhirServer();
 *   await ehr.transaction(bundle);                       // POST <fhirBaseUrl>
 *   await ehr.search('Condition', { subject: 'Patient/p1' });
 *   ehr.patientPageUrl('p1');                            // the HTML page for a person
 *   await ehr.stop();
 */
import { once } from 'node:events';
import { join } from 'node:path';

import type { Bundle, OperationOutcome, Resource } from '@medplum/fhirtypes';

import { REPO_ROOT } from './n8n/install';
import { envWithNode, pollUntil, spawnService } from './localService';
import { ensureNode24 } from './node24';

export interface FhirServerStartOptions {
	/** Port on 127.0.0.1; default 0: the server takes a free one and reports it. */
	port?: number;
	/** Node >= 22.18 to run it with; default the cached Node 24 (installed first when missing). */
	nodeBin?: string;
	/** Receives one line per request (method, path, status, ms; never bodies). */
	onRequestLog?: (line: string) => void;
	/** How long it may take to answer (default 120 s: loading the definitions on a busy machine). */
	startTimeoutMs?: number;
	/** 'medplum': refuse transactions as a Medplum-hosted EHR does (its fhir-router's limits). */
	routerLimits?: 'none' | 'medplum';
}

/** An answer of the server: status, parsed JSON body (a resource or OperationOutcome), headers. */
export interface FhirAnswer<T = Resource> {
	status: number;
	body: T | OperationOutcome;
	headers: Headers;
}

/** What the CLI prints once it listens (test/fhir-server/cli.ts). */
interface ReadyLine {
	url: string;
	fhirBaseUrl: string;
	pid: number;
	definitionsLoadedInMs: number;
	startedInMs: number;
}

/** A client for a running local EHR (or any FHIR base URL plus this server's admin and pages). */
export class FhirClient {
	/** The server's root (HTML page, admin), the FHIR base without `/fhir`. */
	readonly url: string;

	constructor(readonly fhirBaseUrl: string) {
		this.url = fhirBaseUrl.replace(/\/fhir\/?$/, '');
	}

	/**
	 * Any FHIR interaction: `path` is relative to the FHIR base (`Patient/p1`, `Condition?subject=…`);
	 * `headers` adds to the request's (e.g. `If-None-Exist` for a conditional create).
	 */
	async request<T = Resource>(
		method: string,
		path: string,
		body?: unknown,
		headers: Record<string, string> = {},
	): Promise<FhirAnswer<T>> {
		const response = await fetch(`${this.fhirBaseUrl}/${path.replace(/^\/+/, '')}`, {
			method,
			headers: {
				accept: 'application/fhir+json',
				...(body === undefined ? {} : { 'content-type': 'application/fhir+json' }),
				...headers,
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		return {
			status: response.status,
			body: (text ? JSON.parse(text) : undefined) as T | OperationOutcome,
			headers: response.headers,
		};
	}

	/** POST a transaction (or batch) Bundle to the base. */
	async transaction(bundle: Bundle): Promise<FhirAnswer<Bundle>> {
		return await this.request<Bundle>('POST', '', bundle);
	}

	/** GET one resource; undefined when the server holds none (404). */
	async read<T extends Resource = Resource>(type: string, id: string): Promise<T | undefined> {
		const answer = await this.request<T>('GET', `${type}/${encodeURIComponent(id)}`);
		if (answer.status === 404) return undefined;
		if (answer.status !== 200)
			throw new Error(`GET ${type}/${id}: ${answer.status} ${outcomeText(answer.body)}`);
		return answer.body as T;
	}

	/** A search's matching resources (throws with the server's reasons when it refuses the search). */
	async search<T extends Resource = Resource>(
		type: string,
		parameters: Record<string, string> = {},
	): Promise<T[]> {
		const query = new URLSearchParams(parameters).toString();
		const answer = await this.request<Bundle<T>>('GET', `${type}${query ? `?${query}` : ''}`);
		if (answer.status !== 200)
			throw new Error(`GET ${type}?${query}: ${answer.status} ${outcomeText(answer.body)}`);
		return ((answer.body as Bundle<T>).entry ?? []).map((entry) => entry.resource as T);
	}

	/** Resources held per type (GET /__admin/counts; not FHIR). */
	async counts(): Promise<Record<string, number>> {
		const response = await fetch(`${this.url}/__admin/counts`);
		if (!response.ok) throw new Error(`GET /__admin/counts: ${response.status}`);
		return (await response.json()) as Record<string, number>;
	}

	/** Forgets everything the server holds (POST /__admin/reset; not FHIR). */
	async reset(): Promise<void> {
		const response = await fetch(`${this.url}/__admin/reset`, { method: 'POST' });
		if (!response.ok) throw new Error(`POST /__admin/reset: ${response.status}`);
	}

	/** The HTML page of everything the EHR holds. */
	get pageUrl(): string {
		return `${this.url}/`;
	}

	/** The HTML page of one patient's records. */
	patientPageUrl(patientId: string): string {
		return `${this.url}/view/Patient/${encodeURIComponent(patientId)}`;
	}
}

export interface RunningFhirServer extends FhirClient {
	readonly port: number;
	readonly pid: number;
	/** Milliseconds the server took to load the R4 definitions, and from its start to listening. */
	readonly definitionsLoadedInMs: number;
	readonly startedInMs: number;
	/** Stops the server's process group; resolves when it is gone. */
	stop(): Promise<void>;
}

export async function startFhirServer(
	options: FhirServerStartOptions = {},
): Promise<RunningFhirServer> {
	const nodeBin = options.nodeBin ?? (await ensureNode24());
	const args = [
		'--import',
		'tsx',
		join('test', 'fhir-server', 'cli.ts'),
		'--port',
		String(options.port ?? 0),
		...(options.onRequestLog ? ['--log'] : []),
		...(options.routerLimits ? ['--router-limits', options.routerLimits] : []),
	];
	const service = spawnService(nodeBin, args, {
		cwd: REPO_ROOT,
		env: envWithNode(nodeBin),
		what: 'the local FHIR server',
	});
	let stdout = '';
	service.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
	if (options.onRequestLog) forwardLines(service.child.stderr, options.onRequestLog);
	try {
		const timeoutMs = options.startTimeoutMs ?? 120_000;
		const ready = await pollUntil(service, 'the local FHIR server', timeoutMs, async () => {
			const line = stdout.split('\n').find((l) => l.startsWith('{'));
			return line ? (JSON.parse(line) as ReadyLine) : undefined;
		});
		const client = new FhirClient(ready.fhirBaseUrl);
		await pollUntil(service, 'the local FHIR server', timeoutMs, async () =>
			(await client.request('GET', 'metadata')).status === 200 ? true : undefined,
		);
		return Object.assign(client, {
			port: Number(new URL(ready.url).port),
			pid: service.pid,
			definitionsLoadedInMs: ready.definitionsLoadedInMs,
			startedInMs: ready.startedInMs,
			stop: () => service.stop(),
		});
	} catch (error) {
		await service.stop();
		throw error;
	}
}

/** The text of an OperationOutcome's issues, for error messages. */
export function outcomeText(body: unknown): string {
	const issues = (body as OperationOutcome | undefined)?.issue;
	return issues
		? issues.map((i) => i.details?.text ?? i.diagnostics ?? i.code).join('; ')
		: JSON.stringify(body)?.slice(0, 500);
}

function forwardLines(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
	if (!stream) return;
	let pending = '';
	stream.on('data', (chunk: Buffer) => {
		const lines = (pending + chunk.toString('utf8')).split('\n');
		pending = lines.pop() ?? '';
		for (const line of lines) if (line.trim()) onLine(line);
	});
	void once(stream, 'end').then(() => pending.trim() && onLine(pending));
}
