import {
	chosenEventNames,
	isChosenEvent,
	normalizeCompletionEvent,
	toIsoTimestamp,
} from '../../../nodes/ClinicScribe/trigger/completionEvents';
import { completionEventBody } from '../../fake-api/routes/webhooks';

const NOW = new Date('2026-03-04T05:06:07.000Z');

describe('normalizeCompletionEvent', () => {
	it('reads the flat shape of document §6', () => {
		const body = completionEventBody({ shape: 'flat', transactionId: 'txn-flat-1', now: NOW });
		expect(normalizeCompletionEvent(body)).toEqual({
			event: 'v2rx.completed',
			transactionId: 'txn-flat-1',
			sessionId: 'txn-flat-1',
			status: 'completed',
			timestamp: '2026-03-04T05:06:07.000Z',
			shape: 'flat',
			body,
		});
	});

	it('reads the envelope shape into the same fields', () => {
		const body = completionEventBody({ shape: 'envelope', transactionId: 'txn-env-1', now: NOW });
		expect(normalizeCompletionEvent(body)).toEqual({
			event: 'v2rx.completed',
			transactionId: 'txn-env-1',
			sessionId: 'txn-env-1',
			status: 'completed',
			timestamp: '2026-03-04T05:06:07.000Z',
			shape: 'envelope',
			body,
		});
	});

	it('gives both shapes of one event the same normalised fields', () => {
		const pick = (shape: 'flat' | 'envelope') => {
			const {
				body: _body,
				shape: _shape,
				...fields
			} = normalizeCompletionEvent(completionEventBody({ shape, transactionId: 't-9', now: NOW }))!;
			return fields;
		};
		expect(pick('flat')).toEqual(pick('envelope'));
	});

	it('takes the event name in the documented order: event, event_id, payload.event, event_type', () => {
		expect(
			normalizeCompletionEvent({
				event: 'a',
				event_id: 'b',
				payload: { event: 'c' },
				event_type: 'd',
			})?.event,
		).toBe('a');
		expect(
			normalizeCompletionEvent({ event_id: 'b', payload: { event: 'c' }, event_type: 'd' })?.event,
		).toBe('b');
		expect(normalizeCompletionEvent({ payload: { event: 'c' }, event_type: 'd' })?.event).toBe('c');
		expect(normalizeCompletionEvent({ event_type: 'd' })?.event).toBe('d');
	});

	it('takes the transaction id in the documented order and falls back to the session id', () => {
		expect(
			normalizeCompletionEvent({
				event: 'e',
				data: { transaction_id: '1', session_id: 's' },
				payload: { transaction_id: '2' },
				transaction_id: '3',
			})?.transactionId,
		).toBe('1');
		expect(
			normalizeCompletionEvent({
				event: 'e',
				payload: { transaction_id: '2' },
				transaction_id: '3',
			})?.transactionId,
		).toBe('2');
		expect(normalizeCompletionEvent({ event: 'e', transaction_id: '3' })?.transactionId).toBe('3');
		expect(normalizeCompletionEvent({ event: 'e', data: { session_id: 's4' } })).toMatchObject({
			transactionId: 's4',
			sessionId: 's4',
		});
		expect(normalizeCompletionEvent({ event: 'e', session_id: 's5' })).toMatchObject({
			transactionId: 's5',
			sessionId: 's5',
		});
		expect(normalizeCompletionEvent({ event: 'e' })).toMatchObject({
			transactionId: null,
			sessionId: null,
			status: null,
			timestamp: null,
		});
	});

	it('keeps a session id that differs from the transaction id', () => {
		expect(
			normalizeCompletionEvent({
				event: 'v2rx.completed',
				data: { transaction_id: 't', session_id: 's' },
			}),
		).toMatchObject({ transactionId: 't', sessionId: 's' });
	});

	it('returns undefined for a body that is no event', () => {
		for (const body of [
			undefined,
			null,
			'text',
			42,
			[],
			{},
			{ data: { transaction_id: 't' } },
			{ event: '' },
			{ event: { name: 'x' } },
		]) {
			expect(normalizeCompletionEvent(body)).toBeUndefined();
		}
	});
});

describe('toIsoTimestamp', () => {
	it('reads ISO strings, unix seconds and milliseconds, as numbers or digit strings', () => {
		expect(toIsoTimestamp('2026-03-04T05:06:07Z')).toBe('2026-03-04T05:06:07.000Z');
		expect(toIsoTimestamp(1772600767)).toBe('2026-03-04T05:06:07.000Z');
		expect(toIsoTimestamp('1772600767')).toBe('2026-03-04T05:06:07.000Z');
		expect(toIsoTimestamp(1772600767000)).toBe('2026-03-04T05:06:07.000Z');
		expect(toIsoTimestamp('not a date')).toBe('not a date');
		expect(toIsoTimestamp(undefined)).toBeNull();
		expect(toIsoTimestamp('')).toBeNull();
	});
});

describe('chosen events', () => {
	it('joins the chosen names and the free-text extra names, without duplicates', () => {
		expect(chosenEventNames(['v2rx.completed'], '')).toEqual(['v2rx.completed']);
		expect(
			chosenEventNames(['v2rx.completed'], 'v2rx.failed, v2rx.completed  other.event'),
		).toEqual(['v2rx.completed', 'v2rx.failed', 'other.event']);
		expect(chosenEventNames('v2rx.completed', undefined)).toEqual(['v2rx.completed']);
		expect(chosenEventNames([], undefined)).toEqual([]);
	});
	it('drops events not chosen', () => {
		const event = normalizeCompletionEvent({ event: 'v2rx.started' })!;
		expect(isChosenEvent(event, ['v2rx.completed'])).toBe(false);
		expect(isChosenEvent(event, ['v2rx.completed', 'v2rx.started'])).toBe(true);
	});
});
