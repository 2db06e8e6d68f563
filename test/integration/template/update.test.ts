/**
 * Template → Update over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/template.ts).
 */
import { fakeTemplates } from '../../fake-api/routes/template';
import {
	getOne,
	remove,
	SOAP_NOTE,
	TEMPLATES,
	update,
	useTemplateCalls,
} from '../../support/templateCalls';

const t = useTemplateCalls();
const { run, failure } = t;

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
		const [call] = t.api.requestsTo(`${TEMPLATES}/tpl-soap-note`, 'PATCH');
		expect(call.body).toEqual({ title: 'SOAP Note v2', section_ids: ['sec_examination'] });
		expect((await run(getOne('tpl-soap-note')))[0].json).toEqual({
			...SOAP_NOTE,
			title: 'SOAP Note v2',
			sections: ['sec_examination'],
		});
	});

	it('puts the id in the path as one encoded segment', async () => {
		await failure(update('a/../b', { title: 'x' }));
		expect(t.api.requestsTo(/template/).map((call) => call.path)).toEqual([
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
		expect(t.api.requests).toHaveLength(0);
	});

	it('refuses an update with no fields, or an empty title, before sending anything', async () => {
		expect((await failure(update('tpl-soap-note', {}))).message).toBe(
			'Nothing to update for template "tpl-soap-note" (item 0)',
		);
		expect((await failure(update('tpl-soap-note', { title: '' }))).message).toBe(
			'The Title of item 0 is empty',
		);
		expect(t.api.requests).toHaveLength(0);
	});

	it('says clearly that an unknown id is not in the workspace (backend 400 and docs 404 alike)', async () => {
		const backend = await failure(update('tpl_missing', { title: 'x' }));
		expect(backend.message).toBe(
			'The workspace has no template "tpl_missing" (item 0): it does not exist or was deleted (HTTP 400 BAD_REQUEST: Template not found or already archived)',
		);
		expect(backend.description).toContain('Template → Get Many');
		fakeTemplates(t.api).errorStyle = 'docs';
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
