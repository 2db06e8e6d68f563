/**
 * Stand-ins for the contexts n8n gives the Clinic Scribe Trigger: IHookFunctions (checkExists /
 * create / delete) and IWebhookFunctions (webhook()). HTTP is real: requests go through the same
 * credential handling as test/support/nodeContext.ts (preAuthentication, one retry on 401).
 * The real-n8n e2e test (test/e2e/trigger.e2e.test.ts) is the proof that n8n behaves this way.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { IDataObject, IHookFunctions, INode, IWebhookFunctions } from 'n8n-workflow';

import { createExecuteContext, type CredentialStore } from './nodeContext';

export interface LogEntry {
	level: 'debug' | 'info' | 'warn' | 'error';
	message: string;
	meta?: unknown;
}

export const TRIGGER_NODE: INode = {
	id: 'trigger-node',
	name: 'Clinic Scribe Trigger',
	type: 'n8n-nodes-clinic-scribe.clinicScribeTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
	credentials: { clinicScribeApi: { id: '1', name: 'test' } },
	webhookId: '6f1c2b52-0000-4000-8000-00000000a11c',
};

/** Parameters as the node's defaults give them, overridable. */
export function triggerParameters(
	overrides: Record<string, unknown> = {},
): Record<string, unknown> {
	return {
		events: ['v2rx.completed'],
		includeResults: false,
		resultsOutput: 'session',
		verifySignature: true,
		options: {},
		...overrides,
	};
}

function parameterReader(parameters: Record<string, unknown>) {
	return (name: string, fallback?: unknown): unknown => {
		const [head, ...rest] = name.split('.');
		let value: unknown = parameters[head];
		for (const key of rest) value = (value as IDataObject | undefined)?.[key];
		if (value === undefined) {
			if (fallback !== undefined) return fallback;
			throw new Error(`test context: parameter "${name}" not set`);
		}
		return value;
	};
}

function logger(logs: LogEntry[]) {
	const at = (level: LogEntry['level']) => (message: string, meta?: unknown) =>
		logs.push({ level, message, meta });
	return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export interface HookContextOptions {
	credentials: CredentialStore;
	/** What getNodeWebhookUrl('default') answers. */
	webhookUrl: string;
	/** The workflow's static data for this node; kept by the caller across "restarts". */
	staticData: IDataObject;
	parameters?: Record<string, unknown>;
	mode?: 'trigger' | 'manual';
	activation?: 'init' | 'activate' | 'update' | 'manual';
}

export interface HookContext {
	context: IHookFunctions;
	logs: LogEntry[];
}

export function createHookContext(options: HookContextOptions): HookContext {
	const { context: execute } = createExecuteContext({
		credentials: options.credentials,
		parameters: {},
		nodeName: TRIGGER_NODE.name,
	});
	const logs: LogEntry[] = [];
	const context = {
		getNode: () => TRIGGER_NODE,
		getNodeParameter: parameterReader(triggerParameters(options.parameters)),
		getNodeWebhookUrl: (name: string) => (name === 'default' ? options.webhookUrl : undefined),
		getWebhookName: () => 'default',
		getWorkflowStaticData: (type: string) => {
			if (type !== 'node') throw new Error(`test context: static data of type ${type}`);
			return options.staticData;
		},
		getMode: () => options.mode ?? 'trigger',
		getActivationMode: () => options.activation ?? 'activate',
		getCredentials: execute.getCredentials,
		logger: logger(logs),
		helpers: execute.helpers,
	} as unknown as IHookFunctions;
	return { context, logs };
}

export interface WebhookRequest {
	headers: IncomingHttpHeaders;
	rawBody: Buffer;
}

export interface WebhookContextOptions {
	request: WebhookRequest;
	/** Frozen: webhook() must not write static data (it may run in another process). */
	staticData: IDataObject;
	parameters?: Record<string, unknown>;
	/** Needed only for Include Results. */
	credentials?: CredentialStore;
	/**
	 * Which trigger receives it, as n8n tells the node: the workflow's id (default "wf-trigger-test"),
	 * the node (default TRIGGER_NODE), n8n's mode (`webhook` for the production URL, the default;
	 * `manual` for "Listen for test event").
	 */
	receiver?: { workflowId?: string; node?: INode; mode?: 'webhook' | 'manual' };
}

export interface WebhookContext {
	context: IWebhookFunctions;
	logs: LogEntry[];
	/** What webhook() answered through the response object itself (401, 413, 503). */
	response: { status?: number; body?: unknown; headers: Record<string, string> };
	/** Attempts to write static data (must stay empty). */
	staticDataWrites: string[];
}

export function createWebhookContext(options: WebhookContextOptions): WebhookContext {
	const logs: LogEntry[] = [];
	const response: { status?: number; body?: unknown; headers: Record<string, string> } = {
		headers: {},
	};
	const staticDataWrites: string[] = [];
	const readOnly = new Proxy(options.staticData, {
		set(_target, key) {
			staticDataWrites.push(String(key));
			return true;
		},
		deleteProperty(_target, key) {
			staticDataWrites.push(`delete ${String(key)}`);
			return true;
		},
	});
	const execute = options.credentials
		? createExecuteContext({
				credentials: options.credentials,
				parameters: {},
				nodeName: TRIGGER_NODE.name,
			}).context
		: undefined;
	const contentType = String(options.request.headers['content-type'] ?? '');
	let parsedBody: IDataObject = {};
	if (contentType.startsWith('application/json') && options.request.rawBody.length > 0) {
		parsedBody = JSON.parse(options.request.rawBody.toString('utf8')) as IDataObject;
	}
	const responseObject = {
		status(code: number) {
			response.status = code;
			return responseObject;
		},
		json(body: unknown) {
			response.body = body;
			return responseObject;
		},
		send(body: unknown) {
			response.body = body;
			return responseObject;
		},
		end() {
			return responseObject;
		},
		setHeader(name: string, value: string) {
			response.headers[name.toLowerCase()] = value;
			return responseObject;
		},
	};
	const node = options.receiver?.node ?? TRIGGER_NODE;
	const context = {
		getNode: () => node,
		getTimezone: () => 'UTC',
		getWorkflow: () => ({ id: options.receiver?.workflowId ?? 'wf-trigger-test', active: true }),
		getWebhookName: () => 'default',
		getNodeParameter: parameterReader(triggerParameters(options.parameters)),
		getWorkflowStaticData: () => readOnly,
		getRequestObject: () => ({
			headers: options.request.headers,
			rawBody: options.request.rawBody,
			body: parsedBody,
		}),
		getResponseObject: () => responseObject,
		getBodyData: () => parsedBody,
		getHeaderData: () => options.request.headers,
		getMode: () => options.receiver?.mode ?? 'webhook',
		getCredentials:
			execute?.getCredentials ??
			(async () => {
				throw new Error('test context: no credentials given');
			}),
		getExecutionCancelSignal: () => undefined,
		logger: logger(logs),
		helpers: execute?.helpers ?? {},
	} as unknown as IWebhookFunctions;
	return { context, logs, response, staticDataWrites };
}
