/**
 * The service's own FHIR output, repaired so an EHR can load it ([EKA-FHIR-EXAMPLE] as published
 * cannot be: a `batch` with no Patient, no Encounter, `Patient/dummy_patient_oid`, `Practitioner/`
 * with an empty id, no fullUrls, verification statuses from the clinical-status system):
 *
 * - its Patient, Practitioner, Encounter and Composition are replaced by the chosen patient and
 *   doctor and the visit's own Encounter and Composition; every reference to a patient, a doctor
 *   or a visit points at those;
 * - every other resource gets a derived id and a fullUrl, and references between its resources
 *   follow them; a reference to something the bundle does not hold is removed (and said so);
 * - codes of required bindings are checked against R4's value sets (valueSets.ts): mapped when the
 *   meaning is clear (`suspected` → `unconfirmed`), otherwise an optional element is removed and
 *   its words kept in a note, and a resource whose required status is no FHIR status is left out.
 *
 * Pure: the ids come from the caller (`idFor`), so both mappings derive them the same way.
 */
import type { Resource } from '@medplum/fhirtypes';

import { asRecord, isRecord, textOf } from '../values';
import type { MappedResource } from './emrContext';
import { ENCOUNTER_ELEMENT, PATIENT_ELEMENT, type Reference } from './resources';
import { sectionOf } from './emrSections';
import {
	ALLERGY_CATEGORY,
	ALLERGY_CLINICAL,
	ALLERGY_CRITICALITY,
	ALLERGY_TYPE,
	ALLERGY_VERIFICATION,
	APPOINTMENT_STATUS,
	CARE_PLAN_INTENT,
	codeIn,
	CONDITION_CLINICAL,
	CONDITION_VERIFICATION,
	EVENT_STATUS,
	EVENT_TIMING,
	HISTORY_STATUS,
	MEDICATION_REQUEST_INTENT,
	MEDICATION_REQUEST_STATUS,
	MEDICATION_STATEMENT_STATUS,
	OBSERVATION_STATUS,
	PARTICIPATION_STATUS,
	REQUEST_INTENT,
	REQUEST_STATUS,
	UNITS_OF_TIME,
	type ValueSet,
} from './valueSets';

interface RepairContext {
	patient: Reference;
	practitioner: Reference;
	encounter: Reference;
	/** The derived id of a resource of the visit (ids.ts `visitResourceId`). */
	idFor(resourceType: string, place: string): string;
	adjust(message: string): void;
}

/** Replaced by the visit's own: never copied from the service's bundle. */
const REPLACED = ['Patient', 'Practitioner', 'PractitionerRole', 'Encounter', 'Composition'];

/**
 * A resource of the service's bundle as it is repaired: JSON that names its type. It is R4 once
 * repaired (the EHR checks every write); until then any element may be missing or wrong.
 */
type ServiceResource = Record<string, unknown> & { resourceType: string; id?: string };

/** Where a reference of these types goes, whatever id the service wrote. */
type ParticipantRefs = Readonly<Record<string, Reference>>;

