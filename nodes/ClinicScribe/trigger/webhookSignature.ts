/**
 * The service's webhook signature ([EKA-WH] webhook-signature.mdx): header
 * `Eka-Webhook-Signature: t=<unix seconds>,v1=<hex>` with
 * `v1 = HMAC-SHA256(key = signing_key, message = "<t>.<raw request body>")`.
 *
 * Pure: no n8n, no clock of its own (the caller passes "now"), so every case is unit-testable.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Lower-case, as Node exposes incoming header names. */
export const SIGNATURE_HEADER = 'eka-webhook-signature';
/** The node's default tolerance for the signed timestamp ([EKA-WH]'s example rejects after 3 minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

/** A strong secret for a new subscription: 32 random bytes, hex (64 characters). */
export function generateSigningKey(): string {
	return randomBytes(32).toString('hex');
}

/** Hex HMAC-SHA256 of `<t>.<raw body>`, exactly as the service computes it. */
export function computeSignature(
	signingKey: string,
	timestampSeconds: number | string,
	rawBody: Buffer | string,
): string {
	const hmac = createHmac('sha256', signingKey);
	hmac.update(`${timestampSeconds}.`);
	hmac.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody);
	return hmac.digest('hex');
}

/** The full header value the service would send for this body at this time. */
export function signatureHeaderValue(
	signingKey: string,
	timestampSeconds: number,
	rawBody: Buffer | string,
): string {
	return `t=${timestampSeconds},v1=${computeSignature(signingKey, timestampSeconds, rawBody)}`;
}

interface ParsedSignatureHeader {
	/** The `t=` part as sent (digits only), so the HMAC covers exactly what was signed. */
	timestampText: string;
	timestampSeconds: number;
	/** Every `v1=` value (a sender rotating keys may send more than one). */
	signatures: string[];
}

/** Undefined when the header is not `t=<digits>` plus at least one `v1=<value>`. */
export function parseSignatureHeader(value: string): ParsedSignatureHeader | undefined {
	let timestampText: string | undefined;
	const signatures: string[] = [];
	for (const part of value.split(',')) {
		const at = part.indexOf('=');
		if (at <= 0) continue;
		const key = part.slice(0, at).trim();
		const item = part.slice(at + 1).trim();
		if (key === 't' && timestampText === undefined) timestampText = item;
		else if (key === 'v1' && item !== '') signatures.push(item);
	}
	if (timestampText === undefined || !/^\d{1,12}$/.test(timestampText) || signatures.length === 0)
		return undefined;
	return { timestampText, timestampSeconds: Number(timestampText), signatures };
}

type SignatureRejection =
	/** No signature header at all. */
	| 'missing'
	/** A header that is not `t=…,v1=…`. */
	| 'malformed'
	/** The signed timestamp is further from now than the tolerance (old replay, or a wrong clock). */
	| 'stale'
	/** No v1 value matches the body under our key (wrong key, or a body changed after signing). */
	| 'mismatch'
	/** The node holds no secret for this subscription, so nothing can be verified. */
	| 'no-secret'
	/** The request body was not available as raw bytes. */
	| 'no-body';

type SignatureCheck = { valid: true } | { valid: false; reason: SignatureRejection };

export interface SignatureCheckInput {
	/** The header as Node gives it (string, repeated header as array, or absent). */
	header: string | string[] | undefined;
	/** The exact bytes received. */
	rawBody: Buffer | undefined;
	signingKey: string | undefined;
	nowSeconds: number;
	toleranceSeconds: number;
}

/**
 * Checks one delivery. The HMAC is computed over the raw bytes received and compared in constant
 * time; the timestamp must be within the tolerance on either side of now.
 */
export function verifySignature(input: SignatureCheckInput): SignatureCheck {
	const header = Array.isArray(input.header) ? input.header[0] : input.header;
	if (header === undefined || header.trim() === '') return { valid: false, reason: 'missing' };
	if (!input.signingKey) return { valid: false, reason: 'no-secret' };
	if (!input.rawBody) return { valid: false, reason: 'no-body' };
	const parsed = parseSignatureHeader(header);
	if (!parsed) return { valid: false, reason: 'malformed' };
	if (Math.abs(input.nowSeconds - parsed.timestampSeconds) > input.toleranceSeconds) {
		return { valid: false, reason: 'stale' };
	}
	const expected = Buffer.from(
		computeSignature(input.signingKey, parsed.timestampText, input.rawBody),
		'hex',
	);
	let matched = false;
	for (const candidate of parsed.signatures) {
		// A value that is not 64 hex digits can never match; it is not compared at all.
		if (!HEX_SHA256.test(candidate)) continue;
		if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
	}
	return matched ? { valid: true } : { valid: false, reason: 'mismatch' };
}

