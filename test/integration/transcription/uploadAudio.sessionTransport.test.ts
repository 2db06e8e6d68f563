/**
 * The session API transport (transport/transcription/session.ts, sessionAudio.ts) over real HTTP
 * against the fake: create with our id, raw upload (bytes and SHA-256 as sent), end, the states,
 * cancel, the audio link and its download without any auth header.
 */
import { createHash } from 'node:crypto';

import type { IExecuteFunctions } from 'n8n-workflow';

import {
	cancelSession,
	createSession,
	endSession,
	fetchSessionApiResults,
	uploadSessionAudio,
} from '../../../nodes/ClinicScribe/transport/transcription/session';
import { downloadSessionAudio } from '../../../nodes/ClinicScribe/transport/transcription/sessionAudio';
import { CLINICAL_NOTES_DOCUMENT } from '../../fake-api/routes/transcription';
import { sessionAudioBytes } from '../../fake-api/routes/transcription/sessionStore';
import { useSessionRig } from '../../support/sessionRig';
import { type AudioFile } from '../../support/transcriptionRig';

const t = useSessionRig();
const { rig } = t;

const ID = 'n8ntestsession000000000000000001';

function createBody(sessionId = ID) {
	return {
		session_id: sessionId,
		upload_type: 'single' as const,
		templates: ['clinical_notes_template'],
		language_hint: ['en'],
		model: 'pro',
	};
}

function fileOf(audio: AudioFile, n: number) {
	return {
		label: `file ${n}`,
		size: audio.size,
		contentType: 'audio/wav',
		sessionFileName: `audio_${n}.wav`,
		open: async () => audio.bytes,
	};
}

async function streamBytes(stream: unknown): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
	return Buffer.concat(chunks);
}