export function repairServiceBundle(
	bundle: Record<string, unknown>,
	ctx: RepairContext,
): MappedResource[] {
	const entries = Array.isArray(bundle.entry) ? bundle.entry : [];
	const kept: Array<{ place: string; resource: ServiceResource; fullUrl: string }> = [];
	const renamed = new Map<string, string>();
	const replaced = new Map<string, number>();
	entries.forEach((entry, index) => {
		const record = asRecord(entry);
		const source = asRecord(record?.resource);
		const type = textOf(source?.resourceType);
		if (!record || !source || !type) {
			ctx.adjust("entries of the service's bundle without a resource left out");
			return;
		}
		if (REPLACED.includes(type)) {
			replaced.set(type, (replaced.get(type) ?? 0) + 1);
			return;
		}
		const oldId = textOf(source.id);
		const place = `service/${type}/${oldId ?? `entry-${index}`}`;
		const id = ctx.idFor(type, place);
		const fullUrl = `urn:uuid:${id}`;
		if (oldId) renamed.set(`${type}/${oldId}`, fullUrl);
		const oldUrl = textOf(record.fullUrl);
		if (oldUrl) renamed.set(oldUrl, fullUrl);
		// A copy: the decoded document stays as the service sent it.
		const resource = JSON.parse(JSON.stringify(source)) as ServiceResource;
		resource.id = id;
		const meta = asRecord(resource.meta);
		if (meta) {
			// The service's version and time are not this EHR's.
			delete meta.versionId;
			delete meta.lastUpdated;
			if (Object.keys(meta).length === 0) delete resource.meta;
		}
		kept.push({ place, resource, fullUrl });
	});
	for (const [type, count] of replaced)
		ctx.adjust(`the service's ${type} (${count}) replaced by the visit's own`);

	const participants: ParticipantRefs = {
		Patient: ctx.patient,
		Practitioner: ctx.practitioner,
		PractitionerRole: ctx.practitioner,
		Encounter: ctx.encounter,
	};
	const mapped: MappedResource[] = [];
	for (const { place, resource } of kept) {
		rewriteReferences(resource, renamed, participants, ctx);
		linkToVisit(resource, ctx);
		if (!repairCodes(resource, ctx)) continue;
		const repaired = resource as Resource;
		mapped.push({ section: sectionOf(repaired), place, resource: repaired });
	}
	return mapped;
}

/** The resource type a reference names: `Patient/x`, `http://host/fhir/Patient/x`, or none. */
function typeOfReference(reference: string): string | undefined {
	const match = /(?:^|\/)([A-Z][A-Za-z]+)\/[^/]*(?:\/_history\/[^/]*)?$/.exec(reference);
	return match?.[1];
}

/**
 * Every Reference in the resource: to another resource of the bundle → its new fullUrl; to a
 * patient, doctor or visit → the chosen ones; to anything else → removed (it would dangle).
 */
function rewriteReferences(
	resource: ServiceResource,
	renamed: Map<string, string>,
	participants: ParticipantRefs,
	ctx: RepairContext,
): void {
	const visit = (value: unknown, path: string): 'keep' | 'remove' => {
		if (Array.isArray(value)) {
			for (let index = value.length - 1; index >= 0; index--)
				if (visit(value[index], path) === 'remove') value.splice(index, 1);
			return 'keep';
		}
		if (!isRecord(value)) return 'keep';
		if (typeof value.reference === 'string') {
			const reference = value.reference.trim();
			if (reference.startsWith('#')) return 'keep';
			const inBundle =
				renamed.get(reference) ?? renamed.get(reference.split('/').slice(-2).join('/'));
			if (inBundle) {
				value.reference = inBundle;
				return 'keep';
			}
			const type = typeOfReference(reference);
			const participant = type ? participants[type] : undefined;
			if (participant) {
				if (reference !== participant.reference)
					ctx.adjust(
						`references to "${reference}" now point at the visit's ${type === 'Encounter' ? 'encounter' : type === 'Patient' ? 'patient' : 'doctor'}`,
					);
				value.reference = participant.reference;
				// The service's display names its placeholder ("dummy_patient"), not the chosen one.
				if (participant.display) value.display = participant.display;
				else delete value.display;
				return 'keep';
			}
			ctx.adjust(
				`${resource.resourceType}.${path}: reference "${reference}" names nothing in the bundle, removed`,
			);
			return 'remove';
		}
		for (const [key, inner] of Object.entries(value)) {
			if (visit(inner, key) === 'remove') delete value[key];
			else if (Array.isArray(inner) && inner.length === 0 && key !== 'entry') delete value[key];
		}
		return 'keep';
	};
	for (const [key, inner] of Object.entries(resource)) {
		if (visit(inner, key) === 'remove') delete resource[key];
		else if (Array.isArray(inner) && inner.length === 0) delete resource[key];
	}
}

