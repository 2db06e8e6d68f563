/**
 * The patient directory (Patient → Create, Get, Update, Archive, Search by Mobile, Search, Get
 * Many) and Prescription → Get with its PDF, inside a real n8n 2.41.1: the packed package installed
 * as a community package, a credential pointing at the fake clinic API, workflows run by
 * `n8n execute`. One n8n user folder serves the whole file.
 */
import { fakePatientDirectory } from '../fake-api/routes/patient';
import { fakePrescriptions } from '../fake-api/routes/prescription';
import { startFakeClinicApi, type FakeClinicApi, type RecordedRequest } from '../fake-api/server';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { packedPackageForTests } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { nodeJson, nodeOutput, type ExecutionResult } from '../support/n8n/results';
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	type WorkflowJson,
	type WorkflowNode,
} from '../support/n8n/workflows';

// jest 29 ignores testTimeout inside a project's config; every n8n run takes seconds.
jest.setTimeout(5 * 60_000);

const CREDENTIAL = { id: 'clinicScribeE2E01', name: 'Clinic Scribe (e2e fake API)' };
const DIRECTORY = '/profiles/v1/patient';

let api: FakeClinicApi;
let n8n: N8nInstance;
const ids: Record<string, string> = {};

function clinicNode(
	name: string,
	x: number,
	y: number,
	parameters: Record<string, unknown>,
	extra: Partial<WorkflowNode> = {},
): WorkflowNode {
	return {
		name,
		type: ACTION_NODE_TYPE,
		typeVersion: 1,
		position: [x, y],
		parameters,
		credentials: { [CREDENTIAL_TYPE]: { ...CREDENTIAL } },
		...extra,
	};
}

const START: WorkflowNode = {
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 300],
	parameters: {},
};

function link(...names: string[]): Array<[string, string]> {
	return names.slice(1).map((name, i) => [names[i], name]);
}

function workflow(
	name: string,
	nodes: WorkflowNode[],
	edges: Array<[string, string]>,
): WorkflowJson {
	const connections: Record<
		string,
		{ main: Array<Array<{ node: string; type: string; index: number }>> }
	> = {};
	for (const [from, to] of edges) {
		connections[from] ??= { main: [[]] };
		connections[from].main[0].push({ node: to, type: 'main', index: 0 });
	}
	return { name, nodes: [START, ...nodes], connections, settings: { executionOrder: 'v1' } };
}

const CREATED_OID = '175074536121001';

/** Create → Get → Update → Archive on the new patient; the three reads on the seeded ones. */
const lifecycle = workflow(
	'e2e: patient directory',
	[
		clinicNode('Create Patient', 250, 100, {
			resource: 'patient',
			operation: 'create',
			firstName: 'Meera',
			dateOfBirth: '1992-07-15T00:00:00',
			gender: 'F',
			additionalFields: {
				lastName: 'Nair',
				mobile: '+91 98450 12345',
				bloodGroup: 'A+',
				username: 'UHID-0100',
			},
		}),
		clinicNode('Get Patient', 500, 100, {
			resource: 'patient',
			operation: 'get',
			patientId: '={{ $json.oid }}',
		}),
		clinicNode('Update Patient', 750, 100, {
			resource: 'patient',
			operation: 'update',
			patientId: "={{ $('Create Patient').item.json.oid }}",
			updateFields: { email: 'meera.nair@example.com', dateOfBirth: '1992-07-16' },
		}),
		clinicNode('Archive Patient', 1000, 100, {
			resource: 'patient',
			operation: 'archive',
			patientId: "={{ $('Create Patient').item.json.oid }}",
		}),
		clinicNode('Search by Mobile', 250, 300, {
			resource: 'patient',
			operation: 'findByMobile',
			mobile: '098765 43210',
		}),
		clinicNode('Search', 250, 500, {
			resource: 'patient',
			operation: 'search',
			prefix: 'arj',
			limit: 10,
			options: { select: ['dob'] },
		}),
		clinicNode('Get Many', 250, 700, {
			resource: 'patient',
			operation: 'getAll',
			returnAll: true,
			options: { pageSize: 2, since: '2025-06-20T00:00:00Z' },
		}),
	],
	[
		...link('Start', 'Create Patient', 'Get Patient', 'Update Patient', 'Archive Patient'),
		['Start', 'Search by Mobile'],
		['Start', 'Search'],
		['Start', 'Get Many'],
	],
);

/**
 * Bad input with Continue On Fail, each node's item failing with nothing sent. The missing ID comes
 * from an expression (an input without the field): n8n itself refuses to start a workflow whose
 * required parameter is left empty ("No active execution found" from `n8n execute`).
 */
