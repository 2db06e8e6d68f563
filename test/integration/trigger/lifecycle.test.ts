/**
 * The trigger's webhook lifecycle over real HTTP against the fake clinic API, driven as n8n drives
 * it: activation = checkExists, then create when it answers false (WebhookService
 * .createWebhookIfNotExists); n8n's older activation mode repeats that at every start of n8n with the
 * static data saved before. Invariant after every step: exactly one subscription for the webhook URL,
 * with the chosen events, and the node holds its key.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject } from 'n8n-workflow';

import { ClinicScribeTrigger } from '../../../nodes/ClinicScribe/ClinicScribeTrigger.node';
import {
	DIRECTORY_PATIENT_SYSTEM,
	DOCTOR_SYSTEM,
	identifierSearch,
} from '../../../nodes/ClinicScribe/shared/fhir/participants';
import { fakeSessions } from '../../fake-api/routes/transcription/sessionStore';
import {
	fakeWebhooks,
	SUBSCRIPTIONS_PATH,
	type FakeSubscription,
} from '../../fake-api/routes/webhooks';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { startFinishedSession } from '../../support/fakeTranscriptionSession';
import { referenceProblems, resourcesOf } from '../../support/fhirR4';
import { fakeApiCredentials, type CredentialStore } from '../../support/nodeContext';
import { createHookContext, createWebhookContext } from '../../support/triggerContext';
import { useTestTransportPolicy } from '../../support/transportPolicy';

const trigger = new ClinicScribeTrigger();
const hooks = trigger.webhookMethods.default;

let api: FakeClinicApi;
let store: CredentialStore;
let receiver: Server;
let webhookUrl: string;
/** The workflow's static data for the node, as n8n keeps it in its database. */
let staticData: IDataObject;
let parameters: Record<string, unknown>;

