/**
 * The REST client of one n8n: what the tests do through n8n's internal REST API and its pages, as
 * the editor does (owner and login, workflows published and unpublished, executions, test webhooks),
 * with the session cookie of the owner. N8nInstance (instance.ts) is one and runs the n8n it talks to.
 */
import { delay } from './processes';
import { flattedParse, toExecutionResult, type ExecutionResult } from './results';

const BROWSER_ID = 'clinic-scribe-e2e-browser';

export interface OwnerAccount {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export interface PublicationStatus {
	status: 'not_published' | 'in_progress' | 'published' | 'partial' | 'failed' | string;
	liveVersionId: string | null;
	pendingVersionId: string | null;
	triggers: Array<{ nodeId: string; status: string; errorMessage: string | null }>;
}

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	status: string;
	mode: string;
	finished?: boolean;
	startedAt?: string;
	stoppedAt?: string;
	[key: string]: unknown;
}

export abstract class N8nRestClient {
	protected cookie: string | undefined;

	protected constructor(readonly baseUrl: string) {}

	/** Whether `n8n start` runs: only then is there a REST API to call. */
	abstract get running(): boolean;

	/** The major version of the n8n this client talks to (1 or 2). */
	abstract get majorVersion(): number;

	private assertStarted(): void {
		if (!this.running) throw new Error('n8n is not started: call start() first');
	}

	/**
	 * Calls n8n's internal REST API with the session cookie. Returns the response's `data` (n8n wraps
	 * answers in {data}); throws with status and body on a non-2xx answer.
	 */
	async rest<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		this.assertStarted();
		const headers: Record<string, string> = {
			'browser-id': BROWSER_ID,
			accept: 'application/json',
		};
		if (body !== undefined) headers['content-type'] = 'application/json';
		if (this.cookie) headers.cookie = this.cookie;
		const response = await fetch(`${this.baseUrl}/rest${path}`, {
			method,
			headers,
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(30_000),
		});
		const text = await response.text();
		const setCookie = response.headers.getSetCookie?.() ?? [];
		const auth = setCookie.map((c) => c.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
		if (auth) this.cookie = auth;
		if (!response.ok)
			throw new Error(
				`n8n ${method} /rest${path} answered ${response.status}: ${text.slice(0, 2000)}`,
			);
		if (text === '') return undefined as T;
		const parsed = JSON.parse(text) as { data?: T };
		return (parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed) as T;
	}

	/** GET of a non-REST path with the session cookie (e.g. /types/nodes.json); parsed JSON. */
	async getJson<T = unknown>(path: string): Promise<T> {
		this.assertStarted();
		const headers: Record<string, string> = {
			'browser-id': BROWSER_ID,
			accept: 'application/json',
		};
		if (this.cookie) headers.cookie = this.cookie;
		const response = await fetch(`${this.baseUrl}${path}`, {
			headers,
			signal: AbortSignal.timeout(30_000),
		});
		const text = await response.text();
		if (!response.ok)
			throw new Error(`n8n GET ${path} answered ${response.status}: ${text.slice(0, 2000)}`);
		return JSON.parse(text) as T;
	}

	/**
	 * GET of any URL with the session cookie, as the logged-in browser would (redirects not
	 * followed): status, Location and the body as text. For pages such as the OAuth2 callback.
	 */
	async getPage(url: string): Promise<{ status: number; location: string | null; text: string }> {
		this.assertStarted();
		const headers: Record<string, string> = { 'browser-id': BROWSER_ID };
		if (this.cookie) headers.cookie = this.cookie;
		const response = await fetch(new URL(url, this.baseUrl), {
			headers,
			redirect: 'manual',
			signal: AbortSignal.timeout(30_000),
		});
		return {
			status: response.status,
			location: response.headers.get('location'),
			text: await response.text(),
		};
	}

