/** The fake's deprecated patient search ([IFD §4.2], routes/patient/mobileSearch.ts). */
import { FIXTURE_IDS } from '../../../fake-api/fixtures';
import { expectEnvelope, getWithToken, useFakeWithFreshToken } from '../helpers';

const PROFILE_FIELDS = [
	'created_at',
	'dob',
	'first_name',
	'gender',
	'last_name',
	'middle_name',
	'mobile',
	'patient_id',
];

const fake = useFakeWithFreshToken();

const search = (mobile: string) =>
	`/dr/v1/business/patients/search?mobile=${encodeURIComponent(mobile)}`;

describe('4.2 GET /dr/v1/business/patients/search?mobile=', () => {
	test('found: {status_code: 200, success: true, data: {profiles}} with exactly the 2.2 fields', async () => {
		const res = await getWithToken(
			fake.api,
			search(FIXTURE_IDS.mobileWithTwoProfiles),
			fake.api.validCredentials.staticToken,
		);
		expect(res.status).toBe(200);
		expect(res.json.status_code).toBe(200);
		expect(res.json.success).toBe(true);
		expect(Object.keys(res.json.data)).toEqual(['profiles']);
		const profiles = res.json.data.profiles as Array<Record<string, any>>;
		expect(profiles).toHaveLength(2);
		for (const p of profiles) {
			expect(Object.keys(p).sort()).toEqual(['name', 'patient_id', 'patient_profile']);
			expect(Object.keys(p.patient_profile).sort()).toEqual(PROFILE_FIELDS);
			expect(p.patient_profile.mobile).toBe('+919876543210');
			expect(p.patient_profile.dob).toMatch(/^\d{4}-\d{2}-\d{2}$/);
			expect(p.patient_profile.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
		}
		const nullId = await getWithToken(
			fake.api,
			search(FIXTURE_IDS.mobileWithNullPatientId),
			fake.token,
		);
		expect(nullId.json.data.profiles[0].patient_id).toBeNull();
		expect(nullId.json.data.profiles[0].patient_profile.patient_id).toBeNull();
		expect(
			(await getWithToken(fake.api, search(FIXTURE_IDS.mobileWithGenderO), fake.token)).json.data
				.profiles[0].patient_profile.gender,
		).toBe('O');
	});

	test("patientsForm 'patients' answers the alternative form: data.patients, clinic_id, is_recent, email, gen", async () => {
		fake.api.setOptions({ patientsForm: 'patients' });
		const res = await getWithToken(fake.api, search(FIXTURE_IDS.mobileWithTwoProfiles), fake.token);
		expect(Object.keys(res.json.data)).toEqual(['patients']);
		const [ravi, priya] = res.json.data.patients;
		expect(Object.keys(ravi).sort()).toEqual([
			'clinic_id',
			'is_recent',
			'name',
			'patient_id',
			'patient_profile',
		]);
		expect(ravi.clinic_id).toBe('c-1001');
		expect(ravi.is_recent).toBe(true);
		expect(priya.clinic_id).toBeNull();
		expect(ravi.patient_profile.gen).toBe('M');
		expect(ravi.patient_profile).not.toHaveProperty('gender');
		expect(ravi.patient_profile.email).toBe('ravi.kumar@example.com');
	});

	test('no patients is 404 PATIENTS_NOT_FOUND', async () => {
		expectEnvelope(
			await getWithToken(fake.api, search(FIXTURE_IDS.unknownMobile), fake.token),
			404,
			'PATIENTS_NOT_FOUND',
		);
	});

	test.each([
		['missing', '/dr/v1/business/patients/search'],
		['empty', '/dr/v1/business/patients/search?mobile='],
		['partial', search('98765')],
		['11 digits', search('98765432101')],
		['with country code', search('+919876543210')],
		['with a space', search('98765 43210')],
		[
			'repeated',
			`/dr/v1/business/patients/search?mobile=${FIXTURE_IDS.mobileWithTwoProfiles}&mobile=${FIXTURE_IDS.mobileWithTwoProfiles}`,
		],
		[
			'under another name',
			`/dr/v1/business/patients/search?mob=${FIXTURE_IDS.mobileWithTwoProfiles}`,
		],
	])('a %s mobile is 400', async (_name, path) => {
		expectEnvelope(await getWithToken(fake.api, path, fake.token), 400, 'INVALID_MOBILE');
	});

	test('the query is recorded', async () => {
		await getWithToken(
			fake.api,
			`${search(FIXTURE_IDS.mobileWithTwoProfiles)}&x=1&x=2`,
			fake.token,
		);
		expect(fake.api.requestsTo('/dr/v1/business/patients/search')[0].query).toEqual({
			mobile: FIXTURE_IDS.mobileWithTwoProfiles,
			x: ['1', '2'],
		});
	});
});
