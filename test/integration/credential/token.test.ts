/**
 * The credential (document 4.5, 4.6, §5) over real HTTP against the project's fake clinic API: one token exchange
 * for many items and runs, renewal, the public login flow, a ready access token.
 */
import { useNodeRuns } from '../../support/nodeRuns';

// Retry back-off short, so the retry tests stay quick; the policy itself is unit-tested.
const t = useNodeRuns({ retry: { baseDelayMs: 20, maxDelayMs: 200 } });
const { credentials, run } = t;

const entities = (output: string) => ({ resource: 'business', operation: 'getEntities', output });

describe('credential', () => {
	it('exchanges once for many items and several executions', async () => {
		const store = credentials();
		const items = Array.from({ length: 25 }, () => ({ json: {} }));
		await run(entities('entities'), { store, items });
		await run(entities('doctors'), { store });
		expect(t.api.counters.tokenExchanges).toBe(1);
		expect(t.api.requestsTo('/dr/v1/business/entities')).toHaveLength(26);
		const [exchange] = t.api.requestsTo('/api/v1/auth/token');
		expect(exchange.headers['x-api-key']).toBe(t.api.validCredentials.apiKey);
		expect(exchange.body).toEqual({
			client_id: t.api.validCredentials.clientId,
			client_secret: t.api.validCredentials.clientSecret,
			grant_type: 'client_credentials',
		});
	});

	it('renews an expired token with the refresh token, then by exchange when that fails too', async () => {
		const store = credentials();
		await run(entities('entities'), { store });
		t.api.expireAccessTokens();
		expect(await run(entities('clinics'), { store })).toHaveLength(2);
		expect(t.api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 1 });

		t.api.expireAccessTokens();
		t.api.expireRefreshTokens();
		expect(await run(entities('clinics'), { store })).toHaveLength(2);
		expect(t.api.counters).toEqual({ tokenExchanges: 2, tokenRefreshes: 1 });
	});

	it.each([
		['clientSecret', 'wrong-secret-value', 'the Client Secret'],
		['clientId', 'nobody', 'the Client ID'],
		['apiKey', 'wrong-api-key-value', 'the Workspace API Key'],
	])('names the rejected %s without echoing any secret', async (field, value, named) => {
		const store = credentials({ [field]: value });
		const error = (await run(entities('entities'), { store }).catch(
			(caught: Error) => caught,
		)) as Error;
		expect(error.message).toContain(`rejected ${named}`);
		for (const secret of [
			'wrong-secret-value',
			'wrong-api-key-value',
			t.api.validCredentials.clientSecret,
			t.api.validCredentials.apiKey,
		]) {
			expect(error.message).not.toContain(secret);
		}
		expect(t.api.requestsTo('/dr/')).toHaveLength(0);
	});

	it('uses the public login flow and sends the client id on calls', async () => {
		const store = credentials({ apiVariant: 'public' });
		await run(entities('entities'), { store });
		const [login] = t.api.requestsTo('/connect-auth/v1/account/login');
		expect(login.body).toEqual({
			client_id: t.api.validCredentials.clientId,
			client_secret: t.api.validCredentials.clientSecret,
			api_key: t.api.validCredentials.apiKey,
		});
		expect(login.headers['x-api-key']).toBeUndefined();
		expect(t.api.requestsTo('/dr/v1/business/entities')[0].headers['client-id']).toBe(
			t.api.validCredentials.clientId,
		);
	});

	it('uses a ready access token as it is, with no exchange', async () => {
		const store = credentials({
			authMethod: 'accessToken',
			accessToken: t.api.validCredentials.staticToken,
		});
		expect(await run(entities('doctors'), { store })).toHaveLength(4);
		expect(t.api.counters.tokenExchanges).toBe(0);
		expect(t.api.requestsTo('/dr/v1/business/entities')[0].headers.auth).toBe(
			t.api.validCredentials.staticToken,
		);
	});
});
