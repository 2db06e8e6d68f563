/**
 * Get Results with Results Of "Session" through the node over real HTTP against the fake's session API
 * (test/fake-api/routes/transcription/sessionRoutes.ts).
 */
import { SESSION_A, SESSION_B, sessionUpload, useSessionRig } from '../../support/sessionRig';
import { item, resultsParameters } from '../../support/transcriptionRig';

const t = useSessionRig();
const { rig } = t;

describe('Get Results, Results Of "Session"', () => {
	async function endedSession(
		sessionId: string,
		outcome: 'completed' | 'partial' | 'failed' | 'expired',
	): Promise<void> {
		t.sessions.script(sessionId, { outcome, processingPolls: 0 });
		await rig.run(sessionUpload({ transactionId: sessionId }), {
			items: [item({ data: rig.storedBinary(rig.audioFile('a.wav', 64)) })],
		});
	}

	test('states map onto status: completed, partial (206), failed (HTTP 200, status in the body), expired (410), not_found', async () => {
		const cases = [
			['session-state-completed-1', 'completed', 'completed', 200],
			['session-state-partial-0001', 'partial', 'partial', 206],
			['session-state-failed-00001', 'failed', 'failed', 200],
			['session-state-expired-0001', 'expired', 'expired', 410],
		] as const;
		for (const [id, outcome, status, http] of cases) {
			await endedSession(id, outcome);
			const [result] = await rig.run(resultsParameters(id, { resultsSource: 'session' }));
			expect([result.json.status, result.json.http_status]).toEqual([status, http]);
		}
		const [unknown] = await rig.run(
			resultsParameters('session-never-created-01', { resultsSource: 'session' }),
		);
		expect(unknown.json.status).toBe('not_found');
		const [failedSimple] = await rig.run(
			resultsParameters('session-state-failed-00001', {
				resultsSource: 'session',
				resultsOutput: 'simple',
			}),
		);
		expect(failedSimple.json.issues).toEqual(
			expect.arrayContaining(['The API said: All templates failed']),
		);
	});

	test('a cancelled session has its own status, cancelled, and Fail on Incomplete Results fails it saying so', async () => {
		await rig.run(sessionUpload({ transactionId: SESSION_B }), {
			items: [item({ data: rig.storedBinary(rig.audioFile('a.wav', 64)) })],
		});
		await rig.run({ resource: 'transcription', operation: 'cancelSession', sessionId: SESSION_B });
		const [result] = await rig.run(resultsParameters(SESSION_B, { resultsSource: 'session' }));
		expect([result.json.status, result.json.http_status]).toEqual(['cancelled', 200]);
		const [simple] = await rig.run(
			resultsParameters(SESSION_B, { resultsSource: 'session', resultsOutput: 'simple' }),
		);
		expect(simple.json.issues).toEqual(['The session was cancelled; it holds no results.']);
		await expect(
			rig.run(
				resultsParameters(SESSION_B, {
					resultsSource: 'session',
					waitForCompletion: true,
					failIfIncomplete: true,
				}),
			),
		).rejects.toThrow(`Session "${SESSION_B}" was cancelled`);
	});

	test('Wait for Completion reads the session until it is done; Fail on Incomplete Results fails an expired one', async () => {
		t.sessions.setOptions({ processingPolls: 2 });
		await rig.run(sessionUpload({ transactionId: SESSION_A }), {
			items: [item({ data: rig.storedBinary(rig.audioFile('a.wav', 64)) })],
		});
		const [done] = await rig.run(
			resultsParameters(SESSION_A, {
				resultsSource: 'session',
				waitForCompletion: true,
				resultsOutput: 'simple',
			}),
		);
		expect(done.json).toMatchObject({ session_id: SESSION_A, status: 'completed' });
		expect(done.json.transcript).toMatch(/cough and fever/);
		expect(
			rig.api.requestsTo(`/voice/v1/sessions/${SESSION_A}`, 'GET').map((r) => r.status),
		).toEqual([202, 202, 200]);
		await endedSession('session-expires-waiting-01', 'expired');
		await expect(
			rig.run(
				resultsParameters('session-expires-waiting-01', {
					resultsSource: 'session',
					waitForCompletion: true,
					failIfIncomplete: true,
				}),
			),
		).rejects.toThrow('Session "session-expires-waiting-01" expired before it was ended');
	});
});
