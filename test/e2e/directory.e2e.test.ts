/**
 * The directory operations (Doctor → Get Services, Patient → Search by Mobile, Business → Get
 * Entities) inside a real n8n 2.41.1: the packed package installed as a community package, a
 * credential pointing at the fake clinic API (in this process, 127.0.0.1, random port), workflows
 * run by `n8n execute`. One n8n user folder serves the whole file.
 */
import { join } from 'node:path';

import {
	API_VARIANTS,
	BUSINESS,
	DOCTORS,
	PATIENTS_BY_MOBILE,
	REFRESH_PATH,
	SERVICES_BY_DOCTOR,
} from '../fake-api/fixtures';
import { startFakeClinicApi, type FakeClinicApi, type RecordedRequest } from '../fake-api/server';
import { packedPackageForTests } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { nodeJson, nodeOutput, type ExecutionResult } from '../support/n8n/results';
import { CREDENTIAL_TYPE, readWorkflowFile, withCredential } from '../support/n8n/workflows';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { eventually } from '../support/n8n/trigger';

// jest 29 ignores testTimeout inside a project's config; every n8n run takes seconds.
jest.setTimeout(5 * 60_000);

const WORKFLOWS = join(__dirname, 'workflows');
/** The credential the fixtures name. */
const MAIN_CREDENTIAL = { id: 'clinicScribeE2E01', name: 'Clinic Scribe (e2e fake API)' };
/** A credential only the token tests use, so they start without a stored token. */
const TOKEN_CREDENTIAL = { id: 'clinicScribeE2E02', name: 'Clinic Scribe (e2e token test)' };

const TOKEN_PATH = API_VARIANTS.document.tokenPath;
const SERVICES_PATH = '/dr/v1/doctor/service/';
const SEARCH_PATH = '/dr/v1/business/patients/search';
const ENTITIES_PATH = '/dr/v1/business/entities';

let api: FakeClinicApi;
let n8n: N8nInstance;
const workflowIds: Record<string, string> = {};
/** Whether TOKEN_CREDENTIAL holds a token already (set by the first run that used it). */
let tokenCredentialHasToken = false;

beforeAll(async () => {
	api = await startFakeClinicApi();
	n8n = await N8nInstance.create({ packageTarball: await packedPackageForTests() });
	const data = fakeApiCredentialData(api);
	await n8n.importCredentials([
		{ ...MAIN_CREDENTIAL, type: CREDENTIAL_TYPE, data },
		{ ...TOKEN_CREDENTIAL, type: CREDENTIAL_TYPE, data },
	]);
	const files = ['directory-read', 'patient-search', 'patient-search-strict', 'business-entities'];
	const workflows = files.map((name) => readWorkflowFile(join(WORKFLOWS, `${name}.json`)));
	workflows.push(
		withCredential(
			readWorkflowFile(join(WORKFLOWS, 'doctor-services-many-items.json')),
			CREDENTIAL_TYPE,
			TOKEN_CREDENTIAL,
		),
	);
	const ids = await n8n.importWorkflows(workflows);
	[...files, 'doctor-services-many-items'].forEach((name, i) => (workflowIds[name] = ids[i]));
});

afterAll(async () => {
	await n8n?.dispose();
	await api?.close();
});

beforeEach(() => api.reset());

async function run(name: string): Promise<ExecutionResult> {
	return await n8n.execute(workflowIds[name]);
}

/** What the node makes of a services fixture: the records as the API sends them. */
function servicesOf(doctorId: string): unknown[] {
	return SERVICES_BY_DOCTOR[doctorId].map((service) => ({ ...service }));
}

