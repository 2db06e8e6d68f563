/**
 * The credential of a node run and its token, with n8n's helpers as n8n 2.41 has them and as n8n
 * 1.123 has them (the stand-in context follows each; see test/support/nodeContext.ts): one token
 * exchange per token lifetime across items and executions, calls made at once waiting for the first
 * one's token instead of each exchanging one, one renewal that n8n persists for the calls a 401
 * refuses together (Doctor → Get Services sends several items at once), a token stored meanwhile by
 * another execution picked up without renewing, no redirect followed. Every call goes through n8n's authenticated helper with the credential type alone (the
 * documented form), so n8n reads the stored credential for each call; the node itself reads it once
 * per run (its base URL and secrets). Real HTTP against the fake API; test/e2e/directory.e2e.test.ts
 * and test/e2e/oldest-n8n.e2e.test.ts prove the token counts in the real n8n of each line.
 */
import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { clinicApiRequest } from '../../../nodes/ClinicScribe/transport/request';
import { PRODUCTION_POLICY } from '../../../nodes/ClinicScribe/transport/retryPolicy';
import { FIXTURE_IDS, REFRESH_PATH } from '../../fake-api/fixtures';
import { TOKEN_PATH } from '../attack/helpers';
import { holdTokenRefreshes } from '../../fake-api/routes/auth';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { startForeignHost, type ForeignHost } from '../../support/foreignHost';
import { eventually } from '../../support/n8n/trigger';
import {
	createExecuteContext,
	fakeApiCredentials,
	type CredentialStore,
} from '../../support/nodeContext';
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

type Line = 'newest' | 'oldest';

