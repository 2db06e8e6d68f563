/**
 * Transcription → Get Session Audio through the node over real HTTP against the fake's session API
 * (test/fake-api/routes/transcription/sessionRoutes.ts): the audio from the storage
 * host without any auth header, retried as the prescription PDF is.
 */
import { createHash } from 'node:crypto';

import { SESSION_A, sessionUpload, useSessionRig } from '../../support/sessionRig';
import { item } from '../../support/transcriptionRig';

const t = useSessionRig();
const { rig } = t;

describe('Transcription → Get Session Audio', () => {
	test('Get Session Audio: a 5xx or a dropped connection from the storage host is retried (as the prescription PDF); a 404 is not', async () => {
		const a = rig.audioFile('a.wav', 20_000);
		await rig.run(sessionUpload({ transactionId: SESSION_A }), {
			items: [item({ data: rig.storedBinary(a) })],
		});
		rig.api.injectFault({
			method: 'GET',
			path: '/media/session-audio/',
			fault: { kind: 'status', status: 500, body: '<Error><Code>InternalError</Code></Error>' },
		});
		rig.api.injectFault({
			method: 'GET',
			path: '/media/session-audio/',
			fault: { kind: 'status', status: 503, headers: { 'retry-after': '0' } },
		});
		rig.api.injectFault({ method: 'GET', path: '/media/session-audio/', fault: { kind: 'drop' } });
		const [audio] = await rig.run({
			resource: 'transcription',
			operation: 'getSessionAudio',
			sessionId: SESSION_A,
			binaryPropertyName: 'audio',
		});
		expect(
			createHash('sha256').update(Buffer.from(audio.binary!.audio.data, 'base64')).digest('hex'),
		).toBe(a.sha256);
		expect(rig.api.requestsTo('/media/session-audio/', 'GET').map((r) => r.status)).toEqual([
			500,
			503,
			undefined,
			200,
		]);

		rig.api.requests.length = 0;
		rig.api.injectFault({
			method: 'GET',
			path: '/media/session-audio/',
			fault: { kind: 'status', status: 404, body: '<Error><Code>NoSuchKey</Code></Error>' },
		});
		await expect(
			rig.run({
				resource: 'transcription',
				operation: 'getSessionAudio',
				sessionId: SESSION_A,
				binaryPropertyName: 'audio',
			}),
		).rejects.toThrow(
			/Could not download the audio of session ".*" from localhost:\d+ \(HTTP 404\)/,
		);
		expect(rig.api.requestsTo('/media/session-audio/', 'GET')).toHaveLength(1);
	});

	test('Get Session Audio: the whole audio as binary, fetched from the other host without any auth header', async () => {
		const a = rig.audioFile('a.wav', 40_000);
		const b = rig.audioFile('b.wav', 1_000);
		await rig.run(sessionUpload({ transactionId: SESSION_A }), {
			items: [item({ data: rig.storedBinary(a) }), item({ data: rig.storedBinary(b) })],
		});
		const [audio] = await rig.run({
			resource: 'transcription',
			operation: 'getSessionAudio',
			sessionId: SESSION_A,
			binaryPropertyName: 'audio',
		});
		expect(audio.json).toMatchObject({
			session_id: SESSION_A,
			file_size: 41_000,
			content_type: 'audio/wav',
			expires_in: 86_400,
		});
		const data = Buffer.from(audio.binary!.audio.data, 'base64');
		expect(createHash('sha256').update(data).digest('hex')).toBe(
			createHash('sha256')
				.update(Buffer.concat([a.bytes, b.bytes]))
				.digest('hex'),
		);
		expect(audio.binary!.audio).toMatchObject({
			fileName: `session-${SESSION_A}.wav`,
			mimeType: 'audio/wav',
		});
		expect(
			t.sessions
				.mediaRequests()
				.map((r) => [r.status, r.headerNames.filter((h) => /auth|client-id|cookie/i.test(h))]),
		).toEqual([[200, []]]);

		t.sessions.setOptions({ audio: 'not_enabled' });
		await expect(
			rig.run({
				resource: 'transcription',
				operation: 'getSessionAudio',
				sessionId: SESSION_A,
				binaryPropertyName: 'audio',
			}),
		).rejects.toThrow(/does not keep session audio/);
		t.sessions.setOptions({ audio: 'not_available' });
		await expect(
			rig.run({
				resource: 'transcription',
				operation: 'getSessionAudio',
				sessionId: SESSION_A,
				binaryPropertyName: 'audio',
			}),
		).rejects.toThrow(/has no audio to download \(HTTP 404 audio_not_available\)/);
	});
});
