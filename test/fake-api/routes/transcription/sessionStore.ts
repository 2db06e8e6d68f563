/**
 * The sessions of the fake clinic API ([EKA-OAS] `/voice/v1/sessions`): what the fake holds of each,
 * its options and faults (`loseCreateAnswer` makes the next create(s) be carried out and their answer
 * lost, a 500 or the connection dropped, as a client sees a create whose outcome it cannot know).
 * The routes that serve them, and what each answers, are in sessionRoutes.ts.
 *
 * Control in-process through `fakeSessions(api)`; over HTTP under /__admin/sessions/….
 */
import { randomBytes } from 'node:crypto';

import { BUSINESS } from '../../fixtures';
import type { AdminDefinition, FakeClinicApi, FakeClinicState } from '../../types';
import { isPlainObject } from './store';

export type SessionState =
	| 'created'
	| 'processing'
	| 'completed'
	| 'partial'
	| 'failed'
	| 'expired'
	| 'cancelled';
export type SessionOutcome = 'completed' | 'partial' | 'failed' | 'expired';

export interface SessionOptions {
	/** Largest single upload; default 10 MB (10 000 000 bytes). The bench lifts it. */
	maxSingleUploadBytes: number;
	/** Reads answered 202 after End before the results. Default 1. */
	processingPolls: number;
	outcome: SessionOutcome;
	audio: 'available' | 'not_enabled' | 'not_available';
	/** When false, uploads are counted and hashed only (the bench). Default true. */
	keepAudio: boolean;
}

export const DEFAULT_SESSION_OPTIONS: Readonly<SessionOptions> = Object.freeze({
	maxSingleUploadBytes: 10_000_000,
	processingPolls: 1,
	outcome: 'completed',
	audio: 'available',
	keepAudio: true,
});

export interface SessionUpload {
	sessionId: string;
	fileName: string;
	storedAs: string;
	size: number;
	sha256: string;
	contentType: string | undefined;
	contentLength: number;
	headerNames: string[];
}

export interface SessionRejection {
	sessionId: string;
	status: number;
	code: string;
	reason: string;
	/** Bytes of the body the fake read before answering (0 when it answered from the headers). */
	bytesRead: number;
}

export interface FakeSession {
	sessionId: string;
	businessId: string;
	createdAt: number;
	expiresAt: number;
	input: Record<string, unknown>;
	state: SessionState;
	userStatus?: string;
	processingStatus?: string;
	uploads: SessionUpload[];
	endCalls: number;
	endBody?: unknown;
	readsAfterEnd: number;
	patches: unknown[];
	script?: { outcome?: SessionOutcome; processingPolls?: number };
	audioBytes: Buffer[];
}

/** A create carried out whose answer is then lost. */
export interface CreateAnswerLoss {
	/** Only creates of this session id; any when absent. */
	sessionId?: string;
	kind: 'status500' | 'drop';
	/** How many creates it applies to. Default 1. */
	times?: number;
}

export interface SessionStore {
	options: SessionOptions;
	createAnswerLosses: Array<CreateAnswerLoss & { times: number }>;
	sessions: Map<string, FakeSession>;
	rejected: SessionRejection[];
	/** Requests to the media route (the audio download): its header names. */
	mediaRequests: Array<{ headerNames: string[]; status: number }>;
	signingKey: Buffer;
	bytesReceived: number;
}

const stores = new WeakMap<FakeClinicState, SessionStore>();

export function storeOf(state: FakeClinicState): SessionStore {
	let store = stores.get(state);
	if (!store) {
		store = {
			options: { ...DEFAULT_SESSION_OPTIONS },
			createAnswerLosses: [],
			sessions: new Map(),
			rejected: [],
			mediaRequests: [],
			signingKey: randomBytes(16),
			bytesReceived: 0,
		};
		stores.set(state, store);
	}
	return store;
}

/** Fields of the create body besides upload_type and templates ([EKA-OAS]; [EKA-SCRIBE] adds session_mode, transcript_language). */
export const SESSION_CREATE_FIELDS = [
	'session_id',
	'language_hint',
	'model',
	'additional_data',
	'patient_details',
	'session_mode',
	'transcript_language',
];

