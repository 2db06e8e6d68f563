/**
 * Shared set-up of the tests of the session API through the node (Upload Audio with Upload Method
 * "Session", Get Results of a session, Cancel Session, Get Session Audio): the transcription rig
 * and the fake's sessions (test/fake-api/routes/transcription/sessionStore.ts), reset before each test.
 */
import { fakeSessions, type FakeSessions } from '../fake-api/routes/transcription/sessionStore';
import type { RecordedRequest } from '../fake-api/types';
import { TranscriptionRig, uploadParameters } from './transcriptionRig';
import { useTestTransportPolicy } from './transportPolicy';

export const SESSION_A = 'visit-2024-0042-session-a';
export const SESSION_B = 'visit-2024-0043-session-b';

export function sessionUpload(extra: Record<string, unknown> = {}) {
	return uploadParameters({ uploadMethod: 'session', ...extra });
}

export interface SessionRig {
	readonly rig: TranscriptionRig;
	readonly sessions: FakeSessions;
	/** The requests the node sent (not the tests' own admin calls). */
	nonAdmin(): RecordedRequest[];
}

/** Registers beforeAll/afterAll/beforeEach in the calling file and gives its helpers. */
export function useSessionRig(): SessionRig {
	const rig = new TranscriptionRig();
	let sessions: FakeSessions | undefined;
	beforeAll(async () => {
		await rig.start();
		sessions = fakeSessions(rig.api);
		useTestTransportPolicy({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
	});
	afterAll(async () => await rig.stop());
	beforeEach(() => {
		rig.reset();
		sessions?.reset();
	});
	return {
		rig,
		get sessions() {
			if (!sessions) throw new Error('fake API not started');
			return sessions;
		},
		nonAdmin: () => rig.api.requests.filter((r) => !r.path.startsWith('/__admin')),
	};
}
