/**
 * The session API inside a real n8n 2.41.1 (filesystem binary data mode), one instance, several
 * workflows: recordings read from disk → Upload Audio with Upload Method "Session" (raw bytes streamed
 * from n8n's binary store, checked by length and SHA-256) and Wait → the decoded documents → Get
 * Session Audio (downloaded from the other host without a token) written to disk; an upload then
 * Cancel Session and Get Results (Results Of "Session"). The session example runs in clinic.e2e.test.ts
 * (its e-mail read from the local inbox).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { fakeSessions, type FakeSessions } from '../fake-api/routes/transcription/sessionStore';
import { CLINICAL_NOTES_DOCUMENT, TRANSCRIPT_TEXT } from '../fake-api/routes/transcription';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { packedPackageForTests } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { nodeJson, nodeOutput } from '../support/n8n/results';
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	chain,
	type WorkflowJson,
	type WorkflowNode,
} from '../support/n8n/workflows';

jest.setTimeout(5 * 60_000);

const CREDENTIAL = { id: 'clinicScribeE2E21', name: 'Clinic Scribe (e2e sessions)' };

let api: FakeClinicApi;
let sessions: FakeSessions;
let n8n: N8nInstance;
const audioDir = mkdtempSync(join(tmpdir(), 'clinic-scribe-e2e-sessions-'));
const recordings = [
	{ name: 'visit-part-1.wav', bytes: randomBytes(3 * 1024 * 1024 + 11) },
	{ name: 'visit-part-2.wav', bytes: randomBytes(200 * 1024 + 3) },
];
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
	for (const recording of recordings)
		writeFileSync(join(audioDir, recording.name), recording.bytes);
	api = await startFakeClinicApi();
	sessions = fakeSessions(api);
	n8n = await N8nInstance.create({
		packageTarball: await packedPackageForTests(),
		env: { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem', N8N_RESTRICT_FILE_ACCESS_TO: audioDir },
	});
	await n8n.importCredentials([
		{ ...CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
	]);
});

afterAll(async () => {
	await n8n?.dispose();
	await api?.close();
	rmSync(audioDir, { recursive: true, force: true });
});

beforeEach(() => {
	api.reset();
	sessions.reset();
});

function node(
	name: string,
	type: string,
	parameters: Record<string, unknown>,
	x: number,
): WorkflowNode {
	const withCredentials =
		type === ACTION_NODE_TYPE ? { credentials: { [CREDENTIAL_TYPE]: CREDENTIAL } } : {};
	return {
		name,
		type,
		typeVersion: type === ACTION_NODE_TYPE ? 1 : 1.1,
		position: [x, 0],
		parameters,
		...withCredentials,
	};
}

function workflow(name: string, nodes: WorkflowNode[]): WorkflowJson {
	const all = [
		{
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters: {},
		},
		...nodes,
	];
	return {
		name,
		nodes: all,
		connections: chain(...all.map((entry) => entry.name)),
		settings: { executionOrder: 'v1' },
	};
}

const read = (fileSelector: string) =>
	node(
		'Read Recordings',
		'n8n-nodes-base.readWriteFile',
		{ operation: 'read', fileSelector, options: {} },
		220,
	);

function sessionUpload(sessionId: string, wait: boolean): WorkflowNode {
	return node(
		'Session Upload',
		ACTION_NODE_TYPE,
		{
			resource: 'transcription',
			operation: 'uploadAudio',
			uploadMethod: 'session',
			binaryPropertyName: 'data',
			transactionId: sessionId,
			inputLanguages: ['en-IN', 'hi'],
			outputTemplates: {
				templates: [
					{ template: 'clinical_notes_template', codificationNeeded: false },
					{ template: 'transcript_template', codificationNeeded: false },
				],
			},
			waitForCompletion: wait,
			timeoutMinutes: 2,
			pollIntervalSeconds: 1,
			resultsOutput: 'session',
			options: { mode: 'consultation' },
		},
		440,
	);
}

test('a session upload from the binary store, waited for: decoded documents; then the session audio, fetched without a token, written to disk', async () => {
	const sessionId = `e2e-session-${randomBytes(6).toString('hex')}`;
	sessions.setOptions({ processingPolls: 2 });
	const outFile = join(audioDir, 'session-audio-out.wav');
	const id = await n8n.importWorkflow(
		workflow('e2e: session upload, wait, audio', [
			read(join(audioDir, 'visit-part-*.wav')),
			sessionUpload(sessionId, true),
			node(
				'Get Audio',
				ACTION_NODE_TYPE,
				{
					resource: 'transcription',
					operation: 'getSessionAudio',
					sessionId: '={{ $json.session_id }}',
					binaryPropertyName: 'audio',
				},
				660,
			),
			node(
				'Write Audio',
				'n8n-nodes-base.readWriteFile',
				{ operation: 'write', fileName: outFile, dataPropertyName: 'audio', options: {} },
				880,
			),
		]),
	);
	const result = await n8n.execute(id);
	expect(result.error).toBeUndefined();
	expect(result.status).toBe('success');

	for (const entry of nodeOutput(result, 'Read Recordings'))
		expect((entry.binary as { data: { id?: string } }).data.id).toMatch(/^filesystem/);
	const [uploaded] = nodeOutput(result, 'Session Upload');
	expect(uploaded.pairedItem).toEqual([{ item: 0 }, { item: 1 }]);
	expect(uploaded.json).toMatchObject({
		session_id: sessionId,
		status: 'completed',
		http_status: 200,
	});
	expect((uploaded.json.documents as Record<string, unknown>).clinical_notes_template).toEqual(
		CLINICAL_NOTES_DOCUMENT,
	);
	// The transcript template the session asked for (the session's own transcript gives way to it).
	expect((uploaded.json.documents as Record<string, unknown>).transcript_template).toBe(
		TRANSCRIPT_TEXT,
	);

	// n8n streamed both files out of its binary store as raw bodies, intact, with the token.
	const session = sessions.session(sessionId)!;
	expect(sessions.rejected()).toEqual([]);
	expect(session.input).toMatchObject({
		session_id: sessionId,
		upload_type: 'single',
		language_hint: ['en-IN', 'hi'],
		session_mode: 'consultation',
	});
	const byName = new Map(session.uploads.map((upload) => [upload.fileName, upload]));
	expect([...byName.keys()].sort()).toEqual(['audio_0.wav', 'audio_1.wav']);
	for (const [index, recording] of recordings.entries()) {
		expect(byName.get(`audio_${index}.wav`)).toMatchObject({
			size: recording.bytes.length,
			sha256: sha256(recording.bytes),
			contentLength: recording.bytes.length,
		});
		expect(byName.get(`audio_${index}.wav`)!.headerNames).not.toContain('transfer-encoding');
	}
	expect(session.endCalls).toBe(1);
	expect(
		api.requestsTo(new RegExp(`^/voice/v1/sessions/${sessionId}$`), 'GET').map((r) => r.status),
	).toEqual([202, 202, 200]);
	expect(
		api.requestsTo(`/voice/v1/sessions/${sessionId}/audio`, 'GET').map((r) => r.status),
	).toEqual([200]);

	// The audio came from the other host with no auth header, and arrived whole on disk.
	const [audio] = nodeJson(result, 'Get Audio');
	expect(audio).toMatchObject({
		session_id: sessionId,
		content_type: 'audio/wav',
		expires_in: 86_400,
	});
	expect(
		sessions
			.mediaRequests()
			.map((r) => [r.status, r.headerNames.filter((h) => /auth|client-id|cookie/i.test(h))]),
	).toEqual([[200, []]]);
	// Joined in file-number order; n8n's Read/Write Files lists the files in its own order.
	const recordingOf = (upload: { sha256: string }) =>
		recordings.find((recording) => sha256(recording.bytes) === upload.sha256)!.bytes;
	const expected = Buffer.concat(
		[...session.uploads].sort((x, y) => x.storedAs.localeCompare(y.storedAs)).map(recordingOf),
	);
	expect(sha256(readFileSync(outFile))).toBe(sha256(expected));
});

test('upload without waiting, Cancel Session, then Get Results (Results Of "Session") reads it as cancelled', async () => {
	const sessionId = `e2e-cancel-${randomBytes(6).toString('hex')}`;
	const id = await n8n.importWorkflow(
		workflow('e2e: session cancel', [
			read(join(audioDir, 'visit-part-2.wav')),
			sessionUpload(sessionId, false),
			node(
				'Cancel',
				ACTION_NODE_TYPE,
				{
					resource: 'transcription',
					operation: 'cancelSession',
					sessionId: '={{ $json.session_id }}',
				},
				660,
			),
			node(
				'Read Back',
				ACTION_NODE_TYPE,
				{
					resource: 'transcription',
					operation: 'getResults',
					sessionId: '={{ $json.session_id }}',
					resultsSource: 'session',
					waitForCompletion: false,
					resultsOutput: 'simple',
				},
				880,
			),
		]),
	);
	const result = await n8n.execute(id);
	expect(result.error).toBeUndefined();
	expect(nodeJson(result, 'Session Upload')).toEqual([
		expect.objectContaining({
			session_id: sessionId,
			upload_method: 'session',
			outcome: 'uploaded_and_ended',
			upload_status: 'uploaded',
			file_name: 'audio_0.wav',
		}),
	]);
	expect(nodeJson(result, 'Cancel')).toEqual([
		{
			session_id: sessionId,
			cancelled: true,
			http_status: 200,
			message: 'Session updated successfully',
		},
	]);
	expect(nodeJson(result, 'Read Back')).toEqual([
		expect.objectContaining({
			session_id: sessionId,
			status: 'cancelled',
			issues: ['The session was cancelled; it holds no results.'],
		}),
	]);
	expect(api.requestsTo(`/voice/v1/sessions/${sessionId}`, 'PATCH').map((r) => r.body)).toEqual([
		{ user_status: 'cancelled', processing_status: 'cancelled' },
	]);
});