describe('directory reads in n8n', () => {
	let result: ExecutionResult;
	/** The run's requests (the top-level beforeEach clears the live list). */
	let requests: RecordedRequest[];

	beforeAll(async () => {
		api.reset();
		result = await run('directory-read');
		requests = [...api.requests];
	});

	it('runs the workflow to success', () => {
		expect(result.error).toBeUndefined();
		expect(result.status).toBe('success');
	});

	it('Doctor → Get Services returns one item per service of the doctor', () => {
		expect(nodeJson(result, 'Get Services')).toEqual(servicesOf('do1001'));
		expect(
			nodeOutput(result, 'Get Services').every(
				(item) => JSON.stringify(item.pairedItem) === '{"item":0}',
			),
		).toBe(true);
	});

	it('Patient → Search by Mobile (profiles form) returns one normalised item per patient', () => {
		const patients = nodeJson(result, 'Search Patients');
		const expected = PATIENTS_BY_MOBILE['9876543210'];
		expect(patients.map((p) => p.patient_id)).toEqual(expected.map((p) => p.patient_id));
		expect(patients[0]).toMatchObject({
			name: expected[0].name,
			patient_id: expected[0].patient_id,
			patient_profile: {
				first_name: 'Ravi',
				last_name: 'Kumar',
				gender: 'M',
				dob: '1985-04-12',
				mobile: '+919876543210',
			},
		});
	});

	it('Patient → Search by Mobile with no match gives no items and no error by default', () => {
		expect(nodeJson(result, 'Search Unknown Mobile')).toEqual([]);
	});

	it('Business → Get Entities returns the clinics, doctors and business in one item', () => {
		const [entities, ...rest] = nodeJson(result, 'Get Entities');
		expect(rest).toHaveLength(0);
		expect(entities.business).toEqual({ ...BUSINESS });
		expect((entities.doctors as Array<{ doctor_id: string }>).map((d) => d.doctor_id)).toEqual(
			DOCTORS.map((d) => d.doctor_id),
		);
		expect((entities.clinics as Array<{ clinic_id: string }>).map((c) => c.clinic_id)).toEqual([
			'c-1001',
			'c-1002',
		]);
	});

	it('exchanged one token for all four nodes, sent it in the auth header, and the mobile as 10 digits', () => {
		const searches = requests.filter((r) => r.pathname === SEARCH_PATH);
		expect(searches.map((r) => r.query.mobile).sort()).toEqual(['9876543210', '9999999999']);
		expect(requests.filter((r) => r.pathname === TOKEN_PATH)).toHaveLength(1); // one token for the four nodes
		const apiCalls = requests.filter((r) => r.pathname !== TOKEN_PATH);
		expect(apiCalls).toHaveLength(4); // services, two searches, entities
		for (const request of apiCalls) {
			expect(request.headers.auth).toEqual(expect.any(String));
			expect(request.headers.authorization).toBeUndefined();
		}
		expect(apiCalls.map((r) => r.status).sort()).toEqual([200, 200, 200, 404]);
	});
});

describe('Patient → Search by Mobile, the alternative "patients" response form', () => {
	it('gives the same item shape as the profiles form', async () => {
		api.setOptions({ patientsForm: 'patients' });
		const result = await run('patient-search');
		expect(result.error).toBeUndefined();
		const patients = nodeJson(result, 'Search Patients');
		const expected = PATIENTS_BY_MOBILE['9876543210'];
		expect(patients).toHaveLength(expected.length);
		expect(patients[0]).toMatchObject({
			name: expected[0].name,
			patient_id: expected[0].patient_id,
			clinic_id: expected[0].clinic_id,
			is_recent: expected[0].is_recent,
			// `gen` in this form; the node names it gender in both
			patient_profile: { gender: 'M', first_name: 'Ravi', email: 'ravi.kumar@example.com' },
		});
		expect(api.requestsTo(SEARCH_PATH)).toHaveLength(1);
		expect(api.requestsTo(SEARCH_PATH)[0].status).toBe(200);
	});
});

