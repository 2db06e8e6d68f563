/**
 * Template → Delete over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/template.ts).
 */
import { getMany, remove, TEMPLATES, useTemplateCalls } from '../../support/templateCalls';

const t = useTemplateCalls();
const { run, failure } = t;

describe('Template → Delete', () => {
	it('archives the template: no longer listed, and a second delete says it is gone', async () => {
		const output = await run(remove('tpl-soap-note'));
		expect(output).toEqual([
			{
				json: { id: 'tpl-soap-note', deleted: true, message: 'archived successfully' },
				pairedItem: { item: 0 },
			},
		]);
		expect(t.api.requestsTo(`${TEMPLATES}/tpl-soap-note`, 'DELETE')[0].bodyLength).toBe(0);
		expect((await run(getMany())).map((item) => item.json.id)).toEqual([
			'clinical_notes_template',
			'transcript_template',
		]);
		expect((await failure(remove('tpl-soap-note'))).message).toMatch(
			/^The workspace has no template "tpl-soap-note" \(item 0\)/,
		);
	});
});
