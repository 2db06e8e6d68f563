/**
 * The fake API's webhook subscriptions and deliveries are strict enough to prove the trigger: they
 * reject what the service notes say the service rejects, and sign deliveries as the service does.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';

import {
	fakeWebhooks,
	remoteFakeWebhooks,
	SUBSCRIPTIONS_PATH,
} from '../../fake-api/routes/webhooks';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { call, documentExchange } from '../fake-api/helpers';

let api: FakeClinicApi;
let token: string;
let receiver: Server;
let receiverUrl: string;
const received: Array<{ headers: IncomingMessage['headers']; raw: string }> = [];
let answerWith = 200;

beforeAll(async () => {
	api = await startFakeClinicApi();
	receiver = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			received.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
			res.writeHead(answerWith, { 'content-type': 'application/json' }).end('{"ok":true}');
		});
	});
	await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
	receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhook/abc/webhook`;
});
afterAll(async () => {
	await api.close();
	await new Promise((resolve) => receiver.close(resolve));
});
beforeEach(async () => {
	api.reset();
	fakeWebhooks(api).clear();
	received.length = 0;
	answerWith = 200;
	token = ((await documentExchange(api)).json as { access_token: string }).access_token;
});

const register = (body: unknown, headers: Record<string, string> = {}) =>
	call(api, SUBSCRIPTIONS_PATH, {
		method: 'POST',
		headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
		body: typeof body === 'string' ? body : JSON.stringify(body),
	});
const valid = () => ({
	event_names: ['v2rx.completed'],
	endpoint: receiverUrl,
	signing_key: 'secret-1',
	protocol: 'http',
});

describe('subscriptions API', () => {
	test('registers (201 {id, status}), lists with the key, deletes (200) and then 404', async () => {
		const created = await register(valid());
		expect(created.status).toBe(201);
		expect(created.json).toEqual({ id: expect.stringMatching(/^whs_/), status: 'success' });
		const list = await call(api, SUBSCRIPTIONS_PATH, {
			headers: { authorization: `Bearer ${token}` },
		});
		expect(list.json).toEqual({
			data: [
				{
					id: created.json.id,
					event_names: ['v2rx.completed'],
					endpoint: receiverUrl,
					signing_key: 'secret-1',
					protocol: 'http',
					created_at: expect.any(String),
				},
			],
		});
		const del = () =>
			call(api, `${SUBSCRIPTIONS_PATH}/${created.json.id}`, {
				method: 'DELETE',
				headers: { authorization: `Bearer ${token}` },
			});
		expect((await del()).status).toBe(200);
		expect((await del()).status).toBe(404);
		expect(fakeWebhooks(api).subscriptions()).toEqual([]);
	});

	test('refuses a second registration of the same endpoint with "requested endpoint is already registered"', async () => {
		expect((await register(valid())).status).toBe(201);
		const again = await register({ ...valid(), signing_key: 'other' });
		expect(again.status).toBe(400);
		expect(again.json).toEqual({
			error: {
				message: 'requested endpoint is already registered',
				code: 'ENDPOINT_ALREADY_REGISTERED',
			},
		});
		expect(fakeWebhooks(api).subscriptions()).toHaveLength(1);
	});

	test('needs a valid Bearer token; the raw auth header of /dr is not enough', async () => {
		expect((await register(valid(), { authorization: '' })).status).toBe(401);
		expect((await register(valid(), { authorization: 'Bearer nope' })).status).toBe(401);
		expect((await register(valid(), { authorization: '', auth: token })).status).toBe(401);
		expect((await call(api, SUBSCRIPTIONS_PATH)).status).toBe(401);
		api.expireAccessTokens();
		expect((await register(valid())).status).toBe(401);
		expect(fakeWebhooks(api).subscriptions()).toEqual([]);
	});

	test.each([
		['no JSON content type', 'text', 415],
		['not JSON', '{"event_names":', 400],
		['an unknown field', { ...valid(), extra: 1 }, 400],
		['no event_names', { endpoint: 'http://a/b', signing_key: 'k', protocol: 'http' }, 400],
		['empty event_names', { ...valid(), event_names: [] }, 400],
		['event_names not strings', { ...valid(), event_names: [1] }, 400],
		['a relative endpoint', { ...valid(), endpoint: '/webhook/x' }, 400],
		['a non-http endpoint', { ...valid(), endpoint: 'ftp://a/b', protocol: 'http' }, 400],
		['a signing_key that is no string', { ...valid(), signing_key: 5 }, 400],
		[
			'no protocol',
			{ event_names: ['v2rx.completed'], endpoint: 'http://a/b', signing_key: 'k' },
			400,
		],
		['a protocol other than the URL scheme', { ...valid(), protocol: 'https' }, 400],
	])('rejects a registration with %s', async (_what, body, status) => {
		const result =
			body === 'text'
				? await call(api, SUBSCRIPTIONS_PATH, {
						method: 'POST',
						headers: { 'content-type': 'text/plain', authorization: `Bearer ${token}` },
						body: JSON.stringify(valid()),
					})
				: await register(body);
		expect(result.status).toBe(status);
		expect(result.json.error.message).toEqual(expect.any(String));
		expect(fakeWebhooks(api).subscriptions()).toEqual([]);
	});
});

describe('deliveries', () => {
	test('signs each delivery with the subscription key over "<t>.<raw body>" and reports the receiver status', async () => {
		await register(valid());
		answerWith = 202;
		const report = await fakeWebhooks(api).deliver({ transactionId: 'txn-1' });
		expect(report.attempts).toEqual([
			expect.objectContaining({ endpoint: receiverUrl, status: 202 }),
		]);
		expect(received).toHaveLength(1);
		const header = String(received[0].headers['eka-webhook-signature']);
		const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header)!;
		expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(5);
		expect(v1).toBe(
			createHmac('sha256', 'secret-1').update(`${t}.${received[0].raw}`).digest('hex'),
		);
		expect(JSON.parse(received[0].raw)).toEqual(report.body);
		expect(report.body).toMatchObject({
			event: 'v2rx.completed',
			data: { transaction_id: 'txn-1', session_id: 'txn-1', status: 'completed' },
		});
	});

	test('sends the envelope shape when asked, only to subscriptions for the event, and duplicates on request', async () => {
		await register(valid());
		expect((await fakeWebhooks(api).deliver({ event: 'v2rx.other' })).attempts).toEqual([]);
		const report = await fakeWebhooks(api).deliver({
			shape: 'envelope',
			transactionId: 't2',
			times: 2,
		});
		expect(report.attempts).toHaveLength(2);
		expect(received.map((r) => r.raw)).toEqual([received[0].raw, received[0].raw]);
		expect(report.body).toMatchObject({
			event_id: 'v2rx.completed',
			payload: { transaction_id: 't2', event_time: expect.any(Number) },
		});
		expect(
			(await fakeWebhooks(api).deliver({ event: 'v2rx.other', ignoreEventNames: true })).attempts,
		).toHaveLength(1);
	});

	test('forges on request: no header, wrong key, stale, changed body', async () => {
		await register(valid());
		const verify = (r: (typeof received)[number]) => {
			const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(
				String(r.headers['eka-webhook-signature'] ?? ''),
			);
			if (!match) return 'no-header';
			if (Math.abs(Number(match[1]) - Date.now() / 1000) > 300) return 'stale';
			return createHmac('sha256', 'secret-1').update(`${match[1]}.${r.raw}`).digest('hex') ===
				match[2]
				? 'ok'
				: 'bad';
		};
		for (const [forgery, expected] of [
			['no-header', 'no-header'],
			['wrong-key', 'bad'],
			['stale', 'stale'],
			['changed-body', 'bad'],
			['malformed-header', 'no-header'],
		] as const) {
			received.length = 0;
			await fakeWebhooks(api).deliver({ forgery });
			expect([forgery, verify(received[0])]).toEqual([forgery, expected]);
			expect(() => JSON.parse(received[0].raw) as unknown).not.toThrow();
		}
	});

	test('a subscription registered without a key gets unsigned deliveries', async () => {
		await register({ ...valid(), signing_key: '' });
		await fakeWebhooks(api).deliver();
		expect(received[0].headers['eka-webhook-signature']).toBeUndefined();
	});

	test('reports an unreachable receiver as status null', async () => {
		fakeWebhooks(api).register({
			event_names: ['v2rx.completed'],
			endpoint: 'http://127.0.0.1:1/webhook/x',
			signing_key: 'k',
		});
		const report = await fakeWebhooks(api).deliver();
		expect(report.attempts[0]).toMatchObject({ status: null });
	});
});

describe('admin endpoints (for a fake API in another process)', () => {
	test('register, list, deliver, remove and clear over HTTP', async () => {
		const remote = remoteFakeWebhooks(api.url);
		const made = await remote.register({
			event_names: ['v2rx.completed'],
			endpoint: receiverUrl,
			signing_key: 'k2',
		});
		expect(await remote.subscriptions()).toEqual([
			expect.objectContaining({ id: made.id, signing_key: 'k2' }),
		]);
		const report = await remote.deliver({ shape: 'flat', forgery: 'stale', staleSeconds: 900 });
		expect(report.attempts).toEqual([expect.objectContaining({ status: 200, forgery: 'stale' })]);
		await expect(remote.deliver({ shape: 'odd' as never })).rejects.toThrow(/400.*shape/);
		await expect(
			remote.register({ event_names: ['v2rx.completed'], endpoint: receiverUrl }),
		).rejects.toThrow(/already registered/);
		expect(await remote.remove(made.id)).toBe(true);
		expect(await remote.remove(made.id)).toBe(false);
		await remote.register({ event_names: ['v2rx.completed'], endpoint: receiverUrl });
		await remote.clear();
		expect(await remote.subscriptions()).toEqual([]);
		// Admin calls are not recorded as API requests.
		expect(api.requestsTo('/__admin')).toEqual([]);
	});
});
