/**
 * The "FHIR Transaction Bundle for the EHR" output: one item per visit holding one FHIR R4
 * `transaction` Bundle, ready to POST to an EHR's FHIR base URL ([FHIR-R4] http.html#transaction),
 * built from the service's FHIR output when the visit has one, otherwise from the EMR template's
 * JSON. Every entry has a fullUrl and every reference resolves: to an entry of the bundle, or to
 * the Patient / Practitioner the user named as already in the EHR. A visit with no notes yet is
 * never an empty bundle: `planFhirOutput` and `buildFhirOutput` answer a problem instead.
 *
 * Two steps, so the caller can fetch what the choices need in between (the patient directory
 * profile, the clinic's doctors) and this file stays pure.
 */
import type { Composition, CompositionSection, Encounter, Resource } from '@medplum/fhirtypes';
import type { IDataObject } from 'n8n-workflow';

import type { CodeLookup } from '../answers/medLinkTerms';
import type { DecodedTemplate, SessionResults } from '../answers/sessionResults';
import { asRecord, isRecord } from '../values';
import { addCodes, type CodingOutcome, type CodingSettings } from './codes';
import { emrPrescription } from './emrDocument';
import type { EmrContext, MappedResource } from './emrContext';
import { mapEmrDocument } from './emrSections';
import { uuidUrl, visitResourceId, type VisitKey } from './ids';
import {
	resolvePatient,
	resolvePractitioner,
	type Participant,
	type PatientChoice,
	type PractitionerChoice,
} from './participants';
import { fhirDateTime, type BundleEntry } from './resources';
import { SECTION_ORDER, SECTIONS } from './sections';
import { renderReviewDocument } from './reviewDocument';
import { repairServiceBundle } from './serviceBundle';
import { signingTimeProblem, signVisitEntries, type NotesSignature } from './signature';
import { normalisedNotes, signedNotesDocument } from './signedNotes';
import { transactionLimitProblem, type EhrTransactionLimits } from './transactionLimits';

export interface FhirOutputSettings {
	patient: PatientChoice;
	practitioner: PractitionerChoice;
	/** Set only when the doctor approved the notes: the bundle files them signed (signature.ts). */
	signature?: NotesSignature;
	/** The time zone the review document shows times in (the workflow's). */
	timeZone?: string;
	/** Set when FHIR Options → Add Codes is on: the terms are coded with MedLink (codes.ts). */
	coding?: CodingSettings;
	/** The EHR's limits on one transaction (transactionLimits.ts); none known by default. */
	transactionLimits?: EhrTransactionLimits;
}

/** Why no bundle was made: what to show the user. `notReady`: the visit has no notes (yet). */
export interface FhirProblem {
	message: string;
	description: string;
	notReady: boolean;
}

/** The EMR template's ids in both API variants ([IFD §2.5] `svc_emr_template`, [EKA-V2] `eka_emr_template`). */
const EMR_TEMPLATE_IDS = ['svc_emr_template', 'eka_emr_template'];

/**
 * Whether a template asked for at upload gives what the FHIR output is built from: the EMR
 * template, or a FHIR template (a template whose id says FHIR; its answer is read by its content,
 * a Bundle, whatever its id).
 */
export function isFhirSourceTemplate(templateId: string): boolean {
	return EMR_TEMPLATE_IDS.includes(templateId) || /fhir/i.test(templateId);
}

type Source =
	| { kind: 'service_fhir'; template: DecodedTemplate; bundle: Record<string, unknown> }
	| { kind: 'emr'; template: DecodedTemplate; prescription: Record<string, unknown> };

const WHAT_TO_DO =
	'The FHIR output is built from the EMR Format template (or a FHIR template). Add EMR Format under Upload Audio → Output Templates for the next recordings; for this one, Convert Transcript with Template "EMR Format" makes the EMR document from its transcript. Nothing was sent anywhere.';

function isServiceBundle(value: unknown): value is Record<string, unknown> {
	return isRecord(value) && value.resourceType === 'Bundle';
}

