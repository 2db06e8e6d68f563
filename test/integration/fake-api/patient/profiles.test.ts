/**
 * The fake's patient directory routes themselves (routes/patient/profiles.ts): strict where the
 * node's tests rely on it (client-id required, the directory's query rules).
 */
import { fakePatientDirectory } from '../../../fake-api/routes/patient';
import { startFakeClinicApi, type FakeClinicApi } from '../../../fake-api/server';
import { fetchAnswer } from '../helpers';

let api: FakeClinicApi;

beforeAll(async () => {
	api = await startFakeClinicApi();
});
afterAll(async () => await api.close());
beforeEach(() => {
	api.reset();
	fakePatientDirectory(api).reset();
});

const token = () => api.validCredentials.staticToken;
const directory = (extra: Record<string, string> = {}) => ({
	authorization: `Bearer ${token()}`,
	'client-id': api.validCredentials.clientId,
	...extra,
});

describe('patient directory', () => {
	it('requires the client-id header, and the one of the token', async () => {
		expect(
			(
				await fetchAnswer(api, '/profiles/v1/patient/175074536120088', {
					headers: { authorization: `Bearer ${token()}` },
				})
			).body,
		).toEqual({
			error: { message: 'client-id header is required', code: 'invalid_request' },
		});
		expect(
			(
				await fetchAnswer(api, '/profiles/v1/patient/175074536120088', {
					headers: directory({ 'client-id': 'other' }),
				})
			).status,
		).toBe(401);
		expect(
			(await fetchAnswer(api, '/profiles/v1/patient/175074536120088', { headers: directory() }))
				.status,
		).toBe(200);
	});

	it('takes mob only as +<country code><number> (a raw + is a space)', async () => {
		expect(
			(
				await fetchAnswer(api, '/profiles/v1/patient/by-mobile/?mob=%2B919876543210', {
					headers: directory(),
				})
			).status,
		).toBe(200);
		expect(
			(
				await fetchAnswer(api, '/profiles/v1/patient/by-mobile/?mob=+919876543210', {
					headers: directory(),
				})
			).status,
		).toBe(400);
		expect(
			(
				await fetchAnswer(api, '/profiles/v1/patient/by-mobile/?mob=9876543210', {
					headers: directory(),
				})
			).status,
		).toBe(400);
		expect(
			(
				await fetchAnswer(api, '/profiles/v1/patient/by-mobile?mob=%2B919876543210', {
					headers: directory(),
				})
			).status,
		).not.toBe(200);
	});

	it('pages from 1 and ends with nextPage -1; refuses pageNo 0 and sizes over 2000', async () => {
		const first = await fetchAnswer(api, '/profiles/v1/patient/minified/?pageNo=1&pageSize=2', {
			headers: directory(),
		});
		expect(first.body).toMatchObject({ currPageMeta: { currPageNo: 1, pageSize: 2, nextPage: 2 } });
		const last = await fetchAnswer(api, '/profiles/v1/patient/minified/?pageNo=2&pageSize=2', {
			headers: directory(),
		});
		expect(last.body).toMatchObject({
			profiles: [{ oid: '175074536120090' }],
			currPageMeta: { nextPage: -1 },
		});
		expect(
			(await fetchAnswer(api, '/profiles/v1/patient/minified/?pageNo=0', { headers: directory() }))
				.status,
		).toBe(400);
		expect(
			(
				await fetchAnswer(api, '/profiles/v1/patient/minified/?pageNo=1&pageSize=2001', {
					headers: directory(),
				})
			).status,
		).toBe(400);
		expect(
			(await fetchAnswer(api, '/profiles/v1/patient/minified/', { headers: directory() })).status,
		).toBe(400);
	});

	it('create accepts both readings of the conflicts (bloodgroup or bg; +91 mobile or digits with ccd)', async () => {
		const post = (body: unknown) =>
			fetchAnswer(api, '/profiles/v1/patient/', {
				method: 'POST',
				headers: directory({ 'content-type': 'application/json' }),
				body: JSON.stringify(body),
			});
		expect(
			(
				await post({
					fn: 'A',
					dob: '2000-01-02',
					gen: 'M',
					bloodgroup: 'O+',
					mobile: '9000000001',
					ccd: '+91',
				})
			).status,
		).toBe(201);
		expect(
			(await post({ fn: 'B', dob: '2000-01-02', gen: 'F', bg: 'O+', mobile: '+919000000002' }))
				.status,
		).toBe(201);
		expect((await post({ fn: 'C', dob: '2000-01-02', gen: 'X' })).body).toEqual({
			error: { message: 'Invalid Gender Enum', code: 'invalid_request' },
		});
		expect((await post({ fn: 'D', dob: '2000-01-02', gen: 'M', address: 'x' })).status).toBe(400);
		const stored = [...fakePatientDirectory(api).profiles.values()].filter(
			(p) => p.fn === 'a' || p.fn === 'b',
		);
		expect(stored.map((p) => [p.fln, p.bg, p.ccd, p.mobile])).toEqual([
			['a', 'O+', '+91', '9000000001'],
			['b', 'O+', '+91', '9000000002'],
		]);
	});
});