/** A resource the service left without its patient or visit gets the chosen ones (R4 requires the patient). */
function linkToVisit(resource: ServiceResource, ctx: RepairContext): void {
	const patientElement = PATIENT_ELEMENT[resource.resourceType];
	if (patientElement && resource[patientElement] === undefined)
		resource[patientElement] = { ...ctx.patient };
	const encounterElement = ENCOUNTER_ELEMENT[resource.resourceType];
	if (encounterElement && resource[encounterElement] === undefined)
		resource[encounterElement] = { ...ctx.encounter };
	if (resource.resourceType === 'Appointment') {
		const participants = Array.isArray(resource.participant) ? resource.participant : [];
		const hasPatient = participants.some(
			(participant) => asRecord(asRecord(participant)?.actor)?.reference === ctx.patient.reference,
		);
		if (!hasPatient)
			resource.participant = [
				...participants,
				{ actor: { ...ctx.patient }, status: 'needs-action' },
			];
	}
}

type CodedElement = {
	path: string;
	valueSet: ValueSet;
	kind: 'concept' | 'code' | 'codes';
	required?: true;
};

/** The elements of required bindings the service's resources carry ([FHIR-R4] each resource's terminology bindings). */
const CODED_ELEMENTS: Readonly<Record<string, CodedElement[]>> = {
	Condition: [
		{ path: 'clinicalStatus', valueSet: CONDITION_CLINICAL, kind: 'concept' },
		{ path: 'verificationStatus', valueSet: CONDITION_VERIFICATION, kind: 'concept' },
	],
	AllergyIntolerance: [
		{ path: 'clinicalStatus', valueSet: ALLERGY_CLINICAL, kind: 'concept' },
		{ path: 'verificationStatus', valueSet: ALLERGY_VERIFICATION, kind: 'concept' },
		{ path: 'category', valueSet: ALLERGY_CATEGORY, kind: 'codes' },
		{ path: 'criticality', valueSet: ALLERGY_CRITICALITY, kind: 'code' },
		{ path: 'type', valueSet: ALLERGY_TYPE, kind: 'code' },
	],
	Observation: [{ path: 'status', valueSet: OBSERVATION_STATUS, kind: 'code', required: true }],
	MedicationRequest: [
		{ path: 'status', valueSet: MEDICATION_REQUEST_STATUS, kind: 'code', required: true },
		{ path: 'intent', valueSet: MEDICATION_REQUEST_INTENT, kind: 'code', required: true },
		{ path: 'dosageInstruction[].timing.repeat.periodUnit', valueSet: UNITS_OF_TIME, kind: 'code' },
		{
			path: 'dosageInstruction[].timing.repeat.durationUnit',
			valueSet: UNITS_OF_TIME,
			kind: 'code',
		},
		{ path: 'dosageInstruction[].timing.repeat.when', valueSet: EVENT_TIMING, kind: 'codes' },
	],
	MedicationStatement: [
		{ path: 'status', valueSet: MEDICATION_STATEMENT_STATUS, kind: 'code', required: true },
	],
	ServiceRequest: [
		{ path: 'status', valueSet: REQUEST_STATUS, kind: 'code', required: true },
		{ path: 'intent', valueSet: REQUEST_INTENT, kind: 'code', required: true },
	],
	CarePlan: [
		{ path: 'status', valueSet: REQUEST_STATUS, kind: 'code', required: true },
		{ path: 'intent', valueSet: CARE_PLAN_INTENT, kind: 'code', required: true },
	],
	Appointment: [
		{ path: 'status', valueSet: APPOINTMENT_STATUS, kind: 'code', required: true },
		{ path: 'participant[].status', valueSet: PARTICIPATION_STATUS, kind: 'code', required: true },
	],
	FamilyMemberHistory: [{ path: 'status', valueSet: HISTORY_STATUS, kind: 'code', required: true }],
	Procedure: [{ path: 'status', valueSet: EVENT_STATUS, kind: 'code', required: true }],
};

/** Codings of these systems may carry a misplaced status code (the service's clinical-status one). */
const HL7_SYSTEMS = /^http:\/\/(terminology\.hl7\.org\/CodeSystem\/|hl7\.org\/fhir\/)/;

