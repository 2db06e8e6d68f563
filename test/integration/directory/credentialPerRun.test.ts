/**
 * The credential is read and decrypted once per node run (issue 10, goal 1) and every guarantee of
 * the token stays: one exchange per token lifetime across items and executions, one renewal on a
 * 401 that n8n persists, no redirect followed. Real HTTP against the fake API; the stand-in context
 * counts reads of the stored credential as n8n's getCredentials does (a database read and a
 * decryption each), and test/e2e/directory.e2e.test.ts proves the token counts in the real n8n.
 */
import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { clinicApiRequest } from '../../../nodes/ClinicScribe/transport/request';
import { FIXTURE_IDS } from '../../fake-api/fixtures';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { startForeignHost, type ForeignHost } from '../../support/foreignHost';
import { createExecuteContext, fakeApiCredentials, type CredentialStore } from '../../support/nodeContext';
import { useTestTransportPolicy } from '../../support/transportPolicy';

let api: FakeClinicApi;
let foreign: ForeignHost;
const node = new ClinicScribe();
const SERVICES_PATH = `/dr/v1/doctor/service/${FIXTURE_IDS.doctorWithServices}`;

beforeAll(async () => {
	api = await startFakeClinicApi();
	foreign = await startForeignHost();
	useTestTransportPolicy({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
});
afterAll(async () => {
	await api.close();
	await foreign.close();
});
beforeEach(() => {
	api.reset();
	foreign.requests.length = 0;
});

function credentials(): CredentialStore {
	return fakeApiCredentials(api.url, api.validCredentials);
}

/** One node run of Doctor → Get Services over `items` items; `beforeItem` runs as item i's parameters are read. */
async function getServices(store: CredentialStore, items: number, beforeItem?: (itemIndex: number) => void, continueOnFail = false) {
	const { context } = createExecuteContext({
		credentials: store,
		items: Array.from({ length: items }, () => ({ json: {} })),
		continueOnFail,
		parameters: {
			resource: 'doctor',
			operation: 'getServices',
			doctorId: (itemIndex: number) => {
				beforeItem?.(itemIndex);
				return { __rl: true, mode: 'id', value: FIXTURE_IDS.doctorWithServices };
			},
			returnAll: true,
			options: {},
		},
	});
	const [output] = await node.execute.call(context);
	return output;
}

function authHeadersOf(path: string): unknown[] {
	return api.requestsTo(path).map((request) => request.headers.auth);
}

it('1,000 items: one credential read, one token exchange, every call authenticated with that token', async () => {
	const store = credentials();
	const output = await getServices(store, 1000);

	expect(output).toHaveLength(4000);
	expect(store.reads).toBe(1);
	expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 0 });
	const calls = api.requestsTo(SERVICES_PATH);
	expect(calls).toHaveLength(1000);
	expect(calls.every((call) => call.status === 200)).toBe(true);
	const token = store.data.sessionToken;
	expect(token).toMatch(/^eyJ/);
	expect(new Set(authHeadersOf(SERVICES_PATH))).toEqual(new Set([token]));
	expect(calls.every((call) => call.headers.authorization === undefined)).toBe(true);
});

it('a token that expires mid-run: exactly one renewal, every item succeeds, the renewed token persisted for the next execution', async () => {
	const store = credentials();
	const output = await getServices(store, 25, (itemIndex) => {
		if (itemIndex === 12) api.expireAccessTokens();
	});

	expect(output).toHaveLength(100);
	expect(output.every((item) => item.json.error === undefined)).toBe(true);
	expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 1 });
	expect(store.reads).toBe(1);
	const statuses = api.requestsTo(SERVICES_PATH).map((call) => call.status);
	// Items 0–11 with the first token, item 12 refused once and sent again, 13–24 with the renewed one.
	expect(statuses).toEqual([...Array(12).fill(200), 401, ...Array(13).fill(200)]);
	const auth = authHeadersOf(SERVICES_PATH);
	const [first, renewed] = [auth[0], auth[13]];
	expect(renewed).not.toBe(first);
	expect(auth).toEqual([...Array(13).fill(first), ...Array(13).fill(renewed)]);
	expect(store.data.sessionToken).toBe(renewed);

	api.requests.length = 0;
	expect(await getServices(store, 3)).toHaveLength(12);
	expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 1 });
	expect(authHeadersOf(SERVICES_PATH)).toEqual([renewed, renewed, renewed]);
});

