/**
 * Faults on the token exchange, directory and webhook call families: 500 once, 429 with Retry-After,
 * a dropped connection, malformed JSON, an answer slower than the timeout, and the token expiring
 * mid-run. Each either recovers (bounded retries) or fails with an error that says what happened;
 * the token endpoint's failures say the service is unavailable, never that the credential is wrong.
 * (Transcription calls are covered by the upload and results suites.)
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';

import { PRODUCTION_POLICY } from '../../../nodes/ClinicScribe/transport/retryPolicy';
import { useTestTransportPolicy } from '../../support/transportPolicy';
import { getDoctorServices } from '../../../nodes/ClinicScribe/transport/doctorApi';
import {
	createSubscription,
	listSubscriptions,
} from '../../../nodes/ClinicScribe/transport/webhookApi';
import { REFRESH_PATH } from '../../fake-api/fixtures';
import { startFakeClinicApi, type FakeClinicApi, type FaultAction } from '../../fake-api/server';
import { recordAttack } from '../../support/attackLedger';
import {
	caught,
	contextFor,
	credentialFor,
	secretsIn,
	secretsOf,
	everythingOf,
	TOKEN_PATH,
} from './helpers';

let api: FakeClinicApi;
const node = new ClinicScribe();

beforeAll(async () => {
	api = await startFakeClinicApi();
	useTestTransportPolicy({
		retry: { baseDelayMs: 10, maxDelayMs: 50 },
		timeouts: { apiCallMs: 300, tokenMs: 300 },
	});
});
afterAll(async () => await api.close());
beforeEach(() => api.reset());

const DR_PATH = '/dr/v1/doctor/service/do1001';
const SUBSCRIPTIONS = '/notification/v1/connect/webhook/subscriptions';

interface Family {
	name: string;
	path: string;
	method?: string;
	needsToken: boolean;
	call: (ctx: IExecuteFunctions) => Promise<unknown>;
}

const FAMILIES: Family[] = [
	{
		name: 'token',
		path: TOKEN_PATH,
		needsToken: false,
		call: async (ctx) => await getDoctorServices(ctx, 'do1001'),
	},
	// Through the operation, which reads the answer (a malformed one must be named, not output).
	{
		name: 'dr',
		path: DR_PATH,
		needsToken: true,
		call: async (ctx) => await node.execute.call(withDoctorParameters(ctx)),
	},
	{
		name: 'webhook',
		path: SUBSCRIPTIONS,
		method: 'GET',
		needsToken: true,
		call: async (ctx) => await listSubscriptions(ctx),
	},
];

/** The context with the parameters of Doctor → Get Services for do1001. */
function withDoctorParameters(ctx: IExecuteFunctions): IExecuteFunctions {
	const parameters: Record<string, unknown> = {
		resource: 'doctor',
		operation: 'getServices',
		doctorId: 'do1001',
		returnAll: true,
		options: {},
	};
	return {
		...ctx,
		getNodeParameter: (name: string, _item: number, fallback?: unknown) =>
			parameters[name] ?? fallback,
	} as IExecuteFunctions;
}

const ONE_TIME_FAULTS: Array<[string, FaultAction]> = [
	['500-once', { kind: 'status', status: 500 }],
	['429-retry-after', { kind: 'status', status: 429, headers: { 'retry-after': '0' } }],
	['drop-once', { kind: 'drop' }],
];

async function prepared(family: Family) {
	const store = await credentialFor(api, family.needsToken);
	api.requests.length = 0;
	return store;
}

describe.each(FAMILIES.map((family) => [family.name, family] as const))(
	'the %s call family',
	(name, family) => {
		it.each(ONE_TIME_FAULTS)('recovers from %s with one retry', async (fault, action) => {
			const store = await prepared(family);
			api.injectFault({ path: family.path, method: family.method, fault: action });
			await family.call(contextFor(store));
			const attempts = api.requestsTo(family.path, family.method);
			expect(attempts.map((r) => r.fault ?? 'answered')).toEqual([action.kind, 'answered']);
			recordAttack(`fault-${fault}-${name}`, 'retried once, then answered', {
				itemsLost: 0,
				secretsSeen: 0,
			});
		});

		it('gives up after the bounded attempts when every answer is slower than the timeout', async () => {
			const store = await prepared(family);
			api.injectFault({
				path: family.path,
				method: family.method,
				times: Infinity,
				fault: { kind: 'delay', ms: 2_000 },
			});
			const error = await caught(family.call(contextFor(store)));
			expect(error.message).toContain('no answer within the time limit');
			expect(api.requestsTo(family.path, family.method)).toHaveLength(
				PRODUCTION_POLICY.retry.attempts,
			);
			if (family.name === 'token')
				expect(error.message).toContain('The credential was not rejected');
			const seen = secretsIn(everythingOf(error), secretsOf(store));
			expect(seen).toEqual([]);
			recordAttack(
				`fault-slow-${name}`,
				`timed out ${PRODUCTION_POLICY.retry.attempts} times, then a clear error`,
				{ secretsSeen: seen.length },
			);
		});

		it('malformed JSON gives a clear error, never a crash or a wrong result', async () => {
			const store = await prepared(family);
			api.injectFault({ path: family.path, method: family.method, fault: { kind: 'malformed' } });
			const error = await caught(family.call(contextFor(store)));
			expect(error.message).toMatch(
				family.name === 'token'
					? /answered the token exchange without an access token/
					: /not the documented JSON/,
			);
			expect(error.constructor.name).toBe('NodeApiError');
			recordAttack(`fault-malformed-${name}`, 'clear error naming the unexpected answer', {
				secretsSeen: 0,
			});
		});
	},
);

