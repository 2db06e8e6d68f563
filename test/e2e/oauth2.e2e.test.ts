/**
 * The Clinic Scribe OAuth2 API credential in a real n8n 2.41.1, against the fake API's strict
 * sign-in provider (test/fake-api/routes/signIn.ts), with no part of the flow mocked:
 *
 *  - "Connect my account" as the editor's popup plays it over HTTP (n8n's authorize URL → the
 *    provider's login page → n8n's callback, which exchanges the code with PKCE and body
 *    authentication), then n8n's own credential test by ID (its public API) with the stored tokens;
 *  - workflows started by webhook (production runs) calling every kind of API call with the
 *    credential: `/dr` (token also in `auth`), the patient directory (client-id), templates, and a
 *    transcription (presign, storage without token, init, status), beside a node saved before the
 *    Authentication field existed, which keeps the Clinic Scribe API credential; the Doctor picker
 *    as the editor loads it;
 *  - renewal: expiry in the middle of a run of concurrent uploads → exactly one refresh, the
 *    rotated refresh token stored and used by the next renewal; a stream upload answered 401 is
 *    sent once more as one buffer, which n8n sends again after renewing; a refresh token used elsewhere → the reconnect message; a
 *    wrong client secret (at Connect, and after a secret rotation); a credential never connected;
 *  - the trigger subscribing, verifying a signed delivery and fetching its results with it;
 *  - attack rows: redirects (never followed, the foreign host gets nothing) and an API error that
 *    echoes every secret (none left in what n8n stores).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SIGN_IN } from '../fake-api/fixtures';
import { fakeSessions } from '../fake-api/routes/transcription/sessionStore';
import { fakeSignIn, SIGN_IN_ROUTES } from '../fake-api/routes/signIn';
import { fakeTranscription, STORAGE_PATH } from '../fake-api/routes/transcription';
import { fakeWebhooks } from '../fake-api/routes/webhooks';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { recordAttack } from '../support/attackLedger';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { startFinishedSession } from '../support/fakeTranscriptionSession';
import { startForeignHost, type ForeignHost } from '../support/foreignHost';
import { packedPackageForTests } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { nodeJson } from '../support/n8n/results';
import { eventually } from '../support/n8n/trigger';
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	TRIGGER_NODE_TYPE,
	newId,
	type WorkflowJson,
	type WorkflowNode,
} from '../support/n8n/workflows';
import {
	authorizeQuery,
	authorizeUrlParts,
	connectSignInCredential,
	expectAuthorizationCodeConnect,
	n8nAuthorizeUrl,
	oauthRedirectUrl,
	SERVICE_AUTHORIZE_URLS,
	serviceSignInCredentialData,
	signInCredentialData,
	SIGN_IN_CREDENTIAL_TYPE,
} from '../support/signInCredential';
import {
	bearerOf,
	oauthNode as sharedOauthNode,
	publishWebhookWorkflow,
	readFiles,
	refreshRequests as refreshRequestsOf,
	runPublished,
	signInCountersFrom as signInCountersFromApi,
	uploadAudio,
	type Published,
} from '../support/signInWorkflows';

jest.setTimeout(10 * 60_000);

const SUBSCRIPTIONS = '/notification/v1/connect/webhook/subscriptions';
const MAIN = { name: 'Clinic Sign-in (e2e)' } as { id: string; name: string };
const API_CREDENTIAL = {
	id: 'clinicScribeOA2api',
	name: 'Clinic Scribe API (e2e, saved before OAuth2)',
};

let api: FakeClinicApi;
let foreign: ForeignHost;
let n8n: N8nInstance;
let apiKey: string;
const audioDir = mkdtempSync(join(tmpdir(), 'clinic-scribe-e2e-oauth2-'));
const recordings = Array.from({ length: 4 }, (_, index) => ({
	name: `visit-${index}.wav`,
	bytes: randomBytes(64 * 1024 + index),
}));

beforeAll(async () => {
	for (const recording of recordings)
		writeFileSync(join(audioDir, recording.name), recording.bytes);
	api = await startFakeClinicApi();
	foreign = await startForeignHost();
	n8n = await N8nInstance.create({
		packageTarball: await packedPackageForTests(),
		env: { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem', N8N_RESTRICT_FILE_ACCESS_TO: audioDir },
	});
	await n8n.importCredentials([
		{ ...API_CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
	]);
	await n8n.start();
	await n8n.setupOwner({
		email: 'owner@clinic-scribe.test',
		password: 'OAuth2-e2e-Owner-1',
		firstName: 'OAuth',
		lastName: 'Owner',
	});
	// What the clinic would register with the service: this n8n's OAuth Redirect URL, exactly.
	fakeSignIn(api).registerRedirectUri(oauthRedirectUrl(n8n));
	apiKey = (
		await n8n.rest<{ rawApiKey: string }>('POST', '/api-keys', {
			label: 'oauth2 e2e',
			scopes: ['credential:read'],
			expiresAt: null,
		})
	).rawApiKey;
	MAIN.id = await createCredential(MAIN.name);
});

afterAll(async () => {
	await n8n?.dispose();
	await api?.close();
	await foreign?.close();
	rmSync(audioDir, { recursive: true, force: true });
});

beforeEach(() => {
	api.reset();
	fakeTranscription(api).reset();
	foreign.requests.length = 0;
});

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

async function createCredential(
	name: string,
	overrides: Record<string, string> = {},
): Promise<string> {
	const saved = await n8n.rest<{ id: string }>('POST', '/credentials', {
		name,
		type: SIGN_IN_CREDENTIAL_TYPE,
		data: signInCredentialData(api, overrides),
	});
	return saved.id;
}

/** n8n's own credential test of the stored credential (its public API: POST /api/v1/credentials/{id}/test). */
async function credentialTest(id: string): Promise<{ status: string; message: string }> {
	const response = await fetch(`${n8n.baseUrl}/api/v1/credentials/${id}/test`, {
		method: 'POST',
		headers: { 'X-N8N-API-KEY': apiKey },
	});
	expect(response.status).toBe(200);
	return (await response.json()) as { status: string; message: string };
}