beforeAll(async () => {
	api = await startFakeClinicApi();
	useTestTransportPolicy({ retry: { baseDelayMs: 20, maxDelayMs: 200 } });
	// n8n's webhook endpoint, standing in: hands each request to the node's webhook() as n8n would.
	receiver = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			void (async () => {
				const ctx = createWebhookContext({
					request: { headers: req.headers, rawBody: Buffer.concat(chunks) },
					staticData,
					parameters,
					credentials: store,
				});
				try {
					const result = await trigger.webhook.call(ctx.context);
					if (result.noWebhookResponse) {
						res
							.writeHead(ctx.response.status ?? 200, {
								...ctx.response.headers,
								'content-type': 'application/json',
							})
							.end(JSON.stringify(ctx.response.body ?? {}));
						return;
					}
					executions.push(result.workflowData?.[0].map((item) => item.json) ?? []);
					res
						.writeHead(200, { 'content-type': 'application/json' })
						.end('{"message":"Workflow was started"}');
				} catch (error) {
					res.writeHead(500).end((error as Error).message);
				}
			})();
		});
	});
	await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
	webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhook/6f1c2b52/webhook`;
});
afterAll(async () => {
	await api.close();
	await new Promise((resolve) => receiver.close(resolve));
});

/** Outputs of deliveries that started the "workflow". */
let executions: IDataObject[][];

beforeEach(() => {
	api.reset();
	fakeWebhooks(api).clear();
	store = fakeApiCredentials(api.url, api.validCredentials);
	staticData = {};
	parameters = {};
	executions = [];
});

function hook(options: { url?: string; activation?: 'init' | 'activate' } = {}) {
	return createHookContext({
		credentials: store,
		webhookUrl: options.url ?? webhookUrl,
		staticData,
		parameters,
		activation: options.activation,
	});
}

/** What n8n does on activation, and in the older mode at every start. */
async function activate(
	options: { url?: string; activation?: 'init' | 'activate' } = {},
): Promise<'existed' | 'created'> {
	const { context } = hook(options);
	if (await hooks.checkExists.call(context)) return 'existed';
	await hooks.create.call(context);
	return 'created';
}

async function deactivate(options: { url?: string } = {}): Promise<void> {
	await hooks.delete.call(hook(options).context);
}

function subscriptions(): FakeSubscription[] {
	return fakeWebhooks(api).subscriptions();
}

function expectExactlyOneKnown(url = webhookUrl): FakeSubscription {
	const all = subscriptions();
	expect(all).toHaveLength(1);
	const [only] = all;
	expect(only).toMatchObject({ endpoint: url, event_names: ['v2rx.completed'], protocol: 'http' });
	expect(staticData).toEqual({
		subscriptionId: only.id,
		signingKey: only.signing_key,
		endpoint: url,
		eventNames: ['v2rx.completed'],
	});
	return only;
}

const posts = () => api.requestsTo(SUBSCRIPTIONS_PATH, 'POST');
const deletes = () => api.requestsTo(new RegExp(`^${SUBSCRIPTIONS_PATH}/`), 'DELETE');

describe('activation', () => {
	test('registers one subscription: chosen events, the webhook URL, a generated 64-hex key, protocol from the URL, Bearer', async () => {
		expect(await activate()).toBe('created');
		const only = expectExactlyOneKnown();
		expect(only.signing_key).toMatch(/^[0-9a-f]{64}$/);
		expect(posts()).toHaveLength(1);
		expect(posts()[0].body).toEqual({
			event_names: ['v2rx.completed'],
			endpoint: webhookUrl,
			signing_key: only.signing_key,
			protocol: 'http',
		});
		expect(posts()[0].headers.authorization).toMatch(/^Bearer /);
		expect(posts()[0].headers.auth).toBeUndefined();
	});

	test('each activation after a deactivation gets a fresh key; a user-given key is used as given', async () => {
		await activate();
		const first = expectExactlyOneKnown().signing_key;
		await deactivate();
		await activate();
		expect(expectExactlyOneKnown().signing_key).not.toBe(first);
		await deactivate();
		parameters = { options: { signingKey: 'my-own-signing-key' } };
		await activate();
		expect(expectExactlyOneKnown().signing_key).toBe('my-own-signing-key');
	});

	test('subscribes to additional event names too', async () => {
		parameters = { options: { additionalEventNames: 'v2rx.failed' } };
		await activate();
		expect(subscriptions()[0].event_names).toEqual(['v2rx.completed', 'v2rx.failed']);
	});
});

describe('restarts in the older activation mode (checkExists at every start)', () => {
	test('with the stored id present: checkExists answers true, nothing is registered again', async () => {
		await activate();
		const first = expectExactlyOneKnown();
		for (let restart = 0; restart < 5; restart++)
			expect(await activate({ activation: 'init' })).toBe('existed');
		expect(expectExactlyOneKnown()).toEqual(first);
		expect(posts()).toHaveLength(1);
		expect(deletes()).toHaveLength(0);
	});

	test('with the stored id gone from the service: one new subscription, static data updated', async () => {
		await activate();
		const first = expectExactlyOneKnown();
		expect(fakeWebhooks(api).remove(first.id)).toBe(true);
		expect(await activate({ activation: 'init' })).toBe('created');
		const second = expectExactlyOneKnown();
		expect(second.id).not.toBe(first.id);
		expect(await activate({ activation: 'init' })).toBe('existed');
		expect(subscriptions()).toHaveLength(1);
	});

	test('with the endpoint registered under a key the node does not know: that one is replaced', async () => {
		const stranger = fakeWebhooks(api).register({
			event_names: ['v2rx.completed'],
			endpoint: webhookUrl,
			signing_key: 'unknown-to-the-node',
		});
		expect(await activate({ activation: 'init' })).toBe('created');
		const only = expectExactlyOneKnown();
		expect(only.id).not.toBe(stranger.id);
		expect(deletes().map((r) => r.pathname)).toEqual([`${SUBSCRIPTIONS_PATH}/${stranger.id}`]);
	});

	test('with static data lost but the subscription still holding the key the user gave: it is adopted, not duplicated', async () => {
		parameters = { options: { signingKey: 'user-key-123' } };
		await activate();
		const first = expectExactlyOneKnown();
		staticData = {};
		expect(await activate({ activation: 'init' })).toBe('existed');
		expect(expectExactlyOneKnown()).toEqual(first);
		expect(posts()).toHaveLength(1);
	});

	test('with static data lost and a generated key: the old subscription is replaced, never duplicated', async () => {
		await activate();
		const first = expectExactlyOneKnown();
		staticData = {};
		expect(await activate({ activation: 'init' })).toBe('created');
		expect(expectExactlyOneKnown().id).not.toBe(first.id);
	});

	test('with WEBHOOK_URL changed: the subscription at the old URL is removed, one at the new URL made', async () => {
		const oldUrl = webhookUrl.replace('/webhook/', '/old/');
		await activate({ url: oldUrl });
		expectExactlyOneKnown(oldUrl);
		expect(await activate({ activation: 'init' })).toBe('created');
		expectExactlyOneKnown();
	});

	test('with the chosen events changed: replaced by one with the new events', async () => {
		await activate();
		parameters = { options: { additionalEventNames: 'v2rx.failed' } };
		expect(await activate({ activation: 'init' })).toBe('created');
		expect(subscriptions()).toEqual([
			expect.objectContaining({ event_names: ['v2rx.completed', 'v2rx.failed'] }),
		]);
	});

	test('many restarts mixing every disturbance still leave exactly one known subscription', async () => {
		await activate();
		for (let round = 0; round < 12; round++) {
			switch (round % 4) {
				case 0:
					fakeWebhooks(api).clear();
					break;
				case 1:
					staticData = {};
					break;
				case 2:
					fakeWebhooks(api).remove(String(staticData.subscriptionId));
					fakeWebhooks(api).register({
						event_names: ['v2rx.completed'],
						endpoint: webhookUrl,
						signing_key: `stale-${round}`,
					});
					break;
				default:
					break;
			}
			await activate({ activation: 'init' });
			expectExactlyOneKnown();
		}
	});
});

describe('"requested endpoint is already registered"', () => {
	test('when registered meanwhile (a race with another n8n main): removes that one and registers again', async () => {
		api.injectFault({
			method: 'POST',
			path: SUBSCRIPTIONS_PATH,
			fault: {
				kind: 'status',
				status: 400,
				body: {
					error: {
						message: 'requested endpoint is already registered',
						code: 'ENDPOINT_ALREADY_REGISTERED',
					},
				},
			},
		});
		expect(await activate()).toBe('created');
		expectExactlyOneKnown();
		expect(posts().map((r) => r.status)).toEqual([400, 201]);
	});

	test('when it persists (the URL held by another account): activation fails with the service message, no orphan', async () => {
		api.injectFault({
			method: 'POST',
			path: SUBSCRIPTIONS_PATH,
			times: 4,
			fault: {
				kind: 'status',
				status: 400,
				body: {
					error: {
						message: 'requested endpoint is already registered',
						code: 'ENDPOINT_ALREADY_REGISTERED',
					},
				},
			},
		});
		await expect(activate()).rejects.toThrow(
			/registration of the webhook subscription \(HTTP 400 ENDPOINT_ALREADY_REGISTERED\): requested endpoint is already registered/,
		);
		await expect(activate()).rejects.toMatchObject({
			description: expect.stringMatching(/developer console/),
		});
		expect(subscriptions()).toEqual([]);
		expect(staticData).toEqual({});
	});

	test('another 400 is not retried and says what the service said', async () => {
		api.injectFault({
			method: 'POST',
			path: SUBSCRIPTIONS_PATH,
			fault: {
				kind: 'status',
				status: 400,
				body: {
					error: { message: 'Field endpoint must be an absolute URL', code: 'INVALID_REQUEST' },
				},
			},
		});
		await expect(activate()).rejects.toThrow(
			/HTTP 400 INVALID_REQUEST\): Field endpoint must be an absolute URL/,
		);
		expect(posts()).toHaveLength(1);
	});
});

describe('deactivation', () => {
	test('deletes the subscription and clears static data', async () => {
		await activate();
		await deactivate();
		expect(subscriptions()).toEqual([]);
		expect(staticData).toEqual({});
	});

	test('treats "already gone" (404) as done', async () => {
		await activate();
		fakeWebhooks(api).remove(String(staticData.subscriptionId));
		await expect(deactivate()).resolves.toBeUndefined();
		expect(deletes().map((r) => r.status)).toEqual([404]);
		expect(staticData).toEqual({});
	});

	test('also removes leftovers at its URL, and deletes the stored id even when listing fails', async () => {
		fakeWebhooks(api).register({
			event_names: ['v2rx.completed'],
			endpoint: webhookUrl,
			signing_key: 'x',
		});
		await deactivate();
		expect(subscriptions()).toEqual([]);

		await activate();
		api.injectFault({
			method: 'GET',
			path: SUBSCRIPTIONS_PATH,
			times: Infinity,
			fault: { kind: 'status', status: 503 },
		});
		await deactivate();
		api.clearFaults();
		expect(subscriptions()).toEqual([]);
	});

	test("leaves other workflows' subscriptions alone", async () => {
		const other = fakeWebhooks(api).register({
			event_names: ['v2rx.completed'],
			endpoint: `${webhookUrl}-other`,
			signing_key: 'x',
		});
		await activate();
		await deactivate();
		expect(subscriptions()).toEqual([expect.objectContaining({ id: other.id })]);
	});
});

describe('credentials and failures', () => {
	test('an expired token is renewed and the call retried once', async () => {
		await activate();
		api.expireAccessTokens();
		expect(await activate({ activation: 'init' })).toBe('existed');
		expect(store.preAuthenticationRuns).toBe(2);
	});

	test('a service that is down fails checkExists (so n8n retries) instead of answering false and duplicating', async () => {
		await activate();
		api.injectFault({
			method: 'GET',
			path: SUBSCRIPTIONS_PATH,
			times: Infinity,
			fault: { kind: 'status', status: 503 },
		});
		await expect(hooks.checkExists.call(hook({ activation: 'init' }).context)).rejects.toThrow(
			/HTTP 503/,
		);
		api.clearFaults();
		expect(posts()).toHaveLength(1);
		expect(await activate({ activation: 'init' })).toBe('existed');
	});
});

describe('deliveries to the registered URL', () => {
	test('a signed delivery in either shape starts one execution with the normalised event', async () => {
		await activate();
		for (const shape of ['flat', 'envelope'] as const) {
			const report = await fakeWebhooks(api).deliver({ shape, transactionId: `txn-${shape}` });
			expect(report.attempts.map((a) => a.status)).toEqual([200]);
		}
		expect(executions).toEqual([
			[
				expect.objectContaining({
					event: 'v2rx.completed',
					transactionId: 'txn-flat',
					sessionId: 'txn-flat',
					status: 'completed',
					shape: 'flat',
				}),
			],
			[
				expect.objectContaining({
					event: 'v2rx.completed',
					transactionId: 'txn-envelope',
					sessionId: 'txn-envelope',
					status: 'completed',
					shape: 'envelope',
				}),
			],
		]);
	});

	test('forged deliveries get 401 and start nothing', async () => {
		await activate();
		for (const forgery of [
			'wrong-key',
			'stale',
			'no-header',
			'malformed-header',
			'changed-body',
		] as const) {
			const report = await fakeWebhooks(api).deliver({ forgery });
			expect([forgery, report.attempts.map((a) => a.status)]).toEqual([forgery, [401]]);
		}
		expect(executions).toEqual([]);
	});

	test('after the subscription was replaced, deliveries signed with the new key pass and the old key fails', async () => {
		parameters = {};
		await activate();
		const oldKey = String(staticData.signingKey);
		staticData = {};
		await activate({ activation: 'init' });
		expect(staticData.signingKey).not.toBe(oldKey);
		expect((await fakeWebhooks(api).deliver()).attempts.map((a) => a.status)).toEqual([200]);
		expect(executions).toHaveLength(1);
	});

	test('an identical redelivery (same signature) is acknowledged and starts nothing more; a new delivery of the event does', async () => {
		await activate();
		const report = await fakeWebhooks(api).deliver({ times: 2, transactionId: 'dup-1' });
		expect(report.attempts.map((a) => a.status)).toEqual([200, 200]);
		const started = () => executions.filter((e) => e.length > 0).map((e) => e[0].transactionId);
		expect(started()).toEqual(['dup-1']);
		// The service sending the event anew signs it anew (a later timestamp): that one runs.
		await new Promise((resolve) => setTimeout(resolve, 1_100));
		await fakeWebhooks(api).deliver({ transactionId: 'dup-1' });
		expect(started()).toEqual(['dup-1', 'dup-1']);
	});
});

describe('Include Results', () => {
	test('outputs the decoded results of the session, one item per session, with the event', async () => {
		await startFinishedSession(api.url, api.validCredentials, 'visit-ready-1');
		parameters = { includeResults: true };
		await activate();
		expect(
			(await fakeWebhooks(api).deliver({ transactionId: 'visit-ready-1' })).attempts.map(
				(a) => a.status,
			),
		).toEqual([200]);
		expect(executions).toHaveLength(1);
		const [only] = executions[0];
		expect(only).toMatchObject({
			session_id: 'visit-ready-1',
			status: 'completed',
			http_status: 200,
			event: {
				event: 'v2rx.completed',
				transactionId: 'visit-ready-1',
				sessionId: 'visit-ready-1',
				status: 'completed',
				shape: 'flat',
			},
		});
		const documents = only.documents as Record<string, unknown>;
		expect(Object.keys(documents).sort()).toEqual([
			'clinical_notes_template',
			'svc_emr_template',
			'transcript_template',
		]);
		expect(typeof documents.clinical_notes_template).toBe('object');
		expect(typeof documents.transcript_template).toBe('string');
		expect(api.requestsTo('/voice/api/v3/status/visit-ready-1', 'GET')).toHaveLength(1);
	});

	test('one item per template, and the simple text view, from the envelope shape too', async () => {
		await startFinishedSession(api.url, api.validCredentials, 'visit-ready-2');
		parameters = { includeResults: true, resultsOutput: 'templates' };
		await activate();
		await fakeWebhooks(api).deliver({ transactionId: 'visit-ready-2', shape: 'envelope' });
		expect(executions[0].map((item) => item.template_id)).toEqual([
			'clinical_notes_template',
			'svc_emr_template',
			'transcript_template',
		]);
		for (const item of executions[0])
			expect(item.event).toMatchObject({ sessionId: 'visit-ready-2', shape: 'envelope' });

		parameters = { includeResults: true, resultsOutput: 'simple' };
		await fakeWebhooks(api).deliver({ transactionId: 'visit-ready-2' });
		expect(executions[1]).toEqual([
			expect.objectContaining({
				session_id: 'visit-ready-2',
				clinical_notes: expect.any(String),
				transcript: expect.any(String),
			}),
		]);
	});

	test('Results Of "Session": the results come from the session API, decoded, with the event', async () => {
		const sessionId = 'trigger-session-ready-01';
		const send = async (method: string, path: string, body: string | Uint8Array, type: string) =>
			await fetch(`${api.url}${path}`, {
				method,
				headers: {
					authorization: `Bearer ${api.validCredentials.staticToken}`,
					'content-type': type,
				},
				body: body as BodyInit,
			});
		expect(
			(
				await send(
					'POST',
					'/voice/v1/sessions',
					JSON.stringify({
						session_id: sessionId,
						upload_type: 'single',
						templates: ['clinical_notes_template'],
					}),
					'application/json',
				)
			).status,
		).toBe(201);
		expect(
			(
				await send(
					'POST',
					`/voice/v1/sessions/${sessionId}/audio/audio_0.wav`,
					new Uint8Array(64).fill(1),
					'audio/wav',
				)
			).status,
		).toBe(200);
		expect(
			(await send('POST', `/voice/v1/sessions/${sessionId}/end`, '{}', 'application/json')).status,
		).toBe(202);
		fakeSessions(api).script(sessionId, { processingPolls: 0 });
		parameters = { includeResults: true, resultsSource: 'session' };
		await activate();
		await fakeWebhooks(api).deliver({ transactionId: sessionId });
		expect(executions[0]).toEqual([
			expect.objectContaining({
				session_id: sessionId,
				status: 'completed',
				http_status: 200,
				event: expect.objectContaining({ sessionId }),
			}),
		]);
		expect(Object.keys(executions[0][0].documents as object)).toEqual([
			'clinical_notes_template',
			'transcript_template',
		]);
		expect(api.requestsTo(`/voice/v1/sessions/${sessionId}`, 'GET')).toHaveLength(1);
		expect(api.requestsTo('/voice/api/v3/status/')).toEqual([]);
	});

	test('a session the service does not know comes out as status not_found, not as a crash', async () => {
		parameters = { includeResults: true };
		await activate();
		await fakeWebhooks(api).deliver({ transactionId: 'never-uploaded' });
		expect(executions[0]).toEqual([
			expect.objectContaining({
				session_id: 'never-uploaded',
				status: 'not_found',
				event: expect.objectContaining({ transactionId: 'never-uploaded' }),
			}),
		]);
	});

	test('a results call that keeps failing: the workflow starts with the event and a clear error (200), once; the service is not asked again', async () => {
		parameters = { includeResults: true };
		await activate();
		api.injectFault({
			method: 'GET',
			path: '/voice/api/v3/status/',
			times: Infinity,
			fault: { kind: 'status', status: 503 },
		});
		const report = await fakeWebhooks(api).deliver({ transactionId: 'visit-x', times: 2 });
		api.clearFaults();
		expect(report.attempts.map((a) => a.status)).toEqual([200, 200]);
		// The second copy was acknowledged as a replay of the first, which started the workflow.
		expect(executions.filter((items) => items.length > 0)).toEqual([
			[
				{
					session_id: 'visit-x',
					error: {
						message: expect.stringMatching(
							/^Could not fetch the results of the session: .*results of session "visit-x" \(HTTP 503/,
						),
						description: expect.stringMatching(
							/^The workflow started with the event alone, so the event is not lost\. Get the results of the session later with Transcription → Get Results/,
						),
						httpCode: '503',
					},
					event: expect.objectContaining({
						event: 'v2rx.completed',
						transactionId: 'visit-x',
						sessionId: 'visit-x',
					}),
				},
			],
		]);
	});

	test('a results call slower than the fetch budget: the service is answered once the budget is spent, the workflow starts with the event and the error', async () => {
		const restore = useTestTransportPolicy({ timeouts: { triggerFetchMs: 800 } });
		try {
			parameters = { includeResults: true };
			await activate();
			api.injectFault({
				method: 'GET',
				path: '/voice/api/v3/status/',
				times: Infinity,
				fault: { kind: 'delay', ms: 5_000 },
			});
			const report = await fakeWebhooks(api).deliver({ transactionId: 'visit-slow' });
			api.clearFaults();
			expect(report.attempts.map((a) => a.status)).toEqual([200]);
			expect(executions).toEqual([
				[
					expect.objectContaining({
						session_id: 'visit-slow',
						error: expect.objectContaining({
							message: 'The clinic API did not give the results of the session within 0.8 s',
							httpCode: null,
						}),
					}),
				],
			]);
		} finally {
			restore();
		}
	});

	test('a forged delivery never reaches the results call', async () => {
		parameters = { includeResults: true };
		await activate();
		await fakeWebhooks(api).deliver({ transactionId: 'visit-forged', forgery: 'wrong-key' });
		expect(api.requestsTo('/voice/api/v3/status/')).toEqual([]);
	});

	describe('Output "FHIR Transaction Bundle for the EHR"', () => {
		const EMR_TEMPLATES = [{ template_id: 'svc_emr_template', codification_needed: false }];
		const DOCTOR = { _id: 'do1001', profile: { personal: { name: { f: 'Asha', l: 'Rao' } } } };

		test("one item per visit: the bundle for the patient the session names, the session's doctor, with the event", async () => {
			await startFinishedSession(
				api.url,
				api.validCredentials,
				'visit-fhir-trigger',
				EMR_TEMPLATES,
				{ patient: { oid: '175074536120088' }, doctor: DOCTOR },
			);
			parameters = { includeResults: true, resultsOutput: 'fhirBundle' };
			await activate();
			expect(
				(await fakeWebhooks(api).deliver({ transactionId: 'visit-fhir-trigger' })).attempts.map(
					(a) => a.status,
				),
			).toEqual([200]);
			expect(executions).toHaveLength(1);
			const [only] = executions[0];
			expect(only).toMatchObject({
				session_id: 'visit-fhir-trigger',
				status: 'completed',
				source: 'emr',
				patient: `Patient?${identifierSearch(DIRECTORY_PATIENT_SYSTEM, '175074536120088')}`,
				practitioner: `Practitioner?${identifierSearch(DOCTOR_SYSTEM, 'do1001')}`,
				event: { event: 'v2rx.completed', transactionId: 'visit-fhir-trigger' },
			});
			expect(only.error).toBeUndefined();
			expect(referenceProblems(only.bundle)).toEqual([]);
			expect(resourcesOf(only.bundle, 'Patient')).toEqual([
				expect.objectContaining({
					name: [{ text: 'ravi kumar', given: ['ravi'], family: 'kumar' }],
					gender: 'male',
				}),
			]);
			expect(api.requestsTo('/profiles/v1/patient/175074536120088', 'GET')).toHaveLength(1);
		});

		test('a fixed EHR Practitioner serves every visit; a session naming no patient starts the workflow with the event and an error, no bundle', async () => {
			await startFinishedSession(
				api.url,
				api.validCredentials,
				'visit-fhir-no-patient',
				EMR_TEMPLATES,
				{ doctor: DOCTOR },
			);
			parameters = {
				includeResults: true,
				resultsOutput: 'fhirBundle',
				fhirDoctor: 'ehrPractitioner',
				fhirPractitionerId: 'dr-7',
			};
			await activate();
			await fakeWebhooks(api).deliver({ transactionId: 'visit-fhir-no-patient' });
			expect(executions).toEqual([
				[
					{
						session_id: 'visit-fhir-no-patient',
						status: 'completed',
						error: {
							message:
								'The session names no patient of the patient directory (neither patient_details.oid nor additional_data.patient.oid)',
							description: expect.stringMatching(
								/^The workflow started with the event and no bundle\. Give the patient another way/,
							),
							httpCode: null,
						},
						event: expect.objectContaining({ transactionId: 'visit-fhir-no-patient' }),
					},
				],
			]);
			expect(api.requestsTo('/profiles/')).toEqual([]);
		});

		test("Add Codes: the bundle carries the codes MedLink links, asked within the trigger's budget; MedLink down leaves it uncoded, never lost", async () => {
			const visit = { patient: { oid: '175074536120088' }, doctor: DOCTOR };
			await startFinishedSession(
				api.url,
				api.validCredentials,
				'visit-codes-trigger',
				EMR_TEMPLATES,
				visit,
			);
			parameters = {
				includeResults: true,
				resultsOutput: 'fhirBundle',
				fhirOptions: { addCodes: true },
			};
			await activate();
			await fakeWebhooks(api).deliver({ transactionId: 'visit-codes-trigger' });
			const [coded] = executions[0];
			expect(coded.error).toBeUndefined();
			const diagnosis = resourcesOf(coded.bundle, 'Condition').find(
				(c) => (c.code as { text?: string }).text === 'Acute upper respiratory tract infection',
			);
			expect((diagnosis?.code as { coding?: unknown[] }).coding).toEqual(
				expect.arrayContaining([
					expect.objectContaining({ system: 'http://snomed.info/sct', code: '54150009' }),
				]),
			);
			expect(api.requestsTo('/med-link/registry/', 'GET')).toHaveLength(1);

			api.injectFault({
				method: 'POST',
				path: '/med-link/nel/link/batch',
				times: Infinity,
				fault: { kind: 'status', status: 503 },
			});
			await startFinishedSession(
				api.url,
				api.validCredentials,
				'visit-codes-down',
				EMR_TEMPLATES,
				visit,
			);
			await fakeWebhooks(api).deliver({ transactionId: 'visit-codes-down' });
			const [uncoded] = executions[1];
			expect(uncoded.error).toBeUndefined();
			expect(resourcesOf(uncoded.bundle, 'Condition').length).toBeGreaterThan(0);
			expect(uncoded.adjustments).toEqual(
				expect.arrayContaining([expect.stringMatching(/^not coded, MedLink could not be asked/)]),
			);
			expect(uncoded.coding).toMatchObject({ codes_added: 0 });
		});

		test('a session without notes (all templates failed) is an error item, never an empty bundle', async () => {
			await startFinishedSession(
				api.url,
				api.validCredentials,
				'visit-fhir-failed',
				EMR_TEMPLATES,
				{ patient: { oid: '175074536120088' }, doctor: DOCTOR },
			);
			await fetch(`${api.url}/__admin/transcription/script`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ txn_id: 'visit-fhir-failed', outcome: 'failure' }),
			});
			parameters = { includeResults: true, resultsOutput: 'fhirBundle' };
			await activate();
			await fakeWebhooks(api).deliver({ transactionId: 'visit-fhir-failed' });
			expect(executions).toEqual([
				[
					expect.objectContaining({
						session_id: 'visit-fhir-failed',
						status: 'failed',
						error: expect.objectContaining({
							message: 'Session "visit-fhir-failed" failed, so it has no notes for the EHR',
						}),
					}),
				],
			]);
			expect(executions[0][0].bundle).toBeUndefined();
		});
	});
});
