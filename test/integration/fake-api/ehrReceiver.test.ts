/**
 * The fake EHR receiver `npm start` points the example workflows at: it accepts what they send,
 * refuses anything else, and records what arrived.
 */
import { EHR_DOCUMENTS_PATH, fakeEhr } from '../../fake-api/routes/ehrReceiver';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { call, postJson } from './helpers';

let api: FakeClinicApi;
beforeAll(async () => {
	api = await startFakeClinicApi();
});
afterAll(() => api.close());
beforeEach(() => {
	api.reset();
	fakeEhr(api).clear();
});

describe('fake EHR receiver', () => {
	test('a JSON document with a session_id is answered 201, recorded, and listed under /__admin/ehr/documents', async () => {
		const document = {
			session_id: 'visit-1',
			status: 'completed',
			emr: { diagnoses: [{ code: 'J06.9' }] },
		};
		const first = await postJson(api, EHR_DOCUMENTS_PATH, document);
		expect(first.status).toBe(201);
		expect(first.json).toEqual({
			id: expect.stringMatching(/^ehr_doc_[0-9a-f]{16}$/),
			session_id: 'visit-1',
			received_at: expect.any(String),
			duplicate: false,
		});
		const again = await postJson(api, EHR_DOCUMENTS_PATH, { ...document, status: 'partial' });
		expect(again.json).toMatchObject({ session_id: 'visit-1', duplicate: true });

		const listed = await call(api, '/__admin/ehr/documents');
		expect(listed.status).toBe(200);
		expect(listed.json).toEqual([
			{ ...first.json, body: document },
			{ ...again.json, body: { ...document, status: 'partial' } },
		]);
		expect(fakeEhr(api).documents()).toEqual(listed.json);
		expect(api.requestsTo(EHR_DOCUMENTS_PATH, 'POST').map((r) => r.status)).toEqual([201, 201]);

		expect((await postJson(api, '/__admin/ehr/clear', {})).json).toEqual({ ok: true });
		expect((await call(api, '/__admin/ehr/documents')).json).toEqual([]);
	});

	test('refuses what is not a JSON object with a session_id, records nothing, echoes no value', async () => {
		const cases: Array<[RequestInit, number, string]> = [
			[
				{ method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"session_id":"x"}' },
				415,
				'Content-Type must be application/json',
			],
			[
				{ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"session_id":' },
				400,
				'Request body is not valid JSON',
			],
			[
				{ method: 'POST', headers: { 'content-type': 'application/json' }, body: '' },
				400,
				'Request body is not valid JSON',
			],
			[
				{ method: 'POST', headers: { 'content-type': 'application/json' }, body: '["x"]' },
				400,
				'Request body must be a JSON object',
			],
			[
				{
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: '{"status":"secret-value"}',
				},
				400,
				'Field session_id must be a non-empty string',
			],
			[
				{
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: '{"session_id":"  "}',
				},
				400,
				'Field session_id must be a non-empty string',
			],
		];
		for (const [init, status, message] of cases) {
			const answer = await call(api, EHR_DOCUMENTS_PATH, init);
			expect([init.body, answer.status, answer.json]).toEqual([
				init.body,
				status,
				{ error: { message, code: expect.any(String) } },
			]);
			expect(answer.text).not.toContain('secret-value');
		}
		expect((await call(api, EHR_DOCUMENTS_PATH)).status).toBe(405);
		expect(fakeEhr(api).documents()).toEqual([]);
	});
});
