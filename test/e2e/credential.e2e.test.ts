/**
 * The credential's Test button, as n8n's editor runs it (POST /rest/credentials/test): the token
 * exchange plus one authenticated call, and a failure that names the rejected field without any
 * secret in it.
 */
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { packedPackageForTests } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { CREDENTIAL_TYPE } from '../support/n8n/workflows';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { recordAttack } from '../support/attackLedger';
import { startForeignHost } from '../support/foreignHost';
import { API_VARIANT_OPTIONS } from '../../nodes/ClinicScribe/transport/authentication';
import { API_VARIANTS } from '../fake-api/fixtures';

jest.setTimeout(5 * 60_000);

let api: FakeClinicApi;
let n8n: N8nInstance;

beforeAll(async () => {
	api = await startFakeClinicApi();
	n8n = await N8nInstance.create({ packageTarball: await packedPackageForTests() });
	await n8n.start();
	await n8n.setupOwner({
		email: 'owner@clinic-scribe.test',
		password: 'Credential-Test-1',
		firstName: 'Cred',
		lastName: 'Test',
	});
});

afterAll(async () => {
	await n8n?.dispose();
	await api?.close();
});

beforeEach(() => api.reset());

/** Saves a credential as the editor does, then presses its Test button. */
async function testCredential(
	overrides: Record<string, string>,
): Promise<{ status: string; message: string }> {
	const credential = {
		name: 'Clinic Scribe (test)',
		type: CREDENTIAL_TYPE,
		data: fakeApiCredentialData(api, overrides),
	};
	const saved = await n8n.rest<{ id: string }>('POST', '/credentials', credential);
	return await n8n.rest<{ status: string; message: string }>('POST', '/credentials/test', {
		credentials: { id: saved.id, ...credential },
	});
}

it('passes with valid credentials: one exchange, then one authenticated call', async () => {
	const result = await testCredential({});
	expect(result.status).toBe('OK');
	expect(api.counters.tokenExchanges).toBe(1);
	const [call] = api.requestsTo('/dr/v1/business/entities');
	expect(call.status).toBe(200);
	expect(call.headers.auth).toMatch(/^eyJ/);
});

it('names the rejected Client Secret and never shows it', async () => {
	const wrongSecret = 'definitely-not-the-secret-42';
	const result = await testCredential({ clientSecret: wrongSecret });
	expect(result.status).toBe('Error');
	expect(result.message).toContain('Client Secret');
	expect(result.message).not.toContain(wrongSecret);
	expect(api.requestsTo('/dr/')).toHaveLength(0);
});

it('names the rejected Workspace API Key', async () => {
	const result = await testCredential({ apiKey: 'wrong-workspace-key-99' });
	expect(result.status).toBe('Error');
	expect(result.message).toContain('Workspace API Key');
	expect(result.message).not.toContain('wrong-workspace-key-99');
});

describe('a wrong API Variant: the test says which to pick (the other variant tried once, at the same address)', () => {
	const PUBLIC = `"${API_VARIANT_OPTIONS.public.name}"`;
	const DOCUMENT = `"${API_VARIANT_OPTIONS.document.name}"`;

	it('the API speaks the public variant, the credential says interface document', async () => {
		api.setOptions({ variant: 'public', rejectOtherTokenFlow: true });
		const result = await testCredential({});
		expect(result.status).toBe('Error');
		expect(result.message).toContain(
			`set API Variant to ${PUBLIC} in the Clinic Scribe API credential`,
		);
		expect(result.message).not.toContain(api.validCredentials.clientSecret);
		expect(api.requests.map((r) => [r.pathname, r.status])).toEqual([
			[API_VARIANTS.document.tokenPath, 404],
			[API_VARIANTS.public.tokenPath, 200],
		]);
		// Set as advised, the same credential passes.
		api.reset();
		api.setOptions({ variant: 'public', rejectOtherTokenFlow: true });
		expect((await testCredential({ apiVariant: 'public' })).status).toBe('OK');
	});

	it("the API speaks the interface document's variant, the credential says public and has no Workspace API Key", async () => {
		api.setOptions({ rejectOtherTokenFlow: true });
		const result = await testCredential({ apiVariant: 'public', apiKey: '' });
		expect(result.status).toBe('Error');
		expect(result.message).toContain(
			`but it answers the one of ${DOCUMENT}: set API Variant to ${DOCUMENT}`,
		);
		expect(result.message).toContain('fill in the Workspace API Key');
	});
});

