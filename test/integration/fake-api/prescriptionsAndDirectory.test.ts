/**
 * The fake's prescription, PDF-store and patient-directory routes themselves: strict where the
 * node's tests rely on it (credentials to the store refused, client-id required, the directory's
 * query rules), and the admin seeding other tests and the examples use over HTTP.
 */
import { fakePatientDirectory } from '../../fake-api/routes/patient';
import { fakePrescriptions, SEEDED_PRESCRIPTION_ID } from '../../fake-api/routes/prescription';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';

let api: FakeClinicApi;

beforeAll(async () => {
	api = await startFakeClinicApi();
});
afterAll(async () => await api.close());
beforeEach(() => {
	api.reset();
	fakePrescriptions(api).reset();
	fakePatientDirectory(api).reset();
});

async function call(path: string, init: RequestInit = {}) {
	const response = await fetch(`${api.url}${path}`, init);
	const type = response.headers.get('content-type') ?? '';
	const body = type.includes('json')
		? await response.json()
		: Buffer.from(await response.arrayBuffer());
	return { status: response.status, type, body };
}

const token = () => api.validCredentials.staticToken;
const directory = (extra: Record<string, string> = {}) => ({
	authorization: `Bearer ${token()}`,
	'client-id': api.validCredentials.clientId,
	...extra,
});

describe('prescriptions', () => {
	it('answers the seeded prescription at the top level to the raw auth token, 404 for an unknown id', async () => {
		const ok = await call(`/dr/v1/prescription/${SEEDED_PRESCRIPTION_ID}`, {
			headers: { auth: token() },
		});
		expect(ok.status).toBe(200);
		expect(ok.body).toMatchObject({ prescription_id: SEEDED_PRESCRIPTION_ID, doctor_id: 'do1001' });
		expect(ok.body).not.toHaveProperty('prescription_url');
		expect((await call('/dr/v1/prescription/P-none', { headers: { auth: token() } })).body).toEqual(
			{ error: { code: 'NOT_FOUND', message: 'Rx id/Business data missing' } },
		);
		expect((await call(`/dr/v1/prescription/${SEEDED_PRESCRIPTION_ID}`)).status).toBe(401);
	});

	it('seeds over HTTP (/__admin/prescriptions) with a PDF the store serves only without credentials', async () => {
		const seeded = await call('/__admin/prescriptions', {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				prescription: { prescription_id: 'P-ADMIN-1', patient_name: 'Test Patient' },
				pdfText: 'Hello PDF',
				baseUrl: api.url,
			}),
		});
		expect(seeded.body).toEqual({
			prescription_id: 'P-ADMIN-1',
			pdf_path: '/prescription-store/P-ADMIN-1.pdf',
			prescription_url: `${api.url}/prescription-store/P-ADMIN-1.pdf`,
		});
		const listed = (await call('/__admin/prescriptions')).body as Array<Record<string, unknown>>;
		expect(listed.map((p) => p.prescription_id)).toEqual([SEEDED_PRESCRIPTION_ID, 'P-ADMIN-1']);
		const pdf = await call('/prescription-store/P-ADMIN-1.pdf');
		expect(pdf.status).toBe(200);
		expect(pdf.type).toBe('application/pdf');
		expect((pdf.body as Buffer).toString('latin1')).toMatch(
			/^%PDF-1\.4[\s\S]*\(Hello PDF\) Tj[\s\S]*%%EOF\n$/,
		);
		const credentialHeaders: Array<Record<string, string>> = [
			{ authorization: 'Bearer x' },
			{ auth: 'x' },
			{ 'client-id': 'c' },
		];
		for (const header of credentialHeaders) {
			const refused = await call('/prescription-store/P-ADMIN-1.pdf', { headers: header });
			expect(refused.status).toBe(400);
			expect((refused.body as { error: { code: string } }).error.code).toBe('CREDENTIAL_SENT');
		}
		expect((await call('/prescription-store/nope.pdf')).status).toBe(404);
		await call('/__admin/prescriptions/reset', { method: 'POST' });
		expect(((await call('/__admin/prescriptions')).body as unknown[]).length).toBe(1);
	});

	it('refuses a bad seed', async () => {
		const bad = await call('/__admin/prescriptions', {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ prescription: [1] }),
		});
		expect(bad).toMatchObject({ status: 400, body: { error: 'prescription must be an object' } });
	});
});

describe('patient directory', () => {
	it('requires the client-id header, and the one of the token', async () => {
		expect(
			(
				await call('/profiles/v1/patient/175074536120088', {
					headers: { authorization: `Bearer ${token()}` },
				})
			).body,
		).toEqual({
			error: { message: 'client-id header is required', code: 'invalid_request' },
		});
		expect(
			(
				await call('/profiles/v1/patient/175074536120088', {
					headers: directory({ 'client-id': 'other' }),
				})
			).status,
		).toBe(401);
		expect(
			(await call('/profiles/v1/patient/175074536120088', { headers: directory() })).status,
		).toBe(200);
	});

	it('takes mob only as +<country code><number> (a raw + is a space)', async () => {
		expect(
			(await call('/profiles/v1/patient/by-mobile/?mob=%2B919876543210', { headers: directory() }))
				.status,
		).toBe(200);
		expect(
			(await call('/profiles/v1/patient/by-mobile/?mob=+919876543210', { headers: directory() }))
				.status,
		).toBe(400);
		expect(
			(await call('/profiles/v1/patient/by-mobile/?mob=9876543210', { headers: directory() }))
				.status,
		).toBe(400);
		expect(
			(await call('/profiles/v1/patient/by-mobile?mob=%2B919876543210', { headers: directory() }))
				.status,
		).not.toBe(200);
	});

	it('pages from 1 and ends with nextPage -1; refuses pageNo 0 and sizes over 2000', async () => {
		const first = await call('/profiles/v1/patient/minified/?pageNo=1&pageSize=2', {
			headers: directory(),
		});
		expect(first.body).toMatchObject({ currPageMeta: { currPageNo: 1, pageSize: 2, nextPage: 2 } });
		const last = await call('/profiles/v1/patient/minified/?pageNo=2&pageSize=2', {
			headers: directory(),
		});
		expect(last.body).toMatchObject({
			profiles: [{ oid: '175074536120090' }],
			currPageMeta: { nextPage: -1 },
		});
		expect(
			(await call('/profiles/v1/patient/minified/?pageNo=0', { headers: directory() })).status,
		).toBe(400);
		expect(
			(
				await call('/profiles/v1/patient/minified/?pageNo=1&pageSize=2001', {
					headers: directory(),
				})
			).status,
		).toBe(400);
		expect((await call('/profiles/v1/patient/minified/', { headers: directory() })).status).toBe(
			400,
		);
	});

	it('create accepts both readings of the conflicts (bloodgroup or bg; +91 mobile or digits with ccd)', async () => {
		const post = (body: unknown) =>
			call('/profiles/v1/patient/', {
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
