/**
 * Template → Get Many, Get, Create, Update, Delete and the Template picker, over real HTTP against
 * the project's fake clinic API (test/fake-api/routes/templates.ts).
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { fakeTemplates, resetTemplateStore } from '../../fake-api/routes/templates';
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import {
	createExecuteContext,
	fakeApiCredentials,
	type CredentialStore,
} from '../../support/nodeContext';
import { useTestTransportPolicy } from '../../support/transportPolicy';

let api: FakeClinicApi;
const node = new ClinicScribe();
const TEMPLATES = '/voice/api/v1/template';

beforeAll(async () => {
	api = await startFakeClinicApi();
	useTestTransportPolicy({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
});
afterAll(async () => await api.close());
beforeEach(() => {
	api.reset();
	resetTemplateStore(fakeTemplates(api));
});

function credentials(extra = {}): CredentialStore {
	return fakeApiCredentials(api.url, api.validCredentials, extra);
}

type Parameters = Record<string, unknown | ((itemIndex: number) => unknown)>;

async function run(
	parameters: Parameters,
	options: { store?: CredentialStore; items?: INodeExecutionData[]; continueOnFail?: boolean } = {},
): Promise<INodeExecutionData[]> {
	const { context } = createExecuteContext({
		credentials: options.store ?? credentials(),
		parameters,
		items: options.items,
		continueOnFail: options.continueOnFail,
	});
	const [output] = await node.execute.call(context);
	return output;
}

async function failure(
	parameters: Parameters,
	options: { items?: INodeExecutionData[] } = {},
): Promise<{ message: string; description: string }> {
	try {
		await run(parameters, options);
	} catch (error) {
		const { message, description } = error as { message: string; description?: string };
		return { message, description: description ?? '' };
	}
	throw new Error('expected the node to fail');
}

const byId = (value: unknown) => ({ __rl: true, mode: 'id', value });
const getMany = (extra: Record<string, unknown> = {}) => ({
	resource: 'template',
	operation: 'getAll',
	returnAll: true,
	...extra,
});
const getOne = (id: unknown) => ({ resource: 'template', operation: 'get', templateId: byId(id) });
const create = (extra: Record<string, unknown> = {}) => ({
	resource: 'template',
	operation: 'create',
	title: 'Cardiology OPD Note',
	instructions: '## Complaints\n## Findings\n## Plan',
	sectionIds: '',
	...extra,
});
const update = (id: unknown, updateFields: Record<string, unknown>) => ({
	resource: 'template',
	operation: 'update',
	templateId: byId(id),
	updateFields,
});
const remove = (id: unknown) => ({
	resource: 'template',
	operation: 'delete',
	templateId: byId(id),
});

const SOAP_NOTE = {
	id: 'tpl-soap-note',
	title: 'SOAP Note',
	description: 'Write a SOAP note: ## Subjective, ## Objective, ## Assessment, ## Plan',
	sections: ['sec_history', 'sec_plan'],
	default: false,
	is_favorite: true,
};

describe('Template → Get Many', () => {
	it("returns the workspace's templates, one item each, with the Bearer token", async () => {
		const output = await run(getMany());
		expect(output.map((item) => item.json)).toEqual([
			{
				id: 'clinical_notes_template',
				title: 'Clinical Notes',
				description: 'Standard clinical note',
				sections: [],
				default: true,
				is_favorite: false,
			},
			{
				id: 'transcript_template',
				title: 'Transcript',
				description: 'The conversation as text',
				sections: [],
				default: true,
				is_favorite: false,
			},
			SOAP_NOTE,
		]);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 0 }]);
		const [call] = api.requestsTo(TEMPLATES, 'GET');
		expect(call.headers.authorization).toMatch(/^Bearer eyJ/);
		expect(call.headers.auth).toBeUndefined();
		expect(call.url).toBe(TEMPLATES);
	});

	it('honours the limit', async () => {
		const output = await run(getMany({ returnAll: false, limit: 2 }));
		expect(output.map((item) => item.json.id)).toEqual([
			'clinical_notes_template',
			'transcript_template',
		]);
	});

	it('sends the client id with the public API variant (the fake refuses a token without it)', async () => {
		api.setOptions({ variant: 'public' });
		const output = await run(getMany(), { store: credentials({ apiVariant: 'public' }) });
		expect(output).toHaveLength(3);
		expect(api.requestsTo(TEMPLATES, 'GET')[0].headers['client-id']).toBe(
			api.validCredentials.clientId,
		);
	});

	it('retries a 503 and then answers', async () => {
		api.injectFault({ method: 'GET', path: TEMPLATES, fault: { kind: 'status', status: 503 } });
		const output = await run(getMany());
		expect(output).toHaveLength(3);
		expect(api.requestsTo(TEMPLATES, 'GET').map((call) => call.status)).toEqual([503, 200]);
	});
});

describe('Template → Get', () => {
	it('returns the template with that id', async () => {
		const output = await run(getOne('tpl-soap-note'));
		expect(output).toEqual([{ json: SOAP_NOTE, pairedItem: { item: 0 } }]);
	});

	it('says clearly when the workspace has no template with that id', async () => {
		const { message, description } = await failure(getOne('tpl_missing'));
		expect(message).toBe('The workspace has no template "tpl_missing" (item 0)');
		expect(description).toContain('The workspace has 3 template(s)');
	});

	it('refuses an empty or dot-only id before sending anything', async () => {
		expect((await failure(getOne('  '))).message).toBe('The Template field of item 0 is empty');
		expect(api.requests).toHaveLength(0);
		// Get reads the list, but refuses the ids Update and Delete refuse, before any request.
		expect((await failure(getOne('..'))).message).toBe(
			'The Template ID of item 0 is "..": an ID made only of dots would address another path of the API',
		);
		expect((await failure(getOne(' . '))).message).toMatch(/^The Template ID of item 0 is "\."/);
		expect(api.requests).toHaveLength(0);
	});
});

describe('Template → Create', () => {
	it('sends title, instructions as desc and section_ids, and outputs the new template', async () => {
		const output = await run(create({ sectionIds: 'sec_history, sec_plan' }));
		expect(output).toEqual([
			{
				json: {
					id: 'tpl_fake0001',
					title: 'Cardiology OPD Note',
					description: '## Complaints\n## Findings\n## Plan',
					sections: ['sec_history', 'sec_plan'],
					default: false,
					message: 'created successfully',
				},
				pairedItem: { item: 0 },
			},
		]);
		const [call] = api.requestsTo(TEMPLATES, 'POST');
		expect(call.body).toEqual({
			title: 'Cardiology OPD Note',
			desc: '## Complaints\n## Findings\n## Plan',
			section_ids: ['sec_history', 'sec_plan'],
		});
		expect(call.headers['content-type']).toMatch(/^application\/json/);
		expect(call.status).toBe(201);
		expect((await run(getOne('tpl_fake0001')))[0].json.title).toBe('Cardiology OPD Note');
	});

	it('sends section_ids: [] when no sections are given', async () => {
		await run(create());
		expect(api.requestsTo(TEMPLATES, 'POST')[0].body).toEqual({
			title: 'Cardiology OPD Note',
			desc: '## Complaints\n## Findings\n## Plan',
			section_ids: [],
		});
	});

	it('refuses an empty title or a bad section list before sending anything', async () => {
		expect(await failure(create({ title: '   ' }))).toEqual({
			message: 'The Title of item 0 is empty',
			description:
				'Give the template a title (for example "Cardiology OPD Note"). Nothing was sent.',
		});
		expect((await failure(create({ sectionIds: ['sec_plan', ''] }))).message).toBe(
			'Section IDs of item 0: entry 2 is empty, not a section ID',
		);
		expect(api.requests).toHaveLength(0);
	});

	it("turns the service's 400 into what went wrong and what to do", async () => {
		const { message, description } = await failure(create({ sectionIds: 'sec_unknown' }));
		expect(message).toBe(
			'The clinic API refused the new template (item 0): a field is missing or not valid (HTTP 400 BAD_REQUEST: unknown section id(s): sec_unknown)',
		);
		expect(description).toContain(
			'Check Title (required, not empty), Instructions and Section IDs',
		);
		expect(api.requestsTo(TEMPLATES, 'POST')).toHaveLength(1);
	});

	it('reads the docs-style 422 the same way', async () => {
		fakeTemplates(api).errorStyle = 'docs';
		const { message } = await failure(create({ sectionIds: 'sec_unknown' }));
		expect(message).toBe(
			'The clinic API refused the new template (item 0): a field is missing or not valid (HTTP 422 VALIDATION_ERROR: unknown section id(s): sec_unknown)',
		);
	});

	it('does not send a create again after a dropped connection (it could create the template twice)', async () => {
		api.injectFault({ method: 'POST', path: TEMPLATES, fault: { kind: 'drop' } });
		const { message } = await failure(create());
		expect(message).toMatch(/^Could not reach the clinic API for the new template/);
		expect(api.requestsTo(TEMPLATES, 'POST')).toHaveLength(1);
	});
});

describe('Template → Update', () => {
	it('sends only the fields given, and the template changes', async () => {
		const output = await run(
			update('tpl-soap-note', { title: 'SOAP Note v2', sectionIds: 'sec_examination' }),
		);
		expect(output[0].json).toEqual({
			id: 'tpl-soap-note',
			updated: true,
			title: 'SOAP Note v2',
			sections: ['sec_examination'],
			message: 'updated successfully',
		});
		const [call] = api.requestsTo(`${TEMPLATES}/tpl-soap-note`, 'PATCH');
		expect(call.body).toEqual({ title: 'SOAP Note v2', section_ids: ['sec_examination'] });
		expect((await run(getOne('tpl-soap-note')))[0].json).toEqual({
			...SOAP_NOTE,
			title: 'SOAP Note v2',
			sections: ['sec_examination'],
		});
	});

	it('puts the id in the path as one encoded segment', async () => {
		await failure(update('a/../b', { title: 'x' }));
		expect(api.requestsTo(/template/).map((call) => call.path)).toEqual([
			`${TEMPLATES}/a%2F..%2Fb`,
		]);
	});

	it('refuses a dot-only id before sending anything (it would address another path)', async () => {
		expect((await failure(remove('..'))).message).toBe(
			'The Template ID of item 0 is "..": an ID made only of dots would address another path of the API',
		);
		expect((await failure(update('.', { title: 'x' }))).message).toMatch(
			/^The Template ID of item 0 is "\."/,
		);
		expect(api.requests).toHaveLength(0);
	});

	it('refuses an update with no fields, or an empty title, before sending anything', async () => {
		expect((await failure(update('tpl-soap-note', {}))).message).toBe(
			'Nothing to update for template "tpl-soap-note" (item 0)',
		);
		expect((await failure(update('tpl-soap-note', { title: '' }))).message).toBe(
			'The Title of item 0 is empty',
		);
		expect(api.requests).toHaveLength(0);
	});

	it('says clearly that an unknown id is not in the workspace (backend 400 and docs 404 alike)', async () => {
		const backend = await failure(update('tpl_missing', { title: 'x' }));
		expect(backend.message).toBe(
			'The workspace has no template "tpl_missing" (item 0): it does not exist or was deleted (HTTP 400 BAD_REQUEST: Template not found or already archived)',
		);
		expect(backend.description).toContain('Template → Get Many');
		fakeTemplates(api).errorStyle = 'docs';
		const docs = await failure(update('tpl_missing', { title: 'x' }));
		expect(docs.message).toBe(
			'The workspace has no template "tpl_missing" (item 0): it does not exist or was deleted (HTTP 404 NOT_FOUND: Template not found or already archived)',
		);
	});

	it("says that the service's own templates cannot be changed", async () => {
		const { message, description } = await failure(
			update('clinical_notes_template', { title: 'Mine' }),
		);
		expect(message).toBe(
			`Template "clinical_notes_template" (item 0) is one of the service's own templates, which cannot be changed or deleted (HTTP 400 BAD_REQUEST: Template not editable)`,
		);
		expect(description).toContain('Create a template of your own');
	});
});

describe('Template → Delete', () => {
	it('archives the template: no longer listed, and a second delete says it is gone', async () => {
		const output = await run(remove('tpl-soap-note'));
		expect(output).toEqual([
			{
				json: { id: 'tpl-soap-note', deleted: true, message: 'archived successfully' },
				pairedItem: { item: 0 },
			},
		]);
		expect(api.requestsTo(`${TEMPLATES}/tpl-soap-note`, 'DELETE')[0].bodyLength).toBe(0);
		expect((await run(getMany())).map((item) => item.json.id)).toEqual([
			'clinical_notes_template',
			'transcript_template',
		]);
		expect((await failure(remove('tpl-soap-note'))).message).toMatch(
			/^The workspace has no template "tpl-soap-note" \(item 0\)/,
		);
	});
});

describe('Template: items, Continue On Fail', () => {
	it('keeps each item to its own result: a bad item becomes an error item, the others go through', async () => {
		const ids = ['tpl-soap-note', 'tpl_missing', '', 'transcript_template'];
		const output = await run(
			{ resource: 'template', operation: 'get', templateId: (index: number) => byId(ids[index]) },
			{ items: ids.map(() => ({ json: {} })), continueOnFail: true },
		);
		expect(output.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
		expect(output[0].json.id).toBe('tpl-soap-note');
		expect(output[1].json.error).toBe('The workspace has no template "tpl_missing" (item 1)');
		expect(output[2].json.error).toBe('The Template field of item 2 is empty');
		expect(output[3].json.id).toBe('transcript_template');
		// The empty id sent nothing: three lists, one per other item.
		expect(api.requestsTo(TEMPLATES, 'GET')).toHaveLength(3);
	});

	it('without Continue On Fail, stops at the failing item and names it', async () => {
		const titles = ['First', ''];
		const { message } = await failure(
			{ ...create(), title: (index: number) => titles[index] },
			{ items: [{ json: {} }, { json: {} }] },
		);
		expect(message).toBe('The Title of item 1 is empty');
		expect(api.requestsTo(TEMPLATES, 'POST')).toHaveLength(1);
	});
});

describe('Template picker', () => {
	it("lists the workspace's templates by title, filtered by the search text", async () => {
		const { context } = createExecuteContext({ credentials: credentials(), parameters: {} });
		const all = await node.methods.listSearch.searchTemplates.call(context as never);
		expect(all.results).toEqual([
			{ name: 'Clinical Notes (default)', value: 'clinical_notes_template' },
			{ name: 'SOAP Note', value: 'tpl-soap-note' },
			{ name: 'Transcript (default)', value: 'transcript_template' },
		]);
		const filtered = await node.methods.listSearch.searchTemplates.call(context as never, 'soap');
		expect(filtered.results).toEqual([{ name: 'SOAP Note', value: 'tpl-soap-note' }]);
	});
});
