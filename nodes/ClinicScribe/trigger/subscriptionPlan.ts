/**
 * What the trigger's webhook lifecycle decides, as pure functions over plain data, so every
 * decision is unit-testable without n8n or HTTP.
 *
 * The invariant: after checkExists (+ create when it answers false), the service holds exactly one
 * subscription for this node's webhook URL, its events are the chosen ones, and the node knows its
 * signing key. n8n's older activation mode runs checkExists at every start of n8n, so a wrong
 * "false" would add a subscription per restart; a wrong "true" would leave the node unable to verify
 * deliveries. Hence:
 *
 * - keep:    the stored id is on the service, at our URL, with our events, alone at that URL, and we
 *            hold its key.
 * - adopt:   the stored id is gone, but the one subscription at our URL has our events and, as the
 *            list shows it, the very key we hold: take its id (no gap in deliveries).
 * - replace: anything else. create() then deletes the stored id and everything at our URL (a
 *            subscription whose key we cannot know is useless to us and would only cause duplicate
 *            deliveries) and registers a new one.
 */
import { sameSecret } from './webhookSignature';
import type { RemoteSubscription } from '../transport/webhookApi';

/** What the node keeps in the workflow's static data (`getWorkflowStaticData('node')`). */
export interface StoredSubscription {
	subscriptionId?: string;
	signingKey?: string;
	endpoint?: string;
	eventNames?: string[];
}

/** What the node's settings ask for now. */
export interface WantedSubscription {
	endpoint: string;
	eventNames: string[];
	/** A key the user typed in the node; when absent the node generates one. */
	userSigningKey?: string;
}

type ExistsDecision =
	| { kind: 'keep'; id: string }
	| { kind: 'adopt'; id: string; signingKey: string }
	| { kind: 'replace'; reason: string };

export function decideExists(
	stored: StoredSubscription,
	remote: readonly RemoteSubscription[],
	wanted: WantedSubscription,
): ExistsDecision {
	const heldKey = wanted.userSigningKey || stored.signingKey;
	if (
		wanted.userSigningKey &&
		stored.signingKey &&
		!sameSecret(wanted.userSigningKey, stored.signingKey)
	) {
		return { kind: 'replace', reason: 'the signing key in the node settings changed' };
	}
	const atOurUrl = remote.filter((s) => sameEndpoint(s.endpoint, wanted.endpoint));

	if (stored.subscriptionId) {
		const ours = remote.find((s) => s.id === stored.subscriptionId);
		if (!ours)
			return orAdopt(atOurUrl, wanted, heldKey, 'the stored subscription is gone from the service');
		if (!sameEndpoint(ours.endpoint, wanted.endpoint)) {
			return { kind: 'replace', reason: 'the stored subscription points at another URL' };
		}
		if (!sameEventNames(ours.eventNames, wanted.eventNames)) {
			return { kind: 'replace', reason: 'the chosen events changed' };
		}
		if (!stored.signingKey)
			return { kind: 'replace', reason: 'the signing key of the stored subscription is unknown' };
		if (atOurUrl.length > 1)
			return { kind: 'replace', reason: 'more than one subscription points at this URL' };
		return { kind: 'keep', id: ours.id };
	}
	return orAdopt(atOurUrl, wanted, heldKey, 'no subscription is stored for this node');
}

function orAdopt(
	atOurUrl: readonly RemoteSubscription[],
	wanted: WantedSubscription,
	heldKey: string | undefined,
	reason: string,
): ExistsDecision {
	if (atOurUrl.length === 0) return { kind: 'replace', reason };
	const [candidate] = atOurUrl;
	if (
		atOurUrl.length === 1 &&
		heldKey &&
		candidate.signingKey &&
		sameSecret(candidate.signingKey, heldKey) &&
		sameEventNames(candidate.eventNames, wanted.eventNames)
	) {
		return { kind: 'adopt', id: candidate.id, signingKey: heldKey };
	}
	return { kind: 'replace', reason: `${reason}, and the subscription at this URL cannot be used` };
}

/**
 * The subscriptions to delete before registering a new one (and on deactivation): the stored id,
 * wherever it points, and everything registered for our URL. Deduplicated, stored id first.
 */
export function subscriptionsToRemove(
	stored: StoredSubscription,
	remote: readonly RemoteSubscription[] | undefined,
	endpoint: string,
): string[] {
	const ids: string[] = [];
	if (stored.subscriptionId) ids.push(stored.subscriptionId);
	for (const subscription of remote ?? []) {
		if (sameEndpoint(subscription.endpoint, endpoint) && !ids.includes(subscription.id))
			ids.push(subscription.id);
	}
	return ids;
}

/** The secret for a new registration: the user's, else one already held, else a fresh one. */
export function signingKeyForNewSubscription(
	stored: StoredSubscription,
	wanted: WantedSubscription,
	generate: () => string,
): string {
	if (wanted.userSigningKey) return wanted.userSigningKey;
	// Re-registering with the key the node already holds keeps deliveries that are already on
	// their way verifiable; a deactivation clears it, so each activation still gets a fresh key.
	if (stored.signingKey) return stored.signingKey;
	return generate();
}

/** `protocol` of the registration body, from the URL ("https" or "http"). */
export function protocolOf(endpoint: string): string {
	const match = /^([a-z][a-z0-9+.-]*):/i.exec(endpoint.trim());
	return match ? match[1].toLowerCase() : 'https';
}

/** Same URL, ignoring the case of scheme and host, a default port and a trailing slash. */
export function sameEndpoint(a: string, b: string): boolean {
	return canonicalEndpoint(a) === canonicalEndpoint(b);
}

export function canonicalEndpoint(value: string): string {
	try {
		const url = new URL(value.trim());
		const defaultPort =
			(url.protocol === 'https:' && url.port === '443') ||
			(url.protocol === 'http:' && url.port === '80');
		const port = url.port && !defaultPort ? `:${url.port}` : '';
		const path = url.pathname.replace(/\/+$/, '');
		return `${url.protocol}//${url.hostname.toLowerCase()}${port}${path}${url.search}`;
	} catch {
		return value.trim().replace(/\/+$/, '');
	}
}

function sameEventNames(a: readonly string[], b: readonly string[]): boolean {
	const left = new Set(a);
	const right = new Set(b);
	return left.size === right.size && [...left].every((name) => right.has(name));
}

/** Whether a registration answer says the URL is taken ("requested endpoint is already registered"). */
export function isEndpointAlreadyRegistered(
	statusCode: number,
	message: string | undefined,
): boolean {
	return (statusCode === 400 || statusCode === 409) && /already\s+registered/i.test(message ?? '');
}