describe('§7 errors reach the n8n user with the API code and advice', () => {
	it('403 UNAUTHORIZED_ACCESS fails the run, without retrying', async () => {
		api.injectFault({ method: 'GET', path: SEARCH_PATH, fault: { kind: 'status', status: 403 } });
		const result = await run('patient-search');
		expect(result.status).toBe('error');
		expect(result.error?.message).toContain('HTTP 403 UNAUTHORIZED_ACCESS');
		expect(result.error?.description).toMatch(/permission/i);
		expect(result.error?.node?.name).toBe('Search Patients');
		expect(String(result.error?.httpCode)).toBe('403');
		expect(api.requestsTo(SEARCH_PATH)).toHaveLength(1);
	});

	it('404 PATIENTS_NOT_FOUND fails the run when "Fail When No Patient Found" is on', async () => {
		api.injectFault({ method: 'GET', path: SEARCH_PATH, fault: { kind: 'status', status: 404 } });
		const result = await run('patient-search-strict');
		expect(result.status).toBe('error');
		expect(result.error?.message).toContain('HTTP 404 PATIENTS_NOT_FOUND');
		expect(result.error?.description).toMatch(/No patient with this mobile number/);
		expect(String(result.error?.httpCode)).toBe('404');
	});

	it('404 PATIENTS_NOT_FOUND gives no items (and no error) with the default options', async () => {
		api.injectFault({ method: 'GET', path: SEARCH_PATH, fault: { kind: 'status', status: 404 } });
		const result = await run('patient-search');
		expect(result.error).toBeUndefined();
		expect(nodeJson(result, 'Search Patients')).toEqual([]);
		expect(api.requestsTo(SEARCH_PATH).map((r) => r.fault)).toEqual(['status']);
	});

	it('404 BUSINESS_NOT_FOUND fails the run', async () => {
		api.injectFault({ method: 'GET', path: ENTITIES_PATH, fault: { kind: 'status', status: 404 } });
		const result = await run('business-entities');
		expect(result.status).toBe('error');
		expect(result.error?.message).toContain('HTTP 404 BUSINESS_NOT_FOUND');
		expect(result.error?.description).toMatch(/No business matches the token/);
		expect(result.error?.node?.name).toBe('Get Doctors');
	});

	it('500 SERVER_ERROR that persists fails the run after the bounded retries', async () => {
		api.injectFault({
			method: 'GET',
			path: ENTITIES_PATH,
			times: Infinity,
			fault: { kind: 'status', status: 500 },
		});
		const result = await run('business-entities');
		expect(result.status).toBe('error');
		expect(result.error?.message).toContain('HTTP 500 SERVER_ERROR');
		expect(result.error?.description).toMatch(/tried 4 times/);
		expect(api.requestsTo(ENTITIES_PATH).map((r) => r.status)).toEqual([500, 500, 500, 500]);
	});

	it('a single 500 is retried and the run succeeds', async () => {
		api.injectFault({
			method: 'GET',
			path: ENTITIES_PATH,
			times: 1,
			fault: { kind: 'status', status: 500 },
		});
		const result = await run('business-entities');
		expect(result.error).toBeUndefined();
		expect(nodeJson(result, 'Get Doctors').map((d) => d.doctor_id)).toEqual(
			DOCTORS.map((d) => d.doctor_id),
		);
		expect(api.requestsTo(ENTITIES_PATH).map((r) => r.status)).toEqual([500, 200]);
	});
});

