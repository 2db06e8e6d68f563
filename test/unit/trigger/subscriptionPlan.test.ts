import {
	canonicalEndpoint,
	decideExists,
	isEndpointAlreadyRegistered,
	protocolOf,
	sameEndpoint,
	signingKeyForNewSubscription,
	subscriptionsToRemove,
	type StoredSubscription,
	type WantedSubscription,
} from '../../../nodes/ClinicScribe/trigger/subscriptionPlan';
import type { RemoteSubscription } from '../../../nodes/ClinicScribe/transport/webhookApi';

const URL_A = 'https://n8n.example.com/webhook/abc/webhook';
const URL_OLD = 'https://old.example.com/webhook/abc/webhook';
const KEY = 'k'.repeat(64);
const EVENTS = ['v2rx.completed'];

const wanted = (extra: Partial<WantedSubscription> = {}): WantedSubscription => ({
	endpoint: URL_A,
	eventNames: EVENTS,
	...extra,
});
const remote = (id: string, extra: Partial<RemoteSubscription> = {}): RemoteSubscription => ({
	id,
	endpoint: URL_A,
	eventNames: EVENTS,
	signingKey: KEY,
	...extra,
});
const stored = (extra: Partial<StoredSubscription> = {}): StoredSubscription => ({
	subscriptionId: 's1',
	signingKey: KEY,
	endpoint: URL_A,
	eventNames: EVENTS,
	...extra,
});

describe('decideExists (n8n calls it at activation and, in the older mode, at every start)', () => {
	it('keeps the stored subscription when it is on the service, at our URL, with our events and key', () => {
		expect(
			decideExists(stored(), [remote('s1'), remote('other', { endpoint: URL_OLD })], wanted()),
		).toEqual({ kind: 'keep', id: 's1' });
	});

	it('keeps it even when the list hides or masks the key (the stored key is what counts)', () => {
		expect(decideExists(stored(), [remote('s1', { signingKey: undefined })], wanted())).toEqual({
			kind: 'keep',
			id: 's1',
		});
		expect(decideExists(stored(), [remote('s1', { signingKey: '****' })], wanted())).toEqual({
			kind: 'keep',
			id: 's1',
		});
	});

	it('replaces when the stored id is gone and nothing is at our URL', () => {
		expect(decideExists(stored(), [], wanted())).toMatchObject({
			kind: 'replace',
			reason: expect.stringMatching(/gone/),
		});
	});

	it('adopts the one subscription at our URL when the list shows the key we hold and our events', () => {
		expect(decideExists(stored(), [remote('s2')], wanted())).toEqual({
			kind: 'adopt',
			id: 's2',
			signingKey: KEY,
		});
		// Static data lost, but the user gave the key in the node.
		expect(decideExists({}, [remote('s3')], wanted({ userSigningKey: KEY }))).toEqual({
			kind: 'adopt',
			id: 's3',
			signingKey: KEY,
		});
	});

	it('replaces a subscription at our URL whose key it cannot know or that differs', () => {
		expect(
			decideExists(stored(), [remote('s2', { signingKey: undefined })], wanted()),
		).toMatchObject({ kind: 'replace' });
		expect(decideExists(stored(), [remote('s2', { signingKey: '****' })], wanted())).toMatchObject({
			kind: 'replace',
		});
		expect(decideExists({}, [remote('s2')], wanted())).toMatchObject({ kind: 'replace' });
		expect(
			decideExists(stored(), [remote('s2', { eventNames: ['other'] })], wanted()),
		).toMatchObject({ kind: 'replace' });
	});

	it('replaces when nothing is stored (first activation)', () => {
		expect(decideExists({}, [], wanted())).toMatchObject({
			kind: 'replace',
			reason: expect.stringMatching(/no subscription is stored/),
		});
	});

	it('replaces when the stored subscription points at another URL (WEBHOOK_URL changed)', () => {
		expect(decideExists(stored(), [remote('s1', { endpoint: URL_OLD })], wanted())).toMatchObject({
			kind: 'replace',
			reason: expect.stringMatching(/another URL/),
		});
	});

	it('replaces when the chosen events changed', () => {
		expect(
			decideExists(
				stored(),
				[remote('s1')],
				wanted({ eventNames: ['v2rx.completed', 'v2rx.failed'] }),
			),
		).toMatchObject({ kind: 'replace', reason: expect.stringMatching(/events/) });
	});

	it('replaces when the stored key is unknown, or the user changed the key in the node', () => {
		expect(decideExists(stored({ signingKey: undefined }), [remote('s1')], wanted())).toMatchObject(
			{ kind: 'replace' },
		);
		expect(
			decideExists(stored(), [remote('s1')], wanted({ userSigningKey: 'new-key' })),
		).toMatchObject({ kind: 'replace', reason: expect.stringMatching(/signing key/) });
		expect(decideExists(stored(), [remote('s1')], wanted({ userSigningKey: KEY }))).toEqual({
			kind: 'keep',
			id: 's1',
		});
	});

	it('replaces when a second subscription also points at our URL (it would double every delivery)', () => {
		expect(decideExists(stored(), [remote('s1'), remote('s9')], wanted())).toMatchObject({
			kind: 'replace',
			reason: expect.stringMatching(/more than one/),
		});
	});

	it('never keeps a subscription it does not hold the key of, over many random situations', () => {
		const keys = [KEY, 'other-key', undefined, '****'];
		const urls = [URL_A, URL_OLD, `${URL_A}/`];
		for (let i = 0; i < 500; i++) {
			const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)];
			const list = Array.from({ length: Math.floor(Math.random() * 3) }, (_, n) =>
				remote(`s${n}`, { endpoint: pick(urls), signingKey: pick(keys) }),
			);
			const st =
				Math.random() < 0.5
					? {}
					: stored({
							subscriptionId: `s${Math.floor(Math.random() * 3)}`,
							signingKey: pick([KEY, undefined]),
						});
			const decision = decideExists(st, list, wanted());
			if (decision.kind === 'replace') continue;
			const chosen = list.find((s) => s.id === decision.id)!;
			expect(sameEndpoint(chosen.endpoint, URL_A)).toBe(true);
			expect(list.filter((s) => sameEndpoint(s.endpoint, URL_A))).toHaveLength(1);
			if (decision.kind === 'keep') expect(st.signingKey).toBe(KEY);
			else expect(chosen.signingKey).toBe(KEY);
		}
	});
});

