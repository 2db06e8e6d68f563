/**
 * The fake's prescription and PDF-store routes themselves (routes/prescription.ts): strict where the
 * node's tests rely on it (credentials to the store refused, client-id required), and the admin
 * seeding other tests and the examples use over HTTP.
 */
import { fakePrescriptions, SEEDED_PRESCRIPTION_ID } from '../../fake-api/routes/prescription';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { fetchAnswer } from './helpers';

let api: FakeClinicApi;

beforeAll(async () => {
	api = await startFakeClinicApi();
});
afterAll(async () => await api.close());
beforeEach(() => {
	api.reset();
	fakePrescriptions(api).reset();
});

const token = () => api.validCredentials.staticToken;

describe('prescriptions', () => {
	it('answers the seeded prescription at the top level to the raw auth token, 404 for an unknown id', async () => {
		const ok = await fetchAnswer(api, `/dr/v1/prescription/${SEEDED_PRESCRIPTION_ID}`, {
			headers: { auth: token() },
		});
		expect(ok.status).toBe(200);
		expect(ok.body).toMatchObject({ prescription_id: SEEDED_PRESCRIPTION_ID, doctor_id: 'do1001' });
		expect(ok.body).not.toHaveProperty('prescription_url');
		expect(
			(await fetchAnswer(api, '/dr/v1/prescription/P-none', { headers: { auth: token() } })).body,
		).toEqual({ error: { code: 'NOT_FOUND', message: 'Rx id/Business data missing' } });
		expect((await fetchAnswer(api, `/dr/v1/prescription/${SEEDED_PRESCRIPTION_ID}`)).status).toBe(
			401,
		);
	});

	it('seeds over HTTP (/__admin/prescriptions) with a PDF the store serves only without credentials', async () => {
		const seeded = await fetchAnswer(api, '/__admin/prescriptions', {
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
		const listed = (await fetchAnswer(api, '/__admin/prescriptions')).body as Array<
			Record<string, unknown>
		>;
		expect(listed.map((p) => p.prescription_id)).toEqual([SEEDED_PRESCRIPTION_ID, 'P-ADMIN-1']);
		const pdf = await fetchAnswer(api, '/prescription-store/P-ADMIN-1.pdf');
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
			const refused = await fetchAnswer(api, '/prescription-store/P-ADMIN-1.pdf', {
				headers: header,
			});
			expect(refused.status).toBe(400);
			expect((refused.body as { error: { code: string } }).error.code).toBe('CREDENTIAL_SENT');
		}
		expect((await fetchAnswer(api, '/prescription-store/nope.pdf')).status).toBe(404);
		await fetchAnswer(api, '/__admin/prescriptions/reset', { method: 'POST' });
		expect(((await fetchAnswer(api, '/__admin/prescriptions')).body as unknown[]).length).toBe(1);
	});

	it('refuses a bad seed', async () => {
		const bad = await fetchAnswer(api, '/__admin/prescriptions', {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ prescription: [1] }),
		});
		expect(bad).toMatchObject({ status: 400, body: { error: 'prescription must be an object' } });
	});
});
