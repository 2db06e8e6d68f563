/**
 * What the review example (examples/review-and-sign-before-filing.json) leaves in the local EHR once
 * the doctor signs: the visit's Composition `final`, the doctor as its legal attester, and one
 * Provenance naming the same doctor. Shared by the browser test and the queue-mode e2e test.
 */
import type { Composition, Provenance } from '@medplum/fhirtypes';

import { ENCOUNTER_SYSTEM } from './clinicVisit';
import type { FhirClient } from './fhirServer';
import { delay } from './n8n/processes';

/** The Composition the EHR holds for a visit (found by its Encounter's identifier), if any. */
export async function visitComposition(
	ehr: FhirClient,
	sessionId: string,
): Promise<Composition | undefined> {
	const [encounter] = await ehr.search('Encounter', {
		identifier: `${ENCOUNTER_SYSTEM}|${sessionId}`,
	});
	if (!encounter) return undefined;
	const [composition] = await ehr.search<Composition>('Composition', {
		encounter: `Encounter/${String(encounter.id)}`,
	});
	return composition;
}

/** Polls (about every 100 ms) until the EHR holds the visit's Composition `final`; throws after timeoutMs. */
export async function signedVisitComposition(
	ehr: FhirClient,
	sessionId: string,
	timeoutMs = 60_000,
): Promise<Composition> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const composition = await visitComposition(ehr, sessionId);
		if (composition?.status === 'final') return composition;
		if (Date.now() > deadline)
			throw new Error(
				`the signed Composition of ${sessionId} is not in the EHR within ${timeoutMs} ms (found: ${composition?.status ?? 'none'})`,
			);
		await delay(100);
	}
}

/** The doctor signed it: a legal attester (a Practitioner) and one Provenance whose agent is that doctor. */
export async function expectDoctorsSignature(
	ehr: FhirClient,
	composition: Composition,
): Promise<void> {
	expect(composition.attester).toEqual([
		expect.objectContaining({
			mode: 'legal',
			party: expect.objectContaining({ reference: expect.stringMatching(/^Practitioner\//) }),
		}),
	]);
	const provenances = await ehr.search<Provenance>('Provenance', {
		target: `Composition/${String(composition.id)}`,
	});
	expect(provenances).toHaveLength(1);
	expect(provenances[0].agent[0].who.reference).toBe(composition.attester![0].party!.reference);
}
