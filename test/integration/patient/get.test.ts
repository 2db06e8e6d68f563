/** Patient → Get over real HTTP against the fake patient directory. */
import { expectDirectoryHeaders, usePatientDirectory } from '../../support/patientCalls';

const t = usePatientDirectory();
const get = (patientId: unknown) => ({ resource: 'patient', operation: 'get', patientId });

describe('Patient → Get', () => {
	it("returns the patient's profile", async () => {
		const output = await t.run(get('175074536120088'));
		expect(output).toEqual([
			{
				json: {
					oid: '175074536120088',
					wid: '77088166996724',
					ps: 'P',
					c_ate: 1750745358,
					u_ate: 1750745358,
					fn: 'ravi',
					ln: 'kumar',
					fln: 'ravi kumar',
					gen: 'M',
					dob: '1985-04-12',
					mobile: '9876543210',
					ccd: '+91',
					email: 'ravi.kumar@example.com',
					username: 'UHID-0042',
					s: 'Mr.',
					bg: 'B+',
				},
				pairedItem: { item: 0 },
			},
		]);
		const [call] = t.api.requestsTo('/profiles/v1/patient/175074536120088', 'GET');
		expect(call.url).toBe('/profiles/v1/patient/175074536120088');
		expectDirectoryHeaders(t.api);
	});

	it('names the refusal of an unknown patient', async () => {
		const { message } = await t.failure(get('999'));
		expect(message).toBe(
			'The clinic API refused the patient (HTTP 404 profile_not_found): Not found',
		);
	});

	it('keeps an id with a slash in one path segment', async () => {
		await t.failure(get('a/../b'));
		expect(t.api.requestsTo(/^\/profiles\//).map((r) => r.url)).toEqual([
			'/profiles/v1/patient/a%2F..%2Fb',
		]);
	});

	it.each([
		['empty', ''],
		['dots', '..'],
	])('fails the item with nothing sent for an %s ID', async (_label, id) => {
		const { message } = await t.failure(get(id));
		expect(message.startsWith('The Patient ID of item 0 is')).toBe(true);
		expect(t.api.requests).toHaveLength(0);
	});

	it('as an AI agent tool with sharing off refuses with nothing sent; with sharing on it answers', async () => {
		const { message } = await t.failure(
			{ ...get('175074536120088'), shareWithAiAgent: false },
			{ asTool: true },
		);
		expect(message).toBe('Patient Get is not shared with AI agents in this node');
		expect(t.api.requests).toHaveLength(0);
		const output = await t.run(
			{ ...get('175074536120088'), shareWithAiAgent: true },
			{ asTool: true },
		);
		expect(output[0].json.oid).toBe('175074536120088');
	});
});
