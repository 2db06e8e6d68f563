/**
 * A Signing Key the user chooses lives in the credential (encrypted by n8n), not in the workflow:
 * the trigger registers with it, keeps only a marker in the workflow's static data, and verifies
 * deliveries with it. Version 1 nodes that still carry the old node option keep working. Real HTTP
 * against the fake API for the registration.
 */
import type { IDataObject } from 'n8n-workflow';

import { ClinicScribeTrigger } from '../../../nodes/ClinicScribe/ClinicScribeTrigger.node';
import { useTestTransportPolicy } from '../../support/transportPolicy';
import { completionEventBody, fakeWebhooks, prepareDelivery } from '../../fake-api/routes/webhooks';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { recordAttack } from '../../support/attackLedger';
import { fakeApiCredentials, type CredentialStore } from '../../support/nodeContext';
import { createHookContext, createWebhookContext } from '../../support/triggerContext';

const trigger = new ClinicScribeTrigger();
const hooks = trigger.webhookMethods.default;
const WEBHOOK_URL = 'http://127.0.0.1:5678/webhook/6f1c2b52/webhook';
const CREDENTIAL_KEY = 'credential-held-signing-key-4f0b7c2e91';
const LEGACY_KEY = 'legacy-node-option-key-77aa';

let api: FakeClinicApi;

beforeAll(async () => {
	api = await startFakeClinicApi();
	useTestTransportPolicy({ retry: { baseDelayMs: 10 } });
});
afterAll(async () => await api.close());
beforeEach(() => {
	api.reset();
	fakeWebhooks(api).clear();
});

async function activate(
	store: CredentialStore,
	staticData: IDataObject,
	parameters: Record<string, unknown>,
): Promise<void> {
	const { context } = createHookContext({
		credentials: store,
		webhookUrl: WEBHOOK_URL,
		staticData,
		parameters,
	});
	if (!(await hooks.checkExists.call(context))) await hooks.create.call(context);
}

async function deliverSignedWith(
	key: string,
	store: CredentialStore,
	staticData: IDataObject,
	parameters: Record<string, unknown>,
) {
	const { raw, headers } = prepareDelivery(
		{ signing_key: key },
		completionEventBody({ transactionId: `visit-${key.slice(0, 6)}-${Math.random()}` }),
		undefined,
	);
	const lower: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
	const ctx = createWebhookContext({
		request: { headers: lower, rawBody: Buffer.from(raw) },
		staticData: { ...staticData },
		parameters,
		credentials: store,
	});
	const result = await trigger.webhook.call(ctx.context);
	return { status: ctx.response.status ?? 200, started: (result.workflowData?.[0] ?? []).length };
}

it('a key in the credential is registered, verified with, and never written into the workflow', async () => {
	const store = fakeApiCredentials(api.url, api.validCredentials, {
		webhookSigningSecret: CREDENTIAL_KEY,
	});
	const staticData: IDataObject = {};
	await activate(store, staticData, {});

	const [subscription] = fakeWebhooks(api).subscriptions();
	expect(subscription.signing_key).toBe(CREDENTIAL_KEY);
	expect(staticData).toEqual({
		subscriptionId: subscription.id,
		signingKeyInCredential: true,
		endpoint: WEBHOOK_URL,
		eventNames: ['v2rx.completed'],
	});
	const inWorkflow = JSON.stringify(staticData).includes(CREDENTIAL_KEY) ? 1 : 0;
	expect(inWorkflow).toBe(0);

	expect(await deliverSignedWith(CREDENTIAL_KEY, store, staticData, {})).toEqual({
		status: 200,
		started: 1,
	});
	expect(await deliverSignedWith('some-other-key-entirely', store, staticData, {})).toEqual({
		status: 401,
		started: 0,
	});
	// n8n's older activation mode checks again at every start: the subscription is kept.
	await activate(store, staticData, {});
	expect(fakeWebhooks(api).subscriptions()).toHaveLength(1);
	recordAttack(
		'signing-key-in-credential',
		'registered and verified with the credential key; workflow holds a marker only',
		{ secretsSeen: inWorkflow },
	);
});

it('a version 1 node with the old Signing Key option keeps working', async () => {
	const store = fakeApiCredentials(api.url, api.validCredentials);
	const staticData: IDataObject = {};
	const parameters = { options: { signingKey: LEGACY_KEY } };
	await activate(store, staticData, parameters);
	expect(fakeWebhooks(api).subscriptions()[0].signing_key).toBe(LEGACY_KEY);
	expect(await deliverSignedWith(LEGACY_KEY, store, staticData, parameters)).toEqual({
		status: 200,
		started: 1,
	});
});

it('the credential key wins over the old node option', async () => {
	const store = fakeApiCredentials(api.url, api.validCredentials, {
		webhookSigningSecret: CREDENTIAL_KEY,
	});
	const staticData: IDataObject = {};
	await activate(store, staticData, { options: { signingKey: LEGACY_KEY } });
	expect(fakeWebhooks(api).subscriptions()[0].signing_key).toBe(CREDENTIAL_KEY);
	expect(staticData.signingKey).toBeUndefined();
});

it('without any chosen key a strong key is generated per activation and kept in static data, as before', async () => {
	const store = fakeApiCredentials(api.url, api.validCredentials);
	const staticData: IDataObject = {};
	await activate(store, staticData, {});
	expect(staticData.signingKey).toMatch(/^[0-9a-f]{64}$/);
	expect(staticData.signingKeyInCredential).toBeUndefined();
});
