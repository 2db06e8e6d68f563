/** Patient → Update over real HTTP against the fake patient directory. */
import { fakePatientDirectory } from '../../fake-api/routes/patient';
import { expectDirectoryHeaders, usePatientDirectory } from '../../support/patientCalls';

const t = usePatientDirectory();
const OID = '175074536120090';
const PATH = `/profiles/v1/patient/${OID}`;
const update = (updateFields: Record<string, unknown>, patientId: unknown = OID) => ({
	resource: 'patient',
	operation: 'update',
	patientId,
	updateFields,
});

describe('Patient → Update', () => {
	it('sends only the fields given (names left out are kept) and returns no patient data', async () => {
		const output = await t.run(
			update({ mobile: '+91 91234 00000', bloodGroup: 'O-', dateOfBirth: '1979-01-06' }),
		);
		expect(output).toEqual([
			{
				json: { oid: OID, updated: true, message: 'Profile updated successfully' },
				pairedItem: { item: 0 },
			},
		]);
		const [call] = t.api.requestsTo(PATH, 'PATCH');
		expect(call.body).toEqual({ mobile: '+919123400000', bg: 'O-', dob: '1979-01-06' });
		expect(call.headers['content-type']).toMatch(/^application\/json/);
		expectDirectoryHeaders(t.api);
		expect(fakePatientDirectory(t.api).profiles.get(OID)).toMatchObject({
			fln: 'arjun mehta',
			mobile: '9123400000',
			bg: 'O-',
			dob: '1979-01-06',
		});
	});

	it('changes the name when asked', async () => {
		await t.run(update({ firstName: 'Arjun', lastName: 'Mehra' }));
		expect(t.api.requestsTo(PATH, 'PATCH')[0].body).toEqual({ fn: 'Arjun', ln: 'Mehra' });
		expect(fakePatientDirectory(t.api).profiles.get(OID)?.fln).toBe('arjun mehra');
	});

	it('names the refusal of a username taken by another patient, without repeating it', async () => {
		const { message, all } = await t.failure(update({ username: 'UHID-0042' }));
		expect(message).toBe(
			"The clinic API refused the patient's update (HTTP 400 invalid_request): username already exists in this workspace",
		);
		expect(all).not.toContain('UHID-0042');
	});

	it.each([
		['no field', update({}), 'No field to update was given (item 0)'],
		[
			'a malformed mobile',
			update({ mobile: '+91 12345' }),
			'The Mobile Number has 5 digits after +91: an Indian mobile number has 10 (item 0)',
		],
		[
			'a bad date',
			update({ dateOfBirth: 'yesterday' }),
			'The Date of Birth is not a date in the form YYYY-MM-DD (item 0)',
		],
		['an empty ID', update({ lastName: 'X' }, ''), 'The Patient ID of item 0 is empty'],
	])('fails the item with nothing sent for %s', async (_label, parameters, expected) => {
		const { message } = await t.failure(parameters);
		expect(message).toBe(expected);
		expect(t.api.requests).toHaveLength(0);
	});
});
