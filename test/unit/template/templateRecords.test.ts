import {
	classifyTemplateRefusal,
	parseSectionIds,
	readCreatedTemplateId,
	readTemplateList,
	readTemplateMessage,
	templateIdOf,
} from '../../../nodes/ClinicScribe/shared/answers/templateRecords';

describe('readTemplateList', () => {
	it('reads the documented list ({items:[{id, title, desc, section_ids, default, is_favorite}]})', () => {
		expect(
			readTemplateList({
				items: [
					{
						id: 'clinical_notes_template',
						title: 'Clinical Notes',
						desc: 'Standard',
						section_ids: [],
						default: true,
						is_favorite: false,
					},
					{
						id: 'tpl_7d1a',
						title: 'Cardiology',
						desc: '## Plan',
						section_ids: ['s1', { id: 's2' }],
						default: false,
						is_favorite: true,
					},
				],
			}),
		).toEqual([
			{
				id: 'clinical_notes_template',
				title: 'Clinical Notes',
				description: 'Standard',
				sections: [],
				default: true,
				is_favorite: false,
			},
			{
				id: 'tpl_7d1a',
				title: 'Cardiology',
				description: '## Plan',
				sections: ['s1', 's2'],
				default: false,
				is_favorite: true,
			},
		]);
	});

	it("reads the backend's other spelling ({templates:[{id, name, description}]}) and the JS SDK's is_editable", () => {
		expect(
			readTemplateList({ templates: [{ id: 't1', name: 'Referral', description: 'Letter' }] }),
		).toEqual([
			{
				id: 't1',
				title: 'Referral',
				description: 'Letter',
				sections: [],
				default: null,
				is_favorite: null,
			},
		]);
		expect(
			readTemplateList({
				items: [
					{ id: 't2', title: 'A', is_editable: false },
					{ id: 't3', title: 'B', is_editable: true },
				],
			})?.map((t) => t.default),
		).toEqual([true, false]);
	});

	it('drops entries without an id and refuses a body that is not a list answer', () => {
		expect(
			readTemplateList({ items: [{ title: 'no id' }, null, 'x', { id: 5, title: 'numeric' }] }),
		).toEqual([
			{
				id: '5',
				title: 'numeric',
				description: null,
				sections: [],
				default: null,
				is_favorite: null,
			},
		]);
		expect(readTemplateList({ items: {} })).toBeUndefined();
		expect(readTemplateList('<html>')).toBeUndefined();
		expect(readTemplateList(null)).toBeUndefined();
	});
});

describe('create and update answers', () => {
	it('reads the new id and the message in either spelling', () => {
		expect(readCreatedTemplateId({ msg: 'created successfully', template_id: 'tpl_1' })).toBe(
			'tpl_1',
		);
		expect(readCreatedTemplateId({ id: 'tpl_2' })).toBe('tpl_2');
		expect(readCreatedTemplateId({ msg: 'created' })).toBeUndefined();
		expect(readTemplateMessage({ msg: 'updated successfully' })).toBe('updated successfully');
		expect(readTemplateMessage({ message: 'Template archived successfully' })).toBe(
			'Template archived successfully',
		);
		expect(readTemplateMessage('')).toBeNull();
	});
});

describe('parseSectionIds', () => {
	it('takes text with commas or a list, trimmed, without repeats; empty is no sections', () => {
		expect(parseSectionIds(' a, b ,a,, ')).toEqual({ ok: true, ids: ['a', 'b'] });
		expect(parseSectionIds(['a', 'b'])).toEqual({ ok: true, ids: ['a', 'b'] });
		expect(parseSectionIds('')).toEqual({ ok: true, ids: [] });
		expect(parseSectionIds(undefined)).toEqual({ ok: true, ids: [] });
	});

	it('names an entry of a list that is not an id', () => {
		expect(parseSectionIds(['a', ''])).toEqual({
			ok: false,
			problem: 'entry 2 is empty, not a section ID',
		});
		expect(parseSectionIds(['a', { id: 'b' }])).toEqual({
			ok: false,
			problem: 'entry 2 is an object, not a section ID',
		});
		expect(parseSectionIds([null])).toEqual({
			ok: false,
			problem: 'entry 1 is null, not a section ID',
		});
	});
});

describe('classifyTemplateRefusal', () => {
	it("reads the backend's 400 by its message, and the docs' 404/422 by status", () => {
		expect(classifyTemplateRefusal(400, 'Template not found or already archived')).toBe(
			'not-found',
		);
		expect(classifyTemplateRefusal(400, "Template 'x' is not available")).toBe('not-found');
		expect(classifyTemplateRefusal(404, undefined)).toBe('not-found');
		expect(classifyTemplateRefusal(400, 'Template not editable')).toBe('not-editable');
		expect(classifyTemplateRefusal(400, 'title is required')).toBe('invalid');
		expect(classifyTemplateRefusal(422, 'whatever')).toBe('invalid');
		expect(classifyTemplateRefusal(400, 'Something else')).toBe('other');
		expect(classifyTemplateRefusal(400, undefined)).toBe('other');
	});
});

describe('templateIdOf', () => {
	it('reads a resource locator and the plain string saved before the picker alike', () => {
		expect(
			templateIdOf({ __rl: true, mode: 'list', value: 'tpl_1', cachedResultName: 'One' }),
		).toBe('tpl_1');
		expect(templateIdOf({ __rl: true, mode: 'id', value: ' tpl_2 ' })).toBe('tpl_2');
		expect(templateIdOf(' tpl_3 ')).toBe('tpl_3');
		expect(templateIdOf({ __rl: true, mode: 'list', value: '' })).toBe('');
		expect(templateIdOf(undefined)).toBe('');
		expect(templateIdOf({ __rl: true, mode: 'id', value: { nested: true } })).toBe('');
	});
});