function oauthNode(
	name: string,
	parameters: Record<string, unknown>,
	options: { credential?: { id: string; name: string }; continueOnFail?: boolean } = {},
): WorkflowNode {
	return sharedOauthNode(name, parameters, options.credential ?? MAIN, options);
}

const entities = { resource: 'business', operation: 'getEntities' };
const doctorServices = {
	resource: 'doctor',
	operation: 'getServices',
	doctorId: { __rl: true, mode: 'id', value: 'do1001' },
	returnAll: true,
	options: {},
};
const upload = uploadAudio;
const publish = (name: string, nodes: WorkflowNode[]) => publishWebhookWorkflow(n8n, name, nodes);
const run = (workflow: Published) => runPublished(n8n, workflow);
const refreshRequests = () => refreshRequestsOf(api);
const signInCountersFrom = () => signInCountersFromApi(api);

/** Every secret this run could have carried: the sign-in client's secret and every token the fake issued or saw. */
function knownSecrets(): string[] {
	const seen = new Set<string>([SIGN_IN.clientSecret, ...fakeSignIn(api).liveRefreshTokens()]);
	for (const request of api.requests) {
		if (request.headers.authorization) seen.add(bearerOf(request));
		if (typeof request.headers.auth === 'string') seen.add(request.headers.auth);
		const body = request.body as Record<string, unknown> | undefined;
		for (const key of ['refresh_token', 'client_secret', 'code_verifier', 'code']) {
			if (body && typeof body[key] === 'string') seen.add(body[key] as string);
		}
	}
	return [...seen].filter((value) => value.length >= 8);
}

// ---------------------------------------------------------------------------------------------
// Connect
// ---------------------------------------------------------------------------------------------