it('a 401 on every try: one renewal per call, no loop, and the error carries no token', async () => {
	const store = credentials();
	await getServices(store, 1);
	api.injectFault({ path: SERVICES_PATH, times: Infinity, fault: { kind: 'status', status: 401 } });
	api.requests.length = 0;

	const output = await getServices(store, 2, undefined, true);

	expect(output.map((item) => String(item.json.error))).toEqual([
		expect.stringContaining('HTTP 401'),
		expect.stringContaining('HTTP 401'),
	]);
	// Each item: its call, one renewal, the call once more.
	expect(api.requestsTo(SERVICES_PATH)).toHaveLength(4);
	expect(api.counters.tokenRefreshes).toBe(2);
	const shown = JSON.stringify(output);
	for (const secret of [store.data.sessionToken, store.data.refreshToken, api.validCredentials.clientSecret, api.validCredentials.apiKey]) {
		expect(shown).not.toContain(String(secret));
	}
});

it('calls of one run made at once while it has no token yet: one exchange, the others wait for its token', async () => {
	const store = credentials();
	const { context } = createExecuteContext({ credentials: store, parameters: {} });

	const answers = await Promise.all(
		Array.from({ length: 6 }, async () => await clinicApiRequest(context, { method: 'GET', path: SERVICES_PATH, idempotent: true, purpose: 'the services' })),
	);

	expect(answers.map((answer) => answer.statusCode)).toEqual(Array(6).fill(200));
	expect(api.counters.tokenExchanges).toBe(1);
	expect(store.reads).toBe(1);
	expect(new Set(authHeadersOf(SERVICES_PATH))).toEqual(new Set([store.data.sessionToken]));
});

it('a redirect to another host in the middle of a run is refused; that host gets nothing, the other items their results', async () => {
	const store = credentials();
	api.injectFault({ path: SERVICES_PATH, fault: { kind: 'redirect', status: 307, location: `${foreign.url}/collect` } });

	const output = await getServices(store, 1, undefined, true);
	const more = await getServices(store, 3, (itemIndex) => {
		if (itemIndex === 1) api.injectFault({ path: SERVICES_PATH, fault: { kind: 'redirect', status: 302, location: `${foreign.url}/collect` } });
	}, true);

	expect(String(output[0].json.error)).toContain(`redirect (HTTP 307) to ${foreign.host}`);
	expect(more.map((item) => (item.json.error === undefined ? 'ok' : String(item.json.error)))).toEqual([
		...Array(4).fill('ok'),
		expect.stringContaining(`redirect (HTTP 302) to ${foreign.host}`),
		...Array(4).fill('ok'),
	]);
	expect(foreign.requests).toEqual([]);
	expect(api.counters.tokenExchanges).toBe(1);
});

it('each execution reads the credential again (a token renewed elsewhere is picked up), never another run\'s copy', async () => {
	const store = credentials();
	await getServices(store, 2);
	const before = store.data.sessionToken;
	// Another execution (another worker) renewed the token and n8n stored it.
	api.expireAccessTokens();
	api.requests.length = 0;
	await getServices(store, 1);
	const renewed = store.data.sessionToken;
	expect(renewed).not.toBe(before);
	api.requests.length = 0;

	await getServices(store, 2);

	expect(store.reads).toBe(3);
	expect(authHeadersOf(SERVICES_PATH)).toEqual([renewed, renewed]);
	expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 1 });
});
