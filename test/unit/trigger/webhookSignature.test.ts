/**
 * The delivery signature check. Headers are made by the fake API's signer (test/fake-api), written
 * separately from the node's code, so a mistake on either side fails here.
 */
import { createHmac } from 'node:crypto';

import {
	computeSignature,
	DEFAULT_TOLERANCE_SECONDS,
	deliveryKeyOf,
	ReplayGuard,
	generateSigningKey,
	parseSignatureHeader,
	sameSecret,
	signatureHeaderValue,
	verifySignature,
	type SignatureCheckInput,
} from '../../../nodes/ClinicScribe/trigger/webhookSignature';
import { prepareDelivery, signBody } from '../../fake-api/routes/webhooks';

const KEY = 'a3f1c9e0b7d24c5e8f6a1b2c3d4e5f60718293a4b5c6d7e8f90123456789abcd';
const NOW = 1_767_225_600; // 2026-01-01T00:00:00Z
const BODY = JSON.stringify({
	event: 'v2rx.completed',
	data: { transaction_id: 'txn-1', status: 'completed', session_id: 'txn-1' },
	timestamp: '2026-01-01T00:00:00.000Z',
});

function check(overrides: Partial<SignatureCheckInput>) {
	return verifySignature({
		header: signBody(KEY, NOW, BODY),
		rawBody: Buffer.from(BODY, 'utf8'),
		signingKey: KEY,
		nowSeconds: NOW,
		toleranceSeconds: DEFAULT_TOLERANCE_SECONDS,
		...overrides,
	});
}

describe('verifySignature', () => {
	it('accepts the service signature over "<t>.<raw body>" with the registered key', () => {
		expect(check({})).toEqual({ valid: true });
		// Independent of both implementations: the HMAC written out here.
		const v1 = createHmac('sha256', KEY).update(`${NOW}.${BODY}`).digest('hex');
		expect(check({ header: `t=${NOW},v1=${v1}` })).toEqual({ valid: true });
	});

	it('rejects a signature made with another key', () => {
		expect(check({ header: signBody('another-key', NOW, BODY) })).toEqual({
			valid: false,
			reason: 'mismatch',
		});
		expect(check({ signingKey: `${KEY}0` })).toEqual({ valid: false, reason: 'mismatch' });
	});

	it('rejects a missing or empty header', () => {
		expect(check({ header: undefined })).toEqual({ valid: false, reason: 'missing' });
		expect(check({ header: '  ' })).toEqual({ valid: false, reason: 'missing' });
	});

	it('rejects a timestamp beyond the tolerance, in the past or the future, and accepts one at its edge', () => {
		expect(check({ header: signBody(KEY, NOW - 301, BODY) })).toEqual({
			valid: false,
			reason: 'stale',
		});
		expect(check({ header: signBody(KEY, NOW + 301, BODY) })).toEqual({
			valid: false,
			reason: 'stale',
		});
		expect(check({ header: signBody(KEY, NOW - 300, BODY) })).toEqual({ valid: true });
		expect(check({ header: signBody(KEY, NOW - 100, BODY), toleranceSeconds: 60 })).toEqual({
			valid: false,
			reason: 'stale',
		});
	});

	it('rejects a body with one byte changed after signing, wherever the byte is', () => {
		const raw = Buffer.from(BODY, 'utf8');
		for (const at of [0, 10, raw.length - 1]) {
			const changed = Buffer.from(raw);
			changed[at] = changed[at] ^ 0x01;
			expect(check({ rawBody: changed })).toEqual({ valid: false, reason: 'mismatch' });
		}
		// The fake's "changed-body" forgery: valid JSON, one character different.
		const forged = prepareDelivery(
			{ signing_key: KEY },
			JSON.parse(BODY) as Record<string, unknown>,
			'changed-body',
			{ nowSeconds: NOW },
		);
		expect(forged.raw).not.toBe(BODY);
		expect(
			check({ header: forged.headers['Eka-Webhook-Signature'], rawBody: Buffer.from(forged.raw) }),
		).toEqual({ valid: false, reason: 'mismatch' });
	});

	it('hashes the exact bytes: re-serialised JSON with other spacing does not verify', () => {
		const respaced = JSON.stringify(JSON.parse(BODY), null, 1);
		expect(check({ rawBody: Buffer.from(respaced) })).toEqual({ valid: false, reason: 'mismatch' });
	});

	it('rejects malformed headers and non-hex or short signatures without throwing', () => {
		for (const header of [
			'garbage',
			'v1=abc',
			`t=${NOW}`,
			`t=abc,v1=${'0'.repeat(64)}`,
			`t=${NOW},v1=zz`,
			`t=${NOW},v1=${'a'.repeat(63)}`,
		]) {
			const result = check({ header });
			expect(result.valid).toBe(false);
		}
		expect(check({ header: 'sha256=abc' })).toEqual({ valid: false, reason: 'malformed' });
		expect(check({ header: `t=${NOW},v1=${'a'.repeat(63)}` })).toEqual({
			valid: false,
			reason: 'mismatch',
		});
	});

	it('accepts any matching v1 when several are sent (key rotation), and a repeated header', () => {
		const good = signBody(KEY, NOW, BODY).split('v1=')[1];
		expect(check({ header: `t=${NOW},v1=${'0'.repeat(64)},v1=${good}` })).toEqual({ valid: true });
		expect(check({ header: [signBody(KEY, NOW, BODY), 'x'] })).toEqual({ valid: true });
	});

	it('cannot verify without a key or without the raw body', () => {
		expect(check({ signingKey: undefined })).toEqual({ valid: false, reason: 'no-secret' });
		expect(check({ signingKey: '' })).toEqual({ valid: false, reason: 'no-secret' });
		expect(check({ rawBody: undefined })).toEqual({ valid: false, reason: 'no-body' });
	});

	it('agrees with the fake API on the header format', () => {
		expect(signatureHeaderValue(KEY, NOW, BODY)).toBe(signBody(KEY, NOW, BODY));
		expect(computeSignature(KEY, NOW, Buffer.from(BODY))).toBe(
			computeSignature(KEY, String(NOW), BODY),
		);
	});
});

