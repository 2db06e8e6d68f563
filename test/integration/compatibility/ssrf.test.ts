/**
 * n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED on n8n 2.x; n8n 3.0 blocks more ranges by
 * default, 100.64.0.0/10 among them) refusing the clinic API's address: the node says so and names
 * the settings that allow it, instead of "network error, check the Base URL", and does not retry.
 * The refusal is n8n 2.41.1's own: its outbound HTTP client (loaded from the cached n8n, SSRF
 * protection on) refuses the fake API on 127.0.0.1, and the error reaches the node as n8n-core's
 * authenticated helper hands it over (wrapped in a NodeApiError).
 */
import { join } from 'node:path';

import { NodeApiError, type IHttpRequestOptions, type JsonObject } from 'n8n-workflow';

import { clinicApiRequest } from '../../../nodes/ClinicScribe/transport/request';
import { describeNetworkFailure } from '../../../nodes/ClinicScribe/transport/errors';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { createExecuteContext, fakeApiCredentials } from '../../support/nodeContext';
import { cachedN8nNodeModules, n8nRequired } from '../../support/n8nHttpRequest';

type Request = (options: IHttpRequestOptions) => Promise<unknown>;

/** n8n 2.41's outbound request with SSRF protection on (its config reads the environment once). */
function loadProtectedRequest(): Request | undefined {
	const dir = cachedN8nNodeModules();
	if (!dir) return undefined;
	process.env.N8N_SSRF_PROTECTION_ENABLED = 'true';
	require(join(dir, 'reflect-metadata'));
	const { Container } = require(join(dir, '@n8n', 'di')) as {
		Container: { get<T>(type: unknown): T };
	};
	const network = require(join(dir, '@n8n', 'backend-network')) as {
		OutboundHttp: unknown;
		configureGlobalAxiosDefaults(): void;
	};
	network.configureGlobalAxiosDefaults();
	const outbound = Container.get<{
		requests(): { request(options: IHttpRequestOptions): Promise<unknown> };
	}>(network.OutboundHttp);
	return async (options) => await outbound.requests().request(options);
}

const protectedRequest = loadProtectedRequest();
const describeWithN8n = protectedRequest || n8nRequired() ? describe : describe.skip;
if (!protectedRequest && !n8nRequired())
	process.stderr.write(
		'ssrf.test.ts skipped: n8n is not in the cache (run scripts/install-n8n.sh)\n',
	);

let api: FakeClinicApi;
beforeAll(async () => (api = await startFakeClinicApi()));
afterAll(async () => {
	delete process.env.N8N_SSRF_PROTECTION_ENABLED;
	await api?.close();
});

describeWithN8n("a request n8n's SSRF protection refuses", () => {
	test('n8n 2.41 refuses the loopback address itself (the fake API gets nothing)', async () => {
		const error = await protectedRequest!({
			url: `${api.url}/dr/v1/business/entities`,
			method: 'GET',
		}).catch((e: unknown) => e);
		expect((error as Error).name).toBe('SsrfBlockedIpError');
		expect(describeNetworkFailure(error)).toBe(
			`n8n's SSRF protection does not allow "127.0.0.1"; an n8n administrator can allow it with N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES`,
		);
		expect(api.requests).toEqual([]);
	});

	test('fails the call once, naming the protection and the settings that allow the address', async () => {
		const { context } = createExecuteContext({
			credentials: fakeApiCredentials(api.url, api.validCredentials, {
				sessionToken: 'a-stored-token',
			}),
			parameters: {},
		});
		let calls = 0;
		// As n8n-core 2.41's httpRequestWithAuthentication: the client's error wrapped in a NodeApiError.
		(context.helpers as { httpRequestWithAuthentication: unknown }).httpRequestWithAuthentication =
			async (_type: string, options: IHttpRequestOptions) => {
				calls++;
				try {
					return await protectedRequest!(options);
				} catch (error) {
					throw new NodeApiError(context.getNode(), error as JsonObject);
				}
			};

		const error = (await clinicApiRequest(context, {
			method: 'GET',
			path: '/dr/v1/business/entities',
			idempotent: true,
			purpose: 'the clinics',
		}).catch((e: unknown) => e)) as Error;

		expect(error.message).toBe(
			`Could not reach the clinic API for the clinics: n8n's SSRF protection does not allow "127.0.0.1"; an n8n administrator can allow it with N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES`,
		);
		expect(calls).toBe(1);
		expect(api.requests).toEqual([]);
	});
});
