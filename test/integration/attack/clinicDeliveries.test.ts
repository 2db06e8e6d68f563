/**
 * Attack: clinic event deliveries (appointments, prescriptions, receipts) that must start nothing:
 * forged (wrong key, changed body, no signature) and replayed (the very same signed delivery sent
 * again), in every documented payload variant. The trigger's webhook() as n8n calls it;
 * test/integration/trigger/clinicEvents.test.ts and test/e2e/trigger.e2e.test.ts play them over real
 * HTTP and in the real n8n.
 */
import type { IDataObject } from 'n8n-workflow';

import { ClinicScribeTrigger } from '../../../nodes/ClinicScribe/ClinicScribeTrigger.node';
import { clinicEventSample, type ClinicSampleVariant } from '../../fake-api/clinicEventSamples';
import { prepareDelivery, type Forgery } from '../../fake-api/routes/webhooks';
import { recordAttack } from '../../support/attackLedger';
import { createWebhookContext } from '../../support/triggerContext';

const trigger = new ClinicScribeTrigger();
const KEY = '6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b';
const EVENTS = [
	'appointment.created',
	'appointment.statuschange',
	'appointment.updated',
	'prescription.created',
	'receipt.created',
];
const STORED: IDataObject = {
	subscriptionId: 'whs_2',
	signingKey: KEY,
	endpoint: 'http://127.0.0.1/webhook/y/webhook',
	eventNames: EVENTS,
};
const VARIANTS: ClinicSampleVariant[] = [
	'appointment-pw',
	'appointment-ws',
	'appointment-envelope',
	'prescription-pw',
	'prescription-ws',
	'receipt-ws',
	'receipt-pw',
];

async function receive(request: { headers: Record<string, string>; rawBody: Buffer }) {
	const ctx = createWebhookContext({
		request,
		staticData: { ...STORED },
		parameters: { events: EVENTS },
	});
	const result = await trigger.webhook.call(ctx.context);
	return { ...ctx, result };
}

function signed(variant: ClinicSampleVariant, forgery?: Forgery) {
	const { raw, headers } = prepareDelivery(
		{ signing_key: KEY },
		clinicEventSample(variant),
		forgery,
	);
	const lower: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
	return { headers: lower, rawBody: Buffer.from(raw, 'utf8') };
}

it('forged clinic events of every variant (wrong key, changed body, no signature): 401, nothing started, the key in no log', async () => {
	let refused = 0;
	for (const variant of VARIANTS) {
		for (const forgery of ['wrong-key', 'changed-body', 'no-header'] as const) {
			const { result, response, logs } = await receive(signed(variant, forgery));
			expect([variant, forgery, result, response.status]).toEqual([
				variant,
				forgery,
				{ noWebhookResponse: true },
				401,
			]);
			expect(JSON.stringify(logs)).not.toContain(KEY);
			refused++;
		}
	}
	expect(refused).toBe(VARIANTS.length * 3);
	recordAttack('delivery-clinic-forged', '401, no execution, for each variant of each family', {
		secretsSeen: 0,
		itemsLost: 0,
	});
});

it('replayed clinic events: the same signed delivery sent again is acknowledged and starts nothing; the first started once', async () => {
	for (const variant of VARIANTS) {
		const delivery = signed(variant);
		const first = await receive(delivery);
		expect([variant, first.result.workflowData?.[0]]).toEqual([
			variant,
			[{ json: expect.objectContaining({ kind: variant.split('-')[0] }) }],
		]);
		const again = await receive(delivery);
		expect([variant, again.result]).toEqual([variant, {}]);
		expect(again.logs.map((l) => l.message).join('\n')).toContain('signature replayed');
	}
	recordAttack(
		'delivery-clinic-replayed',
		'replay acknowledged, no second execution, for each variant of each family',
		{ secretsSeen: 0, itemsLost: 0 },
	);
});

it('re-delivered clinic events: the same body signed afresh (a later timestamp) is acknowledged and starts nothing; the first started once', async () => {
	// Bodies of their own (another time inside them), so the deliveries above do not count.
	const now = new Date(Date.now() - 90_000);
	const nowSeconds = Math.floor(Date.now() / 1000);
	for (const variant of VARIANTS) {
		const body = clinicEventSample(variant, { now });
		const lower = (headers: Record<string, string>) =>
			Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
		const earlier = prepareDelivery({ signing_key: KEY }, body, undefined, {
			nowSeconds: nowSeconds - 2,
		});
		const later = prepareDelivery({ signing_key: KEY }, body, undefined, { nowSeconds });
		expect(later.headers).not.toEqual(earlier.headers);
		const first = await receive({
			headers: lower(earlier.headers),
			rawBody: Buffer.from(earlier.raw, 'utf8'),
		});
		expect([variant, first.result.workflowData?.[0]]).toEqual([
			variant,
			[{ json: expect.objectContaining({ kind: variant.split('-')[0] }) }],
		]);
		const again = await receive({
			headers: lower(later.headers),
			rawBody: Buffer.from(later.raw, 'utf8'),
		});
		expect([variant, again.result]).toEqual([variant, {}]);
	}
	recordAttack(
		'delivery-clinic-redelivered',
		'same body signed afresh: acknowledged, no second execution, for each variant of each family',
		{ secretsSeen: 0, itemsLost: 0 },
	);
});

it('one clinic event to two published workflows and a test listener: each receiver runs it once; replays to any run nothing', async () => {
	const OTHER_KEY = 'd4735e3a265e16eee03f59718b9b5d03019c07d8b6c51f90da3a666eec13ab35';
	const receivers = [
		{ workflowId: 'wf-reminder', mode: 'webhook' as const, key: KEY },
		{ workflowId: 'wf-ehr', mode: 'webhook' as const, key: OTHER_KEY },
		{ workflowId: 'wf-reminder', mode: 'manual' as const, key: OTHER_KEY },
	];
	const now = new Date(Date.now() - 30_000);
	for (const variant of VARIANTS) {
		const body = clinicEventSample(variant, { now });
		const at = async (receiver: (typeof receivers)[number]) => {
			const { raw, headers } = prepareDelivery({ signing_key: receiver.key }, body, undefined);
			const request = {
				headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
				rawBody: Buffer.from(raw, 'utf8'),
			};
			const ctx = createWebhookContext({
				request,
				staticData: { ...STORED, signingKey: receiver.key },
				parameters: { events: EVENTS },
				receiver,
			});
			return await trigger.webhook.call(ctx.context);
		};
		const runs = [];
		for (const receiver of receivers) runs.push((await at(receiver)).workflowData?.[0].length);
		expect([variant, runs]).toEqual([variant, [1, 1, 1]]);
		const replays = [];
		for (const receiver of receivers) replays.push(await at(receiver));
		expect([variant, replays]).toEqual([variant, [{}, {}, {}]]);
	}
	recordAttack(
		'delivery-clinic-several-receivers',
		'each variant to two published workflows and a test listener: one run each; replays to any, none',
		{ secretsSeen: 0, itemsLost: 0 },
	);
});
