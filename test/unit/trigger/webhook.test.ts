/**
 * webhook(): the signature is checked before anything else, failures answer 401 and start nothing,
 * events not chosen are acknowledged and dropped, both shapes come out as one, no static data is
 * written, and nothing of the body reaches the log.
 */
import type { IDataObject } from 'n8n-workflow';

import { ClinicScribeTrigger } from '../../../nodes/ClinicScribe/ClinicScribeTrigger.node';
import {
	completionEventBody,
	prepareDelivery,
	type EventShape,
	type Forgery,
} from '../../fake-api/routes/webhooks';
import { createWebhookContext } from '../../support/triggerContext';

const trigger = new ClinicScribeTrigger();
const KEY = '5d41402abc4b2a76b9719d911017c592aa6d2b6f0c1f2e3d4c5b6a7980716253';
const STORED: IDataObject = {
	subscriptionId: 'whs_1',
	signingKey: KEY,
	endpoint: 'http://127.0.0.1/webhook/x/webhook',
	eventNames: ['v2rx.completed'],
};

function delivery(
	options: {
		forgery?: Forgery;
		shape?: EventShape;
		event?: string;
		transactionId?: string;
		key?: string;
	} = {},
) {
	const body = completionEventBody({
		event: options.event,
		shape: options.shape,
		transactionId: options.transactionId ?? 'txn-PRIVATE-4711',
	});
	const { raw, headers } = prepareDelivery(
		{ signing_key: options.key ?? KEY },
		body,
		options.forgery,
	);
	const lower: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
	return { headers: lower, rawBody: Buffer.from(raw, 'utf8') };
}

async function receive(
	request: ReturnType<typeof delivery>,
	parameters: Record<string, unknown> = {},
	staticData: IDataObject = STORED,
) {
	const ctx = createWebhookContext({ request, staticData: { ...staticData }, parameters });
	const result = await trigger.webhook.call(ctx.context);
	return { ...ctx, result };
}

describe('webhook() signature check', () => {
	it('passes a correctly signed delivery to the workflow', async () => {
		const { result, response, staticDataWrites } = await receive(delivery());
		expect(response.status).toBeUndefined();
		expect(result.workflowData).toHaveLength(1);
		expect(result.workflowData![0]).toHaveLength(1);
		expect(staticDataWrites).toEqual([]);
	});

	it.each<[Forgery, string]>([
		['wrong-key', 'mismatch'],
		['stale', 'stale'],
		['no-header', 'missing'],
		['malformed-header', 'malformed'],
		['changed-body', 'mismatch'],
	])('answers 401 and starts nothing for a delivery with %s', async (forgery, reason) => {
		const { result, response, logs, staticDataWrites } = await receive(delivery({ forgery }));
		expect(result).toEqual({ noWebhookResponse: true });
		expect(response.status).toBe(401);
		expect(logs.map((l) => l.message).join('\n')).toContain(`signature ${reason}`);
		expect(staticDataWrites).toEqual([]);
	});

	it('rejects when the node holds no key (e.g. static data lost), rather than trusting the delivery', async () => {
		const { result, response } = await receive(delivery(), {}, {});
		expect(result).toEqual({ noWebhookResponse: true });
		expect(response.status).toBe(401);
	});

	it('honours a shorter timestamp tolerance', async () => {
		const request = delivery();
		const header = request.headers['eka-webhook-signature'];
		const t = Number(/t=(\d+)/.exec(header)![1]);
		const old = prepareDelivery(
			{ signing_key: KEY },
			JSON.parse(request.rawBody.toString()) as Record<string, unknown>,
			'stale',
			{ staleSeconds: 120, nowSeconds: t },
		);
		const oldRequest = {
			headers: {
				'content-type': 'application/json',
				'eka-webhook-signature': old.headers['Eka-Webhook-Signature'],
			},
			rawBody: Buffer.from(old.raw),
		};
		expect((await receive(oldRequest)).result.workflowData).toBeDefined(); // 120 s < default 300 s
		expect((await receive(oldRequest, { options: { toleranceSeconds: 60 } })).response.status).toBe(
			401,
		);
	});

	it('accepts unsigned and forged deliveries when verification is switched off', async () => {
		for (const forgery of ['no-header', 'wrong-key'] as const) {
			const { result, response } = await receive(delivery({ forgery }), { verifySignature: false });
			expect(response.status).toBeUndefined();
			expect(result.workflowData![0]).toHaveLength(1);
		}
	});

	it('never logs anything of the body', async () => {
		const all = [
			await receive(delivery({ forgery: 'wrong-key' })),
			await receive(delivery()),
			await receive(delivery({ event: 'v2rx.other' })),
		];
		for (const { logs } of all) expect(JSON.stringify(logs)).not.toContain('PRIVATE');
	});
});

describe('webhook() output', () => {
	it.each<EventShape>(['flat', 'envelope'])('normalises the %s shape', async (shape) => {
		const request = delivery({ shape, transactionId: 'txn-77' });
		const { result } = await receive(request);
		const json = result.workflowData![0][0].json;
		expect(json).toMatchObject({
			event: 'v2rx.completed',
			transactionId: 'txn-77',
			sessionId: 'txn-77',
			status: 'completed',
			shape,
		});
		expect(json.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
		expect(json.body).toEqual(JSON.parse(request.rawBody.toString()) as unknown as IDataObject);
		expect(Object.keys(json).sort()).toEqual([
			'body',
			'event',
			'sessionId',
			'shape',
			'status',
			'timestamp',
			'transactionId',
		]);
	});

	it('acknowledges and drops events that were not chosen', async () => {
		const { result, response } = await receive(delivery({ event: 'v2rx.started' }));
		expect(result).toEqual({});
		expect(response.status).toBeUndefined();
	});

	it('passes events added under Additional Event Names', async () => {
		const { result } = await receive(delivery({ event: 'v2rx.started' }), {
			options: { additionalEventNames: 'v2rx.started' },
		});
		expect(result.workflowData![0][0].json.event).toBe('v2rx.started');
	});

	it('drops a signed body that is no event at all', async () => {
		const raw = JSON.stringify({ hello: 'world' });
		const signed = prepareDelivery(
			{ signing_key: KEY },
			JSON.parse(raw) as Record<string, unknown>,
			undefined,
		);
		const { result } = await receive({
			headers: {
				'content-type': 'application/json',
				'eka-webhook-signature': signed.headers['Eka-Webhook-Signature'],
			},
			rawBody: Buffer.from(signed.raw),
		});
		expect(result).toEqual({});
	});
});
