/**
 * Save Edited Notes over real HTTP against the fake: the documents endpoint ([EKA-OAS]
 * create-update-document.mdx) and the presigned PUT of the markdown, which carries no token.
 */
import { createSession } from '../../../nodes/ClinicScribe/transport/transcription/session';
import {
	DOCUMENTS_PATH,
	fakeSessionDocuments,
	type FakeSessionDocuments,
} from '../../fake-api/routes/transcription/sessionDocuments';
import { fakeSessions, type FakeSessions } from '../../fake-api/routes/transcription/sessionStore';
import { useTestTransportPolicy } from '../../support/transportPolicy';
import { TranscriptionRig } from '../../support/transcriptionRig';

const rig = new TranscriptionRig();
let sessions: FakeSessions;
let documents: FakeSessionDocuments;

beforeAll(async () => {
	await rig.start();
	sessions = fakeSessions(rig.api);
	documents = fakeSessionDocuments(rig.api);
	useTestTransportPolicy({
		retry: { baseDelayMs: 10, maxDelayMs: 50 },
		storageRetry: { baseDelayMs: 10, maxDelayMs: 50 },
	});
});
afterAll(async () => await rig.stop());
beforeEach(async () => {
	rig.reset();
	sessions.reset();
	documents.reset();
	await createSession(rig.context({}), {
		session_id: SESSION,
		upload_type: 'single',
		templates: ['clinical_notes_template'],
	});
});

const SESSION = 'n8ntestsession000000000000000042';
const NOTES =
	'## Plan\n\nParacetamol 500 mg, twice a day for three days. Review in a week — Dr. Rao';

function parameters(extra: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		resource: 'transcription',
		operation: 'saveEditedNotes',
		sessionId: SESSION,
		editedNotes: NOTES,
		documentId: '',
		options: {},
		...extra,
	};
}

const documentPosts = () => rig.api.requestsTo(DOCUMENTS_PATH, 'POST');
const storagePuts = () => documents.storageRequests().filter((r) => r.method === 'PUT');