/** One node run of Doctor → Get Services over `items` items; `beforeItem` runs as item i's parameters are read. */
async function getServices(
	store: CredentialStore,
	items: number,
	beforeItem?: (itemIndex: number) => void,
	continueOnFail = false,
	n8nLine: Line = 'newest',
) {
	const { context } = createExecuteContext({
		n8nLine,
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

/**
 * Requests refused (401) for one renewal, on either line: every status comes back to the node as an
 * answer, and the refused call is sent once more with the credential handed to n8n's helper with its
 * session token moved aside, which makes n8n renew before sending it: no second refusal.
 */
const RENEWAL_401S = 1;

/** Items of Doctor → Get Services sent at once (the shipped policy). */
const READ_CONCURRENCY = PRODUCTION_POLICY.readConcurrency;

describe.each<Line>(['newest', 'oldest'])("with n8n's helpers of the %s supported n8n", (line) => {
	it('1,000 items: one token exchange, every call authenticated with that token; the node reads the credential once', async () => {
		const store = credentials();
		const output = await getServices(store, 1000, undefined, false, line);

		expect(output).toHaveLength(4000);
		expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 0 });
		const calls = api.requestsTo(SERVICES_PATH);
		expect(calls).toHaveLength(1000);
		expect(calls.every((call) => call.status === 200)).toBe(true);
		// n8n's helper reads the stored credential for each call; the node adds one read for the run.
		expect(store.reads).toBe(1 + 1000);
		const token = store.data.sessionToken;
		expect(token).toMatch(/^eyJ/);
		expect(new Set(authHeadersOf(SERVICES_PATH))).toEqual(new Set([token]));
		expect(calls.every((call) => call.headers.authorization === undefined)).toBe(true);
	});

	it('a token that expires mid-run: exactly one renewal for the calls in flight, every item succeeds, the renewed token persisted for the next execution', async () => {
		const store = credentials();
		// The expiry comes once the first items' calls have been answered: past twice the bound.
		const items = READ_CONCURRENCY * 4 + 1;
		const output = await getServices(
			store,
			items,
			(itemIndex) => {
				if (itemIndex === READ_CONCURRENCY * 2) api.expireAccessTokens();
			},
			false,
			line,
		);

		expect(output).toHaveLength(items * 4);
		expect(output.every((item) => item.json.error === undefined)).toBe(true);
		expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 1 });
		const calls = api.requestsTo(SERVICES_PATH);
		const first = calls[0].headers.auth;
		const renewed = store.data.sessionToken;
		expect(renewed).not.toBe(first);
		// One success per item; a refused call carried the first token, each success one of the two.
		expect(calls.filter((call) => call.status === 200)).toHaveLength(items);
		expect(
			calls.filter((call) => call.status === 401).every((call) => call.headers.auth === first),
		).toBe(true);
		expect(
			calls
				.filter((call) => call.status === 200)
				.every((call) => call.headers.auth === first || call.headers.auth === renewed),
		).toBe(true);
		// At most the calls in flight at the expiry were refused, plus the one repeat that renewed.
		const refused = calls.filter((call) => call.status === 401).length;
		expect(refused).toBeGreaterThanOrEqual(RENEWAL_401S);
		expect(refused).toBeLessThanOrEqual(READ_CONCURRENCY + 1);
		// Once the renewed token was used, nothing went out with the first one any more.
		const firstRenewedUse = calls.findIndex((call) => call.headers.auth === renewed);
		expect(calls.slice(firstRenewedUse).every((call) => call.headers.auth === renewed)).toBe(true);

		api.requests.length = 0;
		expect(await getServices(store, 3, undefined, false, line)).toHaveLength(12);
		expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 1 });
		expect(authHeadersOf(SERVICES_PATH)).toEqual([renewed, renewed, renewed]);
	});

	it('calls in flight together when the token expires: all refused, one renewal while they wait, each sent once more with the renewed token', async () => {
		const store = credentials();
		const { context } = createExecuteContext({ n8nLine: line, credentials: store, parameters: {} });
		const call = async () =>
			await clinicApiRequest(context, {
				method: 'GET',
				path: SERVICES_PATH,
				idempotent: true,
				purpose: 'the services',
			});
		// The run has had an answer: no call waits for a first one any more.
		await call();
		const first = store.data.sessionToken;
		api.expireAccessTokens();
		api.requests.length = 0;
		const hold = holdTokenRefreshes(api);
		let answers: Array<Awaited<ReturnType<typeof call>>>;
		try {
			const running = Promise.all(Array.from({ length: 6 }, call));
			// All six refused once, and the renewal waiting at the token endpoint.
			await eventually(
				() =>
					api.requestsTo(SERVICES_PATH).filter((r) => r.status === 401).length === 6 &&
					api.requestsTo(REFRESH_PATH).length === 1,
				() => JSON.stringify(api.requests.map((r) => [r.pathname, r.status])),
			);
			hold.release();
			answers = await running;
		} finally {
			hold.release();
		}

		expect(answers.map((answer) => answer.statusCode)).toEqual(Array(6).fill(200));
		expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 1 });
		const calls = api.requestsTo(SERVICES_PATH);
		const renewed = store.data.sessionToken;
		expect(renewed).not.toBe(first);
		expect(calls.filter((r) => r.status === 401).map((r) => r.headers.auth)).toEqual(
			Array(6).fill(first),
		);
		expect(calls.filter((r) => r.status === 200).map((r) => r.headers.auth)).toEqual(
			Array(6).fill(renewed),
		);
	});

	it('a token renewed and stored by another execution while this run goes on: its next call uses it, with no 401 and no renewal of its own', async () => {
		const store = credentials();
		const { context } = createExecuteContext({ n8nLine: line, credentials: store, parameters: {} });
		const call = async () =>
			await clinicApiRequest(context, {
				method: 'GET',
				path: SERVICES_PATH,
				idempotent: true,
				purpose: 'the services',
			});
		await call();
		const first = store.data.sessionToken;
		// Another execution finds the token expired, renews it, and n8n stores the new one.
		api.expireAccessTokens();
		await getServices(store, 1, undefined, false, line);
		const renewedElsewhere = store.data.sessionToken;
		expect(renewedElsewhere).not.toBe(first);
		api.requests.length = 0;

		expect((await call()).statusCode).toBe(200);

		expect(api.requestsTo(SERVICES_PATH).map((r) => [r.status, r.headers.auth])).toEqual([
			[200, renewedElsewhere],
		]);
		expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 1 });
	});

	it('a 401 on every try: at most one renewal per call, no loop, and the error carries no token', async () => {
		const store = credentials();
		await getServices(store, 1, undefined, false, line);
		api.injectFault({
			path: SERVICES_PATH,
			times: Infinity,
			fault: { kind: 'status', status: 401 },
		});
		api.requests.length = 0;

		const output = await getServices(store, 2, undefined, true, line);

		expect(output.map((item) => String(item.json.error))).toEqual([
			expect.stringContaining('HTTP 401'),
			expect.stringContaining('HTTP 401'),
		]);
		// Until a call of the run has an answer the calls go one at a time: each item's call is refused,
		// renewed, sent once more with the renewed token (refused too), and fails.
		expect(api.requestsTo(SERVICES_PATH)).toHaveLength(2 * (1 + RENEWAL_401S));
		expect(api.counters.tokenRefreshes).toBe(2);
		const shown = JSON.stringify(output);
		for (const secret of [
			store.data.sessionToken,
			store.data.refreshToken,
			api.validCredentials.clientSecret,
			api.validCredentials.apiKey,
		]) {
			expect(shown).not.toContain(String(secret));
		}
	});

	it('calls of one run made at once while it has no token yet: one exchange, the others wait for its token', async () => {
		const store = credentials();
		const { context } = createExecuteContext({ n8nLine: line, credentials: store, parameters: {} });

		const answers = await Promise.all(
			Array.from(
				{ length: 6 },
				async () =>
					await clinicApiRequest(context, {
						method: 'GET',
						path: SERVICES_PATH,
						idempotent: true,
						purpose: 'the services',
					}),
			),
		);

		expect(answers.map((answer) => answer.statusCode)).toEqual(Array(6).fill(200));
		expect(api.counters.tokenExchanges).toBe(1);
		expect(new Set(authHeadersOf(SERVICES_PATH))).toEqual(new Set([store.data.sessionToken]));
	});

	it('calls of one run made at once with an expired token stored: one renewal, the others wait for it', async () => {
		const store = credentials();
		await getServices(store, 1, undefined, false, line);
		api.expireAccessTokens();
		api.requests.length = 0;
		const { context } = createExecuteContext({ n8nLine: line, credentials: store, parameters: {} });

		const answers = await Promise.all(
			Array.from(
				{ length: 6 },
				async () =>
					await clinicApiRequest(context, {
						method: 'GET',
						path: SERVICES_PATH,
						idempotent: true,
						purpose: 'the services',
					}),
			),
		);

		expect(answers.map((answer) => answer.statusCode)).toEqual(Array(6).fill(200));
		expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 1 });
		// The first call alone: refused, sent again to renew; the five others then with the renewed token.
		expect(api.requestsTo(SERVICES_PATH).map((call) => call.status)).toEqual([
			...Array(RENEWAL_401S).fill(401),
			...Array(6).fill(200),
		]);
	});

	it("each execution uses the token n8n stores now (one renewed elsewhere is picked up), never another run's copy", async () => {
		const store = credentials();
		await getServices(store, 2, undefined, false, line);
		const before = store.data.sessionToken;
		// Another execution (another worker) renewed the token and n8n stored it.
		api.expireAccessTokens();
		api.requests.length = 0;
		await getServices(store, 1, undefined, false, line);
		const renewed = store.data.sessionToken;
		expect(renewed).not.toBe(before);
		api.requests.length = 0;

		await getServices(store, 2, undefined, false, line);

		expect(authHeadersOf(SERVICES_PATH)).toEqual([renewed, renewed]);
		expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 1 });
	});
});

