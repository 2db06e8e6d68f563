/**
 * A stand-in for n8n's execution context that does real HTTP. Its credential handling follows
 * n8n-core 2.41's httpRequestWithAuthentication step by step (preAuthentication when the expirable
 * field is empty or after a 401, then one retry; no retry for stream/multipart bodies), so
 * integration tests exercise the nodes' real requests against the fake API. With `n8nLine: 'oldest'`
 * it follows n8n-core 1.122 (n8n 1.123.x) instead, where that differs (read in its
 * request-helper-functions.js and n8n-workflow 1.120's errors): any `ignoreHttpStatusErrors` value is
 * taken as `true`, the NodeApiError it throws keeps no cause (only httpCode and a JSON body's object
 * in context.data), a body is sent again after a renewal whatever it is, and there is no
 * isToolExecution(). The real-n8n e2e tests are the proof that n8n itself behaves this way.
 */
import axios, { type AxiosRequestConfig } from 'axios';
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import {
	NodeApiError,
	NodeOperationError,
	type IAdditionalCredentialOptions,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type INode,
	type INodeExecutionData,
	type JsonObject,
} from 'n8n-workflow';

import { ClinicScribeApi } from '../../credentials/ClinicScribeApi.credentials';
import { fakeApiCredentialData } from './fakeApiCredential';

export interface RecordedCall {
	url: string;
	method: string;
	headers: Record<string, unknown>;
}

/** Shared between contexts, like a credential stored in n8n's database. */
export class CredentialStore {
	readonly data: ICredentialDataDecryptedObject;
	preAuthenticationRuns = 0;
	/** Reads of the stored credential (n8n: a database read and a decryption each). */
	reads = 0;
	constructor(
		data: ICredentialDataDecryptedObject,
		readonly type: ICredentialType = new ClinicScribeApi(),
	) {
		const defaults: ICredentialDataDecryptedObject = {};
		for (const property of type.properties) defaults[property.name] = property.default as string;
		this.data = { ...defaults, ...data };
	}
}

/** Test credentials for the fake API's base URL. */
export function fakeApiCredentials(
	url: string,
	valid: { clientId: string; clientSecret: string; apiKey: string },
	extra: ICredentialDataDecryptedObject = {},
): CredentialStore {
	return new CredentialStore({
		...fakeApiCredentialData({ url, validCredentials: valid }),
		...extra,
	});
}

/** Converts n8n's request options into axios's, as n8n's own helper does. */
export async function plainHttpRequest(options: IHttpRequestOptions): Promise<unknown> {
	const ignore = options.ignoreHttpStatusErrors;
	const config: AxiosRequestConfig = {
		method: options.method ?? 'GET',
		url: options.url,
		baseURL: options.baseURL,
		headers: { ...(options.headers as Record<string, string> | undefined) },
		params: options.qs,
		timeout: options.timeout,
		signal: options.abortSignal as AbortSignal | undefined,
		maxBodyLength: Infinity,
		maxContentLength: Infinity,
		// As n8n 2.41: redirects followed unless disabled, and Authorization re-added on every hop
		// (sendCredentialsOnCrossOriginRedirect defaults to true); other headers follow-redirects keeps.
		maxRedirects: options.disableFollowRedirect === true ? 0 : (options.maxRedirects ?? 21),
		beforeRedirect: (redirected: Record<string, any>) => {
			const authorization = (options.headers as Record<string, unknown> | undefined)?.Authorization;
			if (authorization !== undefined && options.sendCredentialsOnCrossOriginRedirect !== false) {
				redirected.headers.Authorization = authorization;
			}
		},
		responseType: options.encoding as AxiosRequestConfig['responseType'],
		validateStatus:
			ignore === true
				? () => true
				: typeof ignore === 'object' && ignore
					? (status) => !ignore.except.includes(status)
					: (status) => status >= 200 && status < 300,
	};
	const body = options.body as unknown;
	const hasBody =
		body !== undefined &&
		body !== null &&
		!(
			typeof body === 'object' &&
			!Buffer.isBuffer(body) &&
			!isStream(body) &&
			Object.keys(body as object).length === 0 &&
			!(body instanceof URLSearchParams)
		);
	if (hasBody && (options.method ?? 'GET') !== 'GET') config.data = body;
	if (
		options.json &&
		!Object.keys(config.headers ?? {}).some((key) => key.toLowerCase() === 'accept')
	) {
		(config.headers as Record<string, string>).Accept = 'application/json';
	}
	const response = await axios.request(config);
	if (options.returnFullResponse) {
		return {
			body: response.data,
			headers: response.headers,
			statusCode: response.status,
			statusMessage: response.statusText,
		};
	}
	return response.data;
}

function isStream(value: unknown): boolean {
	return (
		typeof value === 'object' &&
		value !== null &&
		typeof (value as { pipe?: unknown }).pipe === 'function'
	);
}

