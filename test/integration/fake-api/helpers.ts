/** Small HTTP helpers for the fake API's own tests. */
import { request } from 'node:http';

import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';

export interface HttpResult {
	status: number;
	headers: Headers;
	text: string;
	/** Parsed body, or undefined when it is not JSON. */
	json: any;
}

export async function call(
	api: FakeClinicApi,
	path: string,
	init: RequestInit = {},
): Promise<HttpResult> {
	const res = await fetch(`${api.url}${path}`, init);
	const text = await res.text();
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: res.status, headers: res.headers, text, json };
}

export function postJson(
	api: FakeClinicApi,
	path: string,
	body: unknown,
	headers: Record<string, string> = {},
) {
	return call(api, path, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body: typeof body === 'string' ? body : JSON.stringify(body),
	});
}

export function documentExchange(
	api: FakeClinicApi,
	body?: unknown,
	headers?: Record<string, string>,
) {
	const c = api.validCredentials;
	return postJson(
		api,
		'/api/v1/auth/token',
		body ?? {
			client_id: c.clientId,
			client_secret: c.clientSecret,
			grant_type: 'client_credentials',
		},
		headers ?? { 'x-api-key': c.apiKey },
	);
}

export function publicLogin(
	api: FakeClinicApi,
	body?: unknown,
	headers: Record<string, string> = {},
) {
	const c = api.validCredentials;
	return postJson(
		api,
		'/connect-auth/v1/account/login',
		body ?? { client_id: c.clientId, client_secret: c.clientSecret },
		headers,
	);
}

/** A fresh access token from the document flow. */
export async function accessToken(
	api: FakeClinicApi,
): Promise<{ access: string; refresh: string }> {
	const res = await documentExchange(api);
	if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${res.text}`);
	return { access: res.json.access_token, refresh: res.json.refresh_token };
}

/**
 * A fake API for the calling test file, and before each test a fresh access token and a cleared
 * log: some tests expire every token issued, so none is carried from one test to the next.
 */
export function useFakeWithFreshToken(): { readonly api: FakeClinicApi; readonly token: string } {
	let api: FakeClinicApi | undefined;
	let token = '';
	beforeAll(async () => {
		api = await startFakeClinicApi();
	});
	afterAll(async () => await api?.close());
	beforeEach(async () => {
		token = (await accessToken(api!)).access;
		api!.reset();
	});
	return {
		get api() {
			if (!api) throw new Error('fake API not started');
			return api;
		},
		get token() {
			return token;
		},
	};
}

/** A call with fetch: the status, the Content-Type, and the body as JSON or as bytes. */
export async function fetchAnswer(api: FakeClinicApi, path: string, init: RequestInit = {}) {
	const response = await fetch(`${api.url}${path}`, init);
	const type = response.headers.get('content-type') ?? '';
	const body = type.includes('json')
		? await response.json()
		: Buffer.from(await response.arrayBuffer());
	return { status: response.status, type, body };
}

export function getWithToken(api: FakeClinicApi, path: string, token: string) {
	return call(api, path, { headers: { auth: token } });
}

/** The §7 envelope with the given status and code. */
export function expectEnvelope(res: HttpResult, status: number, code: string): void {
	expect(res.status).toBe(status);
	expect(res.headers.get('content-type')).toMatch(/^application\/json/);
	expect(res.json).toEqual({
		status_code: status,
		success: false,
		data: {},
		error: { code, message: expect.any(String) },
	});
}

/** An auth error {code, error}. */
export function expectAuthError(res: HttpResult, status: number, code: string): void {
	expect(res.status).toBe(status);
	expect(res.json).toEqual({ code, error: expect.any(String) });
}

/**
 * A request through node:http with nothing added: exact path, headers and body as given
 * (fetch would add content-type for string bodies and normalise some things).
 */
export function rawRequest(
	api: FakeClinicApi,
	options: {
		method: string;
		path: string;
		headers?: Record<string, string>;
		body?: Buffer | string | Iterable<Buffer>;
	},
): Promise<{
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
}> {
	return new Promise((resolve, reject) => {
		const req = request(
			`${api.url}${options.path}`,
			{ method: options.method, headers: options.headers, agent: false },
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('end', () =>
					resolve({
						status: res.statusCode ?? 0,
						headers: res.headers,
						text: Buffer.concat(chunks).toString('utf8'),
					}),
				);
				res.on('error', reject);
			},
		);
		req.on('error', reject);
		const { body } = options;
		if (body === undefined) req.end();
		else if (typeof body === 'string' || Buffer.isBuffer(body)) req.end(body);
		else {
			(async () => {
				for (const chunk of body) {
					if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
				}
				req.end();
			})().catch(reject);
		}
	});
}