it('a redirect to another host in the middle of a run is refused; that host gets nothing, the other items their results', async () => {
	const store = credentials();
	api.injectFault({
		path: SERVICES_PATH,
		fault: { kind: 'redirect', status: 307, location: `${foreign.url}/collect` },
	});

	const output = await getServices(store, 1, undefined, true);
	const more = await getServices(
		store,
		3,
		(itemIndex) => {
			if (itemIndex === 1)
				api.injectFault({
					path: SERVICES_PATH,
					fault: { kind: 'redirect', status: 302, location: `${foreign.url}/collect` },
				});
		},
		true,
	);

	expect(String(output[0].json.error)).toContain(`redirect (HTTP 307) to ${foreign.host}`);
	// The items go out at once: whichever call met the redirect failed alone, the others have their 4 services each, in item order.
	const failed = more.filter((item) => item.json.error !== undefined);
	expect(failed.map((item) => String(item.json.error))).toEqual([
		expect.stringContaining(`redirect (HTTP 302) to ${foreign.host}`),
	]);
	const failedItem = (failed[0].pairedItem as { item: number }).item;
	expect(more.map((item) => item.pairedItem)).toEqual(
		[0, 1, 2].flatMap((item) => (item === failedItem ? [{ item }] : Array(4).fill({ item }))),
	);
	expect(foreign.requests).toEqual([]);
	expect(api.counters.tokenExchanges).toBe(1);
});