function hasSingleUseBody(options: IHttpRequestOptions): boolean {
	return isStream(options.body) || options.body instanceof FormData;
}

export interface ContextOptions {
	credentials: CredentialStore;
	/** Node parameters: plain values, or a function of the item index. */
	parameters: Record<string, unknown | ((itemIndex: number) => unknown)>;
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	nodeName?: string;
	/** Binary ids (as n8n's filesystem mode gives them) mapped to files on disk. */
	binaryFiles?: Record<string, string>;
	cancelSignal?: AbortSignal;
	/** The execution's id (n8n: one per execution, the same across Retry On Fail). Default: a fresh one. */
	executionId?: string;
	/** The node's run index in the execution ($runIndex). Default 0. */
	runIndex?: number;
	/**
	 * The execution's context data (what getContext('node') reads and writes, kept in n8n's execution
	 * data). Pass the same object to two contexts to play n8n's Retry On Fail of one node run.
	 */
	executionContextData?: Record<string, IDataObject>;
	/** The workflow's time zone (n8n: the workflow setting, else the instance's). Default UTC. */
	timezone?: string;
	/** Whose helpers to follow: n8n 2.41's (default) or n8n 1.123's (see the top of this file). */
	n8nLine?: 'newest' | 'oldest';
	/** The node's type; n8n runs a node as an AI agent's tool under `<type>Tool`. */
	nodeType?: string;
}

let executionCounter = 0;

export interface TestContext {
	context: IExecuteFunctions;
	calls: RecordedCall[];
}

/** The Clinic Scribe node as n8n describes it to a function it runs (`getNode()`). */
export function clinicScribeNode(overrides: Partial<INode> = {}): INode {
	return {
		id: 'test-node',
		name: 'Clinic Scribe',
		type: 'n8n-nodes-clinic-scribe.clinicScribe',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { clinicScribeApi: { id: '1', name: 'test' } },
		...overrides,
	};
}

