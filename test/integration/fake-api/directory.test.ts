import { FIXTURE_IDS } from '../../fake-api/fixtures';
import { startFakeClinicApi } from '../../fake-api/server';
import type { FakeClinicApi } from '../../fake-api/server';
import { accessToken, call, expectEnvelope, getWithToken, rawRequest } from './helpers';

const SERVICE_FIELDS = [
	'appointment_type',
	'archive',
	'book_ahead_days',
	'conf_id',
	'created_at',
	'currency',
	'duration',
	'mode',
	'pre_pay',
	'price',
	'service_name',
];
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

let api: FakeClinicApi;
let token: string;
beforeAll(async () => {
	api = await startFakeClinicApi();
});
afterAll(() => api.close());
beforeEach(async () => {
	token = (await accessToken(api)).access; // some tests expire every issued token
	api.reset();
});

const services = (doctorId: string) => `/dr/v1/doctor/service/${encodeURIComponent(doctorId)}`;
const search = (mobile: string) =>
	`/dr/v1/business/patients/search?mobile=${encodeURIComponent(mobile)}`;

describe('4.1 GET /dr/v1/doctor/service/{doctor_id}', () => {
	test('answers {data: {services: [...]}} with exactly the 2.1 fields, active and archived, both types and modes', async () => {
		const res = await getWithToken(api, services(FIXTURE_IDS.doctorWithServices), token);
		expect(res.status).toBe(200);
		expect(Object.keys(res.json)).toEqual(['data']);
		const list = res.json.data.services as Array<Record<string, unknown>>;
		expect(list).toHaveLength(4);
		for (const s of list) {
			expect(Object.keys(s).sort()).toEqual(SERVICE_FIELDS);
			expect(Number.isInteger(s.created_at)).toBe(true);
		}
		expect(new Set(list.map((s) => s.archive))).toEqual(new Set([true, false]));
		expect(new Set(list.map((s) => s.appointment_type))).toEqual(new Set(['REGULAR', 'FOLLOW_UP']));
		expect(new Set(list.flatMap((s) => s.mode as string[]))).toEqual(
			new Set(['tele', 'in-clinic']),
		);
		expect(list.some((s) => !Number.isInteger(s.price))).toBe(true); // a float price
	});

	test("servicesForm 'object' answers the sample's single-object form, switchable at run time", async () => {
		api.options.servicesForm = 'object';
		const res = await getWithToken(api, services(FIXTURE_IDS.doctorWithServices), token);
		expect(Array.isArray(res.json.data.services)).toBe(false);
		expect(res.json.data.services).toEqual(
			expect.objectContaining({ service_name: 'General Consultation', conf_id: 'conf-1001-01' }),
		);
		api.setOptions({ servicesForm: 'array' });
		expect(
			Array.isArray(
				(await getWithToken(api, services(FIXTURE_IDS.doctorWithServices), token)).json.data
					.services,
			),
		).toBe(true);
	});

	test('a doctor without services answers an empty array', async () => {
		const res = await getWithToken(api, services(FIXTURE_IDS.doctorWithoutServices), token);
		expect(res.json).toEqual({ data: { services: [] } });
	});

	test('unknown doctor is 404 DOCTOR_NOT_FOUND', async () => {
		expectEnvelope(
			await getWithToken(api, services(FIXTURE_IDS.unknownDoctor), token),
			404,
			'DOCTOR_NOT_FOUND',
		);
		expectEnvelope(await getWithToken(api, services('__proto__'), token), 404, 'DOCTOR_NOT_FOUND');
	});

	test('a doctor id with a space and a slash must arrive percent-encoded as ONE path segment', async () => {
		const ok = await getWithToken(api, '/dr/v1/doctor/service/a%20b%2Fc', token);
		expect(ok.status).toBe(200);
		expect(ok.json.data.services[0].conf_id).toBe('conf-encoding-01');
		const [record] = api.requestsTo('/dr/v1/doctor/service/');
		expect(record.path).toBe('/dr/v1/doctor/service/a%20b%2Fc');
		expect(record.pathname).toBe('/dr/v1/doctor/service/a b/c');
		expect(record.route).toBe('/dr/v1/doctor/service/:doctorId');

		// the slash left raw makes two segments: no such route
		expectEnvelope(
			await getWithToken(api, '/dr/v1/doctor/service/a%20b/c', token),
			404,
			'NOT_FOUND',
		);
		// '+' is not a space in a path
		expectEnvelope(
			await getWithToken(api, '/dr/v1/doctor/service/a+b%2Fc', token),
			404,
			'DOCTOR_NOT_FOUND',
		);
		// a broken escape
		expectEnvelope(
			await rawRequest(api, {
				method: 'GET',
				path: '/dr/v1/doctor/service/a%zz',
				headers: { auth: token },
			}).then(asResult),
			400,
			'BAD_REQUEST',
		);
	});

	test('empty doctor id or a trailing slash match no route', async () => {
		expectEnvelope(await getWithToken(api, '/dr/v1/doctor/service/', token), 404, 'NOT_FOUND');
		expectEnvelope(
			await getWithToken(api, '/dr/v1/doctor/service/do1001/', token),
			404,
			'NOT_FOUND',
		);
	});
});

