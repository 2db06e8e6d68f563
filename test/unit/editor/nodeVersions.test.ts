/**
 * Node versions (README "Versions"): a changed default comes with a new version of the action node,
 * so a workflow saved with version 1 (which stores no parameter left at its default) behaves as
 * before. What a saved workflow does is proven in a real n8n (test/e2e/transcription.e2e.test.ts);
 * these check the description n8n resolves parameters from.
 */
import type { INodeProperties } from 'n8n-workflow';

import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';

const action = new ClinicScribe().description;

/** The Patient operation parameter n8n uses for a node of this version (displayOptions as n8n reads `@version`). */
function patientOperation(version: number): INodeProperties {
	const matches = action.properties.filter((p) => {
		const show = p.displayOptions?.show;
		if (p.name !== 'operation' || !(show?.resource as string[] | undefined)?.includes('patient'))
			return false;
		const versions = (show?.['@version'] ?? []) as Array<number | { _cnd: { gte: number } }>;
		return (
			versions.length === 0 ||
			versions.some((v) => (typeof v === 'number' ? v === version : version >= v._cnd.gte))
		);
	});
	expect(matches).toHaveLength(1);
	return matches[0];
}

describe('Clinic Scribe node versions', () => {
	it('offers versions 1 and 2; a node added from the panel gets 2', () => {
		expect(action.version).toEqual([1, 2]);
		expect(action.defaultVersion).toBe(2);
	});

	it("Patient's operation defaults to the deprecated document search in version 1 (as saved workflows expect), to the directory's Search by Mobile in version 2", () => {
		expect(patientOperation(1).default).toBe('searchByMobile');
		expect(patientOperation(2).default).toBe('findByMobile');
	});

	it('both versions offer the same Patient operations', () => {
		expect(patientOperation(1).options).toEqual(patientOperation(2).options);
		expect(
			(patientOperation(2).options ?? []).map((o) => ('value' in o ? o.value : undefined)),
		).toEqual(expect.arrayContaining(['findByMobile', 'searchByMobile']));
	});
});