/** What is wrong with the session fields of a create body: [status, code, message], or undefined. */
export function sessionCreateProblem(
	state: FakeClinicState,
	input: Record<string, unknown>,
): [number, string, string] | undefined {
	const id = input.session_id;
	if (id !== undefined) {
		if (typeof id !== 'string' || id.length < 16 || id.length > 32 || !/^[A-Za-z0-9_-]+$/.test(id))
			return [400, 'invalid_session_id', 'session_id must be 16 to 32 letters, digits, _ or -'];
		if (storeOf(state).sessions.has(id))
			return [409, 'session_already_exists', `session ${id} already exists`];
	}
	const hints = input.language_hint;
	if (
		hints !== undefined &&
		(!Array.isArray(hints) ||
			hints.length === 0 ||
			hints.some((hint) => typeof hint !== 'string' || hint === '' || hint.length > 20))
	)
		return [
			400,
			'invalid_language_hint',
			'language_hint must list language codes of at most 20 characters',
		];
	if (input.model !== undefined && input.model !== 'pro' && input.model !== 'lite')
		return [400, 'invalid_model', 'model must be pro or lite'];
	if (
		input.session_mode !== undefined &&
		!['consultation', 'dictation'].includes(input.session_mode as string)
	)
		return [400, 'invalid_session_mode', 'session_mode must be consultation or dictation'];
	if (input.additional_data !== undefined) {
		if (!isPlainObject(input.additional_data))
			return [400, 'invalid_additional_data', 'additional_data must be an object'];
		if (Buffer.byteLength(JSON.stringify(input.additional_data)) > 4096)
			return [400, 'invalid_additional_data', 'additional_data must be at most 4 KB'];
	}
	return undefined;
}

/** Called by the create route once the session exists (convert.ts makes the id). */
export function registerSession(
	state: FakeClinicState,
	sessionId: string,
	businessId: string,
	input: Record<string, unknown>,
	createdAt: number,
): void {
	const store = storeOf(state);
	const pending = pendingScripts.get(store)?.get(sessionId);
	store.sessions.set(sessionId, {
		sessionId,
		businessId,
		createdAt,
		expiresAt: createdAt + 3_600_000,
		input,
		state: 'created',
		uploads: [],
		endCalls: 0,
		readsAfterEnd: 0,
		patches: [],
		audioBytes: [],
		...(pending ? { script: pending } : {}),
	});
}

const pendingScripts = new WeakMap<SessionStore, Map<string, NonNullable<FakeSession['script']>>>();

/**
 * Called by the create route once the session exists: how its answer is lost, or undefined to
 * answer it. One use of the first matching loss.
 */
export function takeCreateAnswerLoss(
	state: FakeClinicState,
	sessionId: string,
): CreateAnswerLoss['kind'] | undefined {
	const losses = storeOf(state).createAnswerLosses;
	const loss = losses.find(
		(entry) => entry.sessionId === undefined || entry.sessionId === sessionId,
	);
	if (!loss) return undefined;
	if (--loss.times <= 0) losses.splice(losses.indexOf(loss), 1);
	return loss.kind;
}

/** The session of this id and business, if the fake holds it (the documents routes ask). */
export function findSession(
	state: FakeClinicState,
	sessionId: string,
	businessId: string,
): FakeSession | undefined {
	const session = storeOf(state).sessions.get(sessionId);
	return session?.businessId === businessId ? session : undefined;
}

/** The session's audio as one file: its uploads in the order of their numbers (audio_0, audio_1…), whatever order they arrived in. */
export function sessionAudioBytes(session: FakeSession): Buffer {
	const number = (index: number) => Number(session.uploads[index].storedAs.split('.')[0]);
	const order = session.audioBytes.map((_, index) => index).sort((x, y) => number(x) - number(y));
	return Buffer.concat(order.map((index) => session.audioBytes[index]));
}

export interface FakeSessions {
	options(): SessionOptions;
	setOptions(patch: Partial<SessionOptions>): SessionOptions;
	script(sessionId: string, script: NonNullable<FakeSession['script']>): void;
	sessions(): FakeSession[];
	session(sessionId: string): FakeSession | undefined;
	rejected(): SessionRejection[];
	mediaRequests(): Array<{ headerNames: string[]; status: number }>;
	/** Audio bytes received by the upload route so far (all sessions). */
	bytesReceived(): number;
	/** Makes a session older than its expiry (it reads as expired). */
	expire(sessionId: string): void;
	/** The next matching create(s) are carried out, then their answer is lost (see CreateAnswerLoss). */
	loseCreateAnswer(loss: CreateAnswerLoss): void;
	reset(): void;
}

