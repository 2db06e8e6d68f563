/** The fake's business route ([IFD §4.3], routes/business.ts): the business of the token. */
import { FIXTURE_IDS } from '../../fake-api/fixtures';
import { getWithToken, useFakeWithFreshToken } from './helpers';

const fake = useFakeWithFreshToken();

describe('4.3 GET /dr/v1/business/entities', () => {
	test('answers clinics, doctors (with pic) and the business of the token', async () => {
		const res = await getWithToken(fake.api, '/dr/v1/business/entities', fake.token);
		expect(res.status).toBe(200);
		expect(res.json).toEqual({
			status_code: 200,
			success: true,
			data: {
				clinics: expect.any(Array),
				doctors: expect.any(Array),
				business: expect.any(Object),
			},
		});
		const { clinics, doctors, business } = res.json.data;
		expect(clinics).toHaveLength(2);
		for (const c of clinics)
			expect(Object.keys(c).sort()).toEqual(['clinic_id', 'doctors', 'name']);
		expect(doctors.length).toBeGreaterThanOrEqual(3);
		for (const d of doctors) {
			expect(Object.keys(d).sort()).toEqual(['doctor_id', 'name', 'pic']);
			expect(d.pic).toMatch(/^https:\/\//);
		}
		const doctorIds = new Set(doctors.map((d: { doctor_id: string }) => d.doctor_id));
		for (const c of clinics) for (const id of c.doctors) expect(doctorIds.has(id)).toBe(true);
		expect(business).toEqual({
			business_id: FIXTURE_IDS.businessId,
			name: 'Sunrise Family Clinics',
		});
	});
});