describe('session transport', () => {
	test('create → two raw uploads → end → 202, then 200 with the decoded document; bytes and SHA-256 arrive', async () => {
		const ctx: IExecuteFunctions = rig.context({});
		const created = await createSession(ctx, createBody(), 0);
		expect(created).toMatchObject({ sessionId: ID, alreadyCreated: false });
		const a = rig.audioFile('a.wav', 300_000);
		const b = rig.audioFile('b.wav', 1234);
		await uploadSessionAudio(ctx, ID, fileOf(a, 0), 0);
		await uploadSessionAudio(ctx, ID, fileOf(b, 1), 0);
		const uploads = t.sessions.session(ID)!.uploads;
		expect(uploads.map((u) => [u.fileName, u.storedAs, u.size, u.sha256, u.contentLength])).toEqual(
			[
				['audio_0.wav', '0.wav', a.size, a.sha256, a.size],
				['audio_1.wav', '1.wav', b.size, b.sha256, b.size],
			],
		);
		expect(rig.api.requestsTo(/\/audio\/audio_0\.wav$/, 'POST')[0].headers.authorization).toMatch(
			/^Bearer /,
		);
		const ended = await endSession(ctx, ID, 2, 0);
		expect(ended).toMatchObject({
			statusCode: 202,
			alreadyEnded: false,
			body: { audio_files_received: 2, audio_files: ['0.wav', '1.wav'] },
		});
		expect((await fetchSessionApiResults(ctx, ID, 0)).status).toBe('processing');
		const done = await fetchSessionApiResults(ctx, ID, 0);
		expect(done.status).toBe('completed');
		expect(done.httpStatus).toBe(200);
		expect(done.templates.find((t) => t.templateId === 'clinical_notes_template')?.value).toEqual(
			CLINICAL_NOTES_DOCUMENT,
		);
		expect(done.templates.find((t) => t.templateId === 'transcript_template')?.value).toMatch(
			/cough and fever/,
		);
	});

	test('an id that exists is answered as held (409) without a repeat: not after a lost answer, so the caller reads where it stands', async () => {
		const ctx = rig.context({});
		await createSession(ctx, createBody(), 0);
		await expect(createSession(rig.context({}), createBody(), 0)).resolves.toEqual({
			sessionId: ID,
			alreadyCreated: true,
			afterLostAnswer: false,
			body: {},
		});
		expect(rig.api.requestsTo('/voice/v1/sessions', 'POST').map((r) => r.status)).toEqual([
			201, 409,
		]);
		expect(t.sessions.sessions()).toHaveLength(1);
	});

	test('a create whose answer was lost (500 after the work) is repeated and read as ours', async () => {
		rig.api.injectFault({
			method: 'POST',
			path: '/voice/v1/sessions',
			fault: { kind: 'status', status: 503 },
		});
		const created = await createSession(rig.context({}), createBody(), 0);
		expect(created.sessionId).toBe(ID);
		expect(rig.api.requestsTo('/voice/v1/sessions', 'POST').map((r) => r.status)).toEqual([
			503, 201,
		]);
	});

	test.each([
		['fewer', -1],
		['more', 1],
	])(
		'a file read with %s bytes than announced (a buffer) fails "changed size" in words, not the raw "expected N bytes", and nothing is sent',
		async (_what, delta) => {
			const ctx = rig.context({});
			await createSession(ctx, createBody(), 0);
			const a = rig.audioFile('a.wav', 3000);
			const changed = {
				...fileOf(a, 0),
				open: async () => Buffer.concat([a.bytes, Buffer.alloc(1)]).subarray(0, a.size + delta),
			};
			const upload = uploadSessionAudio(ctx, ID, changed, 0);
			await expect(upload).rejects.toThrow('File 0 changed size while it was uploaded');
			await expect(upload).rejects.toMatchObject({
				description:
					'The binary data was announced with one size but had another. Run the workflow again.',
			});
			expect(rig.api.requestsTo(/\/audio\/audio_0\.wav$/, 'POST')).toHaveLength(0);
			expect(t.sessions.session(ID)!.uploads).toEqual([]);
		},
	);

	test('states: failed body with HTTP 200, partial 206, expired 410, unknown 404', async () => {
		const ctx = rig.context({});
		t.sessions.setOptions({ processingPolls: 0 });
		for (const [outcome, status, http] of [
			['failed', 'failed', 200],
			['partial', 'partial', 206],
			['expired', 'expired', 410],
		] as const) {
			const id = `n8ntestsession-${outcome}-0000000`.slice(0, 32);
			await createSession(ctx, createBody(id), 0);
			t.sessions.script(id, { outcome });
			await uploadSessionAudio(ctx, id, fileOf(rig.audioFile('x.wav', 10), 0), 0);
			await endSession(ctx, id, 1, 0);
			const results = await fetchSessionApiResults(ctx, id, 0);
			expect([results.status, results.httpStatus]).toEqual([status, http]);
		}
		expect((await fetchSessionApiResults(ctx, 'n8nunknownsession0000000000', 0)).status).toBe(
			'not_found',
		);
		await createSession(ctx, createBody('n8ntestsession-never-ended-0000'), 0);
		t.sessions.expire('n8ntestsession-never-ended-0000');
		expect((await fetchSessionApiResults(ctx, 'n8ntestsession-never-ended-0000', 0)).status).toBe(
			'expired',
		);
	});

	test('cancel sends the documented PATCH; the session reads as cancelled', async () => {
		const ctx = rig.context({});
		await createSession(ctx, createBody(), 0);
		await cancelSession(ctx, ID, 0);
		expect(rig.api.requestsTo(`/voice/v1/sessions/${ID}`, 'PATCH').map((r) => r.body)).toEqual([
			{ user_status: 'cancelled', processing_status: 'cancelled' },
		]);
		expect(t.sessions.session(ID)).toMatchObject({
			userStatus: 'cancelled',
			processingStatus: 'cancelled',
		});
		expect((await fetchSessionApiResults(ctx, ID, 0)).status).toBe('cancelled');
	});

	test('the audio link, downloaded from the other host with no auth header; 403/404 say why', async () => {
		const ctx = rig.context({});
		await createSession(ctx, createBody(), 0);
		const a = rig.audioFile('a.wav', 5000);
		await uploadSessionAudio(ctx, ID, fileOf(a, 0), 0);
		await endSession(ctx, ID, 1, 0);
		const audio = await downloadSessionAudio(ctx, ID, 0);
		expect(audio.link.audioUrl).toMatch(/^http:\/\/localhost:\d+\/media\/session-audio\//);
		const bytes = await streamBytes(audio.stream);
		expect(createHash('sha256').update(bytes).digest('hex')).toBe(a.sha256);
		expect(bytes.equals(sessionAudioBytes(t.sessions.session(ID)!))).toBe(true);
		expect(t.sessions.mediaRequests()).toHaveLength(1);
		expect(t.sessions.mediaRequests()[0].status).toBe(200);
		expect(t.sessions.mediaRequests()[0].headerNames).not.toEqual(
			expect.arrayContaining(['authorization']),
		);
		t.sessions.setOptions({ audio: 'not_enabled' });
		await expect(downloadSessionAudio(ctx, ID, 0)).rejects.toThrow(
			/does not keep session audio.*403 audio_not_enabled/,
		);
		t.sessions.setOptions({ audio: 'not_available' });
		await expect(downloadSessionAudio(ctx, ID, 0)).rejects.toThrow(
			/has no audio to download.*404 audio_not_available/,
		);
	});
});
