/** Patient → Search (prefix on name, username or mobile) over real HTTP against the fake directory. */
import { expectDirectoryHeaders, usePatientDirectory } from '../../support/patientCalls';

const t = usePatientDirectory();
const PATH = '/profiles/v1/patient/search';
const search = (prefix: unknown, extra: Record<string, unknown> = {}) => ({
	resource: 'patient',
	operation: 'search',
	prefix,
	limit: 50,
	options: {},
	...extra,
});

describe('Patient → Search', () => {
	it('finds by the start of a name, one item per patient', async () => {
		const output = await t.run(search('Priya'));
		expect(output.map((o) => o.json)).toEqual([
			{ username: 'UHID-0043', mobile: '9876543210', oid: '175074536120089', fln: 'priya kumar' },
		]);
		expect(t.api.requestsTo(PATH, 'GET')[0].url).toBe(`${PATH}?prefix=Priya&limit=50`);
		expectDirectoryHeaders(t.api);
	});

	it('finds by username and by mobile prefix, with the limit and extra fields', async () => {
		expect((await t.run(search('UHID-00'))).map((o) => o.json.oid)).toEqual([
			'175074536120088',
			'175074536120089',
		]);
		const output = await t.run(search('98765', { limit: 1, options: { select: ['dob', 'gen'] } }));
		expect(output.map((o) => o.json)).toEqual([
			{
				username: 'UHID-0042',
				mobile: '9876543210',
				oid: '175074536120088',
				fln: 'ravi kumar',
				dob: '1985-04-12',
				gen: 'M',
			},
		]);
		expect(t.api.requestsTo(PATH, 'GET')[1].url).toBe(
			`${PATH}?prefix=98765&limit=1&select=dob,gen`,
		);
	});

	it('gives no items when nothing matches', async () => {
		expect(await t.run(search('zz'))).toEqual([]);
	});

	it('keeps the search text out of an error even when the service echoes it', async () => {
		t.api.injectFault({ method: 'GET', path: PATH, fault: { kind: 'echo', status: 400 } });
		const { all } = await t.failure(search('Ravindra'));
		expect(all).not.toContain('Ravindra');
	});

	it.each([
		['an empty text', search('  '), 'The Search Text is empty (item 0)'],
		[
			'a limit over 50',
			search('ra', { limit: 51 }),
			'The Limit is not a whole number from 1 to 50 (item 0)',
		],
	])('fails the item with nothing sent for %s', async (_label, parameters, expected) => {
		const { message } = await t.failure(parameters);
		expect(message).toBe(expected);
		expect(t.api.requests).toHaveLength(0);
	});

	it('as an AI agent tool with sharing off refuses with nothing sent', async () => {
		const { message } = await t.failure(
			{ ...search('ra'), shareWithAiAgent: false },
			{ asTool: true },
		);
		expect(message).toBe('Patient search is not shared with AI agents in this node');
		expect(t.api.requests).toHaveLength(0);
	});
});