/** Checks and repairs the resource's coded elements; false when it must be left out. */
function repairCodes(resource: ServiceResource, ctx: RepairContext): boolean {
	for (const element of CODED_ELEMENTS[resource.resourceType] ?? []) {
		const label = `${resource.resourceType}.${element.path.replace(/\[\]/g, '')}`;
		let keep = true;
		eachElement(resource, element.path.split('.'), (parent, key) => {
			const outcome = repairElement(parent, key, element, label, ctx);
			if (outcome === 'drop-resource') keep = false;
			else if (outcome) {
				const note = Array.isArray(resource.note) ? resource.note : [];
				resource.note = [...note, { text: outcome }];
			}
		});
		if (!keep) {
			ctx.adjust(`${resource.resourceType} left out: its required ${label} is no FHIR code`);
			return false;
		}
	}
	return true;
}

/** Calls `visit` with each parent object holding the last segment of `path` (`a[].b`: every a's b). */
function eachElement(
	root: Record<string, unknown>,
	path: string[],
	visit: (parent: Record<string, unknown>, key: string) => void,
): void {
	const [head, ...rest] = path;
	const key = head.replace(/\[\]$/, '');
	if (rest.length === 0) {
		if (root[key] !== undefined) visit(root, key);
		return;
	}
	const value = root[key];
	for (const inner of Array.isArray(value) ? value : [value])
		if (isRecord(inner)) eachElement(inner, rest, visit);
}

/**
 * One coded element: repaired in place. Returns 'drop-resource' when a required element has no FHIR
 * code, a note's text when an optional one was removed, or undefined.
 */
function repairElement(
	parent: Record<string, unknown>,
	key: string,
	element: CodedElement,
	label: string,
	ctx: RepairContext,
): 'drop-resource' | string | undefined {
	const value = parent[key];
	if (element.kind === 'code') {
		const code = codeIn(element.valueSet, value);
		if (code) {
			if (code !== value) ctx.adjust(`${label} "${String(value)}" → "${code}"`);
			parent[key] = code;
			return undefined;
		}
		if (element.required) return 'drop-resource';
		delete parent[key];
		ctx.adjust(`${label} "${String(value)}" is no FHIR code: removed, kept as a note`);
		return `${label}: ${String(value)}`;
	}
	if (element.kind === 'codes') {
		const list = Array.isArray(value) ? value : [value];
		const codes = list.map((entry) => codeIn(element.valueSet, entry));
		const unknown = list.filter((_, index) => !codes[index]);
		const known = [...new Set(codes.filter((code): code is string => code !== undefined))];
		if (known.length > 0) parent[key] = known;
		else delete parent[key];
		if (unknown.length === 0) return undefined;
		ctx.adjust(
			`${label} ${unknown.map((entry) => `"${String(entry)}"`).join(', ')} no FHIR code: removed, kept as a note`,
		);
		return `${label}: ${unknown.map(String).join(', ')}`;
	}
	return repairConcept(parent, key, element.valueSet, label, ctx);
}

/** A CodeableConcept of a required binding: its first coding that maps, in the right system with R4's display. */
function repairConcept(
	parent: Record<string, unknown>,
	key: string,
	valueSet: ValueSet,
	label: string,
	ctx: RepairContext,
): string | undefined {
	const concept = asRecord(parent[key]) ?? {};
	const codings = (Array.isArray(concept.coding) ? concept.coding : []).filter(isRecord);
	for (const coding of codings) {
		const system = textOf(coding.system);
		if (system && system !== valueSet.system && !HL7_SYSTEMS.test(system)) continue;
		const code = codeIn(valueSet, coding.code);
		if (!code) continue;
		if (code !== coding.code || system !== valueSet.system) {
			ctx.adjust(
				`${label} "${String(coding.code)}" of ${system ?? 'no system'} → "${code}" of ${valueSet.system ?? ''}`,
			);
		}
		const repaired: Record<string, unknown> = {
			coding: [{ system: valueSet.system, code, display: valueSet.codes[code] }],
		};
		if (textOf(concept.text)) repaired.text = concept.text;
		parent[key] = repaired;
		return undefined;
	}
	const said =
		textOf(concept.text) ??
		codings.map((coding) => textOf(coding.display) ?? textOf(coding.code)).find(Boolean);
	delete parent[key];
	ctx.adjust(`${label} "${said ?? ''}" is no FHIR code: removed, kept as a note`);
	return said ? `${label}: ${said}` : undefined;
}
