/** Patient → Search by Mobile (the directory's by-mobile) over real HTTP against the fake directory. */
import { fakePatientDirectory } from '../../fake-api/routes/patient';
import { expectDirectoryHeaders, usePatientDirectory } from '../../support/patientCalls';

const t = usePatientDirectory();
const PATH = '/profiles/v1/patient/by-mobile/';
const find = (mobile: unknown, options: Record<string, unknown> = {}) => ({
	resource: 'patient',
	operation: 'findByMobile',
	mobile,
	options,
});

const RAVI = {
	oid: '175074536120088',
	username: 'UHID-0042',
	fln: 'ravi kumar',
	gen: 'M',
	dob: '1985-04-12',
	ccd: '+91',
	ps: 'P',
	mobile: '9876543210',
};
const PRIYA = {
	oid: '175074536120089',
	username: 'UHID-0043',
	fln: 'priya kumar',
	gen: 'F',
	dob: '1988-09-30',
	ccd: '+91',
	ps: 'P',
	mobile: '9876543210',
};

describe('Patient → Search by Mobile', () => {
	it.each([
		['9876543210'],
		['98765 43210'],
		['+91 98765-43210'],
		['09876543210'],
		['919876543210'],
		[9876543210],
	])('normalises %p to +91 and the 10 digits, and returns every family profile', async (mobile) => {
		const output = await t.run(find(mobile));
		expect(output.map((o) => o.json)).toEqual([RAVI, PRIYA]);
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
		const [call] = t.api.requestsTo(PATH, 'GET');
		expect(call.url).toBe(`${PATH}?mob=%2B919876543210`);
		expectDirectoryHeaders(t.api);
	});

	it("reads PD's single-object answer as well", async () => {
		fakePatientDirectory(t.api).byMobileForm = 'object';
		const output = await t.run(find('9876543210'));
		expect(output.map((o) => o.json)).toEqual([RAVI]);
	});

	it('asks for full profiles when told', async () => {
		const output = await t.run(find('9123456780', { fullProfile: true }));
		expect(t.api.requestsTo(PATH, 'GET')[0].url).toBe(
			`${PATH}?mob=%2B919123456780&full_profile=true`,
		);
		expect(output[0].json).toMatchObject({
			oid: '175074536120090',
			abha: 'arjun@abdm',
			fn: 'arjun',
			wid: '77088166996724',
		});
	});

	it('gives no items when no patient has the number, or fails when told to, without the number in the error', async () => {
		expect(await t.run(find('9000000000'))).toEqual([]);
		const { message, all } = await t.failure(find('9000000000', { failWhenNotFound: true }));
		expect(message).toBe(
			'The clinic API refused the patient search by mobile (HTTP 404 profile_not_found): Not found',
		);
		expect(all).not.toMatch(/9000000000/);
	});

	it('keeps the number out of an error even when the service echoes the request', async () => {
		t.api.injectFault({ method: 'GET', path: PATH, fault: { kind: 'echo', status: 400 } });
		const { all } = await t.failure(find('98765 43210'));
		expect(all).not.toMatch(/9876543210|98765 43210/);
	});

	it.each([
		['', 'The Mobile Number is empty (item 0)'],
		[
			'98765abcde',
			'The Mobile Number contains characters other than digits, a leading "+", spaces, dashes, dots and brackets (item 0)',
		],
		[
			'98765',
			'The Mobile Number has 5 digits: give the 10-digit mobile number, or the number with its country code (+91 and 10 digits) (item 0)',
		],
		[
			'+91 5876543210',
			'The Mobile Number is not an Indian mobile number (after +91 it must start with 6, 7, 8 or 9) (item 0)',
		],
	])('fails the item with nothing sent for %p, without repeating it', async (mobile, expected) => {
		const { message } = await t.failure(find(mobile));
		expect(message).toBe(expected);
		expect(t.api.requests).toHaveLength(0);
	});

	it('as an AI agent tool with sharing off refuses with nothing sent', async () => {
		const { message } = await t.failure(
			{ ...find('9876543210'), shareWithAiAgent: false },
			{ asTool: true },
		);
		expect(message).toBe('Patient search by mobile is not shared with AI agents in this node');
		expect(t.api.requests).toHaveLength(0);
	});

	it('leaves the deprecated document search (searchByMobile) as it was', async () => {
		const output = await t.run({
			resource: 'patient',
			operation: 'searchByMobile',
			mobile: '9876543210',
			returnAll: true,
			simplify: false,
			options: {},
		});
		expect(output.length).toBeGreaterThan(0);
		expect(t.api.requestsTo('/dr/v1/business/patients/search', 'GET')).toHaveLength(1);
		expect(t.api.requestsTo(/^\/profiles\//)).toHaveLength(0);
	});
});