export function createExecuteContext(options: ContextOptions): TestContext {
	const node = clinicScribeNode({
		name: options.nodeName ?? 'Clinic Scribe',
		type: options.nodeType ?? 'n8n-nodes-clinic-scribe.clinicScribe',
	});
	const items: INodeExecutionData[] = options.items ?? [{ json: {} }];
	const calls: RecordedCall[] = [];
	const store = options.credentials;
	const credentialType = store.type;

	// As n8n: every read is a fresh decrypted copy of what is stored.
	const readCredential = (): ICredentialDataDecryptedObject => {
		store.reads++;
		return { ...store.data };
	};

	// As n8n's credentialsHelper.preAuthentication: the output is persisted (the store) and
	// assigned into the credential object the helper was working with.
	const preAuthenticate = async (
		credentials: ICredentialDataDecryptedObject,
		expired: boolean,
	): Promise<void> => {
		const expirable = credentialType.properties.find(
			(p) => p.type === 'hidden' && p.typeOptions?.expirable === true,
		);
		if (!expirable || !credentialType.preAuthentication) return;
		if (credentials[expirable.name] !== '' && !expired) return;
		store.preAuthenticationRuns++;
		const output = await credentialType.preAuthentication.call(
			{ helpers: { httpRequest: plainHttpRequest } } as never,
			credentials,
		);
		if (output[expirable.name] === undefined) return;
		Object.assign(store.data, output);
		Object.assign(credentials, output);
	};

	const authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		request: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const auth = credentialType.authenticate;
		if (typeof auth !== 'function')
			throw new Error('the test context supports function authenticate only');
		return await auth(credentials, request);
	};

	const oldest = options.n8nLine === 'oldest';
	/** n8n 1.x's NodeApiError: the class field `cause` overwrites the wrapped error with undefined. */
	const apiError = (error: unknown): NodeApiError => {
		const wrapped = new NodeApiError(node, error as JsonObject);
		if (oldest)
			Object.defineProperty(wrapped, 'cause', {
				value: undefined,
				writable: true,
				enumerable: true,
				configurable: true,
			});
		return wrapped;
	};

	const httpRequestWithAuthentication = async (
		_type: string,
		request: IHttpRequestOptions,
		additional?: IAdditionalCredentialOptions,
	): Promise<unknown> => {
		let sent = false;
		let options_ = { ...request };
		if (oldest && request.ignoreHttpStatusErrors) options_.ignoreHttpStatusErrors = true;
		// n8n 2.41 uses credentials handed over decrypted as they are, else reads them itself.
		const credentials = additional?.credentialsDecrypted?.data ?? readCredential();
		try {
			await preAuthenticate(credentials, false);
			options_ = await authenticate(credentials, options_);
			calls.push({
				url: options_.url,
				method: options_.method ?? 'GET',
				headers: { ...(options_.headers ?? {}) },
			});
			sent = true;
			return await plainHttpRequest(options_);
		} catch (error) {
			const status = (error as { response?: { status?: number } }).response?.status;
			if (status === 401) {
				try {
					await preAuthenticate(credentials, true);
					if (!oldest && sent && hasSingleUseBody(options_))
						throw new NodeApiError(node, error as JsonObject);
					options_ = await authenticate(credentials, { ...options_, headers: request.headers });
					calls.push({
						url: options_.url,
						method: options_.method ?? 'GET',
						headers: { ...(options_.headers ?? {}) },
					});
					return await plainHttpRequest(options_);
				} catch (retryError) {
					throw apiError(retryError);
				}
			}
			throw apiError(error);
		}
	};

	const parameter = (
		name: string,
		itemIndex: number,
		fallback?: unknown,
		extra?: { extractValue?: boolean },
	) => {
		const [head, ...rest] = name.split('.');
		let value: unknown = options.parameters[head];
		if (typeof value === 'function') value = (value as (i: number) => unknown)(itemIndex);
		for (const key of rest) value = (value as IDataObject | undefined)?.[key];
		if (value === undefined) {
			if (fallback !== undefined) return fallback;
			throw new Error(`test context: parameter "${name}" not set`);
		}
		if (extra?.extractValue && typeof value === 'object' && value !== null && '__rl' in value) {
			return (value as unknown as { value: unknown }).value;
		}
		return value;
	};

	const binaryFiles = options.binaryFiles ?? {};
	const executionId =
		options.executionId ?? `test-execution-${process.pid}-${++executionCounter}-${Date.now()}`;
	const contextData = options.executionContextData ?? {};
	const context = {
		getInputData: () => items,
		getNode: () => node,
		getExecutionId: () => executionId,
		getInstanceId: () => 'test-instance',
		getWorkflow: () => ({ id: 'test-workflow', name: 'Test workflow', active: false }),
		getWorkflowDataProxy: () => ({ $runIndex: options.runIndex ?? 0 }),
		// n8n-workflow's NodeHelpers.getContext: one object per node name, in the execution data.
		getContext: (type: 'flow' | 'node') =>
			(contextData[type === 'flow' ? 'flow' : `node:${node.name}`] ??= {}),
		getNodeParameter: parameter,
		continueOnFail: () => options.continueOnFail ?? false,
		getCredentials: async () => readCredential(),
		getExecutionCancelSignal: () => options.cancelSignal,
		...(oldest ? {} : { isToolExecution: () => false }),
		getTimezone: () => options.timezone ?? 'UTC',
		logger: { debug() {}, info() {}, warn() {}, error() {} },
		helpers: {
			httpRequest: plainHttpRequest,
			httpRequestWithAuthentication,
			assertBinaryData: (itemIndex: number, propertyName: string) => {
				const binary = items[itemIndex]?.binary?.[propertyName];
				if (!binary) {
					throw new NodeOperationError(
						node,
						`This operation expects the node's input data to contain a binary file '${propertyName}', but none was found [item ${itemIndex}]`,
						{ itemIndex },
					);
				}
				return binary;
			},
			getBinaryStream: async (id: string) => {
				const path = binaryFiles[id];
				if (!path) throw new Error(`test context: unknown binary id ${id}`);
				return createReadStream(path, { highWaterMark: 64 * 1024 });
			},
			getBinaryMetadata: async (id: string) => {
				const path = binaryFiles[id];
				if (!path) throw new Error(`test context: unknown binary id ${id}`);
				return {
					fileName: basename(path),
					mimeType: 'application/octet-stream',
					fileSize: statSync(path).size,
				};
			},
			// As n8n's default (in-memory) binary mode: the data read whole, Base64 beside the file's details.
			prepareBinaryData: async (
				data: Buffer | AsyncIterable<Buffer>,
				fileName?: string,
				mimeType?: string,
			) => {
				let bytes: Buffer;
				if (Buffer.isBuffer(data)) bytes = data;
				else {
					const chunks: Buffer[] = [];
					for await (const chunk of data) chunks.push(Buffer.from(chunk));
					bytes = Buffer.concat(chunks);
				}
				return {
					data: bytes.toString('base64'),
					mimeType: mimeType ?? 'application/octet-stream',
					fileName,
					fileExtension: fileName?.includes('.') ? fileName.split('.').pop() : undefined,
					fileSize: String(bytes.length),
				};
			},
			getBinaryDataBuffer: async (itemIndex: number, propertyName: string) => {
				const binary = items[itemIndex]?.binary?.[propertyName];
				if (!binary)
					throw new Error(`test context: no binary ${propertyName} on item ${itemIndex}`);
				return Buffer.from(binary.data, 'base64');
			},
		},
	} as unknown as IExecuteFunctions;
	return { context, calls };
}
