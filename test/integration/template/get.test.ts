/**
 * Template → Get over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/template.ts), each item to its own result. The Template picker:
 * test/integration/methods/.
 */
import { byId, getOne, SOAP_NOTE, TEMPLATES, useTemplateCalls } from '../../support/templateCalls';

const t = useTemplateCalls();
const { run, failure } = t;

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
		expect(t.api.requests).toHaveLength(0);
		// Get reads the list, but refuses the ids Update and Delete refuse, before any request.
		expect((await failure(getOne('..'))).message).toBe(
			'The Template ID of item 0 is "..": an ID made only of dots would address another path of the API',
		);
		expect((await failure(getOne(' . '))).message).toMatch(/^The Template ID of item 0 is "\."/);
		expect(t.api.requests).toHaveLength(0);
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
		expect(t.api.requestsTo(TEMPLATES, 'GET')).toHaveLength(3);
	});
});
