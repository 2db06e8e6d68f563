/**
 * Attack: webhook deliveries that must start nothing: forged (wrong key, changed body, no or
 * malformed signature), stale (timestamp beyond the tolerance), replayed (the very same signed
 * delivery sent again) and oversized (refused unread). The trigger's webhook() as n8n calls it;
 * test/integration/trigger/lifecycle.test.ts and test/e2e/trigger.e2e.test.ts play forged ones over
 * real HTTP and in the real n8n.
 */
import type { IDataObject } from 'n8n-workflow';

import { ClinicScribeTrigger } from '../../../nodes/ClinicScribe/ClinicScribeTrigger.node';
import {
	MAX_DELIVERY_BYTES,
	signatureHeaderValue,
} from '../../../nodes/ClinicScribe/trigger/webhookSignature';
import { completionEventBody, prepareDelivery, type Forgery } from '../../fake-api/routes/webhooks';
import { recordAttack } from '../../support/attackLedger';
import { createWebhookContext } from '../../support/triggerContext';

const trigger = new ClinicScribeTrigger();
const KEY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const STORED: IDataObject = {
	subscriptionId: 'whs_1',
	signingKey: KEY,
	endpoint: 'http://127.0.0.1/webhook/x/webhook',
	eventNames: ['v2rx.completed'],
};

async function receive(request: { headers: Record<string, string>; rawBody: Buffer }) {
	const ctx = createWebhookContext({ request, staticData: { ...STORED }, parameters: {} });
	const result = await trigger.webhook.call(ctx.context);
	return { ...ctx, result };
}

function signed(transactionId: string, forgery?: Forgery) {
	const { raw, headers } = prepareDelivery(
		{ signing_key: KEY },
		completionEventBody({ transactionId }),
		forgery,
	);
	const lower: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
	return { headers: lower, rawBody: Buffer.from(raw, 'utf8') };
}

it.each<[string, Forgery]>([
	['forged-wrong-key', 'wrong-key'],
	['forged-changed-body', 'changed-body'],
	['forged-no-signature', 'no-header'],
	['forged-malformed-signature', 'malformed-header'],
	['stale', 'stale'],
])('%s: 401, nothing started, the secret in no log', async (row, forgery) => {
	const { result, response, logs } = await receive(signed(`visit-${row}`, forgery));
	expect(result).toEqual({ noWebhookResponse: true });
	expect(response.status).toBe(401);
	const logged = JSON.stringify(logs);
	expect(logged).not.toContain(KEY);
	recordAttack(`delivery-${row}`, '401, no execution', { secretsSeen: 0, itemsLost: 0 });
});

it('replayed: the same signed delivery sent again is acknowledged and starts nothing; the first started once', async () => {
	const delivery = signed('visit-replayed');
	const first = await receive(delivery);
	expect(first.result.workflowData).toHaveLength(1);
	const again = await receive(delivery);
	expect(again.result).toEqual({});
	expect(again.response.status).toBeUndefined();
	expect(again.logs.map((l) => l.message).join('\n')).toContain('signature replayed');
	// The same event signed afresh (a later timestamp, so a new signature) is the same delivery.
	const raw = delivery.rawBody.toString('utf8');
	const later = Math.floor(Date.now() / 1000) + 1;
	const resigned = await receive({
		headers: {
			...delivery.headers,
			'eka-webhook-signature': signatureHeaderValue(KEY, later, raw),
		},
		rawBody: delivery.rawBody,
	});
	expect(resigned.result).toEqual({});
	// A new event for the same visit (its own event time, so another body) starts the workflow.
	const eventTime = new Date(Date.parse(JSON.parse(raw).timestamp as string) + 1000);
	const newRaw = JSON.stringify(
		completionEventBody({ transactionId: 'visit-replayed', now: eventTime }),
	);
	const fresh = await receive({
		headers: {
			'content-type': 'application/json',
			'eka-webhook-signature': signatureHeaderValue(KEY, later, newRaw),
		},
		rawBody: Buffer.from(newRaw),
	});
	expect(fresh.result.workflowData).toHaveLength(1);
	recordAttack(
		'delivery-replayed',
		'replay acknowledged, no second execution; the original started once',
		{ secretsSeen: 0, itemsLost: 0 },
	);
});

