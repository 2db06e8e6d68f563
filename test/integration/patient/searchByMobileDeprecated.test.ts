/**
 * Patient → Search by Mobile (deprecated; document 4.2) over real HTTP against the project's fake clinic API.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { FIXTURE_IDS } from '../../fake-api/fixtures';
import { useNodeRuns } from '../../support/nodeRuns';

// Retry back-off short, so the retry tests stay quick; the policy itself is unit-tested.
const t = useNodeRuns({ retry: { baseDelayMs: 20, maxDelayMs: 200 } });
const { run } = t;

const patientSearch = (mobile: unknown, extra: Record<string, unknown> = {}) => ({
	resource: 'patient',
	operation: 'searchByMobile',
	mobile,
	returnAll: true,
	simplify: false,
	options: {},
	...extra,
});

describe('Patient → Search by Mobile', () => {
	it('tolerates formatting and returns one item per profile', async () => {
		const output = await run(patientSearch('98765-43 210'));
		expect(output).toHaveLength(2);
		expect(t.api.requestsTo('/dr/v1/business/patients/search')[0].query.mobile).toBe(
			FIXTURE_IDS.mobileWithTwoProfiles,
		);
		expect(output[0].json).toEqual(
			expect.objectContaining({
				name: expect.any(String),
				patient_profile: expect.objectContaining({ gender: expect.any(String) }),
			}),
		);
	});

	it('gives both documented response forms one shape', async () => {
		const fromProfiles = await run(patientSearch(FIXTURE_IDS.mobileWithTwoProfiles));
		t.api.setOptions({ patientsForm: 'patients' });
		const fromPatients = await run(patientSearch(FIXTURE_IDS.mobileWithTwoProfiles));
		const keys = (items: INodeExecutionData[]) =>
			items.map((item) => [
				Object.keys(item.json).sort(),
				Object.keys(item.json.patient_profile as object).sort(),
			]);
		expect(keys(fromPatients)).toEqual(keys(fromProfiles));
		expect(
			fromPatients.map((item) => (item.json.patient_profile as { gender: unknown }).gender),
		).toEqual(
			fromProfiles.map((item) => (item.json.patient_profile as { gender: unknown }).gender),
		);
		expect(
			fromPatients.map((item) => (item.json.patient_profile as { gender: unknown }).gender),
		).not.toContain(null);
	});

	it('simplifies to a flat record when asked', async () => {
		const output = await run(patientSearch(FIXTURE_IDS.mobileWithGenderO, { simplify: true }));
		expect(output[0].json).toEqual(
			expect.objectContaining({ gender: 'O', mobile: expect.any(String) }),
		);
		expect(output[0].json.patient_profile).toBeUndefined();
	});

	it.each([
		['12345', 'has 5 digits'],
		['+91 98765 43210', 'country code'],
		['98765abc10', 'characters other than digits'],
		['', 'is empty'],
	])('refuses %p before any request', async (mobile, problem) => {
		const error = await run(patientSearch(mobile)).catch((caught: Error) => caught);
		expect((error as Error).message).toContain(problem);
		expect((error as Error).message).toContain('Mobile Number');
		expect(t.api.requestsTo('/dr/')).toHaveLength(0);
	});

	it('treats PATIENTS_NOT_FOUND as no items, or as an error when asked', async () => {
		expect(await run(patientSearch(FIXTURE_IDS.unknownMobile))).toEqual([]);
		const error = (await run(
			patientSearch(FIXTURE_IDS.unknownMobile, { options: { failWhenNotFound: true } }),
		).catch((caught: Error) => caught)) as Error & { httpCode?: string };
		expect(error.message).toContain('404 PATIENTS_NOT_FOUND');
		expect(error.httpCode).toBe('404');
		expect(error.message).not.toContain(FIXTURE_IDS.unknownMobile);
	});

	it('explains UNAUTHORIZED_ACCESS', async () => {
		t.api.injectFault({
			path: '/dr/v1/business/patients/search',
			fault: { kind: 'status', status: 403 },
		});
		const error = (await run(patientSearch(FIXTURE_IDS.mobileWithTwoProfiles)).catch(
			(caught: Error) => caught,
		)) as Error & {
			description?: string;
		};
		expect(error.message).toContain('403 UNAUTHORIZED_ACCESS');
		expect(error.description).toContain('permission');
	});

	it('never repeats the searched number, even when the API echoes it in its error', async () => {
		const mobile = FIXTURE_IDS.mobileWithTwoProfiles;
		const body = {
			status_code: 403,
			success: false,
			data: {},
			error: { code: 'UNAUTHORIZED_ACCESS', message: `caller may not search ${mobile}` },
		};
		t.api.injectFault({
			path: '/dr/v1/business/patients/search',
			fault: { kind: 'status', status: 403, body },
		});
		const error = (await run(patientSearch(mobile)).catch((caught: Error) => caught)) as Error & {
			description?: string;
		};
		expect(error.message).toContain('caller may not search [redacted]');
		expect(`${error.message} ${error.description} ${JSON.stringify(error)}`).not.toContain(mobile);
	});

	it('with Continue On Fail, gives a failing item its error and the others their results', async () => {
		const items = [
			{ json: { mobile: FIXTURE_IDS.mobileWithTwoProfiles } },
			{ json: { mobile: '123' } },
			{ json: { mobile: FIXTURE_IDS.mobileWithGenderO } },
		];
		const output = await run(
			patientSearch((index: number) => items[index].json.mobile),
			{ items, continueOnFail: true },
		);
		expect(output.map((item) => (item.pairedItem as { item: number }).item)).toEqual([0, 0, 1, 2]);
		expect(output[2].json.error).toContain('has 3 digits');
		expect(output[3].json.patient_profile).toEqual(expect.objectContaining({ gender: 'O' }));
	});
});
