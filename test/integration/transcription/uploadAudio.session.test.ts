/**
 * Upload Audio with Upload Method "Session" through the node over real HTTP against the fake's session API
 * (test/fake-api/routes/transcription/sessionRoutes.ts): one session per ID,
 * and what a lost or unclear answer leaves and what the output says.
 */
import { CLINICAL_NOTES_DOCUMENT } from '../../fake-api/routes/transcription';
import { recordAttack } from '../../support/attackLedger';
import { SESSION_A, SESSION_B, sessionUpload, useSessionRig } from '../../support/sessionRig';
import { item } from '../../support/transcriptionRig';

const t = useSessionRig();
const { rig, nonAdmin } = t;

describe('Upload Audio, Upload Method "Session"', () => {
	test('items sharing an ID are one session: create, raw uploads (bytes and SHA-256 arrive), end; one receipt per file, paired', async () => {
		const a = rig.audioFile('first.wav', 700_000);
		const b = rig.audioFile('second.mp3', 123_457);
		const c = rig.audioFile('other.ogg', 4096);
		const items = [
			item({ data: rig.storedBinary(a) }),
			item({ data: rig.inMemoryBinary(b) }),
			item({ data: rig.storedBinary(c) }),
		];
		const ids = [SESSION_A, SESSION_A, SESSION_B];
		const output = await rig.run(sessionUpload({ transactionId: (i: number) => ids[i] }), {
			items,
		});

		expect(output.map((entry) => entry.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(
			output.map((entry) => [
				entry.json.session_id,
				entry.json.upload_method,
				entry.json.file_name,
				entry.json.files_in_session,
			]),
		).toEqual([
			[SESSION_A, 'session', 'audio_0.wav', 2],
			[SESSION_A, 'session', 'audio_1.mp3', 2],
			[SESSION_B, 'session', 'audio_0.ogg', 1],
		]);
		expect(output[0].json.end).toEqual({
			status: 'ended',
			http_status: 202,
			message: 'Session ended. Processing started.',
			session_status: 'processing',
			audio_files_received: 2,
		});
		// Sent several at once: compared in name order.
		const uploads = [...t.sessions.session(SESSION_A)!.uploads].sort((x, y) =>
			x.fileName.localeCompare(y.fileName),
		);
		expect(
			uploads.map((u) => [u.fileName, u.size, u.sha256, u.contentLength, u.contentType]),
		).toEqual([
			['audio_0.wav', a.size, a.sha256, a.size, 'audio/wav'],
			['audio_1.mp3', b.size, b.sha256, b.size, 'audio/mp3'],
		]);
		expect(t.sessions.session(SESSION_B)!.uploads.map((u) => u.sha256)).toEqual([c.sha256]);
		expect(t.sessions.session(SESSION_A)!.input).toEqual({
			session_id: SESSION_A,
			upload_type: 'single',
			templates: ['clinical_notes_template'],
			language_hint: ['en-IN'],
			model: 'pro',
			session_mode: 'dictation',
		});
		expect(
			rig.api.requestsTo(`/voice/v1/sessions/${SESSION_A}/end`, 'POST').map((r) => r.body),
		).toEqual([{ audio_files_sent: 2 }]);
		// No step of the transaction flow was used.
		expect(
			nonAdmin().filter((r) => /file-upload|storage|transaction\/init|v3\/status/.test(r.path)),
		).toHaveLength(0);
		expect(
			nonAdmin()
				.filter((r) => r.path.includes('/audio/'))
				.every((r) => /^Bearer /.test(String(r.headers.authorization))),
		).toBe(true);
	});

	test('with Wait for Completion: one item per session with the documents the service decoded', async () => {
		const a = rig.audioFile('a.webm', 2048);
		const output = await rig.run(
			sessionUpload({ transactionId: SESSION_A, waitForCompletion: true }),
			{ items: [item({ data: rig.storedBinary(a) })] },
		);
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual([{ item: 0 }]);
		expect(output[0].json).toMatchObject({
			session_id: SESSION_A,
			status: 'completed',
			http_status: 200,
		});
		expect((output[0].json.documents as Record<string, unknown>).clinical_notes_template).toEqual(
			CLINICAL_NOTES_DOCUMENT,
		);
		expect(
			rig.api.requestsTo(`/voice/v1/sessions/${SESSION_A}`, 'GET').map((r) => r.status),
		).toEqual([202, 200]);
	});

	test('a generated ID has 32 characters, and a file over 10 MB is refused before anything is sent', async () => {
		const small = rig.audioFile('s.wav', 100);
		const big = rig.audioFile('big.wav', 10_000_001);
		const run = rig.run(sessionUpload(), {
			items: [item({ data: rig.storedBinary(small) }), item({ data: rig.storedBinary(big) })],
		});
		await expect(run).rejects.toThrow(
			'The file in binary field "data" of item 1 has 10.0 MB, more than the 10 MB a session upload may hold',
		);
		await expect(run).rejects.toMatchObject({
			description: expect.stringMatching(/^Choose Upload Method "Transaction" for long recordings/),
		});
		expect(nonAdmin()).toHaveLength(0);

		const output = await rig.run(sessionUpload(), {
			items: [item({ data: rig.storedBinary(small) }), item({ data: rig.storedBinary(big) })],
			continueOnFail: true,
		});
		expect(output[0].json.session_id).toMatch(/^n8n[0-9a-f]{29}$/);
		expect(output[1].json.error).toMatch(/more than the 10 MB/);
		expect(output[1].pairedItem).toEqual({ item: 1 });
		expect(t.sessions.sessions()).toHaveLength(1);
		expect(t.sessions.rejected()).toHaveLength(0);
	});

	test('what the session API cannot take is refused with nothing sent: a short ID, three templates, Output Language', async () => {
		const a = rig.audioFile('a.wav', 100);
		const items = [item({ data: rig.storedBinary(a) })];
		await expect(rig.run(sessionUpload({ transactionId: 'visit-42' }), { items })).rejects.toThrow(
			'The Transaction ID of item 0 has 8 characters, but a session ID must have 16 to 32',
		);
		const three = {
			templates: [
				{ template: 'clinical_notes_template', codificationNeeded: false },
				{ template: 'transcript_template', codificationNeeded: false },
				{ template: 'emr', codificationNeeded: false },
			],
		};
		await expect(rig.run(sessionUpload({ outputTemplates: three }), { items })).rejects.toThrow(
			/at most 2 output templates, but 3 are chosen/,
		);
		await expect(
			rig.run(sessionUpload({ options: { outputLanguage: 'hi' } }), { items }),
		).rejects.toThrow(/Output Language is not available/);
		expect(nonAdmin()).toHaveLength(0);
	});

	test("an ID the service already holds fails the item; n8n's Retry On Fail of a generated ID does not end the session twice", async () => {
		const a = rig.audioFile('a.wav', 100);
		await rig.run(sessionUpload({ transactionId: SESSION_A }), {
			items: [item({ data: rig.storedBinary(a) })],
		});
		await expect(
			rig.run(sessionUpload({ transactionId: SESSION_A }), {
				items: [item({ data: rig.storedBinary(a) })],
			}),
		).rejects.toThrow(`The Session ID "${SESSION_A}" of item 0 was already used`);
		expect(t.sessions.session(SESSION_A)!.endCalls).toBe(1);

		const options = { items: [item({ data: rig.storedBinary(a) })], executionId: 'exec-retry-1' };
		const first = await rig.run(sessionUpload(), options);
		const again = await rig.run(sessionUpload(), {
			...options,
			items: [item({ data: rig.storedBinary(a) })],
		});
		expect(again[0].json.session_id).toBe(first[0].json.session_id);
		expect(again[0].json).toMatchObject({
			outcome: 'ended_by_earlier_try',
			upload_status: 'uploaded_by_earlier_try',
			upload_status_code: null,
			end: { status: 'ended_by_earlier_try', http_status: null, session_status: 'processing' },
		});
		expect(t.sessions.session(first[0].json.session_id as string)!.endCalls).toBe(1);
	});

	test('Retry On Fail after a failed upload: the session the first try created is still open, so its file goes again and it is ended once', async () => {
		const a = rig.audioFile('a.wav', 5000);
		rig.api.injectFault({
			method: 'POST',
			path: /\/audio\/audio_0\.wav$/,
			fault: { kind: 'status', status: 400 },
		});
		const options = {
			items: [item({ data: rig.storedBinary(a) })],
			executionId: 'exec-retry-open',
		};
		await expect(rig.run(sessionUpload(), options)).rejects.toThrow(/HTTP 400/);
		const [retried] = await rig.run(sessionUpload(), {
			...options,
			items: [item({ data: rig.storedBinary(a) })],
		});
		const sessionId = retried.json.session_id as string;
		expect(retried.json).toMatchObject({
			outcome: 'continued_and_ended',
			upload_status: 'uploaded',
			end: { status: 'ended', http_status: 202 },
		});
		expect(
			rig.api
				.requestsTo('/voice/v1/sessions', 'POST')
				.filter((r) => r.path === '/voice/v1/sessions')
				.map((r) => r.status),
		).toEqual([201, 409]);
		expect(t.sessions.session(sessionId)).toMatchObject({ endCalls: 1, state: 'processing' });
		expect(t.sessions.session(sessionId)!.uploads.map((u) => u.sha256)).toEqual([a.sha256]);
	});

	test('a 401 on a raw upload: the token is renewed and the file sent again from a fresh read, whole', async () => {
		const a = rig.audioFile('a.wav', 300_000);
		// Refused once: the stream; n8n renews first, then the file goes once more from a fresh read.
		rig.api.injectFault({
			method: 'POST',
			path: /\/audio\/audio_0\.wav$/,
			times: 1,
			fault: { kind: 'status', status: 401 },
		});
		const output = await rig.run(sessionUpload({ transactionId: SESSION_A }), {
			items: [item({ data: rig.storedBinary(a) })],
		});
		expect(output[0].json.upload_status).toBe('uploaded');
		expect(rig.api.requestsTo(/\/audio\/audio_0\.wav$/, 'POST').map((r) => r.status)).toEqual([
			401, 200,
		]);
		expect(rig.api.counters.tokenRefreshes).toBe(1);
		expect(t.sessions.session(SESSION_A)!.uploads.map((u) => u.sha256)).toEqual([a.sha256]);
	});

	test('a redirect answering the upload is not followed', async () => {
		const a = rig.audioFile('a.wav', 1000);
		rig.api.injectFault({
			method: 'POST',
			path: /\/audio\/audio_0\.wav$/,
			fault: { kind: 'redirect', status: 307, location: 'http://elsewhere.invalid/steal' },
		});
		await expect(
			rig.run(sessionUpload({ transactionId: SESSION_A }), {
				items: [item({ data: rig.storedBinary(a) })],
			}),
		).rejects.toThrow(/redirect \(HTTP 307\) to elsewhere\.invalid, which was not followed/);
		expect(rig.api.requestsTo(`/voice/v1/sessions/${SESSION_A}/end`, 'POST')).toHaveLength(0);
	});
});

describe('Upload Method "Session": what a lost or unclear answer leaves, and what the output says', () => {
	const CREATE = '/voice/v1/sessions';
	const creates = () => rig.api.requestsTo(CREATE, 'POST').filter((r) => r.path === CREATE);
	/** The recording arrived whole, once stored, and End was sent once: nothing lost, nothing paid twice. */
	function expectUploadedAndEndedOnce(sessionId: string, file: { sha256: string }) {
		expect(t.sessions.session(sessionId)!.uploads.map((u) => [u.fileName, u.sha256])).toEqual([
			['audio_0.wav', file.sha256],
		]);
		expect(t.sessions.session(sessionId)).toMatchObject({ endCalls: 1, state: 'processing' });
	}

	test.each([
		['session-create-lost-500', 'status500' as const, 'the create carried out, its answer a 500'],
		[
			'session-create-lost-drop',
			'drop' as const,
			'the create carried out, the connection dropped before the answer',
		],
	])(
		'%s (%s: %s): repeated, the 409 is our own session, still open (its read answered 200 "created"): the file is uploaded and End sent once',
		async (row, kind, _what) => {
			const sessionId = `${row}-0001`.padEnd(16, '0');
			const a = rig.audioFile('a.wav', 3000);
			t.sessions.loseCreateAnswer({ sessionId, kind });
			const output = await rig.run(sessionUpload({ transactionId: sessionId }), {
				items: [item({ data: rig.storedBinary(a) })],
			});
			expect(output).toHaveLength(1);
			expect(output[0].json).toMatchObject({
				session_id: sessionId,
				outcome: 'uploaded_and_ended',
				upload_status: 'uploaded',
				upload_status_code: 200,
				end: { status: 'ended', http_status: 202 },
			});
			expect(creates().map((r) => r.status)).toEqual([kind === 'drop' ? undefined : 500, 409]);
			expect(rig.api.requestsTo(`${CREATE}/${sessionId}`, 'GET').map((r) => r.status)).toEqual([
				200,
			]);
			expectUploadedAndEndedOnce(sessionId, a);
			recordAttack(
				row,
				`create answer lost (${kind}): repeated, 409 read as ours, session "created": 1 file uploaded, End sent once`,
				{ itemsLost: 0, duplicateInits: 0 },
			);
		},
	);

	test('session-created-read-202: after a lost create answer the session read answers HTTP 202 with status "created": open, so the file is uploaded and End sent once (the HTTP status decides nothing)', async () => {
		const sessionId = 'session-created-read-202-01';
		const a = rig.audioFile('a.wav', 3000);
		t.sessions.loseCreateAnswer({ sessionId, kind: 'status500' });
		rig.api.injectFault({
			method: 'GET',
			path: `${CREATE}/${sessionId}`,
			fault: {
				kind: 'status',
				status: 202,
				body: {
					session_id: sessionId,
					status: 'created',
					audio_files_received: 0,
					audio_files: [],
				},
			},
		});
		const output = await rig.run(sessionUpload({ transactionId: sessionId }), {
			items: [item({ data: rig.storedBinary(a) })],
		});
		expect(output[0].json).toMatchObject({
			outcome: 'uploaded_and_ended',
			upload_status: 'uploaded',
			end: { status: 'ended', http_status: 202 },
		});
		expect(output[0].json).not.toHaveProperty('init');
		expectUploadedAndEndedOnce(sessionId, a);
		recordAttack(
			'session-created-read-202',
			'session read 202 + status "created": read as open from the body; 1 file uploaded, End sent once',
			{ itemsLost: 0, duplicateInits: 0 },
		);
	});

	test('session-create-no-answer: no answer to any create: the error says the session may exist and how to go on (not the Base URL); the same ID in a new run continues it, End once', async () => {
		const sessionId = 'session-create-no-answer-01';
		const a = rig.audioFile('a.wav', 3000);
		// The first create is carried out, its connection dropped; every repeat is dropped before it arrives.
		t.sessions.loseCreateAnswer({ sessionId, kind: 'drop' });
		rig.api.injectFault({ method: 'POST', path: CREATE, times: 3, fault: { kind: 'drop' } });
		const failed = rig.run(sessionUpload({ transactionId: sessionId }), {
			items: [item({ data: rig.storedBinary(a) })],
			executionId: 'exec-lost-create',
		});
		await expect(failed).rejects.toThrow(
			`Session "${sessionId}" of item 0 may have been created, but no answer came from the clinic API`,
		);
		await expect(failed).rejects.toMatchObject({
			description: expect.stringContaining('Run the node again with the same Session ID'),
		});
		await expect(failed).rejects.not.toMatchObject({
			description: expect.stringMatching(/Base URL/),
		});
		expect(t.sessions.session(sessionId)).toMatchObject({
			state: 'created',
			uploads: [],
			endCalls: 0,
		});

		// As the message says: run again (a new execution) with the same ID.
		const [again] = await rig.run(sessionUpload({ transactionId: sessionId }), {
			items: [item({ data: rig.storedBinary(a) })],
			executionId: 'exec-after-lost-create',
		});
		expect(again.json).toMatchObject({
			session_id: sessionId,
			outcome: 'continued_and_ended',
			upload_status: 'uploaded',
			end: { status: 'ended' },
		});
		expectUploadedAndEndedOnce(sessionId, a);
		recordAttack(
			'session-create-no-answer',
			'no create answer at all: "may have been created … same Session ID"; the next run with that ID continued it: 1 file, End once',
			{ itemsLost: 0, duplicateInits: 0 },
		);
	});

	test('session-foreign-ended-after-500: a 500 then "exists" for a session another recording already ended is not taken for ours: the item fails "already used", nothing uploaded or ended', async () => {
		const sessionId = 'session-foreign-ended-0001';
		const other = rig.audioFile('other.wav', 500);
		await rig.run(sessionUpload({ transactionId: sessionId }), {
			items: [item({ data: rig.storedBinary(other) })],
			executionId: 'exec-other-visit',
		});
		rig.api.injectFault({ method: 'POST', path: CREATE, fault: { kind: 'status', status: 500 } });
		const a = rig.audioFile('a.wav', 3000);
		await expect(
			rig.run(sessionUpload({ transactionId: sessionId }), {
				items: [item({ data: rig.storedBinary(a) })],
				executionId: 'exec-this-visit',
			}),
		).rejects.toThrow(`The Session ID "${sessionId}" of item 0 was already used`);
		expect(t.sessions.session(sessionId)!.uploads.map((u) => u.sha256)).toEqual([other.sha256]);
		expect(t.sessions.session(sessionId)!.endCalls).toBe(1);
		recordAttack(
			'session-foreign-ended-after-500',
			'500 then 409 on a session another recording ended: refused as used, not reported as uploaded; nothing sent',
			{ itemsLost: 0, duplicateInits: 0 },
		);
	});

	test('an open session holding audio this upload would not replace is not continued by another run ("already used"); one holding only its own file names is', async () => {
		const sessionId = 'session-open-foreign-0001';
		const other = rig.audioFile('other.wav', 500);
		await createSessionWithFile(sessionId, 'audio_1.wav', other.bytes);
		const a = rig.audioFile('a.wav', 3000);
		await expect(
			rig.run(sessionUpload({ transactionId: sessionId }), {
				items: [item({ data: rig.storedBinary(a) })],
			}),
		).rejects.toThrow(/was already used/);
		expect(t.sessions.session(sessionId)).toMatchObject({ endCalls: 0, state: 'created' });
		expect(t.sessions.session(sessionId)!.uploads.map((u) => u.storedAs)).toEqual(['1.wav']);

		const mine = 'session-open-replaced-0001';
		await createSessionWithFile(mine, 'audio_0.wav', other.bytes);
		const [continued] = await rig.run(sessionUpload({ transactionId: mine }), {
			items: [item({ data: rig.storedBinary(a) })],
		});
		expect(continued.json).toMatchObject({
			outcome: 'continued_and_ended',
			upload_status: 'uploaded',
		});
		expectUploadedAndEndedOnce(mine, a);
	});

	test('a cancelled session is not uploaded to: the item says it was cancelled and nothing was sent', async () => {
		const sessionId = 'session-cancelled-00001';
		await createSessionWithFile(sessionId, 'audio_0.wav', Buffer.alloc(10, 1));
		await rig.run({ resource: 'transcription', operation: 'cancelSession', sessionId });
		const output = await rig.run(sessionUpload({ transactionId: sessionId }), {
			items: [item({ data: rig.storedBinary(rig.audioFile('a.wav', 100)) })],
			continueOnFail: true,
		});
		expect(output[0].json).toMatchObject({
			session_id: sessionId,
			error: `Session "${sessionId}" of item 0 was cancelled`,
		});
		expect(output[0].json.description).toMatch(/^Nothing of this item was uploaded/);
		expect(t.sessions.session(sessionId)!.endCalls).toBe(0);
	});

	/** A session made outside the node (another workflow, another run), holding one file. */
	async function createSessionWithFile(
		sessionId: string,
		fileName: string,
		bytes: Buffer,
	): Promise<void> {
		const headers = { authorization: `Bearer ${rig.api.validCredentials.staticToken}` };
		const created = await fetch(`${rig.api.url}${CREATE}`, {
			method: 'POST',
			headers: { ...headers, 'content-type': 'application/json' },
			body: JSON.stringify({
				session_id: sessionId,
				upload_type: 'single',
				templates: ['clinical_notes_template'],
			}),
		});
		expect(created.status).toBe(201);
		const uploaded = await fetch(`${rig.api.url}${CREATE}/${sessionId}/audio/${fileName}`, {
			method: 'POST',
			headers: { ...headers, 'content-type': 'audio/wav' },
			body: new Uint8Array(bytes),
		});
		expect(uploaded.status).toBe(200);
	}
});
