/**
 * The EHR examples as shipped and as npm start imports them: the visit goes to the EHR as one FHIR
 * transaction through n8n's HTTP Request node (the bundle as FHIR JSON, the answer kept whole and
 * never thrown away as a bare status, retried when the EHR cannot be reached), a refusal ends in
 * the EHR's reasons and a failed run, the doctor gets HTML and text; the local copies post to the
 * local EHR without a credential and send e-mail through the local inbox, nothing disabled. The runs
 * themselves: test/e2e/clinic.e2e.test.ts.
 */
import { join } from 'node:path';

import {
	EXAMPLE_FHIR_BASE_URL,
	LOCAL_SMTP_CREDENTIAL,
	localCopy,
} from '../../../scripts/localExamples';
import { VISIT_ADDITIONAL_DATA } from '../../support/clinicVisit';
import { REPO_ROOT } from '../../support/n8n/install';
import {
	readWorkflowFile,
	type WorkflowJson,
	type WorkflowNode,
} from '../../support/n8n/workflows';

const EHR_EXAMPLES = {
	'transcribe-and-email.json': 'Transcribe and Wait',
	'completed-transcription-to-ehr.json': 'Transcription Completed',
};
const LOCAL_SETUP = {
	fakeApiUrl: 'http://127.0.0.1:5690',
	fhirBaseUrl: 'http://127.0.0.1:5691/fhir',
	inboxUrl: 'http://127.0.0.1:5692',
	recordingPath: '/tmp/consultation.wav',
};

const node = (workflow: WorkflowJson, name: string): WorkflowNode => {
	const found = workflow.nodes.find((n) => n.name === name);
	if (!found) throw new Error(`${workflow.name} has no node "${name}"`);
	return found;
};
/** The names of the nodes a node's output `index` leads to. */
const next = (workflow: WorkflowJson, name: string, index = 0): string[] =>
	(
		(workflow.connections[name] as { main: Array<Array<{ node: string }>> } | undefined)?.main[
			index
		] ?? []
	).map((c) => c.node);

describe.each(Object.entries(EHR_EXAMPLES))('%s', (file, source) => {
	const example = readWorkflowFile(join(REPO_ROOT, 'examples', file));

	test('the visit comes out as the FHIR transaction bundle, then goes to the EHR and to the e-mail', () => {
		expect(node(example, source).parameters.resultsOutput).toBe('fhirBundle');
		const after =
			source === 'Transcription Completed' ? next(example, 'Bundle Made?') : next(example, source);
		// The e-mail first: the doctor gets the notes even when the EHR refuses them.
		expect(after).toEqual(['E-mail Notes to Doctor', 'Post Bundle to EHR']);
		expect(node(example, 'E-mail Notes to Doctor').position[1]).toBeLessThan(
			node(example, 'Post Bundle to EHR').position[1],
		);
	});

	test('the doctor reads the very bundle the EHR gets: the e-mail is its review, not another template', () => {
		const email = node(example, 'E-mail Notes to Doctor').parameters;
		expect(email.subject).toBe('={{ $json.review.subject }}');
		expect(email.text).toContain('{{ $json.review.text }}');
		expect(email.html).toContain('{{ $json.review.html }}');
		expect(JSON.stringify(example)).not.toMatch(/\$json\.clinical_notes|"resultsOutput":"simple"/);
	});

	test('Post Bundle to EHR: the bundle as FHIR JSON to the FHIR base URL, with its credential, the whole answer kept, retried when unreachable', () => {
		const post = node(example, 'Post Bundle to EHR');
		expect(post.parameters).toMatchObject({
			method: 'POST',
			url: EXAMPLE_FHIR_BASE_URL,
			authentication: 'genericCredentialType',
			genericAuthType: 'httpBearerAuth',
			sendBody: true,
			specifyBody: 'json',
			jsonBody: '={{ $json.bundle }}',
			options: {
				response: { response: { fullResponse: true, neverError: true, responseFormat: 'json' } },
			},
		});
		expect((post.parameters.headerParameters as { parameters: unknown[] }).parameters).toEqual([
			{ name: 'Content-Type', value: 'application/fhir+json' },
			{ name: 'Accept', value: 'application/fhir+json' },
		]);
		expect(post.credentials).toEqual({
			httpBearerAuth: expect.objectContaining({ name: 'EHR (FHIR API)' }),
		});
		expect(post).toMatchObject({ retryOnFail: true, maxTries: 3, waitBetweenTries: 5000 });
		// Unreachable after the tries: the run fails at this node, so n8n keeps the bundle for a retry.
		expect(post.onError).toBeUndefined();
	});

	test("an answer other than 2xx goes to the EHR's reasons and fails the run with them", () => {
		expect(next(example, 'Post Bundle to EHR')).toEqual(['Stored in the EHR?']);
		expect(next(example, 'Stored in the EHR?', 0)).toEqual(['Stored']);
		expect(next(example, 'Stored in the EHR?', 1)).toEqual(["EHR's Reasons"]);
		expect(next(example, "EHR's Reasons")).toEqual(['Stop: EHR Refused']);
		expect(node(example, 'Stop: EHR Refused').parameters.errorMessage).toBe('={{ $json.error }}');
	});

	test('the e-mail: HTML with a text part, the notes as formatted text, no JSON of them', () => {
		const email = node(example, 'E-mail Notes to Doctor');
		expect(email.parameters).toMatchObject({
			emailFormat: 'both',
			options: { appendAttribution: false },
		});
		expect(email.parameters.html).toContain('$json.review.html');
		expect(email.parameters.text).toContain('$json.review.text');
		expect(JSON.stringify(email.parameters)).not.toContain('JSON.stringify');
	});

	test('as npm start imports it: posts to the local EHR with no credential, e-mails through the local inbox, nothing disabled', () => {
		const copy = localCopy(example, LOCAL_SETUP);
		const post = node(copy, 'Post Bundle to EHR');
		expect(post.parameters).toMatchObject({ url: LOCAL_SETUP.fhirBaseUrl, authentication: 'none' });
		expect(post.parameters.genericAuthType).toBeUndefined();
		expect(post.credentials).toBeUndefined();
		expect(node(copy, 'E-mail Notes to Doctor').credentials).toEqual({
			smtp: LOCAL_SMTP_CREDENTIAL,
		});
		expect(copy.nodes.filter((n) => n.disabled)).toEqual([]);
		expect(
			copy.nodes.find((n) => n.type === 'n8n-nodes-base.stickyNote')?.parameters.content,
		).toContain(`posts to the local EHR, ${LOCAL_SETUP.fhirBaseUrl}`);
	});
});

