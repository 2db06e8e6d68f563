/**
 * Template → Create over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/template.ts); without Continue On Fail
 * the run stops at the failing item.
 */
import { fakeTemplates } from '../../fake-api/routes/template';
import { create, getOne, TEMPLATES, useTemplateCalls } from '../../support/templateCalls';

const t = useTemplateCalls();
const { run, failure } = t;

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
		const [call] = t.api.requestsTo(TEMPLATES, 'POST');
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
		expect(t.api.requestsTo(TEMPLATES, 'POST')[0].body).toEqual({
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
		expect(t.api.requests).toHaveLength(0);
	});

	it("turns the service's 400 into what went wrong and what to do", async () => {
		const { message, description } = await failure(create({ sectionIds: 'sec_unknown' }));
		expect(message).toBe(
			'The clinic API refused the new template (item 0): a field is missing or not valid (HTTP 400 BAD_REQUEST: unknown section id(s): sec_unknown)',
		);
		expect(description).toContain(
			'Check Title (required, not empty), Instructions and Section IDs',
		);
		expect(t.api.requestsTo(TEMPLATES, 'POST')).toHaveLength(1);
	});

	it('reads the docs-style 422 the same way', async () => {
		fakeTemplates(t.api).errorStyle = 'docs';
		const { message } = await failure(create({ sectionIds: 'sec_unknown' }));
		expect(message).toBe(
			'The clinic API refused the new template (item 0): a field is missing or not valid (HTTP 422 VALIDATION_ERROR: unknown section id(s): sec_unknown)',
		);
	});

	it('does not send a create again after a dropped connection (it could create the template twice)', async () => {
		t.api.injectFault({ method: 'POST', path: TEMPLATES, fault: { kind: 'drop' } });
		const { message } = await failure(create());
		expect(message).toMatch(/^Could not reach the clinic API for the new template/);
		expect(t.api.requestsTo(TEMPLATES, 'POST')).toHaveLength(1);
	});
});

describe('Template: items, Continue On Fail', () => {
	it('without Continue On Fail, stops at the failing item and names it', async () => {
		const titles = ['First', ''];
		const { message } = await failure(
			{ ...create(), title: (index: number) => titles[index] },
			{ items: [{ json: {} }, { json: {} }] },
		);
		expect(message).toBe('The Title of item 1 is empty');
		expect(t.api.requestsTo(TEMPLATES, 'POST')).toHaveLength(1);
	});
});