	/** Node type names n8n has loaded (needs a session: setupOwner or login first). */
	async loadedNodeTypes(): Promise<string[]> {
		return (await this.getJson<Array<{ name: string }>>('/types/nodes.json')).map((t) => t.name);
	}

	/** Credential type names n8n has loaded (needs a session). */
	async loadedCredentialTypes(): Promise<string[]> {
		return (await this.getJson<Array<{ name: string }>>('/types/credentials.json')).map(
			(t) => t.name,
		);
	}

	/** Creates the instance owner (first start of a user folder only) and keeps its session. */
	async setupOwner(owner: OwnerAccount): Promise<void> {
		await this.rest('POST', '/owner/setup', owner);
	}

	async login(email: string, password: string): Promise<void> {
		await this.rest('POST', '/login', { emailOrLdapLoginId: email, password });
	}

	/** Logs in, creating the owner first when the instance has none yet. */
	async ensureOwner(owner: OwnerAccount): Promise<'created' | 'existing'> {
		try {
			await this.setupOwner(owner);
			return 'created';
		} catch (error) {
			if (!/answered 400/.test(String(error))) throw error;
			await this.login(owner.email, owner.password);
			return 'existing';
		}
	}

	async getWorkflow(workflowId: string): Promise<
		Record<string, unknown> & {
			versionId: string;
			active: boolean;
			activeVersionId?: string | null;
		}
	> {
		return await this.rest('GET', `/workflows/${workflowId}`);
	}

	/**
	 * Returns the publication status, or undefined when the instance runs without the publication
	 * service (N8N_USE_WORKFLOW_PUBLICATION_SERVICE=false, and n8n 1.x, which has none: activation
	 * is synchronous there, done when POST /rest/workflows/<id>/activate answers).
	 */
	async publicationStatus(workflowId: string): Promise<PublicationStatus | undefined> {
		if (this.majorVersion < 2) return undefined;
		try {
			return await this.rest<PublicationStatus>(
				'GET',
				`/workflows/${workflowId}/publication-status`,
			);
		} catch (error) {
			if (/answered 404: .*publication status is not available/i.test(String(error)))
				return undefined;
			throw error;
		}
	}

	/**
	 * Activates (publishes) the workflow's current version and waits until n8n reports it
	 * published: its triggers' webhookMethods have run. Throws with n8n's reason when a trigger
	 * failed to activate, or after timeoutMs.
	 */
	async activateWorkflow(
		workflowId: string,
		options: { timeoutMs?: number } = {},
	): Promise<PublicationStatus | undefined> {
		const workflow = await this.getWorkflow(workflowId);
		await this.rest('POST', `/workflows/${workflowId}/activate`, { versionId: workflow.versionId });
		return await this.waitForPublication(
			workflowId,
			(s) => s.status !== 'in_progress' && s.liveVersionId === workflow.versionId,
			options.timeoutMs,
		);
	}

	/** Deactivates (unpublishes) and waits until n8n reports it not published. */
	async deactivateWorkflow(
		workflowId: string,
		options: { timeoutMs?: number } = {},
	): Promise<PublicationStatus | undefined> {
		await this.rest('POST', `/workflows/${workflowId}/deactivate`, {});
		return await this.waitForPublication(
			workflowId,
			(s) => s.status === 'not_published',
			options.timeoutMs,
		);
	}

	private async waitForPublication(
		workflowId: string,
		done: (status: PublicationStatus) => boolean,
		timeoutMs = 60_000,
	): Promise<PublicationStatus | undefined> {
		const deadline = Date.now() + timeoutMs;
		let last: PublicationStatus | undefined;
		for (;;) {
			last = await this.publicationStatus(workflowId);
			if (last === undefined) return undefined; // synchronous mode: done when the call returned
			if (last.status === 'failed' || last.status === 'partial') {
				const reasons = last.triggers
					.filter((t) => t.status === 'failed')
					.map((t) => t.errorMessage ?? 'no message');
				throw new Error(`publishing workflow ${workflowId} ${last.status}: ${reasons.join('; ')}`);
			}
			if (done(last)) return last;
			if (Date.now() > deadline) {
				throw new Error(
					`workflow ${workflowId}: publication not done within ${timeoutMs} ms; last status ${JSON.stringify(last)}`,
				);
			}
			await delay(200);
		}
	}

