/**
 * The core workflows on the oldest n8n the package supports (n8n 1.123.x; docs/compatibility.md),
 * the packed package installed as a community package, against the fake clinic API: the token
 * exchanged once for many items and executions and renewed once after it expired, the directory
 * calls, Upload Audio from n8n's filesystem binary store with Wait for Completion (a connection
 * dropped on init and on a status poll, retried) and Get Results, an AI agent calling the node as a
 * tool (and refused when patient data may not go to it), the credential's Test button, and the
 * trigger: subscribe on activation, a signed delivery, a replay, a forged one, unsubscribe on
 * deactivation; the OAuth2 credential: where its authorize URL points for each Environment, Connect
 * through n8n's own flow with each Grant Type (Authorization Code connects on n8n 1.x, PKCE does not),
 * then its token used for many items and executions, renewed once after expiry with the client in
 * the form body and the rotated refresh token, and one renewal shared by uploads in flight. One n8n
 * (one user folder)
 * serves the whole file: `n8n execute` for the workflows, then `n8n start` for the trigger.
 *
 * The long suite runs on the newest supported n8n; this file is its core on the oldest. It runs on
 * the newest as well with CLINIC_SCRIBE_E2E_N8N_LINE=newest (the same expectations hold there).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { API_VARIANTS, PATIENTS_BY_MOBILE, REFRESH_PATH, SIGN_IN } from '../fake-api/fixtures';
import { fakeSignIn, SIGN_IN_ROUTES } from '../fake-api/routes/signIn';
import {
	fakeTranscription,
	INIT_PATH,
	STATUS_PATH,
	TRANSCRIPT_TEXT,
	type FakeTranscription,
} from '../fake-api/routes/transcription';
import { fakeWebhooks, type FakeSubscription } from '../fake-api/routes/webhooks';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { startFakeChatModel, type FakeChatModel } from '../support/fakeChatModel';
import { packedPackageForTests, pinnedN8nVersions, type N8nLine } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { nodeJson, nodeOutput, type ExecutionResult } from '../support/n8n/results';
import { E2E_OWNER, eventually, triggerWorkflow, waitForLog } from '../support/n8n/trigger';
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	chain,
	newId,
	readWorkflowFile,
	withCredential,
	type WorkflowJson,
	type WorkflowNode,
} from '../support/n8n/workflows';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import {
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
	oauthNode,
	publishWebhookWorkflow,
	readFiles,
	refreshRequests,
	runPublished,
	signInCountersFrom,
	uploadAudio,
	type Published,
} from '../support/signInWorkflows';

// A first run installs this n8n (minutes); every n8n command takes seconds.
jest.setTimeout(30 * 60_000);

const LINE = (process.env.CLINIC_SCRIBE_E2E_N8N_LINE ?? 'oldest') as N8nLine;
const VERSION = pinnedN8nVersions()[LINE];

const CREDENTIAL = { id: 'clinicScribeOld01', name: 'Clinic Scribe (oldest n8n)' };
const WRONG_SECRET_CREDENTIAL = { id: 'clinicScribeOld02', name: 'Clinic Scribe (wrong secret)' };
const CHAT_CREDENTIAL = { id: 'clinicScribeOld03', name: 'Fake chat model' };
/** The OAuth2 credential with Grant Type Authorization Code (its ID is n8n's, set when it is saved). */
const SIGN_IN_CREDENTIAL = { id: '', name: 'Clinic Sign-in (Authorization Code)' };
/** Used only by the test of calls made at once, so it starts without a stored token. */
const FRESH_CREDENTIAL = { id: 'clinicScribeOld04', name: 'Clinic Scribe (no token yet)' };
const TOKEN_PATH = API_VARIANTS.document.tokenPath;
const SERVICES_PATH = '/dr/v1/doctor/service/';
const SEARCH_PATH = '/dr/v1/business/patients/search';
const SUBSCRIPTIONS = '/notification/v1/connect/webhook/subscriptions';
const MOBILE = Object.keys(PATIENTS_BY_MOBILE)[0];
const WEBHOOK_ID = '3f0d7b8e-5a61-4c2e-9b7d-e2e0000000e5';
/**
 * Requests answered 401 for one renewal of the Clinic Scribe API credential, on either line: the
 * refused call comes back to the node as an answer, and the node sends it once more with the
 * credential handed to n8n's helper with its token moved aside, so n8n renews before sending it.
 */
const RENEWAL_401S = 1;
/**
 * The same for the OAuth2 credential: n8n 2.x refreshes on the call's 401 itself; n8n 1.x hands the
 * 401 back, and the node's repeat with status errors on is refused once more (n8n 1.x's own try
 * with the token it holds) before n8n refreshes.
 */