describe('parseSignatureHeader', () => {
	it('reads t and every v1, tolerating spaces and unknown parts', () => {
		expect(parseSignatureHeader(`t=${NOW}, v1=ab, v0=zz ,v1=cd`)).toEqual({
			timestampText: String(NOW),
			timestampSeconds: NOW,
			signatures: ['ab', 'cd'],
		});
		expect(parseSignatureHeader('v1=ab')).toBeUndefined();
		expect(parseSignatureHeader(`t=${NOW}`)).toBeUndefined();
		expect(parseSignatureHeader('t=-5,v1=ab')).toBeUndefined();
	});
});

describe('generateSigningKey and sameSecret', () => {
	it('makes 64 hex characters, different each time', () => {
		const keys = new Set(Array.from({ length: 50 }, () => generateSigningKey()));
		expect(keys.size).toBe(50);
		for (const key of keys) expect(key).toMatch(/^[0-9a-f]{64}$/);
	});
	it('compares secrets of any length', () => {
		expect(sameSecret('abc', 'abc')).toBe(true);
		expect(sameSecret('abc', 'abd')).toBe(false);
		expect(sameSecret('abc', 'abcd')).toBe(false);
	});
});

describe('the replay cache: keys by receiver and body, claims, copies in flight', () => {
	const production = { workflowId: 'wf-1', nodeId: 'node-1', mode: 'webhook' };
	const raw = Buffer.from(BODY, 'utf8');

	it('keys a delivery by its receiver and its body, not by its signature', () => {
		const key = deliveryKeyOf(production, raw, signBody(KEY, NOW, BODY));
		expect(deliveryKeyOf(production, raw, signBody(KEY, NOW + 5, BODY))).toBe(key);
		expect(deliveryKeyOf({ ...production, workflowId: 'wf-2' }, raw, undefined)).not.toBe(key);
		expect(deliveryKeyOf({ ...production, nodeId: 'node-2' }, raw, undefined)).not.toBe(key);
		expect(deliveryKeyOf({ ...production, mode: 'manual' }, raw, undefined)).not.toBe(key);
		expect(deliveryKeyOf(production, Buffer.from(`${BODY} `), undefined)).not.toBe(key);
		// Parts cannot run into one another: "a" + "b:c" is not "a:b" + "c".
		expect(
			deliveryKeyOf({ workflowId: 'a', nodeId: 'b:c', mode: 'webhook' }, raw, undefined),
		).not.toBe(deliveryKeyOf({ workflowId: 'a:b', nodeId: 'c', mode: 'webhook' }, raw, undefined));
		expect(deliveryKeyOf(production, undefined, undefined)).toBeUndefined();
	});

	it('a copy claimed while the first is handled is in flight and learns its outcome; after a run it is a replay', async () => {
		const guard = new ReplayGuard();
		const first = guard.claim('k', NOW, 300);
		expect(first.kind).toBe('claimed');
		const copy = guard.claim('k', NOW, 300);
		expect(copy.kind).toBe('in-flight');
		if (first.kind !== 'claimed' || copy.kind !== 'in-flight') throw new Error('unreachable');
		first.settle(true);
		await expect(copy.outcome).resolves.toBe(true);
		expect(guard.claim('k', NOW + 599, 300).kind).toBe('accepted');
		// Kept for twice the tolerance (the signed time may be ahead of ours by the tolerance), then forgotten.
		expect(guard.claim('k', NOW + 601, 300).kind).toBe('claimed');
	});

	it('a delivery that started nothing is forgotten: its copy learns so and may be handled, as may a later one', async () => {
		const guard = new ReplayGuard();
		const first = guard.claim('k', NOW, 300);
		const copy = guard.claim('k', NOW, 300);
		if (first.kind !== 'claimed' || copy.kind !== 'in-flight') throw new Error('unexpected claims');
		first.settle(false);
		await expect(copy.outcome).resolves.toBe(false);
		expect(guard.claim('k', NOW, 300).kind).toBe('claimed');
	});

	it('a delivery still being handled stays in flight past its time, and the cache stays bounded', () => {
		const guard = new ReplayGuard(3);
		expect(guard.claim('slow', NOW, 1).kind).toBe('claimed');
		expect(guard.claim('slow', NOW + 10, 1).kind).toBe('in-flight');
		for (const key of ['a', 'b', 'c', 'd']) {
			const claim = guard.claim(key, NOW + 10, 300);
			if (claim.kind === 'claimed') claim.settle(true);
		}
		// At most 3 entries: the oldest made room ('slow', then 'a'); the newest are remembered.
		expect(['b', 'c', 'd'].map((key) => guard.claim(key, NOW + 10, 300).kind)).toEqual([
			'accepted',
			'accepted',
			'accepted',
		]);
		expect(guard.claim('a', NOW + 10, 300).kind).toBe('claimed');
	});
});