	/** Executions, newest first (n8n's list for the UI; includes running ones). */
	async listExecutions(
		filter: { workflowId?: string; status?: string } = {},
		limit = 100,
	): Promise<ExecutionSummary[]> {
		const query = new URLSearchParams({ filter: JSON.stringify(filter), limit: String(limit) });
		const list = await this.rest<{ results: ExecutionSummary[] }>(
			'GET',
			`/executions?${query.toString()}`,
		);
		return list.results;
	}

	/** One execution with its run data decoded (n8n sends it in `flatted` form). */
	async getExecution(
		executionId: string,
	): Promise<ExecutionResult & { id: string; workflowId: string; mode: string }> {
		const execution = await this.rest<
			Record<string, unknown> & { id: string; workflowId: string; mode: string; data: string }
		>('GET', `/executions/${executionId}`);
		const data = typeof execution.data === 'string' ? flattedParse(execution.data) : execution.data;
		return {
			...toExecutionResult({ ...execution, data }),
			id: String(execution.id),
			workflowId: execution.workflowId,
			mode: execution.mode,
		};
	}

	/**
	 * Waits until the workflow has at least `count` finished executions (any status but running,
	 * new, waiting), polling; returns them newest first. Throws after timeoutMs with what it saw.
	 */
	async waitForExecutions(
		workflowId: string,
		count: number,
		options: { timeoutMs?: number } = {},
	): Promise<ExecutionSummary[]> {
		const timeoutMs = options.timeoutMs ?? 30_000;
		const deadline = Date.now() + timeoutMs;
		const unfinished = new Set(['running', 'new', 'waiting', 'unknown']);
		for (;;) {
			const list = await this.listExecutions({ workflowId });
			const finished = list.filter((e) => !unfinished.has(e.status));
			if (finished.length >= count) return finished;
			if (Date.now() > deadline) {
				throw new Error(
					`workflow ${workflowId}: ${finished.length} finished executions after ${timeoutMs} ms, expected ${count} (all: ${JSON.stringify(list.map((e) => e.status))})`,
				);
			}
			await delay(200);
		}
	}

	/** Production webhook URL of a path (what a trigger registers with WEBHOOK_URL as set here). */
	webhookUrl(path: string): string {
		return `${this.baseUrl}/webhook/${path.replace(/^\//, '')}`;
	}

	/** Test webhook URL of a path (served only while the editor listens for a test event). */
	testWebhookUrl(path: string): string {
		return `${this.baseUrl}/webhook-test/${path.replace(/^\//, '')}`;
	}

	/**
	 * What the editor sends for "Listen for test event" in a trigger's panel (n8n 2.41's
	 * POST /rest/workflows/<id>/run from that trigger, up to it): n8n runs the trigger's
	 * webhookMethods with the test URL and answers {waitingForWebhook: true}. The first request to
	 * the test URL runs the workflow in manual mode, then n8n removes the test webhook (delete),
	 * as it does after 2 minutes or on stopListening().
	 */
	async listenForTestEvent(
		workflowId: string,
		triggerName: string,
	): Promise<{ waitingForWebhook?: boolean; executionId?: string }> {
		return await this.rest('POST', `/workflows/${workflowId}/run`, {
			triggerToStartFrom: { name: triggerName },
			destinationNode: { nodeName: triggerName, mode: 'inclusive' },
		});
	}

	/** The editor's "Stop listening": n8n removes the workflow's test webhooks. */
	async stopListening(workflowId: string): Promise<void> {
		await this.rest('DELETE', `/test-webhook/${workflowId}`);
	}

	// --- helpers -----------------------------------------------------------------------------
}