const signInRenewal401s = (majorVersion: number): number => (majorVersion >= 2 ? 1 : 2);

let api: FakeClinicApi;
let fake: FakeTranscription;
let llm: FakeChatModel;
let n8n: N8nInstance;
const ids: Record<string, string> = {};
const audioDir = mkdtempSync(join(tmpdir(), 'clinic-scribe-oldest-audio-'));
const recording = { name: 'visit-recording.wav', bytes: randomBytes(2 * 1024 * 1024 + 11) };
/** Recordings sent as separate transactions in one run, several at once. */
const batch = Array.from({ length: 6 }, (_, i) => ({
	name: `batch-${i}.wav`,
	bytes: randomBytes(64 * 1024 + i),
}));
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Six recordings, one transaction each (Upload Audio sends several at once), no waiting. */
function batchUploadWorkflow(): WorkflowJson {
	const nodes: WorkflowNode[] = [
		{
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			name: 'Read Recordings',
			type: 'n8n-nodes-base.readWriteFile',
			typeVersion: 1,
			position: [200, 0],
			parameters: { operation: 'read', fileSelector: join(audioDir, 'batch-*.wav'), options: {} },
		},
		{
			name: 'Transcribe Each',
			type: ACTION_NODE_TYPE,
			typeVersion: 1,
			position: [400, 0],
			parameters: {
				resource: 'transcription',
				operation: 'uploadAudio',
				binaryPropertyName: 'data',
				transactionId: "={{ 'batch-' + $json.fileName.replace('.wav', '') + '-' + $execution.id }}",
				inputLanguages: ['en-IN'],
				outputTemplates: {
					templates: [{ template: 'transcript_template', codificationNeeded: false }],
				},
				waitForCompletion: false,
				options: {},
			},
			credentials: { [CREDENTIAL_TYPE]: FRESH_CREDENTIAL },
		},
	];
	return {
		id: newId(),
		name: 'oldest n8n: six transactions at once',
		nodes,
		connections: chain(...nodes.map((n) => n.name)),
		settings: { executionOrder: 'v1' },
	};
}

function uploadWorkflow(transactionId: string): WorkflowJson {
	const nodes: WorkflowNode[] = [
		{
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			name: 'Read Recording',
			type: 'n8n-nodes-base.readWriteFile',
			typeVersion: 1,
			position: [200, 0],
			parameters: { operation: 'read', fileSelector: join(audioDir, recording.name), options: {} },
		},
		{
			name: 'Transcribe',
			type: ACTION_NODE_TYPE,
			typeVersion: 1,
			position: [400, 0],
			parameters: {
				resource: 'transcription',
				operation: 'uploadAudio',
				binaryPropertyName: 'data',
				transactionId,
				inputLanguages: ['en-IN'],
				outputTemplates: {
					templates: [{ template: 'transcript_template', codificationNeeded: false }],
				},
				waitForCompletion: true,
				timeoutMinutes: 2,
				pollIntervalSeconds: 1,
				resultsOutput: 'session',
				options: {},
			},
			credentials: { [CREDENTIAL_TYPE]: CREDENTIAL },
		},
		{
			name: 'Get Results',
			type: ACTION_NODE_TYPE,
			typeVersion: 1,
			position: [600, 0],
			parameters: {
				resource: 'transcription',
				operation: 'getResults',
				sessionId: '={{ $json.session_id }}',
				waitForCompletion: false,
				resultsOutput: 'session',
			},
			credentials: { [CREDENTIAL_TYPE]: CREDENTIAL },
		},
	];
	return {
		id: newId(),
		name: 'oldest n8n: upload, wait, get results',
		nodes,
		connections: chain(...nodes.map((n) => n.name)),
		settings: { executionOrder: 'v1' },
	};
}

