/** The fake's doctor routes ([IFD §4.1], routes/doctor.ts): a doctor's services. */
import { FIXTURE_IDS } from '../../fake-api/fixtures';
import { expectEnvelope, getWithToken, rawRequest, useFakeWithFreshToken } from './helpers';

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

const fake = useFakeWithFreshToken();

const services = (doctorId: string) => `/dr/v1/doctor/service/${encodeURIComponent(doctorId)}`;

describe('4.1 GET /dr/v1/doctor/service/{doctor_id}', () => {
	test('answers {data: {services: [...]}} with exactly the 2.1 fields, active and archived, both types and modes', async () => {
		const res = await getWithToken(fake.api, services(FIXTURE_IDS.doctorWithServices), fake.token);
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
		fake.api.options.servicesForm = 'object';
		const res = await getWithToken(fake.api, services(FIXTURE_IDS.doctorWithServices), fake.token);
		expect(Array.isArray(res.json.data.services)).toBe(false);
		expect(res.json.data.services).toEqual(
			expect.objectContaining({ service_name: 'General Consultation', conf_id: 'conf-1001-01' }),
		);
		fake.api.setOptions({ servicesForm: 'array' });
		expect(
			Array.isArray(
				(await getWithToken(fake.api, services(FIXTURE_IDS.doctorWithServices), fake.token)).json
					.data.services,
			),
		).toBe(true);
	});

	test('a doctor without services answers an empty array', async () => {
		const res = await getWithToken(
			fake.api,
			services(FIXTURE_IDS.doctorWithoutServices),
			fake.token,
		);
		expect(res.json).toEqual({ data: { services: [] } });
	});

	test('unknown doctor is 404 DOCTOR_NOT_FOUND', async () => {
		expectEnvelope(
			await getWithToken(fake.api, services(FIXTURE_IDS.unknownDoctor), fake.token),
			404,
			'DOCTOR_NOT_FOUND',
		);
		expectEnvelope(
			await getWithToken(fake.api, services('__proto__'), fake.token),
			404,
			'DOCTOR_NOT_FOUND',
		);
	});

	test('a doctor id with a space and a slash must arrive percent-encoded as ONE path segment', async () => {
		const ok = await getWithToken(fake.api, '/dr/v1/doctor/service/a%20b%2Fc', fake.token);
		expect(ok.status).toBe(200);
		expect(ok.json.data.services[0].conf_id).toBe('conf-encoding-01');
		const [record] = fake.api.requestsTo('/dr/v1/doctor/service/');
		expect(record.path).toBe('/dr/v1/doctor/service/a%20b%2Fc');
		expect(record.pathname).toBe('/dr/v1/doctor/service/a b/c');
		expect(record.route).toBe('/dr/v1/doctor/service/:doctorId');

		// the slash left raw makes two segments: no such route
		expectEnvelope(
			await getWithToken(fake.api, '/dr/v1/doctor/service/a%20b/c', fake.token),
			404,
			'NOT_FOUND',
		);
		// '+' is not a space in a path
		expectEnvelope(
			await getWithToken(fake.api, '/dr/v1/doctor/service/a+b%2Fc', fake.token),
			404,
			'DOCTOR_NOT_FOUND',
		);
		// a broken escape
		expectEnvelope(
			await rawRequest(fake.api, {
				method: 'GET',
				path: '/dr/v1/doctor/service/a%zz',
				headers: { auth: fake.token },
			}).then(asResult),
			400,
			'BAD_REQUEST',
		);
	});

	test('empty doctor id or a trailing slash match no route', async () => {
		expectEnvelope(
			await getWithToken(fake.api, '/dr/v1/doctor/service/', fake.token),
			404,
			'NOT_FOUND',
		);
		expectEnvelope(
			await getWithToken(fake.api, '/dr/v1/doctor/service/do1001/', fake.token),
			404,
			'NOT_FOUND',
		);
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