describe('the access token', () => {
	const IDS = Array.from({ length: 25 }, (_, i) => ['do1001', 'do1002', 'do1003', 'do1004'][i % 4]);
	const expectedServices = IDS.flatMap((id) => servicesOf(id));

	function expectManyItemsOutput(result: ExecutionResult): void {
		expect(result.error).toBeUndefined();
		const items = nodeOutput(result, 'Get Services');
		expect(items.map((item) => item.json)).toEqual(expectedServices);
		// each output item points at the input item (doctor) it came from
		const pairedDoctors = items.map((item) => IDS[(item.pairedItem as { item: number }).item]);
		expect(pairedDoctors).toEqual(IDS.flatMap((id) => SERVICES_BY_DOCTOR[id].map(() => id)));
	}

	it('is exchanged once for a run of many items, and kept for the next execution', async () => {
		const first = await run('doctor-services-many-items');
		tokenCredentialHasToken ||= first.error === undefined;
		expectManyItemsOutput(first);
		expect(api.requestsTo(TOKEN_PATH, 'POST')).toHaveLength(1);
		expect(api.requestsTo(REFRESH_PATH)).toHaveLength(0);
		const calls = api.requestsTo(SERVICES_PATH, 'GET');
		// One call per item; several go out at once, so they may arrive in another order.
		expect(calls.map((r) => decodeURIComponent(r.path.slice(SERVICES_PATH.length))).sort()).toEqual(
			[...IDS].sort(),
		);
		const tokens = new Set(calls.map((r) => r.headers.auth));
		expect(tokens.size).toBe(1);
		expect(calls.every((r) => r.status === 200)).toBe(true);

		api.reset();
		const second = await run('doctor-services-many-items');
		expectManyItemsOutput(second);
		expect(api.requestsTo(TOKEN_PATH)).toHaveLength(0);
		expect(api.requestsTo(REFRESH_PATH)).toHaveLength(0);
		expect(new Set(api.requestsTo(SERVICES_PATH).map((r) => r.headers.auth))).toEqual(tokens);
	});

	it('a short-lived token (4 s) over several runs: each expiry costs one refused call and one renewal', async () => {
		// Long enough for a run's calls after the renewal, even on a busy machine.
		api.setOptions({ accessTokenLifetimeSeconds: 4 });
		// A token issued under that lifetime first: a full exchange (a refresh keeps the lifetime of
		// the token it renews).
		api.expireAccessTokens();
		api.expireRefreshTokens();
		expect((await run('doctor-services-many-items')).error).toBeUndefined();
		for (let expiry = 0; expiry < 2; expiry++) {
			const held = api.requestsTo(SERVICES_PATH, 'GET').at(-1)!.headers.auth as string;
			// Wait for the condition, not a time: the token the credential holds has run out.
			await eventually(
				() => api.state.tokens.accessTokenSubject(held) === undefined,
				() => 'the short-lived token is still live',
				30_000,
			);
			api.requests.length = 0;
			const result = await run('doctor-services-many-items');
			expectManyItemsOutput(result);
			const calls = api.requestsTo(SERVICES_PATH, 'GET');
			const renewals = api.requests.filter(
				(r) => r.pathname === TOKEN_PATH || r.pathname === REFRESH_PATH,
			);
			expect(renewals.map((r) => r.status)).toEqual([200]);
			// The run's first call meets the expired token once; the renewed token serves the rest.
			expect(calls.map((r) => r.status)).toEqual([401, ...IDS.map(() => 200)]);
			expect(calls[0].headers.auth).toBe(held);
			expect(new Set(calls.slice(1).map((r) => r.headers.auth)).size).toBe(1);
		}
	});

	it('is renewed once when the API says it expired, and the run still succeeds', async () => {
		if (!tokenCredentialHasToken) {
			// run alone: get a token stored first
			expect((await run('doctor-services-many-items')).error).toBeUndefined();
			tokenCredentialHasToken = true;
			api.reset();
		}
		api.expireAccessTokens();
		const result = await run('doctor-services-many-items');
		expectManyItemsOutput(result);
		const renewals = api.requests.filter(
			(r) => r.pathname === TOKEN_PATH || r.pathname === REFRESH_PATH,
		);
		expect(renewals).toHaveLength(1);
		expect(renewals[0].status).toBe(200);
		expect(api.counters.tokenExchanges + api.counters.tokenRefreshes).toBe(1);
		const calls = api.requestsTo(SERVICES_PATH, 'GET');
		// The run's first call (the others wait for it) met the expired token, once: n8n renewed the
		// token before sending it again (the credential handed over with its token moved aside); the
		// rest, sent several at once, used the new one.
		expect(calls.map((r) => r.status)).toEqual([401, ...IDS.map(() => 200)]);
		expect(calls[0].id).toBeLessThan(renewals[0].id);
		expect(calls[1].id).toBeGreaterThan(renewals[0].id);
		expect(new Set(calls.slice(1).map((r) => r.headers.auth)).size).toBe(1);
		expect(calls[1].headers.auth).not.toBe(calls[0].headers.auth);
	});
});