/** Manual Trigger → AI Agent with the fake chat model and Clinic Scribe → Search by Mobile as its one tool. */
function agentWorkflow(name: string, shareWithAiAgent: boolean): WorkflowJson {
	const nodes: WorkflowNode[] = [
		{
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			name: 'Agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 2.2,
			position: [250, 0],
			parameters: {
				promptType: 'define',
				text: `Find the patient with mobile ${MOBILE}.`,
				options: {},
			},
		},
		{
			name: 'Chat Model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.2,
			position: [150, 200],
			parameters: { model: { __rl: true, mode: 'id', value: 'fake-model' }, options: {} },
			credentials: { openAiApi: CHAT_CREDENTIAL },
		},
		{
			name: 'Search Patients',
			type: `${ACTION_NODE_TYPE}Tool`,
			typeVersion: 1,
			position: [350, 200],
			parameters: {
				resource: 'patient',
				operation: 'searchByMobile',
				mobile: "={{ $fromAI('mobile', 'the mobile number of the patient', 'string') }}",
				returnAll: true,
				simplify: false,
				options: {},
				shareWithAiAgent,
			},
			credentials: { [CREDENTIAL_TYPE]: CREDENTIAL },
		},
	];
	return {
		id: newId(),
		name,
		nodes,
		connections: {
			Start: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] },
			'Chat Model': { ai_languageModel: [[{ node: 'Agent', type: 'ai_languageModel', index: 0 }]] },
			'Search Patients': { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

beforeAll(async () => {
	for (const file of [recording, ...batch]) writeFileSync(join(audioDir, file.name), file.bytes);
	api = await startFakeClinicApi();
	fake = fakeTranscription(api);
	llm = await startFakeChatModel({ mobile: MOBILE });
	n8n = await N8nInstance.create({
		n8nLine: LINE,
		packageTarball: await packedPackageForTests(),
		env: { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem', N8N_RESTRICT_FILE_ACCESS_TO: audioDir },
	});
	expect(n8n.installation.version).toBe(VERSION);
	await n8n.importCredentials([
		{ ...CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
		{
			...WRONG_SECRET_CREDENTIAL,
			type: CREDENTIAL_TYPE,
			data: fakeApiCredentialData(api, { clientSecret: 'not-the-secret-of-this-client' }),
		},
		{ ...CHAT_CREDENTIAL, type: 'openAiApi', data: { apiKey: 'sk-fake-chat-model', url: llm.url } },
		{ ...FRESH_CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
	]);
	const workflows: Record<string, WorkflowJson> = {
		manyItems: withCredential(
			readWorkflowFile(join(__dirname, 'workflows', 'doctor-services-many-items.json')),
			CREDENTIAL_TYPE,
			CREDENTIAL,
		),
		directory: withCredential(
			readWorkflowFile(join(__dirname, 'workflows', 'directory-read.json')),
			CREDENTIAL_TYPE,
			CREDENTIAL,
		),
		wrongSecret: withCredential(
			readWorkflowFile(join(__dirname, 'workflows', 'business-entities.json')),
			CREDENTIAL_TYPE,
			WRONG_SECRET_CREDENTIAL,
		),
		upload: uploadWorkflow(`visit-oldest-${randomBytes(4).toString('hex')}`),
		batch: batchUploadWorkflow(),
		agentShares: agentWorkflow('oldest n8n: agent, patient data shared', true),
		agentRefused: agentWorkflow('oldest n8n: agent, patient data not shared', false),
		trigger: withCredential(
			triggerWorkflow({
				id: newId(),
				name: 'oldest n8n: clinic scribe trigger',
				webhookId: WEBHOOK_ID,
			}),
			CREDENTIAL_TYPE,
			CREDENTIAL,
		),
	};
	const imported = await n8n.importWorkflows(Object.values(workflows));
	Object.keys(workflows).forEach((name, i) => (ids[name] = imported[i]));
});

afterAll(async () => {
	await n8n?.dispose();
	await api?.close();
	await llm?.close();
	rmSync(audioDir, { recursive: true, force: true });
});

beforeEach(() => {
	api.reset();
	fake.reset();
});

async function run(name: string): Promise<ExecutionResult> {
	return await n8n.execute(ids[name]);
}

describe(`n8n ${VERSION} (the ${LINE} supported n8n)`, () => {
	test('a run of 25 items exchanges one token, and the next execution uses it without exchanging', async () => {
		const first = await run('manyItems');
		expect(first.error).toBeUndefined();
		expect(nodeOutput(first, 'Get Services').length).toBeGreaterThan(25);
		expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 0 });
		const calls = api.requestsTo(SERVICES_PATH, 'GET');
		expect(calls).toHaveLength(25);
		expect(calls.every((r) => r.status === 200)).toBe(true);
		const tokens = new Set(calls.map((r) => r.headers.auth));
		expect(tokens.size).toBe(1);

		api.reset();
		const second = await run('manyItems');
		expect(second.error).toBeUndefined();
		expect(api.requestsTo(TOKEN_PATH)).toHaveLength(0);
		expect(new Set(api.requestsTo(SERVICES_PATH).map((r) => r.headers.auth))).toEqual(tokens);
	});

	test('a token the API says expired is renewed once, n8n stores the new one, and the run succeeds', async () => {
		api.expireAccessTokens();
		const result = await run('manyItems');
		expect(result.error).toBeUndefined();
		expect(api.counters.tokenExchanges + api.counters.tokenRefreshes).toBe(1);
		const renewals = api.requests.filter(
			(r) => r.pathname === TOKEN_PATH || r.pathname === REFRESH_PATH,
		);
		expect(renewals.map((r) => r.status)).toEqual([200]);
		const calls = api.requestsTo(SERVICES_PATH, 'GET');
		expect(calls.map((r) => r.status)).toEqual([
			...Array(RENEWAL_401S).fill(401),
			...Array(25).fill(200),
		]);
		expect(new Set(calls.slice(RENEWAL_401S).map((r) => r.headers.auth)).size).toBe(1);
		expect(calls[RENEWAL_401S].headers.auth).not.toBe(calls[0].headers.auth);

		// Stored: the next execution uses the renewed token as it is.
		const renewed = calls[RENEWAL_401S].headers.auth;
		api.reset();
		expect((await run('manyItems')).error).toBeUndefined();
		expect(api.counters).toEqual({ tokenExchanges: 0, tokenRefreshes: 0 });
		expect(new Set(api.requestsTo(SERVICES_PATH).map((r) => r.headers.auth))).toEqual(
			new Set([renewed]),
		);
	});

	test('six transactions sent at once by a credential with no token yet: one token exchange, every init authenticated with it', async () => {
		const result = await run('batch');
		expect(result.error).toBeUndefined();
		expect(nodeJson(result, 'Transcribe Each')).toHaveLength(batch.length);
		expect(api.counters).toEqual({ tokenExchanges: 1, tokenRefreshes: 0 });
		const inits = api.requests.filter(
			(r) => r.method === 'POST' && r.pathname.startsWith(INIT_PATH.split(':')[0]),
		);
		expect(inits.map((r) => r.status)).toEqual(Array(batch.length).fill(201));
		expect(new Set(inits.map((r) => r.headers.authorization)).size).toBe(1);
		expect(
			fake
				.uploads()
				.map((u) => u.sha256)
				.sort(),
		).toEqual(batch.map((file) => sha256(file.bytes)).sort());
	});

	test('directory calls: Doctor → Get Services, Patient → Search by Mobile, Business → Get Entities', async () => {
		const result = await run('directory');
		expect(result.error).toBeUndefined();
		expect(nodeJson(result, 'Get Services').length).toBeGreaterThan(0);
		expect(nodeJson(result, 'Search Patients').map((p) => p.patient_id)).toEqual(
			PATIENTS_BY_MOBILE['9876543210'].map((p) => p.patient_id),
		);
		expect(nodeJson(result, 'Search Unknown Mobile')).toEqual([]);
		expect(nodeJson(result, 'Get Entities')).toHaveLength(1);
	});

	test('a credential the token service rejects fails the run with a message naming the field, and no secret', async () => {
		const result = await run('wrongSecret');
		expect(result.status).toBe('error');
		expect(result.error?.message).toContain('Client Secret');
		expect(JSON.stringify(result.error)).not.toContain('not-the-secret-of-this-client');
		expect(api.requestsTo('/dr/')).toHaveLength(0);
	});

	test('Upload Audio from the filesystem binary store waits for completion (a dropped init and a dropped status poll retried); Get Results reads the session', async () => {
		fake.setOptions({ processingPolls: 1 });
		api.injectFault({ method: 'POST', path: INIT_PATH.split(':')[0], fault: { kind: 'drop' } });
		api.injectFault({ method: 'GET', path: STATUS_PATH.split(':')[0], fault: { kind: 'drop' } });
		const result = await run('upload');

		expect(result.error).toBeUndefined();
		expect(nodeOutput(result, 'Read Recording')[0].binary?.data).toMatchObject({
			id: expect.stringMatching(/^filesystem/),
		});
		const [transcribed] = nodeJson(result, 'Transcribe');
		expect(transcribed).toMatchObject({ status: 'completed', http_status: 200 });
		const [results] = nodeJson(result, 'Get Results');
		expect(results).toMatchObject({ session_id: transcribed.session_id, status: 'completed' });
		expect((results.documents as Record<string, unknown>).transcript_template).toBe(
			TRANSCRIPT_TEXT,
		);

		const txn = fake.transaction(String(transcribed.session_id))!;
		// The dropped init was not carried out: sent again, one transcription started.
		expect([txn.initAttempts, txn.initsStarted]).toEqual([1, 1]);
		expect(
			api.requests
				.filter((r) => r.pathname.startsWith(INIT_PATH.split(':')[0]))
				.map((r) => r.fault ?? r.status),
		).toEqual(['drop', 201]);
		const polls = api.requests.filter(
			(r) => r.method === 'GET' && r.pathname.startsWith(STATUS_PATH.split(':')[0]),
		);
		expect(polls[0].fault).toBe('drop');
		expect(polls.slice(1).map((r) => r.status)).toContain(200);
		expect(txn.uploads).toEqual([
			expect.objectContaining({
				fileName: recording.name,
				size: recording.bytes.length,
				sha256: sha256(recording.bytes),
			}),
		]);
		expect(fake.rejectedUploads()).toEqual([]);
	});

	test('an AI agent calls the node as a tool: Search by Mobile answers it with the patients', async () => {
		const result = await run('agentShares');
		expect(result.error).toBeUndefined();
		expect(api.requestsTo(SEARCH_PATH).map((r) => [r.query.mobile, r.status])).toEqual([
			[MOBILE, 200],
		]);
		const answers = llm.toolAnswers();
		expect(answers).toHaveLength(1);
		expect(answers[0]).toContain(PATIENTS_BY_MOBILE[MOBILE][0].patient_id);
		expect(String(nodeJson(result, 'Agent')[0].output)).toContain(
			PATIENTS_BY_MOBILE[MOBILE][0].patient_id,
		);
	});

	test('with Share Patient Data With the AI Agent off, the tool refuses and nothing is sent', async () => {
		llm.requests.length = 0;
		const result = await run('agentRefused');
		expect(api.requests).toEqual([]);
		// The tool's run failed with the refusal; the model was sent no patient data.
		const [toolRun] = result.runData['Search Patients'] ?? [];
		expect(toolRun?.error?.message).toContain(
			'Patient search is not shared with AI agents in this node',
		);
		expect(llm.toolAnswers()).toHaveLength(1);
		expect(llm.toolAnswers()[0]).not.toContain(PATIENTS_BY_MOBILE[MOBILE][0].patient_id);
	});

	describe('with n8n started: the credential test and the trigger', () => {
		const productionUrl = (): string => n8n.webhookUrl(`${WEBHOOK_ID}/webhook`);
		const subscriptions = (): FakeSubscription[] => fakeWebhooks(api).subscriptions();
		const finished = async (): Promise<number> =>
			(await n8n.listExecutions({ workflowId: ids.trigger })).filter(
				(e) => !['running', 'new', 'waiting'].includes(e.status),
			).length;

		beforeAll(async () => {
			await n8n.start();
			await waitForLog(n8n, /Editor is now accessible/, 120_000);
			await n8n.ensureOwner(E2E_OWNER);
		});

		/** Saves a credential as the editor does, then presses its Test button. */
		async function testCredential(
			overrides: Record<string, string>,
		): Promise<{ status: string; message: string }> {
			const credential = {
				name: `Clinic Scribe (test ${newId()})`,
				type: CREDENTIAL_TYPE,
				data: fakeApiCredentialData(api, overrides),
			};
			const saved = await n8n.rest<{ id: string }>('POST', '/credentials', credential);
			return await n8n.rest<{ status: string; message: string }>('POST', '/credentials/test', {
				credentials: { id: saved.id, ...credential },
			});
		}

		test("the credential's Test button passes with valid credentials and names a rejected Client Secret", async () => {
			expect(await testCredential({})).toMatchObject({ status: 'OK' });
			expect(api.counters.tokenExchanges).toBe(1);
			expect(api.requestsTo('/dr/v1/business/entities').map((r) => r.status)).toEqual([200]);

			const rejected = await testCredential({ clientSecret: 'definitely-not-the-secret-42' });
			expect(rejected.status).toBe('Error');
			expect(rejected.message).toContain('Client Secret');
			expect(rejected.message).not.toContain('definitely-not-the-secret-42');
		});

		async function saveSignInCredential(name: string, data: Record<string, string>) {
			return (
				await n8n.rest<{ id: string }>('POST', '/credentials', {
					name,
					type: SIGN_IN_CREDENTIAL_TYPE,
					data,
				})
			).id;
		}

		test("the OAuth2 credential: n8n's authorize URL is the Custom address, or the service's sign-in endpoint for Production and Sandbox, with PKCE and the fixed scope (built by n8n, nothing contacted)", async () => {
			const expected = {
				custom: `${api.url}${SIGN_IN_ROUTES.authorize}`,
				...SERVICE_AUTHORIZE_URLS,
			};
			for (const environment of ['custom', 'production', 'sandbox'] as const) {
				const id = await saveSignInCredential(
					`Clinic Sign-in (${environment})`,
					environment === 'custom'
						? signInCredentialData(api)
						: serviceSignInCredentialData(environment),
				);
				const { address, query } = authorizeUrlParts(await n8nAuthorizeUrl(n8n, id));
				expect(address).toBe(expected[environment]);
				expect(query).toMatchObject({
					client_id: SIGN_IN.clientId,
					redirect_uri: oauthRedirectUrl(n8n),
					scope: 'openid profile email offline_access',
					code_challenge_method: 'S256',
				});
			}
			expect(api.requests).toEqual([]);
		});

		test('the OAuth2 credential\'s Connect with Grant Type "Authorization Code": no PKCE, the code exchanged with the client in the form body (no Basic header), the tokens stored', async () => {
			fakeSignIn(api).registerRedirectUri(oauthRedirectUrl(n8n));
			const counted = signInCountersFrom(api);
			SIGN_IN_CREDENTIAL.id = await saveSignInCredential(
				SIGN_IN_CREDENTIAL.name,
				signInCredentialData(api, { grantType: 'authorizationCode' }),
			);
			await expectAuthorizationCodeConnect(n8n, api, SIGN_IN_CREDENTIAL.id);
			expect(counted()).toEqual({ refreshGrants: 0, codeGrants: 1, refusals: 0 });
		});

		test('the OAuth2 credential\'s Connect with Grant Type "Authorization Code with PKCE": n8n 2.x sends the client in the body and stores the tokens; n8n 1.x sends it in a Basic header (ignoring the credential\'s body authentication), so the provider, which takes it only in the body, refuses it and nothing is stored (docs/compatibility.md)', async () => {
			fakeSignIn(api).registerRedirectUri(oauthRedirectUrl(n8n));
			const id = await saveSignInCredential(
				'Clinic Sign-in (PKCE)',
				signInCredentialData(api, { grantType: 'pkce' }),
			);
			const connected = await connectSignInCredential(n8n, id);
			expect(connected.authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
			const exchanges = api.requestsTo(SIGN_IN_ROUTES.token, 'POST');
			const stored = await n8n.rest<{ data: Record<string, unknown> }>(
				'GET',
				`/credentials/${id}?includeData=true`,
			);
			const exchange = {
				grant_type: 'authorization_code',
				code: connected.callbackUrl.searchParams.get('code'),
				redirect_uri: oauthRedirectUrl(n8n),
				code_verifier: expect.any(String),
			};
			if (n8n.majorVersion >= 2) {
				expect(exchanges.map((r) => [r.status, r.headers.authorization])).toEqual([
					[200, undefined],
				]);
				expect(exchanges[0].body).toEqual({
					...exchange,
					client_id: SIGN_IN.clientId,
					client_secret: SIGN_IN.clientSecret,
				});
				expect(stored.data.oauthTokenData).toBe(true);
			} else {
				expect(exchanges.map((r) => r.status)).toEqual([401]);
				expect(exchanges[0].headers.authorization).toMatch(/^Basic /);
				expect(exchanges[0].body).toEqual(exchange);
				expect(fakeSignIn(api).refusals.at(-1)).toMatchObject({
					endpoint: 'token',
					error: 'invalid_client',
					reason: expect.stringContaining('not in an Authorization header'),
				});
				expect(connected.callback.text).toContain('invalid_client');
				expect(stored.data.oauthTokenData).toBeUndefined();
			}
		});

		/** Delivers one more, different event and checks that it is the only run added after `runsBefore`. */
		async function expectOnlyNextDeliveryRuns(
			runsBefore: number,
			transactionId: string,
		): Promise<void> {
			const report = await fakeWebhooks(api).deliver({ transactionId });
			expect(report.attempts.map((a) => a.status)).toEqual([200]);
			await n8n.waitForExecutions(ids.trigger, runsBefore + 1);
			const all = await n8n.listExecutions({ workflowId: ids.trigger });
			expect(all).toHaveLength(runsBefore + 1);
			const newest = await n8n.getExecution(String(Math.max(...all.map((e) => Number(e.id)))));
			expect(nodeJson(newest, 'Next Node')).toEqual([expect.objectContaining({ transactionId })]);
		}

		test("activation subscribes once, for n8n's production webhook URL", async () => {
			await n8n.activateWorkflow(ids.trigger);
			expect(subscriptions()).toEqual([
				expect.objectContaining({
					endpoint: productionUrl(),
					event_names: ['v2rx.completed'],
					signing_key: expect.stringMatching(/^[0-9a-f]{64}$/),
				}),
			]);
			expect(api.requestsTo(SUBSCRIPTIONS, 'POST')).toHaveLength(1);
		});

		test('a signed delivery runs the workflow once; the same delivery again (a replay) is acknowledged and starts nothing', async () => {
			const before = await finished();
			const report = await fakeWebhooks(api).deliver({ transactionId: 'txn-oldest-1', times: 2 });
			expect(report.attempts.map((a) => a.status)).toEqual([200, 200]);
			const [latest] = await n8n.waitForExecutions(ids.trigger, before + 1);
			const execution = await n8n.getExecution(latest.id);
			expect(execution.status).toBe('success');
			expect(nodeJson(execution, 'Next Node')).toEqual([
				expect.objectContaining({
					event: 'v2rx.completed',
					transactionId: 'txn-oldest-1',
					status: 'completed',
				}),
			]);
			expect(n8n.recentServerLog().join('\n')).toMatch(/already accepted/);
			// n8n starts a run before it answers the delivery, so once a later, different delivery has
			// run, a run of the replay would be listed too: the count is final, no waiting on a clock.
			await expectOnlyNextDeliveryRuns(before + 1, 'txn-oldest-2');
		});

		test('a forged delivery gets 401 and starts nothing', async () => {
			const before = await finished();
			const report = await fakeWebhooks(api).deliver({ forgery: 'wrong-key' });
			expect(report.attempts.map((a) => a.status)).toEqual([401]);
			await expectOnlyNextDeliveryRuns(before, 'txn-oldest-3');
		});

		test('deactivation unsubscribes', async () => {
			await n8n.deactivateWorkflow(ids.trigger);
			await eventually(
				() => subscriptions().length === 0,
				() => JSON.stringify(subscriptions()),
			);
		});

		/*
		 * The OAuth2 credential connected above (Authorization Code), in workflows started by their
		 * webhooks; last in the file, since expiring the tokens would touch the tests before.
		 */
		describe('the OAuth2 credential: one token for many items and executions, renewed once when it expires', () => {
			let manyItems: Published;

			test('a run of 25 items uses the token the Connect got: no token request, one token for every call; the next execution too', async () => {
				manyItems = await publishWebhookWorkflow(n8n, 'oldest n8n: oauth2, 25 items', [
					...readWorkflowFile(join(__dirname, 'workflows', 'doctor-services-many-items.json'))
						.nodes.filter((node) => node.type !== 'n8n-nodes-base.manualTrigger')
						.map((node) =>
							node.type === ACTION_NODE_TYPE
								? oauthNode(node.name, node.parameters, SIGN_IN_CREDENTIAL)
								: node,
						),
				]);
				const counted = signInCountersFrom(api);
				const first = await runPublished(n8n, manyItems);
				expect(first.error).toBeUndefined();
				const calls = api.requestsTo(SERVICES_PATH, 'GET');
				expect(calls.map((r) => r.status)).toEqual(Array(25).fill(200));
				const tokens = new Set(calls.map(bearerOf));
				expect(tokens.size).toBe(1);
				const [token] = tokens;
				expect(api.state.tokens.accessTokenSubject(token)?.flow).toBe('signIn');
				expect(new Set(calls.map((r) => r.headers.auth))).toEqual(tokens);

				api.reset();
				const second = await runPublished(n8n, manyItems);
				expect(second.error).toBeUndefined();
				expect(new Set(api.requestsTo(SERVICES_PATH).map(bearerOf))).toEqual(tokens);
				expect(api.requestsTo(SIGN_IN_ROUTES.token)).toEqual([]);
				expect(counted()).toEqual({ refreshGrants: 0, codeGrants: 0, refusals: 0 });
			});

			test('an expired token: renewed once with the client in the form body, the renewed token and the rotated refresh token stored; the next execution uses them; the next expiry renews with the rotated refresh token', async () => {
				const counted = signInCountersFrom(api);
				api.expireAccessTokens();
				const result = await runPublished(n8n, manyItems);
				expect(result.error).toBeUndefined();
				const [refresh, ...more] = refreshRequests(api);
				expect(more).toEqual([]);
				expect([refresh.status, refresh.headers.authorization]).toEqual([200, undefined]);
				expect(refresh.body).toMatchObject({
					grant_type: 'refresh_token',
					client_id: SIGN_IN.clientId,
					client_secret: SIGN_IN.clientSecret,
				});
				// The items go several at once: those sent before the renewal are refused, wait for it
				// and go once more; each item is answered once, with the renewed token in both headers.
				const calls = api.requestsTo(SERVICES_PATH, 'GET');
				const refused = calls.filter((r) => r.status === 401);
				const answered = calls.filter((r) => r.status === 200);
				expect(calls).toHaveLength(refused.length + answered.length);
				expect(answered).toHaveLength(25);
				const oldToken = bearerOf(calls[0]);
				const renewed = bearerOf(answered[0]);
				expect(renewed).not.toBe(oldToken);
				expect(new Set(answered.flatMap((r) => [bearerOf(r), r.headers.auth]))).toEqual(
					new Set([renewed]),
				);
				// Every refused call carried the old token in `auth`. n8n 1.x's own repeat after its
				// renewal carries the renewed one as Bearer only (it leaves the old one in `auth`), so the
				// package sends that call once more; n8n 2.x puts the renewed token in both.
				expect(new Set(refused.map((r) => r.headers.auth))).toEqual(new Set([oldToken]));
				// n8n 1.x sends the renewing call twice with the renewed token as Bearer only: its repeat
				// after renewing, and its helper's own repeat of that refused repeat
				// (httpRequestWithAuthentication's catch); the package then sends it once more.
				const renewedAsBearerOnly = refused.filter((r) => bearerOf(r) === renewed).length;
				expect(renewedAsBearerOnly).toBe(n8n.majorVersion >= 2 ? 0 : 2);
				// With the token held: at most each item's first send (all 25 may be in flight at the
				// expiry) and n8n's try before it renews.
				expect(refused.length - renewedAsBearerOnly).toBeLessThanOrEqual(
					25 + signInRenewal401s(n8n.majorVersion) - 1,
				);
				expect(counted()).toEqual({ refreshGrants: 1, codeGrants: 0, refusals: 0 });

				const rotated = fakeSignIn(api).liveRefreshTokens();
				api.reset();
				expect((await runPublished(n8n, manyItems)).error).toBeUndefined();
				expect(new Set(api.requestsTo(SERVICES_PATH).map(bearerOf))).toEqual(new Set([renewed]));
				expect(refreshRequests(api)).toEqual([]);

				api.expireAccessTokens();
				expect((await runPublished(n8n, manyItems)).error).toBeUndefined();
				const [again] = refreshRequests(api);
				const sent = (again.body as Record<string, string>).refresh_token;
				expect(rotated).toContain(sent);
				expect(sent).not.toBe((refresh.body as Record<string, string>).refresh_token);
				expect(counted()).toEqual({ refreshGrants: 2, codeGrants: 0, refusals: 0 });
			});

			test('expiry in the middle of a run: six uploads in flight, one renewal for all (never the same refresh token twice), each refused call sent once more with the renewed token, every item done', async () => {
				const uploads = await publishWebhookWorkflow(n8n, 'oldest n8n: oauth2, six uploads', [
					readFiles(join(audioDir, 'batch-*.wav')),
					oauthNode('Transcribe', uploadAudio(false), SIGN_IN_CREDENTIAL),
				]);
				const statusChecks = () => api.requestsTo('/voice/api/v3/status/');
				const before = await runPublished(n8n, uploads);
				expect(before.status).toBe('success');
				const oldToken = bearerOf(statusChecks()[0]);

				api.reset();
				api.expireAccessTokens();
				const counted = signInCountersFrom(api);
				// The renewal waits at the provider until released: the checks refused meanwhile wait for it.
				const hold = fakeSignIn(api).holdRefreshGrants();
				const rejected = () => statusChecks().filter((r) => r.status === 401);
				const running = runPublished(n8n, uploads);
				try {
					await eventually(
						() => rejected().length >= 2 && refreshRequests(api).length === 1,
						() =>
							`401s: ${rejected().length}, refresh requests: ${refreshRequests(api).length}; ${JSON.stringify(api.requests.map((r) => [r.method, r.pathname, r.status]))}`,
						60_000,
					);
				} finally {
					hold.release();
				}
				const execution = await running;
				expect(execution.error).toBeUndefined();
				expect(nodeJson(execution, 'Transcribe')).toHaveLength(batch.length);
				// Refused: the checks sent before the renewal began, and the renewing call's own repeat.
				expect(rejected().length).toBeLessThanOrEqual(batch.length + 1);
				expect(new Set(rejected().map(bearerOf))).toEqual(new Set([oldToken]));
				expect(refreshRequests(api)).toHaveLength(1);
				expect(counted()).toEqual({ refreshGrants: 1, codeGrants: 0, refusals: 0 });
				const renewed = bearerOf(statusChecks().find((r) => r.status !== 401)!);
				expect(renewed).not.toBe(oldToken);
				expect(
					statusChecks()
						.filter((r) => r.status !== 401)
						.map(bearerOf),
				).toEqual(Array(batch.length).fill(renewed));
				const inits = api.requestsTo('/voice/api/v2/transaction/init/');
				expect(inits.map((r) => [r.status, bearerOf(r) === renewed])).toEqual(
					Array(batch.length).fill([201, true]),
				);
			});
		});
	});
});
