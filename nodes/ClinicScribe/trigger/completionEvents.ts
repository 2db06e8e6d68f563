/**
 * The `v2rx.completed` delivery has been documented in two shapes:
 *
 * - flat ([IFD §6]): `{event, data: {transaction_id, status, session_id}, timestamp}`
 * - envelope ([EKA-WH-SAMPLES]): `{business_id, client_id, service_id, event_id, payload: {service,
 *   event, event_time, transaction_id, data: {}}}`
 *
 * Both come out as one `CompletionEvent`. Pure: no n8n calls.
 */
import type { IDataObject } from 'n8n-workflow';

import { firstPresent, firstText, isRecord } from '../shared/values';

export const TRANSCRIPTION_COMPLETED = 'v2rx.completed';

export interface CompletionEvent {
	/** The event name, e.g. `v2rx.completed`. */
	event: string;
	/** Equals the `txn_id` given at upload. */
	transactionId: string | null;
	/** Used to fetch the results; equals the transaction id when the delivery does not say. */
	sessionId: string | null;
	/** `completed` for `v2rx.completed` (the service only sends it on success). */
	status: string | null;
	/** ISO 8601 UTC. */
	timestamp: string | null;
	/** Which documented shape arrived. */
	shape: 'flat' | 'envelope';
	/** The delivery as received (parsed JSON). */
	body: IDataObject;
}

/**
 * One shape for both documented payloads. Undefined when the body carries no event name at all
 * (not a delivery this node can route).
 */
export function normalizeCompletionEvent(body: unknown): CompletionEvent | undefined {
	if (!isRecord(body)) return undefined;
	const payload = isRecord(body.payload) ? body.payload : {};
	const data = isRecord(body.data) ? body.data : {};
	const payloadData = isRecord(payload.data) ? payload.data : {};

	// The flat shape's `event` [IFD §6], the envelope's `event_id` and `payload.event` [EKA-WH-SAMPLES], then `event_type`.
	const event = firstText(body.event, body.event_id, payload.event, body.event_type);
	if (event === undefined) return undefined;

	const transactionId =
		firstText(
			data.transaction_id,
			payload.transaction_id,
			body.transaction_id,
			payloadData.transaction_id,
			data.session_id,
			body.session_id,
		) ?? null;
	const sessionId =
		firstText(data.session_id, payloadData.session_id, payload.session_id, body.session_id) ??
		transactionId;
	const status =
		firstText(data.status, payloadData.status, payload.status, body.status) ??
		// The envelope carries no status; the service sends *.completed only for a finished transaction.
		(event.endsWith('.completed') ? 'completed' : null);
	const timestamp = toIsoTimestamp(
		firstPresent(
			body.timestamp,
			payload.event_time,
			payload.timestamp,
			body.event_time,
			data.timestamp,
		),
	);

	return {
		event,
		transactionId,
		sessionId,
		status,
		timestamp,
		shape: isRecord(body.payload) || body.event_id !== undefined ? 'envelope' : 'flat',
		body,
	};
}

/** The event names a node setting chose: known names plus free-text extra names, deduplicated. */
export function chosenEventNames(selected: unknown, extraNames: unknown): string[] {
	const names: string[] = [];
	const add = (value: unknown) => {
		if (typeof value !== 'string') return;
		const name = value.trim();
		if (name !== '' && !names.includes(name)) names.push(name);
	};
	if (Array.isArray(selected)) selected.forEach(add);
	else add(selected);
	if (typeof extraNames === 'string') extraNames.split(/[,\s]+/).forEach(add);
	else if (Array.isArray(extraNames)) extraNames.forEach(add);
	return names;
}

/** Whether an event was chosen (event names compare exactly, as the service sends them). */
export function isChosenEvent(event: CompletionEvent, chosen: readonly string[]): boolean {
	return chosen.includes(event.event);
}

/** Seconds or milliseconds since the epoch (number or digit string), or a date string → ISO 8601. */
export function toIsoTimestamp(value: unknown): string | null {
	if (typeof value === 'number' && Number.isFinite(value)) return fromEpoch(value);
	if (typeof value !== 'string') return null;
	const text = value.trim();
	if (text === '') return null;
	if (/^\d+(\.\d+)?$/.test(text)) return fromEpoch(Number(text));
	const parsed = Date.parse(text);
	return Number.isNaN(parsed) ? text : new Date(parsed).toISOString();
}

function fromEpoch(value: number): string | null {
	// Below 10^11 it can only be seconds (10^11 s is the year 5138; 10^11 ms is 1973).
	const ms = value < 1e11 ? value * 1000 : value;
	const date = new Date(ms);
	return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