describe('subscriptionsToRemove', () => {
	it('lists the stored id first, then everything at our URL, once each', () => {
		const list = [remote('s1'), remote('s2'), remote('s3', { endpoint: URL_OLD })];
		expect(subscriptionsToRemove(stored(), list, URL_A)).toEqual(['s1', 's2']);
		expect(subscriptionsToRemove(stored({ subscriptionId: 's3' }), list, URL_A)).toEqual([
			's3',
			's1',
			's2',
		]);
		expect(subscriptionsToRemove({}, list, URL_A)).toEqual(['s1', 's2']);
		expect(subscriptionsToRemove(stored(), undefined, URL_A)).toEqual(['s1']);
		expect(subscriptionsToRemove({}, [], URL_A)).toEqual([]);
	});
});

describe('signingKeyForNewSubscription', () => {
	const generate = jest.fn(() => 'generated');
	beforeEach(() => generate.mockClear());
	it("prefers the user's key, then the key already held, then a new one", () => {
		expect(
			signingKeyForNewSubscription(stored(), wanted({ userSigningKey: 'mine' }), generate),
		).toBe('mine');
		expect(signingKeyForNewSubscription(stored(), wanted(), generate)).toBe(KEY);
		expect(generate).not.toHaveBeenCalled();
		expect(signingKeyForNewSubscription({}, wanted(), generate)).toBe('generated');
		expect(generate).toHaveBeenCalledTimes(1);
	});
});

describe('URLs and answers', () => {
	it('takes the protocol from the URL', () => {
		expect(protocolOf('https://a/b')).toBe('https');
		expect(protocolOf('HTTP://a/b')).toBe('http');
	});
	it('compares URLs ignoring host case, default port and trailing slash, but not path case or query', () => {
		expect(
			sameEndpoint('https://N8N.example.com:443/webhook/x/', 'https://n8n.example.com/webhook/x'),
		).toBe(true);
		expect(sameEndpoint('http://127.0.0.1:5678/webhook/x', 'http://127.0.0.1:5679/webhook/x')).toBe(
			false,
		);
		expect(sameEndpoint('https://a/webhook/X', 'https://a/webhook/x')).toBe(false);
		expect(sameEndpoint('https://a/w?x=1', 'https://a/w?x=2')).toBe(false);
		expect(canonicalEndpoint('not a url/')).toBe('not a url');
	});
	it('recognises "requested endpoint is already registered"', () => {
		expect(isEndpointAlreadyRegistered(400, 'requested endpoint is already registered')).toBe(true);
		expect(isEndpointAlreadyRegistered(409, 'Endpoint already  registered')).toBe(true);
		expect(isEndpointAlreadyRegistered(400, 'Field endpoint must be an absolute URL')).toBe(false);
		expect(isEndpointAlreadyRegistered(500, 'already registered')).toBe(false);
		expect(isEndpointAlreadyRegistered(400, undefined)).toBe(false);
	});
});