const OPTION_CHECKS: { [K in keyof SessionOptions]: (value: unknown) => boolean } = {
	maxSingleUploadBytes: (v) => Number.isInteger(v) && (v as number) >= 1,
	processingPolls: (v) => Number.isInteger(v) && (v as number) >= 0,
	outcome: (v) => ['completed', 'partial', 'failed', 'expired'].includes(v as string),
	audio: (v) => ['available', 'not_enabled', 'not_available'].includes(v as string),
	keepAudio: (v) => typeof v === 'boolean',
};

function controls(state: FakeClinicState): FakeSessions {
	const store = storeOf(state);
	return {
		options: () => ({ ...store.options }),
		setOptions: (patch) => {
			if (!isPlainObject(patch)) throw new Error('options must be an object');
			for (const [key, value] of Object.entries(patch)) {
				const check = OPTION_CHECKS[key as keyof SessionOptions];
				if (!check) throw new Error(`unknown session option ${key}`);
				if (!check(value))
					throw new Error(`invalid value for session option ${key}: ${JSON.stringify(value)}`);
			}
			Object.assign(store.options, patch);
			return { ...store.options };
		},
		script: (sessionId, script) => {
			const session = store.sessions.get(sessionId);
			if (session) session.script = { ...session.script, ...script };
			else {
				let pending = pendingScripts.get(store);
				if (!pending) pendingScripts.set(store, (pending = new Map()));
				pending.set(sessionId, script);
			}
		},
		sessions: () => [...store.sessions.values()],
		session: (sessionId) => store.sessions.get(sessionId),
		rejected: () => [...store.rejected],
		mediaRequests: () => [...store.mediaRequests],
		bytesReceived: () => store.bytesReceived,
		expire: (sessionId) => {
			const session = store.sessions.get(sessionId);
			if (!session) throw new Error(`no session ${sessionId}`);
			session.expiresAt = Date.now() - 1;
			if (session.state === 'created') session.state = 'expired';
		},
		loseCreateAnswer: (loss) => {
			if (!isPlainObject(loss) || !['status500', 'drop'].includes(loss.kind))
				throw new Error('kind must be status500 or drop');
			const times = loss.times ?? 1;
			if (!(times === Infinity || (Number.isInteger(times) && times >= 1)))
				throw new Error('times must be an integer >= 1 or Infinity');
			store.createAnswerLosses.push({ ...loss, times });
		},
		reset: () => {
			store.options = { ...DEFAULT_SESSION_OPTIONS };
			store.createAnswerLosses = [];
			store.sessions.clear();
			store.rejected.length = 0;
			store.mediaRequests.length = 0;
			store.bytesReceived = 0;
			pendingScripts.get(store)?.clear();
		},
	};
}

export function fakeSessions(api: FakeClinicApi): FakeSessions {
	return controls(api.state);
}

/** Uploads without their audio bytes (JSON over the admin endpoint). */
function sessionView(session: FakeSession) {
	const { audioBytes, ...rest } = session;
	return { ...rest, audioBytes: audioBytes.length };
}

export const sessionAdmin: readonly AdminDefinition[] = [
	{ method: 'GET', action: '/sessions/options', handler: ({ state }) => controls(state).options() },
	{
		method: 'POST',
		action: '/sessions/options',
		handler: ({ state, input }) => controls(state).setOptions(input as Partial<SessionOptions>),
	},
	{
		method: 'GET',
		action: '/sessions/list',
		handler: ({ state }) => controls(state).sessions().map(sessionView),
	},
	{
		method: 'GET',
		action: '/sessions/rejected',
		handler: ({ state }) => controls(state).rejected(),
	},
	{
		method: 'POST',
		action: '/sessions/create',
		// A session without a token, for the bench's curl run (as /transcription/presign).
		handler: ({ state, input }) => {
			const templates =
				isPlainObject(input) && Array.isArray(input.templates)
					? input.templates
					: ['clinical_notes_template'];
			const sessionId = `ses_${randomBytes(8).toString('hex')}`;
			registerSession(
				state,
				sessionId,
				BUSINESS.business_id,
				{ upload_type: 'single', templates },
				Date.now(),
			);
			return { session_id: sessionId };
		},
	},
	{
		method: 'POST',
		action: '/sessions/reset',
		handler: ({ state }) => {
			controls(state).reset();
			return { ok: true };
		},
	},
];