/** Constant-time equality of two secrets (used to recognise a subscription holding our key). */
export function sameSecret(a: string, b: string): boolean {
	const left = Buffer.from(a, 'utf8');
	const right = Buffer.from(b, 'utf8');
	if (left.length !== right.length) return false;
	return timingSafeEqual(left, right);
}

/** A delivery larger than this is refused unread: completion events are a few kilobytes. */
export const MAX_DELIVERY_BYTES = 1024 * 1024;

/**
 * Which trigger received a delivery: the workflow, the trigger node, and n8n's mode (`webhook` for a
 * published workflow's production URL, `manual` for "Listen for test event"). n8n's webhook name is
 * `default` for both URLs, so it tells them apart no better than nothing and is not part of it.
 * Deliveries to different receivers never replay one another: every workflow that chose an event,
 * and a test listener beside the published workflow, each run once.
 */
export interface DeliveryReceiver {
	workflowId: string;
	nodeId: string;
	mode: string;
}

/**
 * What identifies one delivery for the replay cache: the receiver, and the SHA-256 of the body as
 * received (or the signature header when there is no body). Not the signature alone: the service (or
 * a replayer who holds a later signed copy) may send the same event again signed with a newer
 * timestamp, and that is the same event, which must not start the same workflow twice.
 */
export function deliveryKeyOf(
	receiver: DeliveryReceiver,
	rawBody: Buffer | undefined,
	signature: string | undefined,
): string | undefined {
	const content = rawBody
		? `body:${createHash('sha256').update(rawBody).digest('hex')}`
		: signature
			? `signature:${signature}`
			: undefined;
	if (content === undefined) return undefined;
	// JSON keeps the parts apart whatever characters an id holds.
	return JSON.stringify([receiver.workflowId, receiver.nodeId, receiver.mode, content]);
}

/**
 * What the replay cache says of a delivery it is asked to claim:
 * - `claimed`: new; the caller handles it and then says whether it started a run (`settle`);
 * - `accepted`: the same delivery already started a run (a replay, or the service delivering again);
 * - `in-flight`: a copy is being handled right now; `outcome` tells whether that copy started a run.
 */
type DeliveryClaim =
	| { kind: 'claimed'; settle: (started: boolean) => void }
	| { kind: 'accepted' }
	| { kind: 'in-flight'; outcome: Promise<boolean> };

interface ReplayEntry {
	/** Unix seconds after which the entry no longer counts. */
	until: number;
	/** Set while the delivery is being handled: resolves to whether it started a run. */
	pending?: Promise<boolean>;
}

/**
 * Remembers the deliveries accepted (by deliveryKeyOf), for as long as their timestamp is within the
 * tolerance, so the same delivery to the same trigger sent again (a replay, or a re-delivery) starts
 * nothing; and the ones being handled, so a copy arriving meanwhile is not acknowledged before the
 * first has started a run. A delivery that started nothing is forgotten, so it may come again. Per
 * process: in queue mode each webhook process keeps its own (a replay reaching another process is
 * still bounded by the timestamp tolerance).
 */
export class ReplayGuard {
	private readonly entries = new Map<string, ReplayEntry>();

	constructor(private readonly maxEntries = 10_000) {}

	claim(key: string, nowSeconds: number, toleranceSeconds: number): DeliveryClaim {
		const existing = this.entries.get(key);
		// One being handled counts however long it takes (its fetch is bounded); an accepted one until it expires.
		if (existing?.pending) return { kind: 'in-flight', outcome: existing.pending };
		if (existing && existing.until >= nowSeconds) return { kind: 'accepted' };
		this.prune(nowSeconds);
		let settled: (started: boolean) => void = () => undefined;
		// Its timestamp may be up to the tolerance ahead of us: kept until that has passed too.
		const entry: ReplayEntry = {
			until: nowSeconds + 2 * toleranceSeconds,
			pending: new Promise<boolean>((resolve) => (settled = resolve)),
		};
		this.entries.delete(key);
		this.entries.set(key, entry);
		return {
			kind: 'claimed',
			settle: (started) => {
				if (this.entries.get(key) === entry) {
					if (started) delete entry.pending;
					else this.entries.delete(key);
				}
				settled(started);
			},
		};
	}

	/** Oldest first (insertion order): the expired ones, and the oldest beyond the bound. */
	private prune(nowSeconds: number): void {
		for (const [key, entry] of this.entries) {
			if ((entry.until < nowSeconds && !entry.pending) || this.entries.size >= this.maxEntries)
				this.entries.delete(key);
			else break;
		}
	}
}
