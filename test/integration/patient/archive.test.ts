/** Patient → Archive over real HTTP against the fake patient directory. */
import { expectDirectoryHeaders, usePatientDirectory } from '../../support/patientCalls';

const t = usePatientDirectory();
const OID = '175074536120089';
const archive = (patientId: unknown = OID) => ({
	resource: 'patient',
	operation: 'archive',
	patientId,
});

describe('Patient → Archive', () => {
	it('archives with DELETE and no body; the patient is then no longer found', async () => {
		const output = await t.run(archive());
		expect(output).toEqual([
			{
				json: { oid: OID, archived: true, message: 'Profile archived successfully' },
				pairedItem: { item: 0 },
			},
		]);
		const [call] = t.api.requestsTo(`/profiles/v1/patient/${OID}`, 'DELETE');
		expect(call.bodyLength).toBe(0);
		expectDirectoryHeaders(t.api);
		const { message } = await t.failure({ resource: 'patient', operation: 'get', patientId: OID });
		expect(message).toBe(
			'The clinic API refused the patient (HTTP 404 profile_not_found): Not found',
		);
	});

	it('says what to check when the patient is unknown or archived already', async () => {
		await t.run(archive());
		const { message, description } = await t.failure(archive());
		expect(message).toBe(
			'The clinic API refused the archiving of the patient (HTTP 404 profile_not_found): Not found',
		);
		expect(description).toContain('archived already');
	});

	it('fails the item with nothing sent for an empty ID', async () => {
		const { message } = await t.failure(archive('  '));
		expect(message).toBe('The Patient ID of item 0 is empty');
		expect(t.api.requests).toHaveLength(0);
	});
});