describe('Connect my account', () => {
	test('n8n sends the browser to the provider with PKCE (S256), state and the fixed scope; the callback exchanges the code with the verifier and the client secret in the body', async () => {
		expect(await credentialTest(MAIN.id)).toEqual({
			status: 'Error',
			message: expect.stringContaining('No clinic account is connected'),
		});

		const connected = await connectSignInCredential(n8n, MAIN.id);
		const query = Object.fromEntries(connected.authorizeUrl.searchParams);
		expect(`${connected.authorizeUrl.origin}${connected.authorizeUrl.pathname}`).toBe(
			`${api.url}${SIGN_IN_ROUTES.authorize}`,
		);
		expect(query).toEqual(authorizeQuery(n8n, { pkce: true }));
		expect(connected.callbackUrl.searchParams.get('state')).toBe(query.state);
		expect(connected.callback.status).toBe(200);
		expect(connected.callback.text).not.toMatch(/error/i);

		const [exchange, ...more] = api.requestsTo(SIGN_IN_ROUTES.token, 'POST');
		expect(more).toEqual([]);
		expect(exchange.status).toBe(200);
		expect(exchange.headers.authorization).toBeUndefined();
		const body = exchange.body as Record<string, string>;
		expect(body).toEqual({
			grant_type: 'authorization_code',
			code: connected.callbackUrl.searchParams.get('code'),
			redirect_uri: oauthRedirectUrl(n8n),
			code_verifier: expect.any(String),
			client_id: SIGN_IN.clientId,
			client_secret: SIGN_IN.clientSecret,
		});
		expect(createHash('sha256').update(body.code_verifier).digest('base64url')).toBe(
			query.code_challenge,
		);

		const stored = await n8n.rest<{ data: Record<string, unknown> }>(
			'GET',
			`/credentials/${MAIN.id}?includeData=true`,
		);
		expect(stored.data.oauthTokenData).toBe(true);
	});

	test('Grant Type "Authorization Code" (for n8n 1.x) connects here too: no PKCE in the authorize URL, the code exchanged with the client in the body and no verifier; a renewal sends the client in the body as well', async () => {
		const name = 'Clinic Sign-in (Authorization Code)';
		const id = await createCredential(name, { grantType: 'authorizationCode' });
		const counted = signInCountersFrom();
		await expectAuthorizationCodeConnect(n8n, api, id);
		expect(counted()).toEqual({ refreshGrants: 0, codeGrants: 1, refusals: 0 });

		// Its token refused (this credential's calls only): n8n renews it once, the client in the body.
		const workflow = await publish('e2e oauth2: Authorization Code', [
			oauthNode('Entities', entities, { credential: { id, name } }),
		]);
		api.reset();
		api.injectFault({
			path: '/dr/v1/business/entities',
			times: 1,
			fault: { kind: 'status', status: 401 },
		});
		const execution = await run(workflow);
		expect(execution.status).toBe('success');
		const [refresh, ...moreRefreshes] = refreshRequests();
		expect(moreRefreshes).toEqual([]);
		expect([refresh.status, refresh.headers.authorization]).toEqual([200, undefined]);
		expect(refresh.body).toMatchObject({
			grant_type: 'refresh_token',
			client_id: SIGN_IN.clientId,
			client_secret: SIGN_IN.clientSecret,
		});
		// One refusal: n8n 2.x refreshes on the call's 401 itself and sends it again.
		expect(api.requestsTo('/dr/v1/business/entities').map((r) => r.status)).toEqual([401, 200]);
		expect(counted()).toEqual({ refreshGrants: 1, codeGrants: 1, refusals: 0 });
	});

	test.each(['production', 'sandbox'] as const)(
		"Environment %s: n8n's authorize URL is the service's sign-in endpoint, with the same client, PKCE and scope (built by n8n, nothing contacted)",
		async (environment) => {
			const id = await n8n.rest<{ id: string }>('POST', '/credentials', {
				name: `Clinic Sign-in (${environment})`,
				type: SIGN_IN_CREDENTIAL_TYPE,
				data: serviceSignInCredentialData(environment),
			});
			const { address, query } = authorizeUrlParts(await n8nAuthorizeUrl(n8n, id.id));
			expect(address).toBe(SERVICE_AUTHORIZE_URLS[environment]);
			expect(query).toEqual(authorizeQuery(n8n, { pkce: true }));
			expect(api.requests).toEqual([]);
			expect(foreign.requests).toEqual([]);
		},
	);

	test("n8n's credential test passes with one call, signed with the connected account's token", async () => {
		expect(await credentialTest(MAIN.id)).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		const calls = api.requests.filter((r) => !r.pathname.startsWith('/oauth2/'));
		expect(calls.map((r) => [r.method, r.pathname, r.status])).toEqual([
			['GET', SUBSCRIPTIONS, 200],
		]);
		expect(api.state.tokens.accessTokenSubject(bearerOf(calls[0]))).toMatchObject({
			flow: 'signIn',
			clientId: SIGN_IN.clientId,
		});
	});

	test('the credential test names the problem: no permission (403), a token the API keeps rejecting (401 after the renewal)', async () => {
		api.injectFault({ path: SUBSCRIPTIONS, fault: { kind: 'status', status: 403 } });
		expect(await credentialTest(MAIN.id)).toEqual({
			status: 'Error',
			message: expect.stringContaining('no permission'),
		});

		const counted = signInCountersFrom();
		api.injectFault({ path: SUBSCRIPTIONS, times: 2, fault: { kind: 'status', status: 401 } });
		expect(await credentialTest(MAIN.id)).toEqual({
			status: 'Error',
			message: expect.stringContaining(
				"rejected the clinic account's token even after renewing it",
			),
		});
		expect(
			api.requests.filter((r) => !r.pathname.startsWith('/__')).map((r) => [r.pathname, r.status]),
		).toEqual([
			[SUBSCRIPTIONS, 403],
			[SUBSCRIPTIONS, 401],
			[SIGN_IN_ROUTES.token, 200],
			[SUBSCRIPTIONS, 401],
		]);
		expect(counted()).toEqual({ refreshGrants: 1, codeGrants: 0, refusals: 0 });
	});
});

// ---------------------------------------------------------------------------------------------
// Every kind of call
// ---------------------------------------------------------------------------------------------