test('the upload names the patient and the doctor the fake clinic API knows, so npm start runs it as shipped', () => {
	const transcribe = node(
		readWorkflowFile(join(REPO_ROOT, 'examples', 'transcribe-and-email.json')),
		'Transcribe and Wait',
	);
	expect(
		JSON.parse(
			String((transcribe.parameters.options as { additionalData: string }).additionalData),
		),
	).toEqual(VISIT_ADDITIONAL_DATA);
	expect(transcribe.parameters).toMatchObject({
		waitForCompletion: true,
		fhirPatient: 'directory',
		fhirDoctor: 'sessionDoctor',
	});
	expect(
		(
			transcribe.parameters.outputTemplates as { templates: Array<{ template: string }> }
		).templates.map((t) => t.template),
	).toContain('emr');
});

test('the trigger example sends nothing for a visit without a bundle: it goes to "Not Ready: Nothing Sent"', () => {
	const example = readWorkflowFile(
		join(REPO_ROOT, 'examples', 'completed-transcription-to-ehr.json'),
	);
	expect(next(example, 'Transcription Completed')).toEqual(['Bundle Made?']);
	expect(next(example, 'Bundle Made?', 1)).toEqual(['Not Ready: Nothing Sent']);
	expect(JSON.stringify(node(example, 'Bundle Made?').parameters)).toContain('$json.bundle');
});

test('every example is imported with every node enabled, and every e-mail through the local inbox', () => {
	for (const file of [
		'appointment-booked-reminder.json',
		'appointment-completed-prescription-email.json',
		'session-transcribe-and-email.json',
		...Object.keys(EHR_EXAMPLES),
	]) {
		const copy = localCopy(readWorkflowFile(join(REPO_ROOT, 'examples', file)), LOCAL_SETUP);
		expect([file, copy.nodes.filter((n) => n.disabled).map((n) => n.name)]).toEqual([file, []]);
		for (const email of copy.nodes.filter((n) => n.type === 'n8n-nodes-base.emailSend'))
			expect([file, email.credentials]).toEqual([file, { smtp: LOCAL_SMTP_CREDENTIAL }]);
	}
});