/** The document the bundle is made from: the service's FHIR first, then the EMR document. */
function sourceOf(results: SessionResults): Source | FhirProblem {
	const label = `Session "${results.sessionId}"`;
	if (results.status !== 'completed' && results.status !== 'partial') {
		const what = {
			processing: 'is still being processed, so it has no notes for the EHR yet',
			failed: 'failed, so it has no notes for the EHR',
			not_found: 'is not known to the clinic API, so it has no notes for the EHR',
			expired: 'expired before it was ended, so it has no notes for the EHR',
			cancelled: 'was cancelled, so it has no notes for the EHR',
		}[results.status];
		const next =
			results.status === 'processing'
				? 'Run this again once the transcription is done: turn on Wait for Completion, or start the workflow from the Clinic Scribe Trigger (Transcription Completed). No bundle was made, so nothing can reach the EHR early.'
				: 'No bundle was made. Check the session ID; a failed or cancelled recording must be uploaded again.';
		return { message: `${label} ${what}`, description: next, notReady: true };
	}
	const usable = results.templates.filter(
		(template) =>
			template.format === 'json' &&
			template.status !== 'failure' &&
			template.status !== 'in-progress',
	);
	// The older status answer's `data.output.fhir` ([IFD §4.8]) and FHIR templates alike: a Bundle.
	const fhir = usable.find((template) => isServiceBundle(template.value));
	if (fhir)
		return { kind: 'service_fhir', template: fhir, bundle: fhir.value as Record<string, unknown> };
	const emr = usable.find(
		(template) =>
			EMR_TEMPLATE_IDS.includes(template.templateId) ||
			isRecord(asRecord(template.value)?.prescription),
	);
	if (emr) {
		const prescription = emrPrescription(emr.value);
		if (prescription) return { kind: 'emr', template: emr, prescription };
	}
	const failedEmr = results.templates.find(
		(template) =>
			EMR_TEMPLATE_IDS.includes(template.templateId) || isFhirSourceTemplate(template.templateId),
	);
	if (failedEmr) {
		const why =
			failedEmr.status === 'failure'
				? 'failed'
				: failedEmr.status === 'in-progress'
					? 'is still being made'
					: failedEmr.format === 'text'
						? 'is text, not JSON'
						: 'is empty';
		return {
			message: `${label} has no EMR or FHIR document to build the FHIR bundle from: its ${failedEmr.name || failedEmr.templateId} (${failedEmr.templateId}) ${why}`,
			description: WHAT_TO_DO,
			notReady: true,
		};
	}
	const held = results.templates.map((template) => template.templateId);
	return {
		message: `${label} has no EMR or FHIR document to build the FHIR bundle from${held.length > 0 ? ` (it holds ${held.join(', ')})` : ''}`,
		description: WHAT_TO_DO,
		notReady: true,
	};
}

/** What must be fetched before the bundle can be built, or why none can be. */
type FhirPlan =
	| { ok: true; directoryPatientId?: string; clinicDoctorId?: string }
	| { ok: false; problem: FhirProblem };

export function planFhirOutput(results: SessionResults, settings: FhirOutputSettings): FhirPlan {
	const source = sourceOf(results);
	if ('message' in source) return { ok: false, problem: source };
	const patient = resolvePatient(settings.patient, results);
	if (!patient.ok) return { ok: false, problem: choiceProblem(patient.problem, 'Patient') };
	const practitioner = resolvePractitioner(settings.practitioner, results);
	if (!practitioner.ok)
		return { ok: false, problem: choiceProblem(practitioner.problem, 'Doctor') };
	const plan: FhirPlan = { ok: true };
	if ('needsDirectoryProfile' in patient) plan.directoryPatientId = patient.needsDirectoryProfile;
	if ('needsClinicDoctor' in practitioner) plan.clinicDoctorId = practitioner.needsClinicDoctor;
	return plan;
}

function choiceProblem(problem: string, field: 'Patient' | 'Doctor'): FhirProblem {
	const advice =
		field === 'Patient'
			? 'Give the patient another way under Patient (an EHR Patient ID, an identifier, or a Directory Patient ID), or name the patient when uploading (Upload Audio → Additional Data {"patient": {"oid": "<directory patient ID>"}}).'
			: 'Choose the doctor another way under Doctor (a doctor of the clinic, or an EHR Practitioner ID), or name the doctor when uploading (Upload Audio → Additional Data {"doctor": {"_id": "<doctor ID>"}}).';
	return { message: problem, description: `${advice} No bundle was made.`, notReady: false };
}

/** What the caller fetched for the plan. */
export interface FhirFetched {
	directoryProfile?: Record<string, unknown>;
	clinicDoctors?: unknown[];
	/** MedLink's answers for the terms codes.ts `termsToCode` lists (with Add Codes). */
	codes?: CodeLookup;
}

/** Adjustments in words, each once, with how many times it happened. */
class Adjustments {
	private readonly counts = new Map<string, number>();
	add(message: string): void {
		this.counts.set(message, (this.counts.get(message) ?? 0) + 1);
	}
	list(): string[] {
		return [...this.counts].map(([message, count]) =>
			count > 1 ? `${message} (×${count})` : message,
		);
	}
}

