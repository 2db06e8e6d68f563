/** The fake API's notes-from-text routes themselves: strict on headers and bodies; the status route answers. */
import {
	CONVERT_PATH,
	fakeTranscription,
	SESSIONS_PATH,
} from '../../../fake-api/routes/transcription';
import { startFakeClinicApi, type FakeClinicApi } from '../../../fake-api/server';
import { accessToken, call } from '../helpers';

let api: FakeClinicApi;
let token: string;

beforeAll(async () => {
	api = await startFakeClinicApi();
});
afterAll(() => api.close());
beforeEach(async () => {
	token = (await accessToken(api)).access;
	api.reset();
	fakeTranscription(api).reset();
	fakeTranscription(api).setOptions({ processingPolls: 0 });
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
	call(api, path, {
		method: 'POST',
		headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
		body: JSON.stringify(body),
	} as RequestInit);
const convertPath = (sessionId: string) => CONVERT_PATH.replace(':txnId', sessionId);

async function newSession(templates: unknown = ['clinical_notes_template']): Promise<string> {
	const created = await post(SESSIONS_PATH, { upload_type: 'single', templates });
	expect(created.status).toBe(201);
	return (created.json as { session_id: string }).session_id;
}

test('create session: Bearer, single upload, 1–2 known templates, nothing else', async () => {
	expect(
		(await call(api, SESSIONS_PATH, { method: 'POST', headers: { auth: token } })).status,
	).toBe(401);
	expect(
		(await post(SESSIONS_PATH, { upload_type: 'chunked', templates: ['clinical_notes_template'] }))
			.json,
	).toEqual({
		error: { code: 'invalid_upload_type', message: 'upload_type must be single' },
	});
	expect(
		(await post(SESSIONS_PATH, { upload_type: 'single', templates: ['a', 'b', 'c'] })).status,
	).toBe(400);
	expect((await post(SESSIONS_PATH, { upload_type: 'single', templates: ['nope'] })).json).toEqual({
		error: { code: 'invalid_template_id', message: 'unknown template_id nope' },
	});
	expect(
		(
			await post(SESSIONS_PATH, {
				upload_type: 'single',
				templates: ['clinical_notes_template'],
				flavour: 'web',
			})
		).status,
	).toBe(400);
});

test('convert: no flavour header, a transcript, a known session and template; then the status call answers the document', async () => {
	const sessionId = await newSession();
	expect((await post(convertPath('ses_unknown'), { transcript: 'x' })).json).toEqual({
		error: { code: 'transaction_not_found', message: 'transaction not found' },
	});
	expect((await post(convertPath(sessionId), { transcript: 'x' }, { flavour: 'web' })).status).toBe(
		400,
	);
	expect((await post(convertPath(sessionId), { transcript: '  ' })).json).toEqual({
		error: {
			code: 'invalid_request',
			message: 'Either transcript or target_language must be provided',
		},
	});
	expect((await post(convertPath(sessionId), { transcript: 'x', extra: 1 })).status).toBe(400);
	const started = await post(convertPath(sessionId), { transcript: 'Fever for three days.' });
	expect(started.status).toBe(202);
	expect(started.json).toMatchObject({
		status: 'in-progress',
		txn_id: sessionId,
		template_id: 'clinical_notes_template',
	});
	const status = await call(api, `/voice/api/v3/status/${sessionId}`, {
		headers: { authorization: `Bearer ${token}` },
	});
	expect(status.status).toBe(200);
	expect(
		(
			status.json as { data: { output: Array<{ template_id: string; status: string }> } }
		).data.output.map((t) => [t.template_id, t.status]),
	).toEqual([['clinical_notes_template', 'success']]);
});
