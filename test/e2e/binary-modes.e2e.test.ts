/**
 * Every binary mode inside a real n8n 2.41.1: n8n's binary data mode (filesystem, in-memory
 * `default`, database) times the workflow's Binary Mode setting (separate, combined). One n8n per
 * data mode, one workflow per setting, each run once; every case is a branch of that workflow:
 *
 *   Start ─┬─ Get Prescription (PDF as binary) ── Write PDF to disk
 *          └─ Read Recordings ─┬─ Upload (Transaction, wait)
 *                              └─ Upload (Session, wait) ── Get Session Audio ── Write audio to disk
 *
 * What is checked: the SHA-256 of every recording the fake API received (storage POST and session
 * upload) against the files on disk, and the SHA-256 of every binary the node put out, read back by
 * n8n's own Read/Write Files node from n8n's binary store, against what the fake served.
 *
 * In a combined workflow n8n keeps files under `json._files` and reads a binary field name as a path
 * into the item's JSON: Upload Transaction keeps the plain name ("data"), Upload Session is given
 * the path (`_files.data`). n8n's in-memory mode leaves binaries beside the JSON even in a combined
 * workflow, where n8n's own nodes cannot find them by name; the written files are then checked from
 * the run's Base64 instead. The database mode runs here in n8n's regular mode on SQLite: n8n registers
 * its database manager in every mode (queue mode only makes it the default), so no queue-mode
 * cluster is needed for it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { fakePrescriptions } from '../fake-api/routes/prescription';
import {
	fakeSessions,
	sessionAudioBytes,
	type FakeSessions,
} from '../fake-api/routes/transcription/sessionStore';
import {
	CLINICAL_NOTES_DOCUMENT,
	fakeTranscription,
	type FakeTranscription,
} from '../fake-api/routes/transcription';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { packedPackageForTests } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { nodeOutput, type ExecutionResult, type NodeItem } from '../support/n8n/results';
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	type WorkflowJson,
	type WorkflowNode,
} from '../support/n8n/workflows';

jest.setTimeout(10 * 60_000);

const DATA_MODES = ['filesystem', 'default', 'database'] as const;
const SETTINGS = ['separate', 'combined'] as const;
type DataMode = (typeof DATA_MODES)[number];
type Setting = (typeof SETTINGS)[number];

const CREDENTIAL = { id: 'clinicScribeE2E41', name: 'Clinic Scribe (e2e binary modes)' };
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-e2e-binary-modes-'));
const recordings = [
	{ name: 'visit-part-1.wav', bytes: randomBytes(700 * 1024 + 13) },
	{ name: 'visit-part-2.wav', bytes: randomBytes(90 * 1024 + 7) },
];

let api: FakeClinicApi;
let transcription: FakeTranscription;
let sessions: FakeSessions;
/** Wall-clock cost of each n8n (create, import, both runs, dispose), printed at the end. */
const timings: Record<string, number> = {};

beforeAll(async () => {
	for (const recording of recordings) writeFileSync(join(dir, recording.name), recording.bytes);
	api = await startFakeClinicApi();
	transcription = fakeTranscription(api);
	sessions = fakeSessions(api);
});

afterAll(async () => {
	await api?.close();
	rmSync(dir, { recursive: true, force: true });
	process.stderr.write(
		`[binary-modes e2e] seconds per n8n data mode (start to dispose): ${JSON.stringify(timings)}\n`,
	);
});

const runTag = randomBytes(3).toString('hex');

/** Names that make each run's records at the fake API its own. */
function idsOf(mode: DataMode, setting: Setting) {
	const tag = `${mode === 'default' ? 'memory' : mode}-${setting}`;
	return {
		txnId: `e2e-binary-${tag}-${runTag}`,
		// 16–32 letters, digits, _ or -
		sessionId: `bm-${tag}-${runTag}`,
		prescriptionId: `P-BM-${tag}`,
		pdfOut: join(dir, `out-${tag}.pdf`),
		audioOut: join(dir, `out-${tag}.wav`),
	};
}

function clinicNode(
	name: string,
	position: [number, number],
	parameters: Record<string, unknown>,
): WorkflowNode {
	return {
		name,
		type: ACTION_NODE_TYPE,
		typeVersion: 1,
		position,
		parameters,
		credentials: { [CREDENTIAL_TYPE]: CREDENTIAL },
	};
}

function writeNode(
	name: string,
	position: [number, number],
	fileName: string,
	field: string,
): WorkflowNode {
	return {
		name,
		type: 'n8n-nodes-base.readWriteFile',
		typeVersion: 1.1,
		position,
		parameters: { operation: 'write', fileName, dataPropertyName: field, options: {} },
	};
}