it('never follows a redirect: the test fails and the foreign host gets nothing (token exchange, then the test call)', async () => {
	const foreign = await startForeignHost();
	try {
		api.injectFault({
			path: '/api/v1/auth/token',
			fault: { kind: 'redirect', status: 307, location: `${foreign.url}/token` },
		});
		const onExchange = await testCredential({});
		expect(onExchange.status).toBe('Error');
		expect(onExchange.message).toContain(`redirect (HTTP 307) to ${foreign.host}`);

		api.injectFault({
			path: '/dr/v1/business/entities',
			fault: { kind: 'redirect', status: 302, location: `${foreign.url}/entities` },
		});
		const onCall = await testCredential({});
		expect(onCall.status).toBe('Error');
		expect(api.requestsTo('/dr/v1/business/entities').map((r) => r.fault)).toEqual(['redirect']);
		expect(foreign.requests).toEqual([]);
		recordAttack(
			'redirect-credential-test-n8n',
			'credential test fails; foreign host got 0 requests',
			{ secretsSeen: 0 },
		);
	} finally {
		await foreign.close();
	}
});

describe('an edited credential is tested with what was typed, as the editor saves and tests it', () => {
	type Saved = { id: string; name: string; type: string; data: Record<string, unknown> };
	/** The editor's Save: the data as it loaded it (secrets redacted) with the edit, PATCHed, then Test. */
	async function editAndTest(id: string, edit: Record<string, string>) {
		const loaded = await n8n.rest<Saved>('GET', `/credentials/${id}?includeData=true`);
		const credential = { name: loaded.name, type: loaded.type, data: { ...loaded.data, ...edit } };
		await n8n.rest('PATCH', `/credentials/${id}`, credential);
		return await n8n.rest<{ status: string; message: string }>('POST', '/credentials/test', {
			credentials: { id, ...credential },
		});
	}

	/** A new credential for the fake API, saved and tested green (its token stored). */
	async function savedAndTested(name: string): Promise<string> {
		const credential = { name, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api, {}) };
		const saved = await n8n.rest<{ id: string }>('POST', '/credentials', credential);
		expect(
			await n8n.rest<{ status: string }>('POST', '/credentials/test', {
				credentials: { id: saved.id, ...credential },
			}),
		).toMatchObject({ status: 'OK' });
		return saved.id;
	}

	it('tested green, edited to a wrong secret: the test fails naming the Client Secret; edited back, it passes', async () => {
		const id = await savedAndTested('Clinic Scribe (edited)');
		const firstToken = api.requestsTo('/dr/v1/business/entities')[0].headers.auth;
		expect(firstToken).toMatch(/^eyJ/);

		api.reset();
		const wrongSecret = 'rotated-but-mistyped-secret-7';
		const wrong = await editAndTest(id, { clientSecret: wrongSecret });
		expect(wrong.status).toBe('Error');
		expect(wrong.message).toContain('Client Secret');
		expect(wrong.message).not.toContain(wrongSecret);
		// The typed secret was exchanged; the old token went nowhere.
		const exchanges = api.requestsTo(API_VARIANTS.document.tokenPath, 'POST');
		expect(exchanges.map((r) => (r.body as { client_secret?: string }).client_secret)).toContain(
			wrongSecret,
		);
		expect(JSON.stringify(api.requests)).not.toContain(String(firstToken));

		api.reset();
		const back = await editAndTest(id, {
			clientSecret: api.validCredentials.clientSecret,
		});
		expect(back).toMatchObject({ status: 'OK' });
		expect(api.requestsTo('/dr/v1/business/entities').at(-1)?.status).toBe(200);
	});

	it('another API Variant after a green test: the test exchanges with that variant', async () => {
		const id = await savedAndTested('Clinic Scribe (variant edited)');
		api.reset();
		await editAndTest(id, { apiVariant: 'public' });
		// The public variant's token request was made: the edit was not vouched for by the old token.
		expect(api.requestsTo(API_VARIANTS.public.tokenPath, 'POST').length).toBeGreaterThan(0);
	});
});