/** The visit's Encounter: an ambulatory visit (R4 requires a class; AMB is the outpatient one). */
function encounterOf(
	id: string,
	results: SessionResults,
	patient: Participant,
	practitioner: Participant,
	recorded: string | undefined,
): Encounter {
	const encounter: Encounter = {
		resourceType: 'Encounter',
		id,
		// The service's own name for a visit's id ([EKA-FHIR-EXAMPLE] care_context_id), so the EHR can find it by session.
		identifier: [{ system: 'https://www.eka.care/care_context_id', value: results.sessionId }],
		status: 'finished',
		class: {
			system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode',
			code: 'AMB',
			display: 'ambulatory',
		},
		subject: { reference: patient.reference },
		participant: [{ individual: { reference: practitioner.reference } }],
	};
	if (recorded) encounter.period = { start: recorded };
	return encounter;
}

/**
 * The bundle and its item. `now` dates the Composition when the session gives no time of its own.
 */
export function buildFhirOutput(
	results: SessionResults,
	settings: FhirOutputSettings,
	fetched: FhirFetched,
	now: string = new Date().toISOString(),
): { ok: true; record: IDataObject } | { ok: false; problem: FhirProblem } {
	const source = sourceOf(results);
	if ('message' in source) return { ok: false, problem: source };
	const patientResolution = resolvePatient(settings.patient, results, fetched.directoryProfile);
	if (!patientResolution.ok)
		return { ok: false, problem: choiceProblem(patientResolution.problem, 'Patient') };
	const practitionerResolution = resolvePractitioner(
		settings.practitioner,
		results,
		fetched.clinicDoctors,
	);
	if (!practitionerResolution.ok)
		return { ok: false, problem: choiceProblem(practitionerResolution.problem, 'Doctor') };
	if (!('patient' in patientResolution) || !('practitioner' in practitionerResolution)) {
		throw new Error('buildFhirOutput: fetch what planFhirOutput asks for first');
	}
	const patient = patientResolution.patient;
	const practitioner = practitionerResolution.practitioner;

	const visit: VisitKey = { sessionId: results.sessionId, patientKey: patient.key };
	const idFor = (resourceType: string, place: string) =>
		visitResourceId(visit, resourceType, place);
	const encounterId = idFor('Encounter', 'encounter');
	const compositionId = idFor('Composition', 'composition');
	const recorded = fhirDateTime(results.createdAt);
	const adjustments = new Adjustments();
	const references = {
		patient: { reference: patient.reference },
		practitioner: { reference: practitioner.reference },
		encounter: { reference: uuidUrl(encounterId) },
	};

	let mapped: MappedResource[];
	let notMapped: string[] = [];
	if (source.kind === 'emr') {
		const ctx: EmrContext = { ...references, adjust: (message) => adjustments.add(message) };
		if (recorded) ctx.recorded = recorded;
		const mapping = mapEmrDocument(source.prescription, ctx);
		mapped = mapping.resources;
		notMapped = mapping.notMapped;
	} else {
		mapped = repairServiceBundle(source.bundle, {
			...references,
			idFor,
			adjust: (message) => adjustments.add(message),
		});
	}
	if (source.template.status === 'partial_success')
		adjustments.add(
			`the ${source.template.name || source.template.templateId} was only partly produced: the bundle holds what it has`,
		);
	if (mapped.length === 0) {
		return {
			ok: false,
			problem: {
				message: `Session "${results.sessionId}"'s ${source.kind === 'emr' ? 'EMR document' : 'FHIR bundle'} holds no clinical section the FHIR bundle can carry`,
				description: `${notMapped.length > 0 ? `It holds only ${notMapped.join(', ')}, which are not mapped (docs/fhir.md). ` : ''}No bundle was made, so nothing empty reaches the EHR.`,
				notReady: true,
			},
		};
	}

	const entries: BundleEntry[] = [];
	for (const participant of [patient, practitioner])
		if (participant.entry) entries.push(participant.entry);
	entries.push(putEntry(encounterOf(encounterId, results, patient, practitioner, recorded)));
	const sections = new Map<string, string[]>();
	for (const item of mapped) {
		const { resourceType } = item.resource;
		const id = source.kind === 'emr' ? idFor(resourceType, item.place) : String(item.resource.id);
		// The id after the type; a service resource already carries it (serviceBundle.ts): the same value.
		const entry = putEntry(Object.assign({ resourceType, id }, item.resource, { id }));
		entries.push(entry);
		sections.set(item.section, [...(sections.get(item.section) ?? []), entry.fullUrl]);
	}
	const sectionList: CompositionSection[] = SECTION_ORDER.filter((key) => sections.has(key)).map(
		(key) => ({
			title: SECTIONS[key],
			entry: sections.get(key)!.map((reference) => ({ reference })),
		}),
	);
	const composition: Composition = {
		resourceType: 'Composition',
		id: compositionId,
		status: 'preliminary',
		type: {
			coding: [{ system: 'http://loinc.org', code: '11488-4', display: 'Consult note' }],
			text: 'Consultation note',
		},
		subject: references.patient,
		encounter: references.encounter,
		date: recorded ?? now,
		author: [
			practitioner.display
				? { ...references.practitioner, display: practitioner.display }
				: references.practitioner,
		],
		title: 'Consultation note',
		section: sectionList,
	};
	if (!recorded)
		adjustments.add(
			'the session gave no time of its own: the Composition is dated when the bundle was made',
		);
	entries.push(putEntry(composition));
	let coding: CodingOutcome | undefined;
	if (settings.coding && fetched.codes)
		coding = addCodes(entries, fetched.codes, settings.coding, (message) =>
			adjustments.add(message),
		);

	const { signature } = settings;
	if (signature) {
		const problem = signingTimeProblem(signature.signedAt, recorded, Date.parse(now));
		if (problem)
			return {
				ok: false,
				problem: {
					message: `Signed At ${problem}`,
					description:
						'Nothing was signed and no bundle was made: set Signed At to the time the doctor approved these notes (the approval step gives it, or {{ $now.toISO() }} right after it).',
					notReady: false,
				},
			};
	}
	let edited = signature?.edited ?? false;
	let notesFiled: IDataObject | undefined;
	const notes = normalisedNotes(signature?.notes ?? '');
	if (signature && notes !== '') {
		// What the doctor signed is filed too; text that differs from the review's notes was edited.
		const reviewed = normalisedNotes(renderReviewDocument({ entry: entries }).notes);
		const signedNotes = signedNotesDocument(notes, {
			...references,
			id: idFor('DocumentReference', 'notes-as-signed'),
			signedAt: signature.signedAt,
		});
		entries.splice(entries.length - 1, 0, signedNotes.entry);
		// The Composition's sections are sectionList itself: the item's `sections` names it too.
		sectionList.push(signedNotes.section);
		edited ||= notes !== reviewed;
		notesFiled = { notes, document_reference: signedNotes.entry.request.url };
	}
	const filed = signature ? signVisitEntries(entries, references.practitioner, signature) : entries;
	const beyondLimits = transactionLimitProblem(filed, settings.transactionLimits);
	if (beyondLimits) return { ok: false, problem: { ...beyondLimits, notReady: false } };
	const bundle = { resourceType: 'Bundle', type: 'transaction', entry: filed };
	const counts: Record<string, number> = {};
	for (const entry of filed)
		counts[entry.resource.resourceType] = (counts[entry.resource.resourceType] ?? 0) + 1;
	const record: IDataObject = {
		session_id: results.sessionId,
		status: results.status,
		bundle: bundle as unknown as IDataObject,
		source: source.kind,
		source_template_id: source.template.templateId,
		patient: patient.search,
		practitioner: practitioner.search,
		encounter: `Encounter/${encounterId}`,
		composition: `Composition/${compositionId}`,
		notes_status: signature ? 'final' : 'preliminary',
		entry_count: filed.length,
		resource_counts: counts,
		sections: sectionList.map((section) => section.title),
		not_mapped: notMapped,
		adjustments: adjustments.list(),
		...(coding && settings.coding
			? {
					coding: {
						codes_added: coding.added,
						terms_uncoded: coding.uncoded,
						min_score: settings.coding.minScore,
					},
				}
			: {}),
		// What the doctor reads before signing, rendered from this very bundle.
		review: {
			...renderReviewDocument(bundle, { clinic: clinicOf(results), timeZone: settings.timeZone }),
		},
	};
	if (signature) {
		const provenance = filed[filed.length - 1].resource;
		// The audit trail: who signed, when, how, and whether the notes were corrected first.
		record.signature = {
			signed_by: practitioner.search,
			signed_by_name: practitioner.display ?? null,
			signed_at: signature.signedAt,
			channel: signature.channel,
			edited,
			provenance: `Provenance/${String(provenance.id)}`,
			...notesFiled,
		};
	}
	return { ok: true, record };
}

/** The clinic's name, when the session's additional data names it (`clinic.name` or `clinic_name`). */
function clinicOf(results: SessionResults): string | undefined {
	const data = asRecord(results.additionalData);
	const clinic = asRecord(data?.clinic)?.name ?? data?.clinic_name;
	return typeof clinic === 'string' && clinic.trim() !== '' ? clinic.trim() : undefined;
}

/** An entry written with PUT at its derived id: sending it again updates it ([FHIR-R4] http.html#update). */
function putEntry(resource: Resource): BundleEntry {
	const id = String(resource.id);
	return {
		fullUrl: uuidUrl(id),
		resource,
		request: { method: 'PUT', url: `${resource.resourceType}/${id}` },
	};
}

/** The entries of the bundle an output record holds. */
export function bundleEntries(record: IDataObject): BundleEntry[] {
	const entries = asRecord(record.bundle)?.entry;
	return Array.isArray(entries) ? (entries as BundleEntry[]) : [];
}
