/**
 * Limits some EHR servers put on one transaction, checked before a bundle is handed on, so the user
 * reads why and what to do instead of the server's terse refusal. Known: Medplum's. Its FHIR engine
 * refuses, in its transaction mode, a transaction with more than 50 updates, and one that holds a
 * conditional create, update or delete (it needs strict isolation) with more than 8 entries
 * ([MEDPLUM-ROUTER] batch.ts). Pure.
 */
import type { BundleEntry } from './resources';

/** The EHR's transaction limits: none known, or Medplum's. */
export type EhrTransactionLimits = 'none' | 'medplum';

const MEDPLUM_MAX_UPDATES = 50;
const MEDPLUM_MAX_ENTRIES_WITH_CONDITIONAL = 8;

/** Entries counted as that server counts them: updates (PUT), and writes found by a search. */
export function transactionShape(entries: readonly BundleEntry[]): {
	entries: number;
	updates: number;
	conditional: number;
} {
	return {
		entries: entries.length,
		updates: entries.filter((entry) => entry.request.method === 'PUT').length,
		conditional: entries.filter(
			(entry) => entry.request.ifNoneExist !== undefined || entry.request.url.includes('?'),
		).length,
	};
}

/** Why the EHR would refuse the transaction (message and what to do), or undefined when it fits. */
export function transactionLimitProblem(
	entries: readonly BundleEntry[],
	limits: EhrTransactionLimits | undefined,
): { message: string; description: string } | undefined {
	if (limits !== 'medplum') return undefined;
	const shape = transactionShape(entries);
	const nothingSent = 'No bundle was made, so nothing was sent to the EHR.';
	if (shape.updates > MEDPLUM_MAX_UPDATES)
		return {
			message: `The bundle holds ${shape.updates} updates: a Medplum EHR refuses a transaction with more than ${MEDPLUM_MAX_UPDATES}`,
			description: `This visit has more notes than one Medplum transaction takes. File it into an EHR without this limit, or set FHIR Options → EHR Transaction Limits to None Known if your EHR is not Medplum's. ${nothingSent}`,
		};
	if (shape.conditional > 0 && shape.entries > MEDPLUM_MAX_ENTRIES_WITH_CONDITIONAL)
		return {
			message: `The bundle finds or creates the patient or the doctor by an identifier and holds ${shape.entries} entries: a Medplum EHR refuses such a transaction above ${MEDPLUM_MAX_ENTRIES_WITH_CONDITIONAL} entries`,
			description: `Choose Patient → Existing EHR Patient and Doctor → Existing EHR Practitioner: the bundle then finds no one by a search. To get their IDs, find or create each first with an HTTP Request node: POST <FHIR base URL>/Patient (or /Practitioner), header If-None-Exist: identifier=<system>|<value>, the resource as the body; the answer's "id" is the EHR's ID (docs/fhir.md, "Where real EHR servers differ"). ${nothingSent}`,
		};
	return undefined;
}