const BAD_INPUT: Record<
	string,
	{ parameters: Record<string, unknown>; message: string; secret?: string }
> = {
	'Bad Mobile': {
		parameters: { resource: 'patient', operation: 'findByMobile', mobile: '98765-4321' },
		message:
			'The Mobile Number has 9 digits: give the 10-digit mobile number, or the number with its country code (+91 and 10 digits) (item 0)',
		secret: '98765-4321',
	},
	'Bad Since': {
		parameters: {
			resource: 'patient',
			operation: 'getAll',
			returnAll: true,
			options: { since: 'last tuesday' },
		},
		message:
			'The Created Since is not a date and time (for example 2026-01-31T09:00:00+05:30) (item 0)',
	},
	'Missing ID': {
		parameters: { resource: 'patient', operation: 'get', patientId: "={{ $json.oid ?? '' }}" },
		message: 'The Patient ID of item 0 is empty',
	},
};
const badInput = workflow(
	'e2e: patient bad input',
	[
		...Object.entries(BAD_INPUT).map(([name, { parameters }], i) =>
			clinicNode(name, 250 + 250 * i, 300, parameters, { onError: 'continueRegularOutput' }),
		),
	],
	link('Start', ...Object.keys(BAD_INPUT)),
);

function prescriptionWorkflow(pdfUrl: string): WorkflowJson {
	return workflow(
		'e2e: prescription with PDF',
		[
			clinicNode('Get Prescription', 250, 300, {
				resource: 'prescription',
				operation: 'get',
				prescriptionId: 'P-DW-E2E-1',
				downloadPdf: true,
				pdfUrl,
				binaryPropertyName: 'prescription',
			}),
		],
		link('Start', 'Get Prescription'),
	);
}

let pdfBytes: Buffer;

beforeAll(async () => {
	api = await startFakeClinicApi();
	const seeded = fakePrescriptions(api).seed({
		prescription: { prescription_id: 'P-DW-E2E-1' },
		pdfText: 'Amoxicillin 250 mg',
	});
	pdfBytes = fakePrescriptions(api).store.pdfs.get('P-DW-E2E-1.pdf') as Buffer;
	n8n = await N8nInstance.create({ packageTarball: await packedPackageForTests() });
	await n8n.importCredentials([
		{ ...CREDENTIAL, type: CREDENTIAL_TYPE, data: fakeApiCredentialData(api) },
	]);
	const [lifecycleId, rxId, badId] = await n8n.importWorkflows([
		lifecycle,
		prescriptionWorkflow(seeded.prescription_url),
		badInput,
	]);
	Object.assign(ids, { lifecycle: lifecycleId, rx: rxId, bad: badId });
});

afterAll(async () => {
	await n8n?.dispose();
	await api?.close();
});

