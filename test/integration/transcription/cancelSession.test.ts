/**
 * Transcription → Cancel Session through the node over real HTTP against the fake's session API
 * (test/fake-api/routes/transcription/sessionRoutes.ts). Its describe title is
 * shared with Get Session Audio (getSessionAudio.test.ts), whose tests were beside it.
 */
import { SESSION_A, sessionUpload, useSessionRig } from '../../support/sessionRig';
import { item } from '../../support/transcriptionRig';

const t = useSessionRig();
const { rig } = t;

describe('Transcription → Cancel Session', () => {
	test('Cancel Session sends the documented PATCH and outputs the answer', async () => {
		await rig.run(sessionUpload({ transactionId: SESSION_A }), {
			items: [item({ data: rig.storedBinary(rig.audioFile('a.wav', 64)) })],
		});
		const [cancelled] = await rig.run({
			resource: 'transcription',
			operation: 'cancelSession',
			sessionId: SESSION_A,
		});
		expect(cancelled.json).toEqual({
			session_id: SESSION_A,
			cancelled: true,
			http_status: 200,
			message: 'Session updated successfully',
		});
		expect(
			rig.api.requestsTo(`/voice/v1/sessions/${SESSION_A}`, 'PATCH').map((r) => r.body),
		).toEqual([{ user_status: 'cancelled', processing_status: 'cancelled' }]);
		await expect(
			rig.run({
				resource: 'transcription',
				operation: 'cancelSession',
				sessionId: 'session-that-never-was',
			}),
		).rejects.toThrow(
			'Session "session-that-never-was" cannot be cancelled: the service does not know it (HTTP 404)',
		);
		await expect(
			rig.run({ resource: 'transcription', operation: 'cancelSession', sessionId: '..' }),
		).rejects.toThrow(/Session ID of item 0 is "\.\."/);
	});
});
