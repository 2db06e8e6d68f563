/**
 * Where the oldest supported n8n (1.123.x) differs from the newest in what the package relies on,
 * with the stand-in context following each line's helpers (test/support/nodeContext.ts): a dropped
 * connection is retried, a rejected credential is named as such, a raw (session) upload survives a
 * token renewal, and a run as an AI agent's tool is recognised without isToolExecution(). Real HTTP
 * against the fake API; test/e2e/oldest-n8n.e2e.test.ts proves the same inside a real n8n 1.123.
 */
import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { FIXTURE_IDS, PATIENTS_BY_MOBILE } from '../../fake-api/fixtures';
import { fakeSessions, type FakeSessions } from '../../fake-api/routes/transcription/sessionStore';
import { createExecuteContext, fakeApiCredentials } from '../../support/nodeContext';
import { useTestTransportPolicy } from '../../support/transportPolicy';
import { item, TranscriptionRig, uploadParameters } from '../../support/transcriptionRig';

type Line = 'newest' | 'oldest';
const LINES: Line[] = ['newest', 'oldest'];

const rig = new TranscriptionRig();
let sessions: FakeSessions;
const node = new ClinicScribe();
const SERVICES_PATH = `/dr/v1/doctor/service/${FIXTURE_IDS.doctorWithServices}`;
const MOBILE = Object.keys(PATIENTS_BY_MOBILE)[0];

beforeAll(async () => {
	await rig.start();
	sessions = fakeSessions(rig.api);
	useTestTransportPolicy({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
});
afterAll(async () => await rig.stop());
beforeEach(() => {
	rig.reset();
	sessions.reset();
});

function getServices(line: Line, credentials = rig.credentials()) {
	const { context } = createExecuteContext({
		n8nLine: line,
		credentials,
		parameters: {
			resource: 'doctor',
			operation: 'getServices',
			doctorId: { __rl: true, mode: 'id', value: FIXTURE_IDS.doctorWithServices },
			returnAll: true,
			options: {},
		},
	});
	return node.execute.call(context);
}

describe.each(LINES)("with n8n's helpers of the %s supported n8n", (line) => {
	test('a connection dropped before the answer is retried, and the item succeeds', async () => {
		const credentials = rig.credentials();
		await getServices(line, credentials);
		rig.api.requests.length = 0;
		rig.api.injectFault({ path: SERVICES_PATH, fault: { kind: 'drop' } });

		const [output] = await getServices(line, credentials);

		expect(output.length).toBeGreaterThan(0);
		expect(rig.api.requestsTo(SERVICES_PATH).map((r) => r.fault ?? r.status)).toEqual([
			'drop',
			200,
		]);
	});

	test('a connection dropped every time fails after the bounded tries, saying so', async () => {
		rig.api.injectFault({ path: SERVICES_PATH, times: Infinity, fault: { kind: 'drop' } });
		await expect(getServices(line)).rejects.toThrow(
			/Could not reach the clinic API for the doctor's services: the connection was closed before an answer arrived/,
		);
		expect(rig.api.requestsTo(SERVICES_PATH)).toHaveLength(4);
	});

	test('a credential the token service rejects is named, not reported as a network error', async () => {
		const error = (await getServices(
			line,
			rig.credentials({ clientSecret: 'wrong-secret-for-this-client' }),
		).catch((e: unknown) => e)) as Error & { description?: string };
		expect(error.message).toContain('Client Secret');
		expect(error.message).not.toMatch(/network error|Could not reach/);
		expect(error.description).toContain('Open the Clinic Scribe API credential');
		expect(JSON.stringify({ ...error, message: error.message })).not.toContain(
			'wrong-secret-for-this-client',
		);
		expect(rig.api.requestsTo('/dr/')).toHaveLength(0);
	});

	test('a 401 on a raw (session) upload: the token is renewed once and the file arrives whole', async () => {
		const a = rig.audioFile('a.wav', 300_000);
		// The 401 comes back to the node, which hands n8n the credential with its token moved aside:
		// n8n renews before sending the file once more (a fresh read), so it is refused only once.
		const refusals = 1;
		rig.api.injectFault({
			method: 'POST',
			path: /\/audio\/audio_0\.wav$/,
			times: refusals,
			fault: { kind: 'status', status: 401 },
		});

		const output = await rig.run(
			uploadParameters({ uploadMethod: 'session', transactionId: 'visit-2024-0042-session-a' }),
			{
				items: [item({ data: rig.storedBinary(a) })],
				n8nLine: line,
			},
		);

		expect(output[0].json.upload_status).toBe('uploaded');
		expect(rig.api.requestsTo(/\/audio\/audio_0\.wav$/, 'POST').map((r) => r.status)).toEqual([
			...Array(refusals).fill(401),
			200,
		]);
		expect(rig.api.counters.tokenRefreshes).toBe(1);
		expect(sessions.session('visit-2024-0042-session-a')!.uploads.map((u) => u.sha256)).toEqual([
			a.sha256,
		]);
	});
});

describe('a run as an AI agent tool on n8n 1.x (no isToolExecution(); n8n runs the node as clinicScribeTool)', () => {
	test('with Share Patient Data With the AI Agent off, the tool refuses before any request', async () => {
		const { context } = createExecuteContext({
			n8nLine: 'oldest',
			nodeType: 'n8n-nodes-clinic-scribe.clinicScribeTool',
			credentials: fakeApiCredentials(rig.api.url, rig.api.validCredentials),
			parameters: {
				resource: 'patient',
				operation: 'searchByMobile',
				mobile: MOBILE,
				returnAll: true,
				simplify: false,
				options: {},
				shareWithAiAgent: false,
			},
		});
		await expect(node.execute.call(context)).rejects.toThrow(
			'Patient search is not shared with AI agents in this node',
		);
		expect(rig.api.requests).toEqual([]);
	});

	test('Upload Audio is refused as a tool', async () => {
		const a = rig.audioFile('a.wav', 1000);
		const { context } = createExecuteContext({
			n8nLine: 'oldest',
			nodeType: 'n8n-nodes-clinic-scribe.clinicScribeTool',
			credentials: rig.credentials(),
			items: [item({ data: rig.inMemoryBinary(a) })],
			parameters: uploadParameters(),
		});
		await expect(node.execute.call(context)).rejects.toThrow(
			'Upload Audio cannot be used as an AI agent tool',
		);
		expect(rig.api.requests).toEqual([]);
	});

	test('as a regular node the same settings run the search', async () => {
		const { context } = createExecuteContext({
			n8nLine: 'oldest',
			credentials: fakeApiCredentials(rig.api.url, rig.api.validCredentials),
			parameters: {
				resource: 'patient',
				operation: 'searchByMobile',
				mobile: MOBILE,
				returnAll: true,
				simplify: false,
				options: {},
				shareWithAiAgent: false,
			},
		});
		const [output] = await node.execute.call(context);
		expect(output.map((entry) => entry.json.patient_id)).toEqual(
			PATIENTS_BY_MOBILE[MOBILE].map((p) => p.patient_id),
		);
	});
});
