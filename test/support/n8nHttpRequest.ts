/**
 * n8n's own `this.helpers.httpRequest`, taken from the n8n that scripts/install-n8n.sh caches (the
 * one the e2e tests run). In n8n-core 2.41 the helper is
 *   Container.get(OutboundHttp).requests().request(options)
 * (n8n-core …/request-helpers/factory.js), with axios' global defaults configured once
 * (…/request-helpers/index.js). Using that exact code proves how n8n sends our request bodies.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

import type { IHttpRequestOptions } from 'n8n-workflow';

export type HttpRequestHelper = (options: IHttpRequestOptions) => Promise<unknown>;

export const N8N_VERSION = '2.41.1';

/** node_modules of the cached n8n, or undefined when it is not installed. */
export function cachedN8nNodeModules(): string | undefined {
	const cache =
		process.env.CLINIC_SCRIBE_CACHE ?? join(homedir(), '.cache', 'n8n-nodes-clinic-scribe');
	const dir = join(cache, `n8n-${N8N_VERSION}`, 'node_modules');
	return existsSync(join(dir, '@n8n', 'backend-network', 'package.json')) ? dir : undefined;
}

let loaded: HttpRequestHelper | undefined;

export function loadN8nHttpRequest(): HttpRequestHelper | undefined {
	if (loaded) return loaded;
	const dir = cachedN8nNodeModules();
	if (!dir) return undefined;
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
	loaded = async (options) => await outbound.requests().request(options);
	return loaded;
}

/** Tests that need n8n's helper fail when this is set and n8n is missing (CI after install-n8n.sh). */
export function n8nRequired(): boolean {
	return process.env.CLINIC_SCRIBE_REQUIRE_N8N === '1';
}
