/** Patient → Get Many (the paged minified listing) over real HTTP against the fake directory. */
import { MAX_PAGES } from '../../../nodes/ClinicScribe/actions/patient/getAll.operation';
import { fakePatientDirectory } from '../../fake-api/routes/patient';
import { expectDirectoryHeaders, usePatientDirectory } from '../../support/patientCalls';

const t = usePatientDirectory();
const PATH = '/profiles/v1/patient/minified/';
const getMany = (extra: Record<string, unknown> = {}, options: Record<string, unknown> = {}) => ({
	resource: 'patient',
	operation: 'getAll',
	returnAll: true,
	options,
	...extra,
});
const ALL = ['175074536120088', '175074536120089', '175074536120090'];

describe('Patient → Get Many', () => {
	it('follows nextPage from page 1 until -1 with Return All', async () => {
		const output = await t.run(getMany({}, { pageSize: 2 }));
		expect(output.map((o) => o.json.oid)).toEqual(ALL);
		expect(output[0].json).toEqual({
			mobile: '9876543210',
			oid: '175074536120088',
			username: 'UHID-0042',
			fln: 'ravi kumar',
			arc: false,
			wid: '77088166996724',
		});
		expect(t.api.requestsTo(PATH, 'GET').map((r) => r.url)).toEqual([
			`${PATH}?pageNo=1&pageSize=2`,
			`${PATH}?pageNo=2&pageSize=2`,
		]);
		expectDirectoryHeaders(t.api);
	});

	it('stops at the Limit, asking no more than needed', async () => {
		const output = await t.run(getMany({ returnAll: false, limit: 1 }));
		expect(output.map((o) => o.json.oid)).toEqual([ALL[0]]);
		expect(t.api.requestsTo(PATH, 'GET').map((r) => r.url)).toEqual([
			`${PATH}?pageNo=1&pageSize=1`,
		]);
	});

	it('sends Created Since as epoch seconds, extra fields and Include Archived', async () => {
		fakePatientDirectory(t.api).profiles.get(ALL[2])!.arc = true;
		const output = await t.run(
			getMany(
				{},
				{ since: '2025-06-24T06:00:00Z', select: ['dob', 'u_ate'], includeArchived: true },
			),
		);
		expect(t.api.requestsTo(PATH, 'GET')[0].url).toBe(
			`${PATH}?pageNo=1&pageSize=500&select=dob,u_ate&from=1750744800&arc=true`,
		);
		expect(output.map((o) => [o.json.oid, o.json.arc, o.json.dob])).toEqual([
			[ALL[0], false, '1985-04-12'],
			[ALL[1], false, '1988-09-30'],
			[ALL[2], true, '1979-01-05'],
		]);
	});

	it('takes Created Since as epoch seconds too, and filters on the server', async () => {
		const output = await t.run(getMany({}, { since: 1750800000 }));
		expect(t.api.requestsTo(PATH, 'GET')[0].url).toBe(
			`${PATH}?pageNo=1&pageSize=500&from=1750800000`,
		);
		expect(output.map((o) => o.json.oid)).toEqual([ALL[1], ALL[2]]);
	});

	it("reads a Created Since without a zone in the workflow's time zone", async () => {
		const { context } = (await import('../../support/nodeContext')).createExecuteContext({
			credentials: t.credentials(),
			parameters: getMany({}, { since: '2025-06-24T11:30:00' }),
			timezone: 'Asia/Kolkata',
		});
		const { ClinicScribe } = await import('../../../nodes/ClinicScribe/ClinicScribe.node');
		await new ClinicScribe().execute.call(context);
		expect(t.api.requestsTo(PATH, 'GET')[0].query.from).toBe('1750744800');
	});

	it('a directory longer than the 10,000 pages it reads fails the item, naming the bound and what to change, instead of a shorter list', async () => {
		const profiles = fakePatientDirectory(t.api).profiles;
		const template = profiles.get(ALL[0])!;
		// Page Size 1: 10,001 pages (the three fixture patients and 9,998 more).
		for (let i = 0; i < MAX_PAGES - 2; i++) {
			const oid = `9${String(i).padStart(14, '0')}`;
			// Created after the fixture patients, one second apart: the fake sorts by creation time.
			profiles.set(oid, { ...template, oid, username: `UHID-X${i}`, c_ate: 1_760_000_000 + i });
		}
		const error = await t.failure(getMany({}, { pageSize: 1 }));
		expect(error.message).toBe(
			'Return All needs more than the 10,000 pages of patients the node reads for one item (10,000 read)',
		);
		expect(error.description).toContain('Page Size up to 2000');
		expect(t.api.requestsTo(PATH, 'GET')).toHaveLength(MAX_PAGES);
	}, 180_000);

	it('retries a 503 of a page', async () => {
		t.api.injectFault({ method: 'GET', path: PATH, fault: { kind: 'status', status: 503 } });
		const output = await t.run(getMany());
		expect(output).toHaveLength(3);
		expect(t.api.requestsTo(PATH, 'GET').map((r) => r.status)).toEqual([503, 200]);
	});

	it.each([
		[
			'a bad date',
			getMany({}, { since: 'last week' }),
			'The Created Since is not a date and time (for example 2026-01-31T09:00:00+05:30) (item 0)',
		],
		[
			'a future date',
			getMany({}, { since: '2999-01-01T00:00:00Z' }),
			'The Created Since is in the future (item 0)',
		],
		[
			'a page size over 2000',
			getMany({}, { pageSize: 2001 }),
			'The Page Size is not a whole number from 1 to 2000 (item 0)',
		],
	])('fails the item with nothing sent for %s', async (_label, parameters, expected) => {
		const { message } = await t.failure(parameters);
		expect(message).toBe(expected);
		expect(t.api.requests).toHaveLength(0);
	});

	it('as an AI agent tool with sharing off refuses with nothing sent', async () => {
		const { message } = await t.failure(
			{ ...getMany(), shareWithAiAgent: false },
			{ asTool: true },
		);
		expect(message).toBe('Patient Get Many is not shared with AI agents in this node');
		expect(t.api.requests).toHaveLength(0);
	});
});