describe('workflows with the OAuth2 credential', () => {
	let everyCall: Published;

	test("every kind of call goes with the account's token to the API's host only; a node saved without the Authentication field keeps the Clinic Scribe API credential", async () => {
		const script = fakeTranscription(api);
		everyCall = await publish('e2e oauth2: every kind of call', [
			readFiles(join(audioDir, 'visit-0.wav')),
			oauthNode(
				'Transcribe',
				upload(true, { transactionId: "={{ 'oauth2-visit-' + $execution.id }}" }),
			),
			oauthNode('Entities', entities),
			oauthNode('Patient', { resource: 'patient', operation: 'get', patientId: '175074536120088' }),
			// Saved before the field existed: no `authentication` parameter, the API credential.
			{
				id: randomUUID(),
				name: 'Saved Before',
				type: ACTION_NODE_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: entities,
				credentials: { [CREDENTIAL_TYPE]: API_CREDENTIAL },
			},
			oauthNode('Services', doctorServices),
			// Services gives several items: once is enough.
			{
				...oauthNode('Templates', { resource: 'template', operation: 'getAll', returnAll: true }),
				executeOnce: true,
			},
		]);
		script.setOptions({ processingPolls: 0 });
		const counted = signInCountersFrom();
		const execution = await run(everyCall);
		expect(execution.error).toBeUndefined();
		expect(execution.status).toBe('success');
		expect(nodeJson(execution, 'Transcribe')[0]).toMatchObject({
			status: 'completed',
			http_status: 200,
		});
		expect(nodeJson(execution, 'Entities')[0]).toMatchObject({
			business: { business_id: 'b-71523946' },
		});
		expect(nodeJson(execution, 'Services').length).toBeGreaterThan(0);
		expect(nodeJson(execution, 'Patient')[0]).toMatchObject({ oid: '175074536120088' });
		expect(nodeJson(execution, 'Templates').length).toBeGreaterThan(0);
		expect(nodeJson(execution, 'Saved Before')[0]).toMatchObject({
			business: { business_id: 'b-71523946' },
		});

		const calls = api.requests.filter((r) => !r.pathname.startsWith(STORAGE_PATH));
		const signedIn = calls.filter(
			(r) =>
				api.state.tokens.accessTokenSubject(bearerOf(r) || String(r.headers.auth ?? ''))?.flow ===
				'signIn',
		);
		const byApiCredential = calls.filter((r) => !signedIn.includes(r));
		// The one node without the field used the API credential: its exchange and its one call.
		expect(byApiCredential.map((r) => r.pathname)).toEqual([
			'/api/v1/auth/token',
			'/dr/v1/business/entities',
		]);
		const token = bearerOf(signedIn[0]);
		for (const request of signedIn) {
			expect([request.pathname, bearerOf(request)]).toEqual([request.pathname, token]);
			if (request.pathname.startsWith('/dr/'))
				expect([request.pathname, request.headers.auth]).toEqual([request.pathname, token]);
		}
		expect(signedIn.map((r) => r.pathname)).toEqual(
			expect.arrayContaining([
				'/v1/file-upload',
				'/dr/v1/business/entities',
				'/dr/v1/doctor/service/do1001',
				'/profiles/v1/patient/175074536120088',
				'/voice/api/v1/template',
			]),
		);
		expect(api.requestsTo('/profiles/').map((r) => r.headers['client-id'])).toEqual([
			SIGN_IN.clientId,
		]);
		// The storage host (another host in production) got no token, no client id.
		const storage = api.requestsTo(STORAGE_PATH);
		expect(storage.length).toBe(1);
		expect(
			storage.map((r) => [r.headers.authorization, r.headers.auth, r.headers['client-id']]),
		).toEqual([[undefined, undefined, undefined]]);
		expect(counted()).toEqual({ refreshGrants: 0, codeGrants: 0, refusals: 0 });
	});
});

test("the Doctor picker, as the editor loads it for a node set to the OAuth2 credential, lists the doctors with the account's token", async () => {
	const answer = await n8n.rest<{ results: Array<{ name: string; value: string }> }>(
		'POST',
		'/dynamic-node-parameters/resource-locator-results',
		{
			nodeTypeAndVersion: { name: ACTION_NODE_TYPE, version: 1 },
			path: 'parameters.doctorId',
			methodName: 'searchDoctors',
			currentNodeParameters: {
				authentication: SIGN_IN_CREDENTIAL_TYPE,
				...doctorServices,
				doctorId: { __rl: true, mode: 'list', value: '' },
			},
			credentials: { [SIGN_IN_CREDENTIAL_TYPE]: MAIN },
		},
	);
	expect(answer.results.map((r) => r.value)).toEqual(
		expect.arrayContaining(['do1001', 'do1002', 'do1003', 'do1004']),
	);
	const [listing] = api.requestsTo('/dr/v1/business/entities');
	expect(api.state.tokens.accessTokenSubject(String(listing.headers.auth))?.flow).toBe('signIn');
});

// ---------------------------------------------------------------------------------------------
// Renewal
// ---------------------------------------------------------------------------------------------

