/**
 * Template → Create, Get Many, Get, Update, Delete inside a real n8n 2.41.1: the packed package
 * installed as a community package, a credential pointing at the fake clinic API, one workflow run
 * by `n8n execute` (test/e2e/workflows/template-lifecycle.json). Then the same n8n started, and the
 * template pickers asked for their list as the editor asks (POST /rest/dynamic-node-parameters/
 * resource-locator-results), Upload Audio's picker inside its Output Templates rows included.
 */
import { fakeTemplates, SEEDED_TEMPLATES } from '../fake-api/routes/template';
import { fakeApiCredentialData } from '../support/fakeApiCredential';
import { nodeJson, nodeOutput } from '../support/n8n/results';
import { CREDENTIAL_TYPE } from '../support/n8n/workflows';
import { useWorkflowRun } from '../support/n8n/workflowRun';

// jest 29 ignores testTimeout inside a project's config; every n8n run takes seconds.
jest.setTimeout(5 * 60_000);

const TEMPLATES = '/voice/api/v1/template';

const run = useWorkflowRun('template-lifecycle');

describe('a template from create to delete, in n8n', () => {
	const created = {
		id: 'tpl_fake0001',
		title: 'Cardiology OPD Note',
		description: '## Complaints\n## Findings\n## Plan',
		sections: ['sec_history', 'sec_plan'],
		default: false,
	};

	it('runs the workflow to success', () => {
		expect(run.result.error).toBeUndefined();
		expect(run.result.status).toBe('success');
	});

	it('Create outputs the new template, and sent title, desc and section_ids', () => {
		expect(nodeJson(run.result, 'Create Template')).toEqual([
			{ ...created, message: 'created successfully' },
		]);
		expect(run.api.requestsTo(TEMPLATES, 'POST').map((call) => call.body)).toEqual([
			{
				title: 'Cardiology OPD Note',
				desc: '## Complaints\n## Findings\n## Plan',
				section_ids: ['sec_history', 'sec_plan'],
			},
		]);
	});

	it('Get Many lists the seeded templates and the new one, paired to the create', () => {
		const items = nodeOutput(run.result, 'Get Many Templates');
		expect(items.map((item) => item.json.id)).toEqual([
			...SEEDED_TEMPLATES.map((template) => template.id),
			'tpl_fake0001',
		]);
		expect(items[3].json).toEqual({ ...created, is_favorite: false });
		expect(items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
	});

	it('Get returns the created template once', () => {
		expect(nodeJson(run.result, 'Get Template')).toEqual([{ ...created, is_favorite: false }]);
	});

	it('Update sends only the changed fields and outputs them', () => {
		expect(nodeJson(run.result, 'Update Template')).toEqual([
			{
				id: 'tpl_fake0001',
				updated: true,
				title: 'Cardiology OPD Note v2',
				description: '## Plan only',
				message: 'updated successfully',
			},
		]);
		expect(
			run.api.requestsTo(`${TEMPLATES}/tpl_fake0001`, 'PATCH').map((call) => call.body),
		).toEqual([{ title: 'Cardiology OPD Note v2', desc: '## Plan only' }]);
	});

	it('Delete archives it: the fake no longer lists it', () => {
		expect(nodeJson(run.result, 'Delete Template')).toEqual([
			{ id: 'tpl_fake0001', deleted: true, message: 'archived successfully' },
		]);
		const stored = fakeTemplates(run.api).templates.get('tpl_fake0001');
		expect(stored).toMatchObject({
			title: 'Cardiology OPD Note v2',
			desc: '## Plan only',
			archived: true,
		});
		expect(
			run.api
				.requestsTo(TEMPLATES)
				.every((call) => /^Bearer /.test(String(call.headers.authorization))),
		).toBe(true);
	});
});

describe('the template pickers, as the editor loads them', () => {
	let credentials: Record<string, { id: string; name: string }>;

	beforeAll(async () => {
		await run.n8n.start();
		await run.n8n.setupOwner({
			email: 'owner@clinic-scribe.test',
			password: 'Template-Picker-1',
			firstName: 'Tem',
			lastName: 'Plate',
		});
		const credential = {
			name: 'Clinic Scribe (picker)',
			type: CREDENTIAL_TYPE,
			data: fakeApiCredentialData(run.api),
		};
		const saved = await run.n8n.rest<{ id: string }>('POST', '/credentials', credential);
		credentials = { [CREDENTIAL_TYPE]: { id: saved.id, name: credential.name } };
	});

	async function listFor(
		path: string,
		currentNodeParameters: Record<string, unknown>,
		filter?: string,
	) {
		return await run.n8n.rest<{ results: Array<{ name: string; value: string }> }>(
			'POST',
			'/dynamic-node-parameters/resource-locator-results',
			{
				nodeTypeAndVersion: { name: 'n8n-nodes-clinic-scribe.clinicScribe', version: 1 },
				path,
				methodName: 'searchTemplates',
				// The editor sends every parameter with its default filled in; n8n checks the credential's
				// display options (Authentication) against what it is sent.
				currentNodeParameters: { authentication: CREDENTIAL_TYPE, ...currentNodeParameters },
				credentials,
				...(filter === undefined ? {} : { filter }),
			},
		);
	}

	it("Template → Get: the workspace's templates, by title, filtered by the search text", async () => {
		run.api.reset();
		const parameters = {
			resource: 'template',
			operation: 'get',
			templateId: { __rl: true, mode: 'list', value: '' },
		};
		expect((await listFor('parameters.templateId', parameters)).results).toEqual([
			{ name: 'Clinical Notes (default)', value: 'clinical_notes_template' },
			{ name: 'SOAP Note', value: 'tpl-soap-note' },
			{ name: 'Transcript (default)', value: 'transcript_template' },
		]);
		expect((await listFor('parameters.templateId', parameters, 'soap')).results).toEqual([
			{ name: 'SOAP Note', value: 'tpl-soap-note' },
		]);
		expect(run.api.requestsTo(TEMPLATES, 'GET').map((call) => call.status)).toEqual([200, 200]);
	});

	it('Upload Audio: Custom Template ID inside an Output Templates row lists them too', async () => {
		const parameters = {
			resource: 'transcription',
			operation: 'uploadAudio',
			outputTemplates: {
				templates: [
					{
						template: 'custom',
						customTemplateId: { __rl: true, mode: 'list', value: '' },
						codificationNeeded: false,
					},
				],
			},
		};
		const { results } = await listFor(
			'parameters.outputTemplates.templates[0].customTemplateId',
			parameters,
			'note',
		);
		expect(results).toEqual([
			{ name: 'Clinical Notes (default)', value: 'clinical_notes_template' },
			{ name: 'SOAP Note', value: 'tpl-soap-note' },
		]);
	});
});
