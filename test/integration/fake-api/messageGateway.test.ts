/**
 * The fake messaging gateway `npm start` points the appointment reminder example at: it accepts
 * what the example sends, refuses anything else, and records what arrived.
 */
import { fakeMessages, MESSAGES_PATH } from '../../fake-api/routes/messageGateway';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { call, postJson } from './helpers';

let api: FakeClinicApi;
beforeAll(async () => {
	api = await startFakeClinicApi();
});
afterAll(() => api.close());
beforeEach(() => {
	api.reset();
	fakeMessages(api).clear();
});

test('a message with appointment_id, text and channel is answered 201, recorded and listed', async () => {
	const message = {
		channel: 'whatsapp',
		appointment_id: 'appt-1',
		patient_id: 'p-1',
		text: 'Reminder',
	};
	const first = await postJson(api, MESSAGES_PATH, message);
	expect(first.status).toBe(201);
	expect(first.json).toEqual({
		id: expect.stringMatching(/^msg_[0-9a-f]{16}$/),
		appointment_id: 'appt-1',
		received_at: expect.any(String),
		duplicate: false,
	});
	const again = await postJson(api, MESSAGES_PATH, { ...message, channel: 'sms' });
	expect(again.json).toMatchObject({ appointment_id: 'appt-1', duplicate: true });
	const listed = await call(api, '/__admin/messages');
	expect(listed.json).toEqual([
		{ ...first.json, body: message },
		{ ...again.json, body: { ...message, channel: 'sms' } },
	]);
	expect(fakeMessages(api).messages()).toEqual(listed.json);
	expect((await postJson(api, '/__admin/messages/clear', {})).json).toEqual({ ok: true });
	expect(fakeMessages(api).messages()).toEqual([]);
});

test.each([
	[
		'no appointment_id',
		{ channel: 'sms', text: 'x' },
		'Field appointment_id must be a non-empty string',
	],
	[
		'an empty text',
		{ channel: 'sms', appointment_id: 'a', text: ' ' },
		'Field text must be a non-empty string',
	],
	[
		'an unknown channel',
		{ channel: 'pigeon', appointment_id: 'a', text: 'x' },
		'Field channel must be whatsapp or sms',
	],
])('refuses %s with 400, records nothing', async (_what, body, message) => {
	const answer = await postJson(api, MESSAGES_PATH, body);
	expect([answer.status, answer.json]).toEqual([
		400,
		{ error: { message, code: 'INVALID_REQUEST' } },
	]);
	expect(fakeMessages(api).messages()).toEqual([]);
});

test('refuses a body that is not JSON with 415', async () => {
	const answer = await call(api, MESSAGES_PATH, {
		method: 'POST',
		headers: { 'content-type': 'text/plain' },
		body: 'x',
	});
	expect(answer.status).toBe(415);
	expect(fakeMessages(api).messages()).toEqual([]);
});
