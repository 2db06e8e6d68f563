/** The fake API's template routes themselves: strict on paths, headers and bodies; faults apply. */
import { fakeTemplates, resetTemplateStore } from '../../fake-api/routes/template';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { accessToken, call } from './helpers';

const TEMPLATES = '/voice/api/v1/template';
let api: FakeClinicApi;
let token: string;

beforeAll(async () => {
	api = await startFakeClinicApi();
});
afterAll(() => api.close());
beforeEach(async () => {
	token = (await accessToken(api)).access;
	api.reset();
	resetTemplateStore(fakeTemplates(api));
});

const bearer = (extra: Record<string, string> = {}) => ({
	authorization: `Bearer ${token}`,
	...extra,
});
const json = (method: string, body: unknown, headers: Record<string, string> = bearer()) =>
	({
		method,
		headers: { 'content-type': 'application/json', ...headers },
		body: JSON.stringify(body),
	}) as RequestInit;

describe('headers', () => {
	test('Bearer only: the raw auth header of /dr is refused', async () => {
		expect((await call(api, TEMPLATES, { headers: { auth: token } })).status).toBe(401);
		expect((await call(api, TEMPLATES, { headers: bearer() })).status).toBe(200);
	});

	test('public variant: a client token needs its client-id; a wrong client-id is refused with either variant', async () => {
		expect(
			(await call(api, TEMPLATES, { headers: bearer({ 'client-id': 'someone-else' }) })).json,
		).toEqual({
			error: { code: 'UNAUTHORIZED', message: 'client-id does not match the token' },
		});
		api.setOptions({ variant: 'public' });
		expect((await call(api, TEMPLATES, { headers: bearer() })).status).toBe(401);
		expect(
			(
				await call(api, TEMPLATES, {
					headers: bearer({ 'client-id': api.validCredentials.clientId }),
				})
			).status,
		).toBe(200);
	});
});

describe('paths and bodies', () => {
	test('no GET of one template (the docs have none), no query on the list', async () => {
		expect((await call(api, `${TEMPLATES}/tpl-soap-note`, { headers: bearer() })).status).toBe(405);
		expect((await call(api, `${TEMPLATES}?page=2`, { headers: bearer() })).json).toEqual({
			error: { code: 'BAD_REQUEST', message: 'unexpected query parameter(s): page' },
		});
	});

	test('create needs title and section_ids, refuses unknown fields and non-JSON bodies', async () => {
		const refusal = async (init: RequestInit) =>
			(await call(api, TEMPLATES, init)).json.error.message;
		expect(await refusal(json('POST', { desc: 'x', section_ids: [] }))).toBe('title is required');
		expect(await refusal(json('POST', { title: 'x' }))).toBe('section_ids is required');
		expect(await refusal(json('POST', { title: 'x', section_ids: [], colour: 'red' }))).toBe(
			'unknown field(s): colour',
		);
		expect(
			await refusal({
				method: 'POST',
				headers: { ...bearer(), 'content-type': 'text/plain' },
				body: '{"title":"x","section_ids":[]}',
			}),
		).toBe('body must be a JSON object sent as application/json');
		const created = await call(
			api,
			TEMPLATES,
			json('POST', { title: 'x', section_ids: [], type: 'custom' }),
		);
		expect(created.status).toBe(201);
		expect(created.json).toEqual({ msg: 'created successfully', template_id: 'tpl_fake0001' });
	});

	test("docs style: 404 for an unknown id, 422 for a bad body; the service's own templates are not editable", async () => {
		fakeTemplates(api).errorStyle = 'docs';
		const missing = await call(api, `${TEMPLATES}/nope`, { method: 'DELETE', headers: bearer() });
		expect([missing.status, missing.json.error.code]).toEqual([404, 'NOT_FOUND']);
		const bad = await call(api, `${TEMPLATES}/tpl-soap-note`, json('PATCH', { title: '' }));
		expect([bad.status, bad.json.error.code]).toEqual([422, 'VALIDATION_ERROR']);
		const builtIn = await call(api, `${TEMPLATES}/clinical_notes_template`, {
			method: 'DELETE',
			headers: bearer(),
		});
		expect([builtIn.status, builtIn.json.error.message]).toEqual([400, 'Template not editable']);
	});

	test('a fault injected on the list path answers in place of the route', async () => {
		api.injectFault({ method: 'GET', path: TEMPLATES, fault: { kind: 'status', status: 400 } });
		const faulted = await call(api, TEMPLATES, { headers: bearer() });
		expect(faulted.status).toBe(400);
		expect(faulted.json.error.code).toBe('BAD_REQUEST');
		expect((await call(api, TEMPLATES, { headers: bearer() })).status).toBe(200);
	});
});
