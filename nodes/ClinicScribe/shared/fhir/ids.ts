/**
 * The ids of a visit's FHIR resources: derived, never random, so sending the same visit's bundle
 * again updates what the first send stored instead of adding a second copy.
 *
 * An id is a name-based UUID (version 5, [RFC4122 §4.3]) of the visit's session id, the patient the
 * bundle is for, the resource type and the resource's place in the notes. The patient is part of
 * the name on purpose: two visits that happen to share a session id (two workspaces may both call
 * a visit "visit-0042") but belong to different patients get different ids, so a PUT can never move
 * one patient's record onto another. The price: a visit sent again for another patient (after a
 * wrong choice) gets new resources; the first ones stay on the first patient until removed.
 * Pure: only node:crypto.
 */
import { createHash } from 'node:crypto';

/** The package's own namespace for name-based UUIDs (a fixed random UUID). */
const NAMESPACE = 'fe17f4df-39fb-4759-9605-0b9133b8b7fc';

/** A FHIR id: letters, digits, '-' and '.', 1 to 64 of them ([FHIR-R4] datatypes.html#id). */
const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;

export function isFhirId(value: string): boolean {
	return FHIR_ID.test(value);
}

/** The version-5 (name-based, SHA-1) UUID of `name` in `namespace` ([RFC4122 §4.3]). */
export function uuidV5(namespace: string, name: string): string {
	const hash = createHash('sha1')
		.update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
		.update(name, 'utf8')
		.digest();
	const bytes = hash.subarray(0, 16);
	bytes[6] = (bytes[6] & 0x0f) | 0x50;
	bytes[8] = (bytes[8] & 0x3f) | 0x80;
	const hex = bytes.toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A UUID of `parts` in the package's namespace: the same parts always give the same UUID. */
export function nameBasedUuid(parts: readonly string[]): string {
	// JSON keeps the parts apart: ["a-b","c"] and ["a","b-c"] never meet.
	return uuidV5(NAMESPACE, JSON.stringify(parts));
}

/** What every id of one visit's bundle is derived from. */
export interface VisitKey {
	sessionId: string;
	/** The patient the bundle is for, as a stable key (see participants.ts `patientKey`). */
	patientKey: string;
}

/** The id of one of the visit's resources: `place` names it within the notes ("symptoms/0", "encounter"). */
export function visitResourceId(visit: VisitKey, resourceType: string, place: string): string {
	return nameBasedUuid(['visit', visit.sessionId, visit.patientKey, resourceType, place]);
}

/** The fullUrl of a bundle entry whose resource has the given UUID. */
export function uuidUrl(uuid: string): string {
	return `urn:uuid:${uuid}`;
}