describe('the patient directory in n8n', () => {
	let result: ExecutionResult;
	let requests: RecordedRequest[];

	beforeAll(async () => {
		api.reset();
		fakePatientDirectory(api).reset();
		result = await n8n.execute(ids.lifecycle);
		requests = [...api.requests];
	});

	it('runs the workflow to success', () => {
		expect(result.error).toBeUndefined();
		expect(result.status).toBe('success');
	});

	it('Create sends the documented body (bg, +91 mobile, the date only) and outputs only the new ID', () => {
		expect(nodeJson(result, 'Create Patient')).toEqual([{ oid: CREATED_OID }]);
		const creates = requests.filter((r) => r.method === 'POST' && r.path === `${DIRECTORY}/`);
		expect(creates.map((r) => r.body)).toEqual([
			{
				fn: 'Meera',
				ln: 'Nair',
				username: 'UHID-0100',
				dob: '1992-07-15',
				gen: 'F',
				mobile: '+919845012345',
				bg: 'A+',
			},
		]);
	});

	it('Get returns the stored profile', () => {
		expect(nodeJson(result, 'Get Patient')).toEqual([
			expect.objectContaining({
				oid: CREATED_OID,
				fln: 'meera nair',
				gen: 'F',
				dob: '1992-07-15',
				mobile: '9845012345',
				ccd: '+91',
				bg: 'A+',
			}),
		]);
	});

	it('Update sends only the changed fields; Archive archives', () => {
		expect(nodeJson(result, 'Update Patient')).toEqual([
			{ oid: CREATED_OID, updated: true, message: 'Profile updated successfully' },
		]);
		expect(requests.filter((r) => r.method === 'PATCH').map((r) => [r.path, r.body])).toEqual([
			[`${DIRECTORY}/${CREATED_OID}`, { email: 'meera.nair@example.com', dob: '1992-07-16' }],
		]);
		expect(nodeJson(result, 'Archive Patient')).toEqual([
			{ oid: CREATED_OID, archived: true, message: 'Profile archived successfully' },
		]);
		expect(fakePatientDirectory(api).profiles.get(CREATED_OID)).toMatchObject({
			arc: true,
			email: 'meera.nair@example.com',
			dob: '1992-07-16',
		});
	});

	it('Search by Mobile sends mob as +91 and the 10 digits, and returns both family profiles', () => {
		const searches = requests.filter((r) => r.path === `${DIRECTORY}/by-mobile/`);
		expect(searches.map((r) => r.query)).toEqual([{ mob: '+919876543210' }]);
		expect(nodeJson(result, 'Search by Mobile').map((p) => p.oid)).toEqual([
			'175074536120088',
			'175074536120089',
		]);
	});

	it('Search sends the prefix, limit and extra fields', () => {
		expect(requests.filter((r) => r.path === `${DIRECTORY}/search`).map((r) => r.query)).toEqual([
			{ prefix: 'arj', limit: '10', select: 'dob' },
		]);
		expect(nodeJson(result, 'Search')).toEqual([
			{
				username: 'RAV-100',
				mobile: '9123456780',
				oid: '175074536120090',
				fln: 'arjun mehta',
				dob: '1979-01-05',
			},
		]);
	});

	it('Get Many follows the pages from 1 with the Created Since filter', () => {
		const pages = requests.filter((r) => r.path === `${DIRECTORY}/minified/`);
		expect(pages.map((r) => r.query)).toEqual([
			{ pageNo: '1', pageSize: '2', from: '1750377600' },
			{ pageNo: '2', pageSize: '2', from: '1750377600' },
		]);
		// The create branch ran first (v1 order, top to bottom): the new patient is archived, so not listed.
		expect(nodeOutput(result, 'Get Many').map((item) => item.json.oid)).toEqual([
			'175074536120088',
			'175074536120089',
			'175074536120090',
		]);
	});

	it('every directory call carried the Bearer token and the client id', () => {
		const calls = requests.filter((r) => r.path.startsWith('/profiles/'));
		expect(calls.length).toBe(8);
		for (const call of calls) {
			expect(call.headers.authorization).toMatch(/^Bearer /);
			expect(call.headers['client-id']).toBe(api.validCredentials.clientId);
		}
	});
});

describe('bad input in n8n', () => {
	let result: ExecutionResult;

	beforeAll(async () => {
		api.reset();
		result = await n8n.execute(ids.bad);
	});

	it('runs on (Continue On Fail) and sends nothing', () => {
		expect(result.status).toBe('success');
		expect(api.requests).toHaveLength(0);
	});

	it.each(Object.keys(BAD_INPUT))(
		'%s: the item fails with a message that names the field, not the value',
		(name) => {
			const items = nodeOutput(result, name);
			expect(items).toHaveLength(1);
			expect(items[0].json.error).toBe(BAD_INPUT[name].message);
			expect(items[0].pairedItem).toEqual({ item: 0 });
			const secret = BAD_INPUT[name].secret;
			if (secret !== undefined) expect(JSON.stringify(items[0].json)).not.toContain(secret);
		},
	);
});

describe('Prescription → Get with the PDF in n8n', () => {
	it('outputs the prescription and the PDF as a binary field, fetched with no credential', async () => {
		api.reset();
		const result = await n8n.execute(ids.rx);
		expect(result.error).toBeUndefined();
		const [item] = nodeOutput(result, 'Get Prescription');
		expect(item.json).toMatchObject({
			prescription_id: 'P-DW-E2E-1',
			doctor_id: 'do1001',
			appointment_id: 'V-DW-1730717340935-171266028552522-8JR9',
		});
		const file = item.binary?.prescription as Record<string, unknown>;
		expect(file).toMatchObject({
			mimeType: 'application/pdf',
			fileName: 'P-DW-E2E-1.pdf',
			fileExtension: 'pdf',
		});
		// n8n keeps the bytes in its binary store and shows their size; the bytes themselves are
		// compared in the integration test.
		expect(file.fileSize).toBe(`${pdfBytes.length} B`);
		const [rx] = api.requestsTo('/dr/v1/prescription/P-DW-E2E-1', 'GET');
		expect(rx.headers.auth).toEqual(expect.any(String));
		const [download] = api.requestsTo('/prescription-store/P-DW-E2E-1.pdf', 'GET');
		expect(download.status).toBe(200);
		expect(download.headers.auth).toBeUndefined();
		expect(download.headers.authorization).toBeUndefined();
		expect(download.headers['client-id']).toBeUndefined();
	});
});
