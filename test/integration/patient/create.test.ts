/** Patient → Create over real HTTP against the fake patient directory. */
import { fakePatientDirectory } from '../../fake-api/routes/patient';
import { expectDirectoryHeaders, usePatientDirectory } from '../../support/patientCalls';

const t = usePatientDirectory();
const PATH = '/profiles/v1/patient/';

const create = (
	extra: Record<string, unknown> = {},
	additionalFields: Record<string, unknown> = {},
) => ({
	resource: 'patient',
	operation: 'create',
	firstName: 'Meera',
	dateOfBirth: '1992-07-15T00:00:00',
	gender: 'F',
	additionalFields,
	...extra,
});

describe('Patient → Create', () => {
	it('sends the documented body with Bearer and client-id, and returns only the new ID', async () => {
		const output = await t.run(
			create(
				{},
				{
					lastName: 'Nair',
					mobile: '98450 12345',
					email: 'Meera.Nair@Example.com',
					username: 'UHID-0100',
					bloodGroup: 'A+',
					salutation: 'Ms.',
				},
			),
		);
		expect(output).toEqual([{ json: { oid: '175074536121001' }, pairedItem: { item: 0 } }]);
		const [call] = t.api.requestsTo(PATH, 'POST');
		expect(call.url).toBe(PATH);
		// bg (most sources) rather than PD's bloodgroup; the mobile with +91 (PD, MCP).
		expect(call.body).toEqual({
			fn: 'Meera',
			ln: 'Nair',
			s: 'Ms.',
			username: 'UHID-0100',
			dob: '1992-07-15',
			gen: 'F',
			mobile: '+919845012345',
			email: 'Meera.Nair@Example.com',
			bg: 'A+',
		});
		expectDirectoryHeaders(t.api);
		const stored = fakePatientDirectory(t.api).profiles.get('175074536121001');
		expect(stored).toMatchObject({
			fln: 'meera nair',
			mobile: '9845012345',
			ccd: '+91',
			bg: 'A+',
			dob: '1992-07-15',
		});
	});

	it('takes the date of birth as written, whatever its time zone', async () => {
		await t.run(create({ dateOfBirth: '1992-07-15T23:30:00-05:00' }));
		expect((t.api.requestsTo(PATH, 'POST')[0].body as { dob: string }).dob).toBe('1992-07-15');
	});

	it('sends the client id with an access-token credential too (the directory requires it)', async () => {
		const store = t.credentials({
			authMethod: 'accessToken',
			accessToken: t.api.validCredentials.staticToken,
		});
		const output = await t.run(create(), { store });
		expect(output[0].json.oid).toBe('175074536121001');
		expect(t.api.requestsTo(PATH, 'POST')[0].headers['client-id']).toBe(
			t.api.validCredentials.clientId,
		);
	});

	it('refuses, with nothing sent, a credential without a client id', async () => {
		const store = t.credentials({
			authMethod: 'accessToken',
			accessToken: t.api.validCredentials.staticToken,
			clientId: '',
		});
		const { message } = await t.failure(create(), { store });
		expect(message).toBe(
			'The patient directory needs the Client ID of the credential, which is empty',
		);
		expect(t.api.requests).toHaveLength(0);
	});

	it.each([
		['an empty first name', create({ firstName: ' ' }), 'The First Name is empty (item 0)'],
		[
			'a bad date of birth',
			create({ dateOfBirth: '15/07/1992' }),
			'The Date of Birth is not a date in the form YYYY-MM-DD (item 0)',
		],
		[
			'an impossible date',
			create({ dateOfBirth: '1992-02-30' }),
			'The Date of Birth is not a real calendar date (item 0)',
		],
		['an unknown gender', create({ gender: 'X' }), 'The Gender is not M, F or O (item 0)'],
		[
			'a malformed mobile',
			create({}, { mobile: '98450-1234' }),
			'The Mobile Number has 9 digits: give the 10-digit mobile number, or the number with its country code (+91 and 10 digits) (item 0)',
		],
		[
			'a bad e-mail',
			create({}, { email: 'meera at example' }),
			'The Email is not an e-mail address (item 0)',
		],
	])('fails the item with nothing sent for %s', async (_label, parameters, expected) => {
		const { message, all } = await t.failure(parameters);
		expect(message).toBe(expected);
		expect(all).not.toContain('98450');
		expect(all).not.toContain('meera at example');
		expect(t.api.requests).toHaveLength(0);
	});

	it('keeps patient data out of an error even when the service echoes the body', async () => {
		t.api.injectFault({ method: 'POST', path: PATH, fault: { kind: 'echo', status: 400 } });
		const { message, all } = await t.failure(
			create(
				{},
				{
					lastName: 'Nair',
					mobile: '9845012345',
					email: 'meera.nair@example.com',
					username: 'UHID-0100',
				},
			),
		);
		expect(message).toContain('The clinic API refused the new patient (HTTP 400');
		for (const value of [
			'Meera',
			'meera',
			'Nair',
			'9845012345',
			'+919845012345',
			'meera.nair@example.com',
			'UHID-0100',
			'1992-07-15',
		]) {
			expect(all).not.toContain(value);
		}
	});

	it('does not repeat the create after a 500 (it may have been made) and says so', async () => {
		t.api.injectFault({ method: 'POST', path: PATH, fault: { kind: 'status', status: 500 } });
		const { description } = await t.failure(create());
		expect(t.api.requestsTo(PATH, 'POST')).toHaveLength(1);
		expect(description).toContain('This request was not repeated automatically');
	});

	it('repeats the create after a 429 and then answers', async () => {
		t.api.injectFault({ method: 'POST', path: PATH, fault: { kind: 'status', status: 429 } });
		const output = await t.run(create());
		expect(output[0].json.oid).toBe('175074536121001');
		expect(t.api.requestsTo(PATH, 'POST').map((r) => r.status)).toEqual([429, 201]);
	});

	it('under Continue On Fail fails only the bad item and pairs each', async () => {
		const items = [{ json: { g: 'F' } }, { json: { g: 'unknown' } }, { json: { g: 'M' } }];
		const output = await t.run(create({ gender: (i: number) => items[i].json.g }), {
			items,
			continueOnFail: true,
		});
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[0].json.oid).toBe('175074536121001');
		expect(output[1].json.error).toBe('The Gender is not M, F or O (item 1)');
		expect(output[2].json.oid).toBe('175074536121002');
		expect(t.api.requestsTo(PATH, 'POST')).toHaveLength(2);
	});
});