const uploadParameters = (
	uploadMethod: 'transaction' | 'session',
	transactionId: string,
	binaryPropertyName = 'data',
) => ({
	resource: 'transcription',
	operation: 'uploadAudio',
	uploadMethod,
	binaryPropertyName,
	transactionId,
	inputLanguages: ['en-IN'],
	outputTemplates: {
		templates: [{ template: 'clinical_notes_template', codificationNeeded: false }],
	},
	waitForCompletion: true,
	timeoutMinutes: 2,
	pollIntervalSeconds: 1,
	resultsOutput: 'session',
	options: {},
});

function binaryWorkflow(mode: DataMode, setting: Setting, pdfUrl: string): WorkflowJson {
	const ids = idsOf(mode, setting);
	// Where n8n's own Write node finds a binary: a field name, or in a combined workflow a path.
	const field = (name: string) => (filesOf(mode, setting) === '_files' ? `_files.${name}` : name);
	// n8n's own nodes find no file by name in a combined workflow in n8n's in-memory mode (seen: "The
	// path 'pdf' does not resolve to a binary data object"); the run's Base64 is checked there instead.
	const writes = !(mode === 'default' && setting === 'combined');
	const nodes: WorkflowNode[] = [
		{
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 200],
			parameters: {},
		},
		clinicNode('Get Prescription', [220, 0], {
			resource: 'prescription',
			operation: 'get',
			prescriptionId: ids.prescriptionId,
			downloadPdf: true,
			pdfUrl,
			binaryPropertyName: 'pdf',
		}),
		{
			name: 'Read Recordings',
			type: 'n8n-nodes-base.readWriteFile',
			typeVersion: 1.1,
			position: [220, 300],
			parameters: { operation: 'read', fileSelector: join(dir, 'visit-part-*.wav'), options: {} },
		},
		clinicNode('Upload Transaction', [440, 200], uploadParameters('transaction', ids.txnId)),
		// The plain name in every workflow; the path n8n's own nodes take in a combined one too.
		clinicNode(
			'Upload Session',
			[440, 400],
			uploadParameters('session', ids.sessionId, field('data')),
		),
		clinicNode('Get Session Audio', [660, 400], {
			resource: 'transcription',
			operation: 'getSessionAudio',
			sessionId: '={{ $json.session_id }}',
			binaryPropertyName: 'audio',
		}),
	];
	const connections: Record<
		string,
		{ main: Array<Array<{ node: string; type: 'main'; index: 0 }>> }
	> = {};
	const link = (from: string, ...to: string[]) =>
		(connections[from] = {
			main: [to.map((node) => ({ node, type: 'main' as const, index: 0 as const }))],
		});
	link('Start', 'Get Prescription', 'Read Recordings');
	link('Read Recordings', 'Upload Transaction', 'Upload Session');
	link('Upload Session', 'Get Session Audio');
	if (writes) {
		nodes.push(
			writeNode('Write PDF', [440, 0], ids.pdfOut, field('pdf')),
			writeNode('Write Audio', [880, 400], ids.audioOut, field('audio')),
		);
		link('Get Prescription', 'Write PDF');
		link('Get Session Audio', 'Write Audio');
	}
	return {
		name: `e2e: binary modes, n8n ${mode} mode, ${setting} workflow`,
		nodes,
		connections,
		settings: { executionOrder: 'v1', binaryMode: setting },
	};
}

/**
 * Where n8n keeps an item's files: beside the JSON, or under json._files in a combined workflow
 * (not in n8n's in-memory mode, which leaves them beside the JSON).
 */
function filesOf(mode: DataMode, setting: Setting): 'binary' | '_files' {
	return setting === 'combined' && mode !== 'default' ? '_files' : 'binary';
}

function binaryOf(
	item: NodeItem,
	mode: DataMode,
	setting: Setting,
	name: string,
): Record<string, unknown> | undefined {
	const where =
		filesOf(mode, setting) === '_files'
			? (item.json._files as Record<string, unknown> | undefined)
			: item.binary;
	return where?.[name] as Record<string, unknown> | undefined;
}