describe('renewal with rotating refresh tokens', () => {
	let uploads: Published;
	let sessionUpload: Published;

	test('expiry in the middle of a run: four uploads in flight, one renewal for all (never the same refresh token twice), each refused call sent once more with the renewed token, every item done', async () => {
		uploads = await publish('e2e oauth2: concurrent uploads', [
			readFiles(join(audioDir, 'visit-*.wav')),
			oauthNode('Transcribe', upload(false)),
		]);
		const before = await run(uploads);
		expect(before.status).toBe('success');
		const statusChecks = () => api.requestsTo('/voice/api/v3/status/');
		const oldToken = bearerOf(statusChecks()[0]);

		api.reset();
		api.expireAccessTokens();
		const counted = signInCountersFrom();
		// The renewal waits at the provider until released: the checks refused meanwhile wait for it
		// (calls that start meanwhile wait before sending).
		const hold = fakeSignIn(api).holdRefreshGrants();
		const rejected = () => statusChecks().filter((r) => r.status === 401);
		const running = run(uploads);
		try {
			await eventually(
				() => rejected().length >= 2 && refreshRequests().length === 1,
				() =>
					`401s: ${rejected().length}, refresh requests: ${refreshRequests().length}; ${JSON.stringify(api.requests.map((r) => [r.method, r.pathname, r.status]))}`,
				60_000,
			);
		} finally {
			hold.release();
		}
		const execution = await running;
		expect(execution.error).toBeUndefined();
		expect(nodeJson(execution, 'Transcribe')).toHaveLength(recordings.length);
		// Refused: only the checks sent before the renewal began, once each (n8n 2.x refreshes on the
		// 401 itself, one refresh under its lock for all); all with the old token.
		expect(rejected().length).toBeLessThanOrEqual(recordings.length);
		expect(new Set(rejected().map(bearerOf))).toEqual(new Set([oldToken]));
		expect(refreshRequests()).toHaveLength(1);
		expect(counted()).toEqual({ refreshGrants: 1, codeGrants: 0, refusals: 0 });
		// One answered check per transaction, each with the renewed token; the inits too.
		const renewed = bearerOf(statusChecks().find((r) => r.status !== 401)!);
		expect(renewed).not.toBe(oldToken);
		expect(
			statusChecks()
				.filter((r) => r.status !== 401)
				.map(bearerOf),
		).toEqual(Array(recordings.length).fill(renewed));
		const inits = api.requestsTo('/voice/api/v2/transaction/init/');
		expect(inits.map((r) => [r.status, bearerOf(r) === renewed])).toEqual(
			Array(recordings.length).fill([201, true]),
		);
	});

	test('the next execution uses the renewed token without renewing; the next expiry renews with the rotated refresh token (the old one would be refused)', async () => {
		const counted = signInCountersFrom();
		const renewedBefore = fakeSignIn(api).liveRefreshTokens();
		const next = await run(uploads);
		expect(next.status).toBe('success');
		expect(counted()).toEqual({ refreshGrants: 0, codeGrants: 0, refusals: 0 });
		const tokenInUse = bearerOf(api.requestsTo('/voice/api/v3/status/')[0]);
		expect(api.state.tokens.accessTokenSubject(tokenInUse)?.flow).toBe('signIn');

		api.reset();
		api.expireAccessTokens();
		const again = await run(uploads);
		expect(again.status).toBe('success');
		const [refresh] = refreshRequests();
		// n8n sent the refresh token the last renewal returned (it rotates): stored, not the first one.
		expect(renewedBefore).toContain((refresh.body as Record<string, string>).refresh_token);
		expect(counted()).toEqual({ refreshGrants: 1, codeGrants: 0, refusals: 0 });
	});

	test('a stream upload (Upload Method Session) answered 401: sent once more as one buffer, n8n renews and sends it again', async () => {
		const sessions = fakeSessions(api);
		sessions.reset();
		sessionUpload = await publish('e2e oauth2: session upload', [
			readFiles(join(audioDir, 'visit-1.wav')),
			oauthNode(
				'Session Upload',
				upload(false, {
					uploadMethod: 'session',
					transactionId: "={{ 'oauth2-session-' + $execution.id }}",
				}),
			),
		]);
		// Refused twice: the stream, then n8n's try of the buffer with the token it holds, so n8n renews.
		api.injectFault({
			method: 'POST',
			path: /^\/voice\/v1\/sessions\/[^/]+\/audio\//,
			times: 2,
			fault: {
				kind: 'status',
				status: 401,
				body: { error: { code: 'UNAUTHORIZED', message: 'token expired' } },
			},
		});
		const counted = signInCountersFrom();
		const execution = await run(sessionUpload);
		expect(execution.error).toBeUndefined();
		const [uploaded] = nodeJson(execution, 'Session Upload');
		const audio = api.requestsTo(/^\/voice\/v1\/sessions\/[^/]+\/audio\//, 'POST');
		// The stream refused; the same file as one buffer with status errors on: n8n's try with the
		// token it holds (refused: the fault's second answer), the renewal, the file once more.
		expect(audio.map((r) => r.status)).toEqual([401, 401, 200]);
		expect(bearerOf(audio[1])).toBe(bearerOf(audio[0]));
		expect(bearerOf(audio[2])).not.toBe(bearerOf(audio[0]));
		expect(counted()).toEqual({ refreshGrants: 1, codeGrants: 0, refusals: 0 });
		const session = sessions.session(String(uploaded.session_id))!;
		expect(session.uploads.map((u) => [u.size, u.sha256])).toEqual([
			[recordings[1].bytes.length, createHash('sha256').update(recordings[1].bytes).digest('hex')],
		]);
	});

	test('a refresh token already used elsewhere: the run fails with a plain message to reconnect, naming the credential; reconnecting fixes it', async () => {
		const workflow = await publish('e2e oauth2: reused refresh token', [
			oauthNode('Entities', entities),
		]);
		expect(fakeSignIn(api).useRefreshTokensElsewhere()).toBeGreaterThan(0);
		api.expireAccessTokens();
		const counted = signInCountersFrom();
		const execution = await run(workflow);
		expect(execution.status).toBe('error');
		expect(execution.error?.message).toBe(
			`The Clinic Scribe OAuth2 credential "${MAIN.name}" needs to be reconnected: the sign-in provider no longer accepts its refresh token`,
		);
		expect(execution.error?.description).toContain(
			'sign in with the clinic account again (its Switch account or Connect button)',
		);
		expect(execution.error?.stack ?? '').not.toMatch(/at .*oauth\.js/);
		expect(counted()).toEqual({ refreshGrants: 0, codeGrants: 0, refusals: 1 });
		expect(fakeSignIn(api).refusals.at(-1)).toMatchObject({
			endpoint: 'token',
			grant: 'refresh_token',
			error: 'invalid_grant',
			reason: expect.stringMatching(/already used/),
		});

		await connectSignInCredential(n8n, MAIN.id);
		expect((await run(workflow)).status).toBe('success');
	});

	test("a wrong client secret: at Connect n8n shows the provider's invalid_client and nothing is stored; after a secret rotation the run names the Client ID or Client Secret", async () => {
		const wrongId = await createCredential('Clinic Sign-in (wrong secret)', {
			clientSecret: 'not-the-client-secret-77',
		});
		const attempt = await connectSignInCredential(n8n, wrongId);
		expect(attempt.callback.text).toContain('invalid_client');
		expect(fakeSignIn(api).refusals.at(-1)).toMatchObject({
			endpoint: 'token',
			error: 'invalid_client',
		});
		const test = await credentialTest(wrongId);
		expect(test.status).toBe('Error');
		expect(test.message).toContain('No clinic account is connected');

		// The client's secret was rotated where it was made; the credential still holds the old one.
		const rotated = await createCredential('Clinic Sign-in (rotated secret)');
		await connectSignInCredential(n8n, rotated);
		const current = await n8n.rest<{ name: string; type: string }>(
			'GET',
			`/credentials/${rotated}`,
		);
		await n8n.rest('PATCH', `/credentials/${rotated}`, {
			name: current.name,
			type: current.type,
			data: signInCredentialData(api, { clientSecret: 'not-the-client-secret-77' }),
		});
		const workflow = await publish('e2e oauth2: rotated secret', [
			oauthNode('Entities', entities, {
				credential: { id: rotated, name: 'Clinic Sign-in (rotated secret)' },
			}),
		]);
		api.expireAccessTokens();
		const execution = await run(workflow);
		expect(execution.status).toBe('error');
		expect(execution.error?.message).toBe(
			'The sign-in provider rejected the Client ID or Client Secret of the Clinic Scribe OAuth2 credential "Clinic Sign-in (rotated secret)" when n8n renewed the token (invalid_client)',
		);
		expect(JSON.stringify(execution.raw)).not.toContain('not-the-client-secret-77');
		// n8n's own credential test of it fails too (n8n 2.41 reports a failed renewal by its code only).
		expect((await credentialTest(rotated)).status).toBe('Error');
	});

	test('the sign-in provider failing the renewal (503, then a 400 without an OAuth error): said plainly, the first as not a rejection of the credential', async () => {
		const workflow = await publish('e2e oauth2: provider down', [
			oauthNode('Entities', entities, { continueOnFail: true }),
		]);
		api.expireAccessTokens();
		api.injectFault({
			path: SIGN_IN_ROUTES.token,
			fault: { kind: 'status', status: 503, body: { message: 'maintenance' } },
		});
		const down = await run(workflow);
		expect(nodeJson(down, 'Entities')).toEqual([
			expect.objectContaining({
				error: `The sign-in provider did not renew the token of the Clinic Scribe OAuth2 credential "${MAIN.name}" (HTTP 503)`,
				description: expect.stringContaining('The credential was not rejected'),
			}),
		]);
		api.injectFault({
			path: SIGN_IN_ROUTES.token,
			fault: { kind: 'status', status: 400, body: { message: 'bad request' } },
		});
		const refused = await run(workflow);
		expect(nodeJson(refused, 'Entities')).toEqual([
			expect.objectContaining({
				error: `The sign-in provider did not renew the token of the Clinic Scribe OAuth2 credential "${MAIN.name}" (HTTP 400)`,
			}),
		]);
		// Neither failure used the refresh token up: the next run renews and succeeds.
		const counted = signInCountersFrom();
		expect((await run(workflow)).status).toBe('success');
		expect(counted()).toEqual({ refreshGrants: 1, codeGrants: 0, refusals: 0 });
	});

	test('a credential never connected: the run says so and nothing is sent', async () => {
		const neverId = await createCredential('Clinic Sign-in (never connected)');
		const workflow = await publish('e2e oauth2: never connected', [
			oauthNode('Entities', entities, {
				credential: { id: neverId, name: 'Clinic Sign-in (never connected)' },
				continueOnFail: true,
			}),
		]);
		const execution = await run(workflow);
		expect(nodeJson(execution, 'Entities')).toEqual([
			expect.objectContaining({
				error:
					'The Clinic Scribe OAuth2 credential "Clinic Sign-in (never connected)" is not connected to a clinic account, so nothing was sent for the business\'s clinics and doctors',
			}),
		]);
		expect(api.requests.filter((r) => !r.pathname.startsWith('/oauth2/'))).toEqual([]);
	});
});

// ---------------------------------------------------------------------------------------------
// The trigger
// ---------------------------------------------------------------------------------------------

test("the trigger subscribes with the account's token, verifies a signed delivery, fetches its results, and unsubscribes", async () => {
	const webhookId = randomUUID();
	const workflowId = newId();
	const workflow: WorkflowJson = {
		id: workflowId,
		name: 'e2e oauth2: trigger',
		nodes: [
			{
				id: randomUUID(),
				name: 'Transcription Completed',
				type: TRIGGER_NODE_TYPE,
				typeVersion: 1.1,
				position: [0, 0],
				webhookId,
				parameters: {
					authentication: SIGN_IN_CREDENTIAL_TYPE,
					events: ['v2rx.completed'],
					includeResults: true,
					options: {},
				},
				credentials: { [SIGN_IN_CREDENTIAL_TYPE]: MAIN },
			},
			{
				id: randomUUID(),
				name: 'Next Node',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [300, 0],
				parameters: {},
			},
		],
		connections: {
			'Transcription Completed': { main: [[{ node: 'Next Node', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
	await n8n.rest('POST', '/workflows', workflow);
	await n8n.activateWorkflow(workflowId);
	const endpoint = n8n.webhookUrl(`${webhookId}/webhook`);
	const subscriptions = () =>
		fakeWebhooks(api)
			.subscriptions()
			.filter((s) => s.endpoint === endpoint);
	expect(subscriptions()).toEqual([
		expect.objectContaining({
			event_names: ['v2rx.completed'],
			signing_key: expect.stringMatching(/^[0-9a-f]{64}$/),
		}),
	]);
	const [registration] = api.requestsTo(SUBSCRIPTIONS, 'POST');
	expect(api.state.tokens.accessTokenSubject(bearerOf(registration))?.flow).toBe('signIn');

	await startFinishedSession(api.url, api.validCredentials, 'oauth2-trigger-visit');
	const forged = await fakeWebhooks(api).deliver({
		endpoint,
		transactionId: 'oauth2-trigger-visit',
		forgery: 'wrong-key',
	});
	expect(forged.attempts.map((a) => a.status)).toEqual([401]);
	const report = await fakeWebhooks(api).deliver({
		endpoint,
		transactionId: 'oauth2-trigger-visit',
	});
	expect(report.attempts.map((a) => a.status)).toEqual([200]);
	const [latest] = await n8n.waitForExecutions(workflowId, 1);
	const execution = await n8n.getExecution(latest.id);
	expect(execution.status).toBe('success');
	expect(nodeJson(execution, 'Next Node')).toEqual([
		expect.objectContaining({
			session_id: 'oauth2-trigger-visit',
			status: 'completed',
			documents: expect.any(Object),
		}),
	]);
	const [status] = api.requestsTo('/voice/api/v3/status/oauth2-trigger-visit');
	expect(api.state.tokens.accessTokenSubject(bearerOf(status))?.flow).toBe('signIn');

	await n8n.deactivateWorkflow(workflowId);
	await eventually(
		() => subscriptions().length === 0,
		() => JSON.stringify(subscriptions()),
	);
});

// ---------------------------------------------------------------------------------------------
// Attack rows
// ---------------------------------------------------------------------------------------------

describe('attacks, with the OAuth2 credential', () => {
	test.each([302, 307] as const)(
		'a %i redirect to another host on a /dr call and a transcription call: refused naming the host; the foreign host gets nothing',
		async (status) => {
			const workflow = await publish(`e2e oauth2: redirect ${status}`, [
				oauthNode('Directory', doctorServices, { continueOnFail: true }),
				oauthNode(
					'Transcription',
					{
						resource: 'transcription',
						operation: 'getResults',
						sessionId: 'visit-redirect',
						waitForCompletion: false,
						resultsOutput: 'session',
					},
					{ continueOnFail: true },
				),
			]);
			for (const path of ['/dr/v1/doctor/service/', '/voice/api/v3/status/']) {
				api.injectFault({
					path,
					times: Infinity,
					fault: { kind: 'redirect', status, location: `${foreign.url}/collect${path}` },
				});
			}
			const execution = await run(workflow);
			for (const node of ['Directory', 'Transcription']) {
				expect([node, nodeJson(execution, node).map((item) => String(item.error))]).toEqual([
					node,
					[expect.stringContaining(`redirect (HTTP ${status}) to ${foreign.host}`)],
				]);
			}
			expect(api.requestsTo('/dr/v1/doctor/service/').map((r) => r.fault)).toEqual(['redirect']);
			expect(api.requestsTo('/voice/api/v3/status/').map((r) => r.fault)).toEqual(['redirect']);
			expect(foreign.requests).toEqual([]);
			const seen = foreign.secretsSeen(knownSecrets());
			expect(seen).toEqual([]);
			for (const family of ['dr', 'transcription']) {
				recordAttack(
					`redirect-${status}-${family}-oauth2-n8n`,
					`refused in n8n with the OAuth2 credential, names ${foreign.host}; foreign host got 0 requests`,
					{ secretsSeen: seen.length },
				);
			}
		},
	);

	test('a 308 redirect on the webhook subscription call of a trigger activation: activation fails naming the host; the foreign host gets nothing', async () => {
		const webhookId = randomUUID();
		const workflowId = newId();
		await n8n.rest('POST', '/workflows', {
			id: workflowId,
			name: 'e2e oauth2: redirected trigger',
			nodes: [
				{
					id: randomUUID(),
					name: 'Trigger',
					type: TRIGGER_NODE_TYPE,
					typeVersion: 1.1,
					position: [0, 0],
					webhookId,
					parameters: {
						authentication: SIGN_IN_CREDENTIAL_TYPE,
						events: ['v2rx.completed'],
						options: {},
					},
					credentials: { [SIGN_IN_CREDENTIAL_TYPE]: MAIN },
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		});
		api.injectFault({
			path: SUBSCRIPTIONS,
			times: Infinity,
			fault: { kind: 'redirect', status: 308, location: `${foreign.url}/collect${SUBSCRIPTIONS}` },
		});
		const activation = await n8n.activateWorkflow(workflowId).then(
			(value) => JSON.stringify(value),
			(error: unknown) => String(error),
		);
		expect(activation).toContain(`redirect (HTTP 308) to ${foreign.host}`);
		const faults = api.requestsTo(SUBSCRIPTIONS).map((r) => r.fault);
		expect(faults).toContain('redirect');
		expect(faults.filter((fault) => fault !== 'redirect')).toEqual([]);
		expect(foreign.requests).toEqual([]);
		const seen = foreign.secretsSeen(knownSecrets());
		expect(seen).toEqual([]);
		recordAttack(
			'redirect-308-webhook-oauth2-n8n',
			`activation refused in n8n with the OAuth2 credential, names ${foreign.host}; foreign host got 0 requests`,
			{ secretsSeen: seen.length },
		);
	});

	test('an API error that echoes the access token, the refresh token and the client secret leaves none of them in the execution n8n stores', async () => {
		const workflow = await publish('e2e oauth2: echo', [oauthNode('Directory', doctorServices)]);
		api.injectFault({ path: '/dr/v1/doctor/service/', fault: { kind: 'echo', status: 400 } });
		const execution = await run(workflow);
		expect(execution.status).toBe('error');
		const stored = JSON.stringify(execution.raw);
		expect(stored).toContain('[redacted]');
		const secrets = knownSecrets();
		// The fake did echo them: the access token it saw, the live refresh token and the client secret.
		const [call] = api.requestsTo('/dr/v1/doctor/service/');
		expect(secrets).toEqual(
			expect.arrayContaining([
				bearerOf(call),
				SIGN_IN.clientSecret,
				api.state.tokens.refreshTokenIssuedWith(bearerOf(call)),
			]),
		);
		const seen = secrets.filter((secret) => stored.includes(secret));
		expect(seen).toEqual([]);
		recordAttack(
			'echoed-secrets-dr-oauth2-n8n',
			"the execution's stored error shows [redacted] (OAuth2 credential: access, refresh token, client secret)",
			{ secretsSeen: seen.length },
		);
	});

	test('the same echo right after a renewal in the same run: the renewed token and the rotated refresh token are scrubbed too', async () => {
		const workflow = await publish('e2e oauth2: echo after renewal', [
			oauthNode('Directory', doctorServices),
		]);
		// The call is answered 401 once: n8n renews (new access and refresh token), and the call once
		// more gets the echo.
		api.injectFault({
			path: '/dr/v1/doctor/service/',
			times: 1,
			fault: { kind: 'status', status: 401 },
		});
		api.injectFault({ path: '/dr/v1/doctor/service/', fault: { kind: 'echo', status: 400 } });
		const counted = signInCountersFrom();
		const execution = await run(workflow);
		expect(execution.status).toBe('error');
		expect(counted().refreshGrants).toBe(1);
		const [first, repeat, ...more] = api.requestsTo('/dr/v1/doctor/service/');
		expect(more).toEqual([]);
		expect([first.fault, repeat.fault]).toEqual(['status', 'echo']);
		const renewed = bearerOf(repeat);
		expect(renewed).not.toBe(bearerOf(first));
		const stored = JSON.stringify(execution.raw);
		expect(stored).toContain('[redacted]');
		const secrets = [
			renewed,
			String(api.state.tokens.refreshTokenIssuedWith(renewed)),
			SIGN_IN.clientSecret,
			...knownSecrets(),
		];
		const seen = secrets.filter((secret) => stored.includes(secret));
		expect(seen).toEqual([]);
		recordAttack(
			'echoed-secrets-dr-renewed-oauth2-n8n',
			"renewed in the run, then echoed: the execution's stored error shows [redacted]",
			{ secretsSeen: seen.length },
		);
	});
});