it('oversized: refused with 413 before the signature is checked or the body used', async () => {
	const event = completionEventBody({ transactionId: 'visit-big' });
	const raw = JSON.stringify({ ...event, padding: 'x'.repeat(MAX_DELIVERY_BYTES) });
	const header = signatureHeaderValue(KEY, Math.floor(Date.now() / 1000), raw);
	const { result, response, logs } = await receive({
		headers: { 'content-type': 'application/json', 'eka-webhook-signature': header },
		rawBody: Buffer.from(raw),
	});
	expect(result).toEqual({ noWebhookResponse: true });
	expect(response.status).toBe(413);
	expect(logs.map((l) => l.message).join('\n')).toContain(`at most ${MAX_DELIVERY_BYTES}`);
	recordAttack('delivery-oversized', '413 unread, no execution', { secretsSeen: 0, itemsLost: 0 });
});

describe('one event, several receivers: each trigger runs once, its own replays run nothing', () => {
	const OTHER_KEY = '2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae';

	async function receiveAt(
		receiver: { workflowId: string; mode?: 'webhook' | 'manual' },
		key: string,
		request: { headers: Record<string, string>; rawBody: Buffer },
	) {
		const ctx = createWebhookContext({
			request,
			staticData: { ...STORED, signingKey: key },
			parameters: {},
			receiver,
		});
		return await trigger.webhook.call(ctx.context);
	}

	/** The same event body as the service sends it to a subscription holding `key`. */
	function signedWith(key: string, body: Record<string, unknown>) {
		const { raw, headers } = prepareDelivery({ signing_key: key }, body, undefined);
		return {
			headers: Object.fromEntries(
				Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
			),
			rawBody: Buffer.from(raw, 'utf8'),
		};
	}

	it.each([
		['their own keys', KEY, OTHER_KEY],
		// A key kept in the credential and used by both: even the signatures are the same.
		['one key in their shared credential', KEY, KEY],
	])(
		'two published workflows on v2rx.completed (%s): each runs once; a replay to either runs nothing',
		async (_case, keyA, keyB) => {
			const body = completionEventBody({
				transactionId: `visit-two-workflows-${keyB.slice(0, 4)}`,
			});
			const a = { workflowId: 'wf-reminder' };
			const b = { workflowId: 'wf-ehr-write' };
			const first = [
				await receiveAt(a, keyA, signedWith(keyA, body)),
				await receiveAt(b, keyB, signedWith(keyB, body)),
			];
			expect(first.map((result) => result.workflowData?.[0].length)).toEqual([1, 1]);
			const replays = [
				await receiveAt(a, keyA, signedWith(keyA, body)),
				await receiveAt(b, keyB, signedWith(keyB, body)),
			];
			expect(replays).toEqual([{}, {}]);
			recordAttack(
				`delivery-two-workflows-${keyA === keyB ? 'shared-key' : 'own-keys'}`,
				'one event to two published workflows: one run each; replays to either acknowledged, no run',
				{ secretsSeen: 0, itemsLost: 0 },
			);
		},
	);

	it('a published workflow and "Listen for test event" on it: the production run and the test run each get the event once', async () => {
		const body = completionEventBody({ transactionId: 'visit-test-listener' });
		const production = { workflowId: 'wf-published', mode: 'webhook' as const };
		const test = { workflowId: 'wf-published', mode: 'manual' as const };
		const results = [
			await receiveAt(production, KEY, signedWith(KEY, body)),
			await receiveAt(test, OTHER_KEY, signedWith(OTHER_KEY, body)),
		];
		expect(results.map((result) => result.workflowData?.[0].length)).toEqual([1, 1]);
		expect([
			await receiveAt(production, KEY, signedWith(KEY, body)),
			await receiveAt(test, OTHER_KEY, signedWith(OTHER_KEY, body)),
		]).toEqual([{}, {}]);
		recordAttack(
			'delivery-test-listener-beside-published',
			'published + test listener on one workflow: one production run, one test run; replays to either no run',
			{ secretsSeen: 0, itemsLost: 0 },
		);
	});
});
