/** The fake API's session routes themselves: strict on ids, file names, formats, sizes, bodies and states. */
import { createHash } from 'node:crypto';

import {
	fakeSessions,
	type FakeSessions,
} from '../../../fake-api/routes/transcription/sessionStore';
import { fakeTranscription, SESSIONS_PATH } from '../../../fake-api/routes/transcription';
import { startFakeClinicApi, type FakeClinicApi } from '../../../fake-api/server';
import { accessToken, call } from '../helpers';

let api: FakeClinicApi;
let sessions: FakeSessions;
let token: string;

beforeAll(async () => {
	api = await startFakeClinicApi();
	sessions = fakeSessions(api);
});
afterAll(() => api.close());
beforeEach(async () => {
	token = (await accessToken(api)).access;
	api.reset();
	sessions.reset();
	// Created sessions live in both stores (convert.ts makes them).
	fakeTranscription(api).reset();
});

const ID = 'fake-api-session-000001';
const json = (method: string, path: string, body: unknown) =>
	call(api, path, {
		method,
		headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
const upload = (
	name: string,
	bytes: Uint8Array,
	headers: Record<string, string> = {},
	sessionId = ID,
) =>
	call(api, `${SESSIONS_PATH}/${sessionId}/audio/${name}`, {
		method: 'POST',
		headers: { authorization: `Bearer ${token}`, ...headers },
		body: bytes as BodyInit,
	});
const create = (extra: Record<string, unknown> = {}) =>
	json('POST', SESSIONS_PATH, {
		session_id: ID,
		upload_type: 'single',
		templates: ['clinical_notes_template'],
		...extra,
	});

test('create: a client id of 16 to 32 characters, once; model and language hints checked', async () => {
	expect((await create({ session_id: 'short-id' })).json).toEqual({
		error: {
			code: 'invalid_session_id',
			message: 'session_id must be 16 to 32 letters, digits, _ or -',
		},
	});
	expect((await create({ model: 'huge' })).status).toBe(400);
	expect((await create({ language_hint: ['x'.repeat(21)] })).status).toBe(400);
	expect(
		(await create({ language_hint: ['en'], model: 'lite', session_mode: 'dictation' })).status,
	).toBe(201);
	expect((await create()).json).toEqual({
		error: { code: 'session_already_exists', message: `session ${ID} already exists` },
	});
	expect(sessions.sessions()).toHaveLength(1);
});

test('loseCreateAnswer: the create is carried out, then its answer is a 500 or a dropped connection; the repeat answers 409', async () => {
	sessions.loseCreateAnswer({ sessionId: ID, kind: 'status500' });
	expect((await create()).json).toEqual({
		error: { code: 'internal_error', message: 'upstream timed out' },
	});
	expect(sessions.session(ID)).toMatchObject({ state: 'created' });
	expect((await create()).status).toBe(409);
	sessions.reset();
	fakeTranscription(api).reset();
	sessions.loseCreateAnswer({ kind: 'drop' });
	await expect(create()).rejects.toThrow();
	expect(sessions.session(ID)).toMatchObject({ state: 'created' });
	expect(() => sessions.loseCreateAnswer({ kind: 'slow' as 'drop' })).toThrow(
		'kind must be status500 or drop',
	);
});

test('upload: raw bytes only, named <base>_<n>.<ext>, a known format, with Content-Length, at most 10 MB; length and SHA-256 recorded', async () => {
	await create();
	const bytes = new Uint8Array(1000).fill(7);
	expect((await upload('audio.wav', bytes)).json).toMatchObject({
		error: { code: 'invalid_file_name' },
	});
	expect((await upload('audio_0.flac', bytes)).json).toMatchObject({
		error: { code: 'invalid_audio_format', details: { provided_format: 'flac' } },
	});
	expect(
		(await upload('audio_0.wav', bytes, { 'content-type': 'multipart/form-data; boundary=x' }))
			.status,
	).toBe(400);
	expect(
		(
			await call(api, `${SESSIONS_PATH}/${ID}/audio/audio_0.wav`, {
				method: 'POST',
				body: bytes as BodyInit,
			})
		).status,
	).toBe(401);
	sessions.setOptions({ maxSingleUploadBytes: 999 });
	expect((await upload('audio_0.wav', bytes)).json).toMatchObject({
		error: { code: 'payload_too_large' },
	});
	expect(sessions.rejected().find((r) => r.code === 'payload_too_large')?.bytesRead).toBe(0);
	sessions.setOptions({ maxSingleUploadBytes: 10_000_000 });
	expect((await upload('audio_0.wav', bytes, { 'content-type': 'audio/wav' })).json).toEqual({
		session_id: ID,
		success: true,
		original_filename: 'audio_0.wav',
	});
	// A repeat replaces the file stored under its number.
	expect((await upload('chunk_0.wav', bytes)).status).toBe(200);
	expect(
		sessions.session(ID)!.uploads.map((u) => [u.fileName, u.storedAs, u.size, u.sha256]),
	).toEqual([['chunk_0.wav', '0.wav', 1000, createHash('sha256').update(bytes).digest('hex')]]);
	expect((await upload('audio_0.wav', bytes, {}, 'no-such-session-000001')).status).toBe(404);
});

test('upload: a Content-Type, when sent, is one the docs list (audio/mp3, not audio/mpeg) or a generic one; the extension tells the format', async () => {
	await create();
	const bytes = new Uint8Array(100).fill(1);
	for (const listed of [
		'audio/webm;codecs=opus',
		'audio/webm; codecs=opus',
		'audio/mp3',
		'audio/wav',
		'audio/ogg',
		'audio/m4a',
		'audio/mp4',
		'application/octet-stream',
	]) {
		expect([
			listed,
			(await upload('audio_0.ogg', bytes, { 'content-type': listed })).status,
		]).toEqual([listed, 200]);
	}
	for (const unlisted of ['audio/mpeg', 'audio/webm', 'audio/opus', 'text/plain']) {
		expect((await upload('audio_0.ogg', bytes, { 'content-type': unlisted })).json).toEqual({
			error: {
				code: 'invalid_audio_format',
				message: `Audio format '${unlisted}' is not supported`,
			},
		});
	}
	// Voice notes' own extensions are not among the formats: a client must name them .ogg.
	for (const name of ['audio_0.opus', 'audio_0.oga']) {
		expect((await upload(name, bytes, { 'content-type': 'audio/ogg' })).json).toMatchObject({
			error: { code: 'invalid_audio_format' },
		});
	}
});

test('end: 202 once with the files counted, then 400 already ended; no uploads after End; the states as scripted', async () => {
	await create();
	expect((await json('POST', `${SESSIONS_PATH}/${ID}/end`, {})).json).toMatchObject({
		error: { code: 'no_audio' },
	});
	await upload('audio_0.mp3', new Uint8Array(10));
	expect(
		(await json('POST', `${SESSIONS_PATH}/${ID}/end`, { audio_files_sent: 2 })).json,
	).toMatchObject({ error: { code: 'audio_files_mismatch' } });
	const ended = await json('POST', `${SESSIONS_PATH}/${ID}/end`, { audio_files_sent: 1 });
	expect([ended.status, ended.json]).toEqual([
		202,
		{
			session_id: ID,
			status: 'processing',
			message: 'Session ended. Processing started.',
			audio_files_received: 1,
			audio_files: ['0.mp3'],
		},
	]);
	expect((await json('POST', `${SESSIONS_PATH}/${ID}/end`, {})).json).toEqual({
		error: { code: 'session_already_ended', message: 'Session already ended' },
	});
	expect((await upload('audio_1.mp3', new Uint8Array(10))).json).toMatchObject({
		error: { code: 'session_ended' },
	});
	const get = () =>
		call(api, `${SESSIONS_PATH}/${ID}`, { headers: { authorization: `Bearer ${token}` } });
	const processing = await get();
	expect([processing.status, (processing.json as { status: string }).status]).toEqual([
		202,
		'processing',
	]);
	expect((processing.json as { templates?: unknown }).templates).toBeUndefined();
	const done = await get();
	expect([done.status, (done.json as { status: string }).status]).toEqual([200, 'completed']);
});

test('patch: the cancel pattern (both fields), unknown fields 422; full audio 403/404 as configured', async () => {
	await create();
	expect((await json('PATCH', `${SESSIONS_PATH}/${ID}`, { user_status: 'cancelled' })).status).toBe(
		422,
	);
	expect((await json('PATCH', `${SESSIONS_PATH}/${ID}`, { colour: 'red' })).json).toEqual({
		error: { code: 'extra_forbidden', message: 'unknown field(s): colour' },
	});
	expect(
		(
			await json('PATCH', `${SESSIONS_PATH}/${ID}`, {
				user_status: 'cancelled',
				processing_status: 'cancelled',
			})
		).status,
	).toBe(200);
	expect(sessions.session(ID)).toMatchObject({ state: 'cancelled', userStatus: 'cancelled' });
	// Read back with the fields the cancel set; it takes no more audio.
	expect(
		(await call(api, `${SESSIONS_PATH}/${ID}`, { headers: { authorization: `Bearer ${token}` } }))
			.json,
	).toMatchObject({
		status: 'cancelled',
		user_status: 'cancelled',
		processing_status: 'cancelled',
	});
	expect((await upload('audio_0.wav', new Uint8Array(8).fill(1))).json).toMatchObject({
		error: { code: 'session_cancelled' },
	});
	const audio = () =>
		call(api, `${SESSIONS_PATH}/${ID}/audio`, { headers: { authorization: `Bearer ${token}` } });
	expect((await audio()).json).toMatchObject({ error: { code: 'audio_not_available' } });
	sessions.setOptions({ audio: 'not_enabled' });
	expect((await audio()).json).toMatchObject({ error: { code: 'audio_not_enabled' } });
});

test('the audio link refuses any auth header and a wrong signature', async () => {
	await create();
	await upload('audio_0.wav', new Uint8Array(32).fill(3));
	await json('POST', `${SESSIONS_PATH}/${ID}/end`, {});
	const link = (
		await call(api, `${SESSIONS_PATH}/${ID}/audio`, {
			headers: { authorization: `Bearer ${token}` },
		})
	).json as { audio_url: string };
	const url = link.audio_url.replace('localhost', '127.0.0.1');
	expect((await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status).toBe(400);
	expect((await fetch(url.replace(/signature=[0-9a-f]+/, 'signature=00'))).status).toBe(403);
	const ok = await fetch(url);
	expect([ok.status, Buffer.from(await ok.arrayBuffer()).equals(Buffer.alloc(32, 3))]).toEqual([
		200,
		true,
	]);
});