describe('the token endpoint, failing for good', () => {
	it.each([
		[
			'500',
			{ kind: 'status', status: 500 } as FaultAction,
			/token service is unavailable \(HTTP 500, tried 4 times\)/,
		],
		[
			'503',
			{ kind: 'status', status: 503 } as FaultAction,
			/token service is unavailable \(HTTP 503, tried 4 times\)/,
		],
		[
			'429',
			{ kind: 'status', status: 429, headers: { 'retry-after': '0' } } as FaultAction,
			/token service is rate limiting token requests \(HTTP 429, tried 4 times\)/,
		],
		[
			'drop',
			{ kind: 'drop' } as FaultAction,
			/Could not reach the clinic API .* to get an access token \(the connection was closed before an answer arrived\).*Tried 4 times/,
		],
	])(
		'%s: retried with back-off, then "unavailable", not "credential rejected"',
		async (label, action, message) => {
			const store = await prepared(FAMILIES[0]);
			api.injectFault({ path: TOKEN_PATH, times: Infinity, fault: action });
			const error = await caught(FAMILIES[0].call(contextFor(store)));
			expect(error.message).toMatch(message);
			expect(error.message).toContain('The credential was not rejected');
			expect(error.message).not.toMatch(/rejected the/);
			expect(error.description).toContain('The credential was not rejected');
			expect(api.requestsTo(TOKEN_PATH)).toHaveLength(PRODUCTION_POLICY.retry.attempts);
			// Nothing but the exchange was tried: the API call itself never went out without a token.
			expect(api.requestsTo('/dr/')).toHaveLength(0);
			recordAttack(
				`token-endpoint-${label}`,
				`retried ${PRODUCTION_POLICY.retry.attempts} times, then "service unavailable"`,
				{ secretsSeen: 0 },
			);
		},
	);

	it('a 401 still names the credential as wrong, at once', async () => {
		const store = await prepared(FAMILIES[0]);
		api.injectFault({
			path: TOKEN_PATH,
			fault: {
				kind: 'status',
				status: 401,
				body: { code: 'invalid_client_secret', error: 'Invalid client secret' },
			},
		});
		const error = await caught(FAMILIES[0].call(contextFor(store)));
		expect(error.message).toContain('The clinic API rejected the Client Secret (HTTP 401)');
		expect(error.description).toContain('correct it');
		expect(api.requestsTo(TOKEN_PATH)).toHaveLength(1);
	});
});

describe('the token expiring mid-run', () => {
	it.each(FAMILIES.filter((f) => f.needsToken).map((f) => [f.name, f] as const))(
		'on the %s family is renewed once and the call answered',
		async (name, family) => {
			const store = await prepared(family);
			const before = store.data.sessionToken;
			api.expireAccessTokens();
			await family.call(contextFor(store));
			expect(store.data.sessionToken).not.toBe(before);
			expect(api.requestsTo(REFRESH_PATH)).toHaveLength(1);
			// Refused once, renewed, sent once more with the renewed token.
			expect(api.requestsTo(family.path, family.method).map((r) => r.status)).toEqual([401, 200]);
			recordAttack(`fault-expiry-${name}`, 'token renewed by refresh, call repeated once', {
				itemsLost: 0,
			});
		},
	);

	it('with the refresh token dead too, a new exchange serves the call', async () => {
		const store = await prepared(FAMILIES[1]);
		api.expireAccessTokens();
		api.expireRefreshTokens();
		await FAMILIES[1].call(contextFor(store));
		expect(api.requestsTo(REFRESH_PATH).map((r) => r.status)).toEqual([401]);
		expect(api.requestsTo(TOKEN_PATH).map((r) => r.status)).toEqual([200]);
		recordAttack('fault-expiry-token', 'refresh refused, new exchange, call answered', {
			itemsLost: 0,
		});
	});
});

describe('the webhook registration (not safe to repeat blindly)', () => {
	it('is not repeated after a dropped connection: the error says so and one request went out', async () => {
		const store = await prepared(FAMILIES[2]);
		api.injectFault({ path: SUBSCRIPTIONS, method: 'POST', fault: { kind: 'drop' } });
		const error = await caught(
			createSubscription(contextFor(store), {
				eventNames: ['v2rx.completed'],
				endpoint: 'https://n8n.example.com/webhook/x/webhook',
				signingKey: 'k'.repeat(32),
				protocol: 'https',
			}),
		);
		expect(error.message).toContain(
			'Could not reach the clinic API for the registration of the webhook subscription',
		);
		expect(api.requestsTo(SUBSCRIPTIONS, 'POST')).toHaveLength(1);
		recordAttack(
			'fault-drop-webhook-create',
			'not repeated (unknown outcome); the next activation cleans up',
			{ secretsSeen: 0 },
		);
	});
});