describe.each<Line>(['newest', 'oldest'])(
	'an edited credential on the %s n8n line: the next run uses what was typed',
	(line) => {
		const exchanges = () => api.requestsTo(TOKEN_PATH, 'POST');

		it('a wrong new secret: the run exchanges with it and fails naming the secret; the old token goes nowhere', async () => {
			const store = credentials();
			await getServices(store, 1, undefined, false, line);
			const old = store.data.sessionToken;
			api.requests.length = 0;

			store.data.clientSecret = 'rotated-but-mistyped';
			const output = await getServices(store, 2, undefined, true, line);

			expect(String(output[0].json.error)).toMatch(
				/rejected the Client Secret|Client ID or Client Secret/,
			);
			expect(
				exchanges().map((r) => (r.body as { client_secret?: string }).client_secret),
			).toContain('rotated-but-mistyped');
			expect(api.requestsTo(REFRESH_PATH)).toHaveLength(0);
			expect(api.requestsTo(SERVICES_PATH)).toHaveLength(0);
			expect(JSON.stringify(api.requests)).not.toContain(old);
			expect(JSON.stringify(output)).not.toContain('rotated-but-mistyped');
		});

		it('edited back to the values the token was made from: it fits again, no exchange', async () => {
			const store = credentials();
			await getServices(store, 1, undefined, false, line);
			const first = store.data.sessionToken;
			store.data.clientSecret = 'rotated-but-mistyped';
			await getServices(store, 1, undefined, true, line);
			api.requests.length = 0;

			store.data.clientSecret = api.validCredentials.clientSecret;
			const output = await getServices(store, 3, undefined, false, line);
			expect(output.every((item) => item.json.error === undefined)).toBe(true);
			expect(exchanges()).toHaveLength(0);
			expect(new Set(authHeadersOf(SERVICES_PATH))).toEqual(new Set([first]));
		});

		it('another Base URL: the token made for the old address is never sent to the new one', async () => {
			const store = credentials();
			await getServices(store, 1, undefined, false, line);
			const old = store.data.sessionToken;
			store.data.baseUrl = foreign.url;
			const output = await getServices(store, 1, undefined, true, line);
			expect(output[0].json.error).toBeDefined();
			expect(foreign.requests.length).toBeGreaterThan(0);
			expect(JSON.stringify(foreign.requests)).not.toContain(old);
		});
	},
);
