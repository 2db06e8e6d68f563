/**
 * What Add Codes adds to the path from a finished visit to its FHIR bundle (issue 37, goal 4),
 * inside n8n: Transcription → Get Results with Output "FHIR Transaction Bundle for the EHR", once
 * without and once with FHIR Options → Add Codes, in alternating rounds of the same run, for a visit
 * of 30 terms (36 asks: diagnoses and history go to SNOMED CT and ICD-10-CM), every answer of the
 * fake API 20 ms late (an API 20 ms away). Prints the webhook's answer time of each workflow, the
 * difference, and the calls each run made.
 *
 *   npm run bench:fhir-codes -- [--rounds 15] [--delay-ms 20]
 */
import { startFinishedSession } from '../test/support/fakeTranscriptionSession';
import { ACTION_NODE_TYPE } from '../test/support/n8n/workflows';
import {
	argument,
	BENCH_CREDENTIAL,
	formatSpread,
	requireNode24,
	runBench,
	say,
	spread,
	startBenchFakeApi,
	startBenchN8n,
	webhookNode,
} from './support/inN8n';

const SESSION = 'visit-bench-codes';
const WARM_UP = 2;

const names = (prefix: string, list: string[]) =>
	list.map((name, index) => ({ id: `${prefix}-${index}`, name, properties: {} }));

/** 30 terms: 10 symptoms, 4 examinations, 4 diagnoses, 2 conditions of history, 4 lab tests, 2 lab results, 4 medicines. */
const PRESCRIPTION = {
	symptoms: names('s', [
		'Fever',
		'Dry cough',
		'Headache',
		'Sore throat',
		'Chest pain',
		'Vomiting',
		'Diarrhoea',
		'Abdominal pain',
		'Breathlessness',
		'Back pain',
	]),
	diagnosis: names('d', [
		'Acute upper respiratory tract infection',
		'Viral fever',
		'Hypertension',
		'Type 2 diabetes',
	]),
	medications: names('b', [
		'Paracetamol 650 mg Tablet',
		'Cetirizine 10 mg Tablet',
		'Amoxicillin',
		'Dolo 650',
	]),
	labTests: names('lp', ['Complete blood count (CBC)', 'HbA1c', 'Haemoglobin', 'Serum creatinine']),
	labVitals: [
		{ id: 'lv-1', name: 'Haemoglobin', value: '10.2' },
		{ id: 'lv-2', name: 'HbA1c', value: '7.4' },
	],
	medicalHistory: {
		patientHistory: { patientMedicalConditions: names('h', ['Asthma', 'Hypothyroidism']) },
		examinations: names('e', [
			'Throat examination',
			'Chest examination',
			'Abdominal examination',
			'Ear examination',
		]),
	},
};

function getResultsWorkflow(name: string, addCodes: boolean) {
	return {
		id: addCodes ? 'benchFhirCodesOn01' : 'benchFhirCodesOff1',
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		connections: { Webhook: { main: [[{ node: 'Get Results', type: 'main', index: 0 }]] } },
		nodes: [
			webhookNode(
				name,
				addCodes ? 'b1c0de00-0000-4000-8000-00000000c0d1' : 'b1c0de00-0000-4000-8000-00000000c0d0',
			),
			{
				name: 'Get Results',
				type: ACTION_NODE_TYPE,
				typeVersion: 1,
				position: [250, 0] as [number, number],
				parameters: {
					resource: 'transcription',
					operation: 'getResults',
					sessionId: SESSION,
					resultsOutput: 'fhirBundle',
					fhirPatient: 'identifier',
					fhirPatientIdentifierSystem: 'https://clinic.example/mrn',
					fhirPatientIdentifierValue: 'MRN-BENCH-1',
					fhirDoctor: 'ehrPractitioner',
					fhirPractitionerId: 'dr-bench',
					fhirOptions: addCodes ? { addCodes: true } : {},
				},
				credentials: { clinicScribeApi: BENCH_CREDENTIAL },
			},
		],
	};
}

async function main(): Promise<void> {
	requireNode24();
	const rounds = argument('rounds', 15);
	const delayMs = process.argv.includes('--delay-ms') ? argument('delay-ms', 20) : 20;
	const { api } = await startBenchFakeApi();
	await startFinishedSession(api.url, api.validCredentials, SESSION, [
		{ template_id: 'svc_emr_template', codification_needed: true },
	]);
	const scripted = await fetch(`${api.url}/__admin/transcription/script`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			txn_id: SESSION,
			processingPolls: 0,
			processingMs: 0,
			outcome: 'success',
			emrPrescription: PRESCRIPTION,
		}),
	});
	if (!scripted.ok) throw new Error(`script the visit: HTTP ${scripted.status}`);
	const off = getResultsWorkflow('fhir-uncoded', false);
	const on = getResultsWorkflow('fhir-coded', true);
	say(
		`FHIR codes bench: ${rounds} rounds (after ${WARM_UP} not counted), every answer ${delayMs} ms late, Node ${process.version}, fake API ${api.url}; starting n8n…`,
	);
	const bench = await startBenchN8n({ api, workflows: [off, on] });
	try {
		api.injectFault({ path: /^\//, times: Infinity, fault: { kind: 'delay', ms: delayMs } });
		const ms = { off: [] as number[], on: [] as number[] };
		const calls = { off: 0, on: 0, medLink: 0, batches: 0, asked: 0 };
		for (let round = 0; round < WARM_UP + rounds; round++) {
			for (const [key, workflow] of [
				['off', off],
				['on', on],
			] as const) {
				api.requests.length = 0;
				const answer = await bench.trigger(workflow.name, {});
				if (answer.status !== 200)
					throw new Error(`${workflow.name}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
				const execution = await bench.lastExecution(workflow.name);
				const item = execution.runData['Get Results']?.[0]?.data?.main?.[0]?.[0]?.json as
					| { bundle?: unknown; coding?: { codes_added?: number } }
					| undefined;
				if (execution.status !== 'success' || !item?.bundle)
					throw new Error(`${workflow.name}: ${await bench.lastError(workflow.name)}`);
				if (key === 'on' && !(item.coding?.codes_added && item.coding.codes_added > 0))
					throw new Error('the coded run added no code');
				if (round < WARM_UP) continue;
				ms[key].push(answer.ms);
				calls[key] = api.requests.length;
				if (key === 'on') {
					const medLink = api.requests.filter((r) => r.pathname.startsWith('/med-link/'));
					const batches = medLink.filter((r) => r.pathname === '/med-link/nel/link/batch');
					calls.medLink = medLink.length;
					calls.batches = batches.length;
					calls.asked = batches.reduce(
						(sum, r) => sum + (r.body as { queries: string[] }).queries.length,
						0,
					);
				}
			}
		}
		const added = ms.on.map((value, index) => value - ms.off[index]);
		say();
		say(
			`Get Results → FHIR bundle, a visit of 30 terms, the API ${delayMs} ms away, ms, min / median / max of ${rounds} rounds (inside n8n 2.41.1, Node ${process.version}):`,
		);
		say(`  without Add Codes: ${formatSpread(spread(ms.off), 1)}  (${calls.off} calls a run)`);
		say(
			`  with Add Codes:    ${formatSpread(spread(ms.on), 1)}  (${calls.on} calls a run: ${calls.medLink} to MedLink, the registry and ${calls.batches} batches asking ${calls.asked} terms)`,
		);
		say(`  added per run, round by round: ${formatSpread(spread(added), 1)}`);
	} finally {
		await bench.dispose();
		await api.close();
	}
}

runBench(main);
