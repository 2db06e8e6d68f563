/**
 * Notes signed by the doctor: what changes in the visit's bundle once the doctor approved the notes
 * (docs/fhir.md, "Signed by the doctor"). The Composition becomes `final` with the doctor as its
 * legal attester ([FHIR-R4] composition.html: `attester.mode` legal), the statuses that say "not yet
 * confirmed" become those of confirmed notes, and a Provenance names the doctor as legal
 * authenticator of the Composition and every resource of the visit ([FHIR-R4] provenance.html).
 * Nothing else changes: every id stays the draft's, so filing the signed bundle after the draft
 * updates the same resources in place, and the Provenance's id is derived too, so filing it again
 * adds no second one. A diagnosis the notes call unconfirmed stays unconfirmed: signing confirms the
 * document, not what the doctor left open. Pure.
 */
import type { Provenance, Resource } from '@medplum/fhirtypes';

import { nameBasedUuid, uuidUrl } from './ids';
import type { BundleEntry, Reference } from './resources';

/** How the doctor approved the notes: the audit trail the item carries and the FHIR records. */
export interface NotesSignature {
	/** When the doctor approved, an ISO date-time with its offset. */
	signedAt: string;
	/** How the approval came: 'email', 'form' or 'other'. */
	channel: SigningChannel;
	/** Whether the doctor corrected the notes before approving. */
	edited: boolean;
	/** The notes text the doctor approved, normalised (signedNotes.ts); filed when given. */
	notes?: string;
}

export const SIGNING_CHANNELS = {
	email: 'E-mail (Send and Wait for Response)',
	form: 'n8n Form',
	other: 'Another approval step',
} as const;
export type SigningChannel = keyof typeof SIGNING_CHANNELS;

/** The resources a visit's notes are about, not the people they name. */
const NOT_OF_THE_VISIT = new Set(['Patient', 'Practitioner', 'Provenance']);

const PARTICIPANT_TYPE = 'http://terminology.hl7.org/CodeSystem/provenance-participant-type';

/**
 * The signed bundle's entries: the same entries with the signed statuses, the Composition attested,
 * and the Provenance entry last. `doctor` is the Practitioner the bundle names as the author.
 */
export function signVisitEntries(
	entries: readonly BundleEntry[],
	doctor: Reference,
	signature: NotesSignature,
): BundleEntry[] {
	const signed = entries.map((entry) => ({
		...entry,
		resource: signedResource(entry.resource, doctor, signature),
	}));
	const composition = signed.find((entry) => entry.resource.resourceType === 'Composition');
	if (!composition) throw new Error('signVisitEntries: the bundle has no Composition');
	const id = nameBasedUuid(['provenance', 'legal-authenticator', String(composition.resource.id)]);
	const provenance: Provenance = {
		resourceType: 'Provenance',
		id,
		target: signed
			.filter((entry) => !NOT_OF_THE_VISIT.has(entry.resource.resourceType))
			.map((entry) => ({ reference: entry.fullUrl })),
		recorded: signature.signedAt,
		agent: [
			{
				type: {
					coding: [{ system: PARTICIPANT_TYPE, code: 'legal', display: 'Legal Authenticator' }],
				},
				who: { ...doctor },
			},
		],
	};
	signed.push({
		fullUrl: uuidUrl(id),
		resource: provenance,
		request: { method: 'PUT', url: `Provenance/${id}` },
	});
	return signed;
}

/** The resource with the statuses of signed notes: draft statuses become the ones R4 gives confirmed notes. */
function signedResource(
	resource: Resource,
	doctor: Reference,
	signature: NotesSignature,
): Resource {
	switch (resource.resourceType) {
		case 'Composition':
			return {
				...resource,
				status: 'final',
				attester: [{ mode: 'legal', time: signature.signedAt, party: { ...doctor } }],
			};
		case 'Observation':
		case 'DiagnosticReport':
			return resource.status === 'preliminary' ? { ...resource, status: 'final' } : resource;
		case 'DocumentReference':
			return resource.docStatus === 'preliminary' ? { ...resource, docStatus: 'final' } : resource;
		case 'MedicationRequest':
		case 'ServiceRequest':
		case 'CarePlan':
			return resource.status === 'draft' ? { ...resource, status: 'active' } : resource;
		default:
			return resource;
	}
}

/**
 * Why a signing time cannot stand, or undefined: it must be a date-time with its offset (the
 * record of who signed when must not depend on the server's time zone), not in the future, and not
 * before the visit itself. Messages never repeat the value.
 */
/**
 * Signed At as R4's instant wants it: with seconds. A time given to the minute
 * (`2026-11-29T10:15+05:30`) gets `:00`; the zone stays as given. Check it with
 * signingTimeProblem first.
 */
export function withSeconds(value: string): string {
	return value.replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(Z|[+-]\d{2}:\d{2})$/, '$1:00$2');
}

export function signingTimeProblem(
	value: string,
	visitTime: string | undefined,
	now: number,
): string | undefined {
	if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value))
		return 'is not a date and time with its time zone (e.g. {{ $now.toISO() }} gives 2026-11-29T10:15:00.000+05:30)';
	const at = Date.parse(value);
	if (Number.isNaN(at)) return 'is not a valid date and time';
	// A few minutes' grace for clocks that differ between the approving machine and n8n.
	if (at > now + 5 * 60_000) return 'is in the future: the doctor cannot have signed yet';
	if (visitTime !== undefined && at < Date.parse(visitTime))
		return 'is before the visit was recorded: these notes cannot have been signed then';
	return undefined;
}