describe('header auth on /dr (document §5): token raw in header `auth`', () => {
	const paths = [
		services(FIXTURE_IDS.doctorWithServices),
		search(FIXTURE_IDS.mobileWithTwoProfiles),
		'/dr/v1/business/entities',
	];

	test.each(paths)(
		'%s: missing, Bearer-only, Bearer-prefixed, unknown or expired tokens are 401 "token expired or invalid"',
		async (path) => {
			const cases: Array<Record<string, string>> = [
				{},
				{ authorization: `Bearer ${token}` },
				{ auth: `Bearer ${token}` },
				{ auth: 'not-a-token' },
				{ 'x-auth': token },
			];
			for (const headers of cases) {
				const res = await call(api, path, { headers });
				expectEnvelope(res, 401, 'UNAUTHORIZED');
				expect(res.json.error.message).toBe('token expired or invalid');
			}
			const { access } = await accessToken(api);
			api.expireAccessTokens();
			expectEnvelope(await getWithToken(api, path, access), 401, 'UNAUTHORIZED');
		},
	);

	test('the token is checked before the doctor is looked up', async () => {
		expectEnvelope(await call(api, services(FIXTURE_IDS.unknownDoctor)), 401, 'UNAUTHORIZED');
	});
});

describe('4.2 GET /dr/v1/business/patients/search?mobile=', () => {
	test('found: {status_code: 200, success: true, data: {profiles}} with exactly the 2.2 fields', async () => {
		const res = await getWithToken(
			api,
			search(FIXTURE_IDS.mobileWithTwoProfiles),
			api.validCredentials.staticToken,
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
		const nullId = await getWithToken(api, search(FIXTURE_IDS.mobileWithNullPatientId), token);
		expect(nullId.json.data.profiles[0].patient_id).toBeNull();
		expect(nullId.json.data.profiles[0].patient_profile.patient_id).toBeNull();
		expect(
			(await getWithToken(api, search(FIXTURE_IDS.mobileWithGenderO), token)).json.data.profiles[0]
				.patient_profile.gender,
		).toBe('O');
	});

	test("patientsForm 'patients' answers the alternative form: data.patients, clinic_id, is_recent, email, gen", async () => {
		api.setOptions({ patientsForm: 'patients' });
		const res = await getWithToken(api, search(FIXTURE_IDS.mobileWithTwoProfiles), token);
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
			await getWithToken(api, search(FIXTURE_IDS.unknownMobile), token),
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
		expectEnvelope(await getWithToken(api, path, token), 400, 'INVALID_MOBILE');
	});

	test('the query is recorded', async () => {
		await getWithToken(api, `${search(FIXTURE_IDS.mobileWithTwoProfiles)}&x=1&x=2`, token);
		expect(api.requestsTo('/dr/v1/business/patients/search')[0].query).toEqual({
			mobile: FIXTURE_IDS.mobileWithTwoProfiles,
			x: ['1', '2'],
		});
	});
});

describe('4.3 GET /dr/v1/business/entities', () => {
	test('answers clinics, doctors (with pic) and the business of the token', async () => {
		const res = await getWithToken(api, '/dr/v1/business/entities', token);
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

describe('routing', () => {
	test('unknown paths are 404 and wrong methods 405 with Allow', async () => {
		expectEnvelope(await call(api, '/dr/v2/business/entities'), 404, 'NOT_FOUND');
		expectEnvelope(await call(api, '/'), 404, 'NOT_FOUND');
		const post = await call(api, '/dr/v1/business/entities', {
			method: 'POST',
			headers: { auth: token },
			body: '{}',
		});
		expectEnvelope(post, 405, 'METHOD_NOT_ALLOWED');
		expect(post.headers.get('allow')).toBe('GET');
		const head = await rawRequest(api, {
			method: 'HEAD',
			path: '/dr/v1/business/entities',
			headers: { auth: token },
		});
		expect(head.status).toBe(405);
		expect(api.requests.map((r) => r.status)).toEqual([404, 404, 405, 405]);
	});

	test('paths are case-sensitive', async () => {
		expectEnvelope(await getWithToken(api, '/DR/v1/business/entities', token), 404, 'NOT_FOUND');
	});
});

function asResult(r: {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
}) {
	return {
		status: r.status,
		headers: new Headers(r.headers as Record<string, string>),
		text: r.text,
		json: JSON.parse(r.text),
	};
}
