/**
 * Attack: the API echoes every secret it knows of in an error answer (error message, top-level
 * message, details): client secret, API key, the access token sent and its refresh token, and the
 * request's body (a subscription's signing key). Nothing of them may reach the thrown error (message,
 * description, messages, context, errorResponse, cause, stack: what n8n shows and stores with the
 * execution) or a Continue On Fail item. Real HTTP against the fake API.
 */
import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import {
	listSubscriptions,
	registrationRefusedError,
} from '../../../nodes/ClinicScribe/transport/webhookApi';
import { createSubscription } from '../../../nodes/ClinicScribe/transport/webhookApi';
import { envelopeError, startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { recordAttack } from '../../support/attackLedger';
import { createExecuteContext } from '../../support/nodeContext';
import {
	CALL_FAMILIES,
	caught,
	contextFor,
	credentialFor,
	everythingOf,
	secretsIn,
	secretsOf,
	SIGNING_KEY,
} from './helpers';
import { useTestTransportPolicy } from '../../support/transportPolicy';

let api: FakeClinicApi;
const node = new ClinicScribe();

beforeAll(async () => {
	api = await startFakeClinicApi();
	useTestTransportPolicy({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
});
afterAll(async () => await api.close());
beforeEach(() => api.reset());

describe('an error answer that echoes the secrets', () => {
	it.each(CALL_FAMILIES.map((family) => [family.name, family] as const))(
		'on the %s call leaves none of them in the error',
		async (name, family) => {
			const store = await credentialFor(api, family.needsToken);
			api.injectFault({ path: family.path, fault: { kind: 'echo', status: 400 } });

			const outcome = await family.call(contextFor(store)).then(
				(value) => ({ value }),
				(error: unknown) => ({ error }),
			);
			// The webhook registration hands a 400 back to the trigger, which turns it into its error.
			const error =
				'error' in outcome
					? outcome.error
					: registrationRefusedError(
							contextFor(store),
							outcome.value as Parameters<typeof registrationRefusedError>[1],
							false,
						);

			const secrets = secretsOf(store);
			// The fake really echoed them: the answer it sent holds the secrets this call carried.
			expect(api.requests.find((r) => r.fault === 'echo')).toBeTruthy();
			expect(secrets.length).toBeGreaterThanOrEqual(family.needsToken ? 5 : 2);
			const text = everythingOf(error);
			expect(text).toContain('[redacted]');
			const seen = secretsIn(text, secrets);
			expect(seen).toEqual([]);
			recordAttack(
				`echoed-secrets-${name}`,
				'error names the API code; every echoed secret shows as [redacted]',
				{ secretsSeen: seen.length },
			);
		},
	);

	it('on a webhook registration hands back an answer already scrubbed (signing key included)', async () => {
		const store = await credentialFor(api, true);
		api.injectFault({
			path: CALL_FAMILIES[3].path,
			method: 'POST',
			fault: { kind: 'echo', status: 400 },
		});
		const outcome = await createSubscription(contextFor(store), {
			eventNames: ['v2rx.completed'],
			endpoint: 'https://n8n.example.com/webhook/attack/webhook',
			signingKey: SIGNING_KEY,
			protocol: 'https',
		});
		expect(outcome.kind).toBe('refused');
		const text = JSON.stringify(outcome);
		expect(text).toContain('[redacted]');
		expect(secretsIn(text, secretsOf(store))).toEqual([]);
	});

	it('on the subscription list (a trigger activation) leaves none in the thrown error', async () => {
		const store = await credentialFor(api, true);
		api.injectFault({
			path: CALL_FAMILIES[3].path,
			method: 'GET',
			fault: { kind: 'echo', status: 403 },
		});
		const error = await caught(listSubscriptions(contextFor(store)));
		expect(error.message).toContain('HTTP 403 ECHO');
		expect(secretsIn(everythingOf(error), secretsOf(store))).toEqual([]);
		recordAttack(
			'echoed-secrets-webhook-list',
			'error names the API code; every echoed secret shows as [redacted]',
			{ secretsSeen: 0 },
		);
	});

	it('under Continue On Fail leaves none of them in the error item, and the other item keeps its output', async () => {
		const store = await credentialFor(api, true);
		api.injectFault({ path: '/dr/v1/doctor/service/do1001', fault: { kind: 'echo', status: 400 } });
		const { context } = createExecuteContext({
			credentials: store,
			continueOnFail: true,
			items: [{ json: {} }, { json: {} }],
			parameters: {
				resource: 'doctor',
				operation: 'getServices',
				doctorId: (i: number) => ({ __rl: true, mode: 'id', value: i === 0 ? 'do1001' : 'do1002' }),
				returnAll: true,
				options: {},
			},
		});
		const [output] = await node.execute.call(context);
		const errorItems = output.filter((item) => 'error' in item.json);
		expect(errorItems).toHaveLength(1);
		expect(errorItems[0].pairedItem).toEqual({ item: 0 });
		expect(errorItems[0].json.error).toContain('[redacted]');
		expect(
			output.filter((item) => (item.pairedItem as { item: number }).item === 1).length,
		).toBeGreaterThan(0);
		const seen = secretsIn(JSON.stringify(output), secretsOf(store));
		expect(seen).toEqual([]);
		recordAttack('echoed-secrets-continue-on-fail', 'error item with [redacted]; other item kept', {
			secretsSeen: seen.length,
			itemsLost: 0,
		});
	});

	it('when the token endpoint refuses with an echo, the credential error holds none of them', async () => {
		const store = await credentialFor(api, false);
		api.injectFault({ path: CALL_FAMILIES[0].path, fault: { kind: 'echo', status: 401 } });
		const error = await caught(CALL_FAMILIES[1].call(contextFor(store)));
		expect(error.message).toContain('rejected');
		expect(secretsIn(everythingOf(error), secretsOf(store))).toEqual([]);
	});
});

describe('a mobile number the API echoes in another spelling', () => {
	it.each([
		['spaces', '98765 43210'],
		['dashes', '98765-43210'],
		['dots', '98765.43210'],
		['+91 prefix', '+91 98765 43210'],
		['91 prefix', '919876543210'],
		['0 prefix', '0-98765-43210'],
		['brackets', '(98765) 43210'],
	])('with %s is redacted from the error', async (_label, echoed) => {
		const store = await credentialFor(api, true);
		api.injectFault({
			path: '/dr/v1/business/patients/search',
			fault: {
				kind: 'status',
				status: 400,
				body: {
					...envelopeError(400, 'BAD_REQUEST', `no patient for ${echoed}`),
					message: `searched ${echoed}`,
				},
			},
		});
		const { context } = createExecuteContext({
			credentials: store,
			parameters: {
				resource: 'patient',
				operation: 'searchByMobile',
				mobile: '98765 43210',
				returnAll: true,
				simplify: false,
				options: {},
			},
		});
		const error = await caught(node.execute.call(context));
		const text = everythingOf(error);
		expect(text).toContain('no patient for [redacted]');
		expect(text.replace(/\D/g, '')).not.toContain('9876543210');
		expect(text).not.toContain('43210');
	});
});