describe.each(DATA_MODES)("n8n's %s binary data mode", (mode) => {
	let n8n: N8nInstance;
	const runs = {} as Record<Setting, ExecutionResult>;
	const pdfs = {} as Record<Setting, Buffer>;
	let started = 0;

	beforeAll(async () => {
		started = Date.now();
		api.reset();
		transcription.reset();
		sessions.reset();
		n8n = await N8nInstance.create({
			packageTarball: await packedPackageForTests(),
			env: { N8N_DEFAULT_BINARY_DATA_MODE: mode, N8N_RESTRICT_FILE_ACCESS_TO: dir },
		});
		await n8n.importCredentials([
			{ ...CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
		]);
		const workflows = SETTINGS.map((setting) => {
			const ids = idsOf(mode, setting);
			const seeded = fakePrescriptions(api).seed({
				prescription: { prescription_id: ids.prescriptionId },
				pdfText: `Prescription for ${setting}`,
			});
			pdfs[setting] = fakePrescriptions(api).store.pdfs.get(`${ids.prescriptionId}.pdf`) as Buffer;
			return binaryWorkflow(mode, setting, seeded.prescription_url);
		});
		const workflowIds = await n8n.importWorkflows(workflows);
		for (const [index, setting] of SETTINGS.entries())
			runs[setting] = await n8n.execute(workflowIds[index]);
	});

	afterAll(async () => {
		await n8n?.dispose();
		timings[mode] = Math.round((Date.now() - started) / 1000);
	});

	describe.each(SETTINGS)('%s workflow', (setting) => {
		const ids = idsOf(mode, setting);

		test('the run succeeds', () => {
			const failed = Object.entries(runs[setting].runData).flatMap(([node, nodeRuns]) =>
				nodeRuns.filter((r) => r.error).map((r) => `${node}: ${r.error?.message}`),
			);
			expect(failed).toEqual([]);
			expect(runs[setting].status).toBe('success');
		});

		test('the recordings are in the store this mode uses', () => {
			for (const item of nodeOutput(runs[setting], 'Read Recordings')) {
				const binary = binaryOf(item, mode, setting, 'data');
				if (mode === 'default') expect(binary).toMatchObject({ data: expect.any(String) });
				else
					expect(String(binary?.id)).toMatch(mode === 'filesystem' ? /^filesystem/ : /^database:/);
			}
		});

		test('Upload Audio, Transaction: both recordings reach storage byte for byte, and the notes come back', () => {
			const [item] = nodeOutput(runs[setting], 'Upload Transaction');
			expect(item.json).toMatchObject({ session_id: ids.txnId, status: 'completed' });
			expect((item.json.documents as Record<string, unknown>).clinical_notes_template).toEqual(
				CLINICAL_NOTES_DOCUMENT,
			);
			const txn = transcription.transaction(ids.txnId);
			expect(txn?.uploads.map((u) => [u.fileName, u.size, u.sha256]).sort()).toEqual(
				recordings.map((r) => [r.name, r.bytes.length, sha256(r.bytes)]).sort(),
			);
			expect(transcription.rejectedUploads()).toEqual([]);
		});

		test('Upload Audio, Session: both recordings reach the session API byte for byte', () => {
			const [item] = nodeOutput(runs[setting], 'Upload Session');
			expect(item.json).toMatchObject({ session_id: ids.sessionId, status: 'completed' });
			const session = sessions.session(ids.sessionId);
			expect(session?.uploads.map((u) => [u.size, u.sha256]).sort()).toEqual(
				recordings.map((r) => [r.bytes.length, sha256(r.bytes)]).sort(),
			);
		});

		test('Get Session Audio and Prescription → Get put out binaries that hold what the service served', () => {
			const audio = sessionAudioBytes(sessions.session(ids.sessionId)!);
			const [audioItem] = nodeOutput(runs[setting], 'Get Session Audio');
			const [pdfItem] = nodeOutput(runs[setting], 'Get Prescription');
			expect(binaryOf(audioItem, mode, setting, 'audio')).toMatchObject({
				mimeType: 'audio/wav',
				bytes: audio.length,
			});
			expect(binaryOf(pdfItem, mode, setting, 'pdf')).toMatchObject({
				mimeType: 'application/pdf',
				bytes: pdfs[setting].length,
			});
			if (mode === 'default' && setting === 'combined') {
				// n8n's own nodes cannot read these by name here (see the top of this file): the run's Base64.
				expect(
					sha256(Buffer.from(String(binaryOf(audioItem, mode, setting, 'audio')?.data), 'base64')),
				).toBe(sha256(audio));
				expect(
					sha256(Buffer.from(String(binaryOf(pdfItem, mode, setting, 'pdf')?.data), 'base64')),
				).toBe(sha256(pdfs[setting]));
				return;
			}
			// Read back from n8n's binary store by n8n's own Write node.
			expect(existsSync(ids.audioOut) && sha256(readFileSync(ids.audioOut))).toBe(sha256(audio));
			expect(existsSync(ids.pdfOut) && sha256(readFileSync(ids.pdfOut))).toBe(
				sha256(pdfs[setting]),
			);
		});
	});
});