describe('Save Edited Notes', () => {
	test('creates the document once, stores the markdown as text/markdown, outputs no notes', async () => {
		const output = await rig.run(parameters());
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		const documentId = output[0].json.document_id as string;
		expect(output[0].json).toEqual({
			document_id: documentId,
			session_id: SESSION,
			document_name: 'Edited clinical notes',
			action: 'created',
			bytes_saved: Buffer.byteLength(NOTES),
		});
		expect(documents.markdown(documentId)).toBe(NOTES);
		expect(documentPosts().map((r) => r.status)).toEqual([201]);
		expect(documentPosts()[0].body).toEqual({
			session_id: SESSION,
			type: 'custom',
			status: 'success',
			document_name: 'Edited clinical notes',
		});
		expect(storagePuts().map((r) => r.status)).toEqual([200]);
	});

	test('a re-run with the same input updates the same document: never a second one', async () => {
		const first = await rig.run(parameters());
		const second = await rig.run(parameters({ editedNotes: `${NOTES}\n\nAddendum.` }));
		expect(second[0].json).toMatchObject({
			document_id: first[0].json.document_id,
			action: 'updated',
		});
		expect(documents.documents().filter((d) => d.sessionId === SESSION)).toHaveLength(1);
		expect(documents.markdown(first[0].json.document_id as string)).toBe(`${NOTES}\n\nAddendum.`);
		expect(documentPosts().map((r) => r.status)).toEqual([201, 200]);
	});

	test('with a Document ID: updates that document (the generated notes), with the template id', async () => {
		const generated = documents.seed(SESSION, {
			documentName: 'Clinical note',
			templateId: 'clinical_notes_template',
		});
		const output = await rig.run(
			parameters({
				documentId: generated.documentId,
				options: { templateId: 'clinical_notes_template', includeNotes: true },
			}),
		);
		expect(output[0].json).toMatchObject({
			document_id: generated.documentId,
			action: 'updated',
			notes: NOTES,
		});
		expect(documentPosts()[0].body).toMatchObject({
			document_id: generated.documentId,
			template_id: 'clinical_notes_template',
		});
		expect(documents.markdown(generated.documentId)).toBe(NOTES);
		expect(documents.documents()).toHaveLength(1);
		// No listing is needed when the document is named.
		expect(rig.api.requestsTo(/^\/voice\/api\/v1\/sessions\//, 'GET')).toHaveLength(0);
	});

	test('two custom documents of that name: the item fails and lists them, nothing is saved', async () => {
		const a = documents.seed(SESSION, { documentName: 'Edited clinical notes', type: 'custom' });
		const b = documents.seed(SESSION, { documentName: 'Edited clinical notes', type: 'custom' });
		const run = rig.run(parameters());
		await expect(run).rejects.toThrow(
			`Session "${SESSION}" has 2 documents named "Edited clinical notes"`,
		);
		await expect(run).rejects.toMatchObject({
			description: `Enter the Document ID of the one to update (${a.documentId}, ${b.documentId}). Nothing was saved.`,
		});
		expect(documentPosts()).toHaveLength(0);
	});

	test('the storage PUT carries no token or auth header; the API call does', async () => {
		await rig.run(parameters());
		const put = storagePuts()[0];
		expect(put.headerNames).not.toContain('authorization');
		expect(put.headerNames).not.toContain('auth');
		expect(put.headerNames).not.toContain('client-id');
		expect(documentPosts()[0].headers.authorization).toMatch(/^Bearer /);
	});

	test.each([
		['whitespace-only notes', { editedNotes: '  \n\t ' }, /^The Edited Notes of item 0 are empty$/],
		[
			'notes over the bound',
			{ editedNotes: 'x'.repeat(1_000_001) },
			/^The Edited Notes of item 0 are 1,000,001 bytes, more than the 1,000,000/,
		],
		['a session id of a wrong shape', { sessionId: 'ses abc/..' }, /is not a session ID$/],
		['a document id of a wrong shape', { documentId: 'doc/../x' }, /is not a document ID$/],
	])('%s: a clear error and nothing is sent', async (_name, extra, message) => {
		const before = rig.api.requests.length;
		await expect(rig.run(parameters(extra))).rejects.toThrow(message);
		expect(rig.api.requests.length).toBe(before);
	});

	test('an unknown session: the error names it, nothing is created', async () => {
		const run = rig.run(parameters({ sessionId: 'n8nunknownsession000000000000001' }));
		await expect(run).rejects.toThrow(
			'Session "n8nunknownsession000000000000001" was not found (HTTP 404)',
		);
		expect(documentPosts()).toHaveLength(0);
		expect(documents.documents()).toHaveLength(0);
	});

	test('an unknown document: the error names it and its session, nothing is stored', async () => {
		await expect(rig.run(parameters({ documentId: 'doc_missing0001' }))).rejects.toThrow(
			`Document "doc_missing0001" of session "${SESSION}" was not found (HTTP 404)`,
		);
		expect(storagePuts()).toHaveLength(0);
	});

	test('a PUT that fails says the document exists without its content; the re-run finishes in it', async () => {
		rig.api.injectFault({
			method: 'PUT',
			path: /^\/storage\/session-documents\//,
			times: 3,
			fault: { kind: 'status', status: 500 },
		});
		const run = rig.run(parameters());
		await expect(run).rejects.toThrow(
			/^Document "doc_fake\d+" was created on session "n8ntestsession000000000000000042", but its markdown was not stored: the storage host refused it \(HTTP 500/,
		);
		const [created] = documents.documents();
		await expect(run).rejects.toMatchObject({
			description: `Run the node again with Document ID "${created.documentId}" to store the notes in that document; no new document is made.`,
		});
		expect(documents.markdown(created.documentId)).toBeUndefined();
		const again = await rig.run(parameters());
		expect(again[0].json).toMatchObject({ document_id: created.documentId, action: 'updated' });
		expect(documents.markdown(created.documentId)).toBe(NOTES);
		expect(documents.documents()).toHaveLength(1);
	});

	test.each(['status500', 'drop'] as const)(
		'a create carried out whose answer is lost (%s) is not sent again; the re-run updates it',
		async (kind) => {
			documents.loseCreateAnswer(kind);
			await expect(rig.run(parameters())).rejects.toMatchObject({
				description: expect.stringMatching(
					/a create is not sent again: the service may have made the document/,
				),
			});
			expect(documentPosts()).toHaveLength(1);
			const [made] = documents.documents();
			expect(documents.markdown(made.documentId)).toBeUndefined();
			const again = await rig.run(parameters());
			expect(again[0].json).toMatchObject({ document_id: made.documentId, action: 'updated' });
			expect(documents.documents()).toHaveLength(1);
			expect(documents.markdown(made.documentId)).toBe(NOTES);
		},
	);

	test('a 503 the service answered before doing anything: not sent again either (it cannot tell)', async () => {
		rig.api.injectFault({
			method: 'POST',
			path: DOCUMENTS_PATH,
			fault: { kind: 'status', status: 503 },
		});
		await expect(rig.run(parameters())).rejects.toThrow(/HTTP 503/);
		expect(documentPosts()).toHaveLength(1);
		expect(documents.documents()).toHaveLength(0);
	});

	test('a 429 on the create is sent again: it says the request was not taken', async () => {
		rig.api.injectFault({
			method: 'POST',
			path: DOCUMENTS_PATH,
			fault: { kind: 'status', status: 429, headers: { 'retry-after': '0' } },
		});
		const output = await rig.run(parameters());
		expect(output[0].json.action).toBe('created');
		expect(documentPosts().map((r) => r.status)).toEqual([429, 201]);
		expect(documents.documents()).toHaveLength(1);
	});

	test('an update that gets a 503 is sent again (same document, same body)', async () => {
		const generated = documents.seed(SESSION, { documentName: 'Clinical note' });
		rig.api.injectFault({
			method: 'POST',
			path: DOCUMENTS_PATH,
			fault: { kind: 'status', status: 503 },
		});
		const output = await rig.run(parameters({ documentId: generated.documentId }));
		expect(output[0].json.action).toBe('updated');
		expect(documentPosts().map((r) => r.status)).toEqual([503, 200]);
	});

	test('Continue On Fail: the bad item becomes an error item, the others are saved, each paired', async () => {
		const output = await rig.runPerItem(
			parameters(),
			[{}, { editedNotes: '' }, { sessionId: 'n8nunknownsession000000000000001' }],
			{ continueOnFail: true },
		);
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[0].json.action).toBe('created');
		expect(output[1].json.error).toBe('The Edited Notes of item 1 are empty');
		expect(output[2].json.error).toMatch(
			/Session "n8nunknownsession000000000000001" was not found/,
		);
		expect(documents.documents()).toHaveLength(1);
	});
});

describe('the fake documents API is strict', () => {
	/** Saves once through the node and returns the document and the token the node sent. */
	async function savedDocument(): Promise<{ documentId: string; token: string; url: string }> {
		const output = await rig.run(parameters());
		const token = documentPosts()[0].headers.authorization as string;
		return { documentId: output[0].json.document_id as string, token, url: rig.api.url };
	}

	test('GET gives the metadata and a download link whose markdown is what was saved; DELETE hides it', async () => {
		const { documentId, token, url } = await savedDocument();
		const got = await fetch(`${url}/voice/api/v1/documents/${documentId}`, {
			headers: { authorization: token },
		});
		expect(got.status).toBe(200);
		const { data } = (await got.json()) as { data: Record<string, string> };
		expect(data).toMatchObject({ document_id: documentId, session_id: SESSION, type: 'markdown' });
		const download = await fetch(data.presigned_url);
		expect(await download.text()).toBe(NOTES);
		const deleted = await fetch(`${url}/voice/api/v1/documents/${documentId}`, {
			method: 'DELETE',
			headers: { authorization: token },
		});
		expect(deleted.status).toBe(200);
		const listing = await fetch(`${url}/voice/api/v1/sessions/${SESSION}`, {
			headers: { authorization: token },
		});
		expect(((await listing.json()) as { data: { documents: unknown[] } }).data.documents).toEqual(
			[],
		);
		const after = await fetch(`${url}/voice/api/v1/documents/${documentId}`, {
			headers: { authorization: token },
		});
		expect(after.status).toBe(404);
	});

	test('the POST needs a token and a valid body (422), and the storage PUT refuses a token and other content types', async () => {
		const { documentId, token, url } = await savedDocument();
		const post = (body: unknown, headers: Record<string, string> = { authorization: token }) =>
			fetch(`${url}/voice/api/v1/documents`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', ...headers },
				body: JSON.stringify(body),
			});
		expect((await post({ session_id: SESSION }, {})).status).toBe(401);
		expect((await post({ document_name: 'x' })).status).toBe(422);
		expect((await post({ session_id: SESSION, type: 'other' })).status).toBe(422);
		expect((await post({ session_id: SESSION, colour: 'blue' })).status).toBe(422);
		const updated = await post({ session_id: SESSION, document_id: documentId });
		expect(updated.status).toBe(200);
		const putUrl = ((await updated.json()) as { data: { presigned_url: string } }).data
			.presigned_url;
		expect(new URL(putUrl).hostname).toBe('localhost');
		const put = (headers: Record<string, string>) =>
			fetch(putUrl, { method: 'PUT', headers, body: 'changed' });
		expect((await put({ 'content-type': 'text/markdown', authorization: token })).status).toBe(400);
		expect((await put({ 'content-type': 'text/plain' })).status).toBe(415);
		expect(documents.markdown(documentId)).toBe(NOTES);
		expect((await put({ 'content-type': 'text/markdown' })).status).toBe(200);
		expect(documents.markdown(documentId)).toBe('changed');
	});
});
