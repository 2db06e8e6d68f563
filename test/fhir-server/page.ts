/**
 * The pages a person reads to see what the local EHR holds (not FHIR; plain HTML):
 *   /                        every type held with its count and search URL, and the patients
 *   /view/Patient/<id>       one patient: every resource that refers to them, grouped by type,
 *                            as readable text, with links to the JSON and to search URLs
 * Everything shown is escaped; the text is the records' own (Hindi or any other script intact).
 */
import { getSearchParameters } from '@medplum/core';
import type { CodeableConcept, HumanName, Patient, Resource } from '@medplum/fhirtypes';

import { referencesIn } from './references';
import { referenceKey, type EhrRepository } from './repository';

/** The clinical types first, in the order a clinician reads a visit; others follow alphabetically. */
const TYPE_ORDER = [
	'Composition',
	'Encounter',
	'Condition',
	'Observation',
	'AllergyIntolerance',
	'MedicationRequest',
	'ServiceRequest',
	'CarePlan',
	'FamilyMemberHistory',
	'Appointment',
];

export function indexPage(repo: EhrRepository, fhirBasePath: string): string {
	const counts = Object.entries(repo.counts()).sort(([a], [b]) => a.localeCompare(b));
	const patients = [...repo.allResources()].filter(
		(r): r is Patient => r.resourceType === 'Patient',
	);
	const body = [
		`<h1>Local FHIR EHR</h1>`,
		`<p class="note">FHIR R4 base: <code>${esc(fhirBasePath)}</code> · in memory, emptied when the server stops · <a href="${esc(fhirBasePath)}/metadata">CapabilityStatement</a></p>`,
		`<h2>Patients (${patients.length})</h2>`,
		patients.length === 0
			? '<p>No patient yet. POST a transaction Bundle to the FHIR base.</p>'
			: `<ul>${patients.map((p) => `<li><a href="/view/Patient/${esc(p.id ?? '')}">${esc(nameOf(p.name) || `Patient/${p.id}`)}</a> <span class="muted">${esc(identifiers(p))}</span></li>`).join('')}</ul>`,
		`<h2>Resources held</h2>`,
		counts.length === 0
			? '<p>Nothing yet.</p>'
			: `<table><tr><th>Type</th><th>Count</th><th>Search</th></tr>${counts
					.map(
						([type, n]) =>
							`<tr><td>${esc(type)}</td><td>${n}</td><td><a href="${esc(`${fhirBasePath}/${type}`)}"><code>${esc(`${fhirBasePath}/${type}`)}</code></a></td></tr>`,
					)
					.join('')}</table>`,
	];
	return page('Local FHIR EHR', body.join('\n'));
}

/** The patient's page, or undefined when the EHR holds no such patient. */
export function patientPage(
	repo: EhrRepository,
	id: string,
	fhirBasePath: string,
): string | undefined {
	const all = [...repo.allResources()];
	const patient = all.find((r) => r.resourceType === 'Patient' && r.id === id) as
		| Patient
		| undefined;
	if (!patient) return undefined;
	const key = referenceKey(patient);
	const linked = all.filter(
		(r) =>
			r !== patient &&
			referencesIn(r).some((ref) => ref.reference === key || ref.reference.endsWith(`/${key}`)),
	);
	// A Provenance names the visit's records, not the patient: shown with them (who signed, when).
	const visitKeys = new Set(linked.map(referenceKey));
	linked.push(
		...all.filter(
			(r) =>
				r.resourceType === 'Provenance' &&
				referencesIn(r).some((ref) => visitKeys.has(ref.reference)),
		),
	);
	const linkedKeys = new Set(linked.map(referenceKey));
	// Practitioners, organisations … the patient's records name, shown once below.
	const named = new Map<string, Resource>();
	for (const resource of linked) {
		for (const { reference } of referencesIn(resource)) {
			const target = all.find((r) => referenceKey(r) === reference);
			if (target && target !== patient && !linkedKeys.has(reference)) named.set(reference, target);
		}
	}
	const byType = new Map<string, Resource[]>();
	for (const resource of linked)
		byType.set(resource.resourceType, [...(byType.get(resource.resourceType) ?? []), resource]);
	const types = [...byType.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
	const search = (type: string) =>
		`${fhirBasePath}/${type}?${getSearchParameters(type)?.subject ? 'subject' : 'patient'}=${key}`;
	const byKey = new Map(all.map((r) => [referenceKey(r), r]));
	/** A reference as a person reads it: the name of what it points to, else its display, else itself. */
	const nameOfReference = (
		reference: { reference?: string; display?: string } | undefined,
	): string => {
		const target = reference?.reference ? byKey.get(reference.reference) : undefined;
		return (
			nameOf((target as { name?: HumanName[] } | undefined)?.name) ||
			reference?.display ||
			reference?.reference ||
			''
		);
	};
	const body = [
		`<p><a href="/">← everything the EHR holds</a></p>`,
		`<h1>${esc(nameOf(patient.name) || key)}</h1>`,
		`<p class="muted">${esc([key, patient.gender, patient.birthDate && `born ${patient.birthDate}`, identifiers(patient)].filter(Boolean).join(' · '))} · <a href="${esc(`${fhirBasePath}/${key}`)}">JSON</a></p>`,
		types.length === 0 ? '<p>No record refers to this patient yet.</p>' : '',
		...types.map((type) => {
			const resources = byType.get(type) ?? [];
			return `<section><h2>${esc(type)} (${resources.length}) <a class="small" href="${esc(search(type))}"><code>${esc(search(type))}</code></a></h2>${resources.map((r) => card(r, fhirBasePath, nameOfReference)).join('')}</section>`;
		}),
		named.size === 0
			? ''
			: `<section><h2>Named in these records</h2>${[...named.values()].map((r) => card(r, fhirBasePath, nameOfReference)).join('')}</section>`,
	];
	return page(`${nameOf(patient.name) || key} — Local FHIR EHR`, body.join('\n'));
}

function rank(type: string): number {
	const at = TYPE_ORDER.indexOf(type);
	return at === -1 ? TYPE_ORDER.length : at;
}

/** One resource as a heading, a few facts and its own narrative. */
function card(
	resource: Resource,
	fhirBasePath: string,
	nameOfReference: (reference: { reference?: string; display?: string } | undefined) => string,
): string {
	const r = resource as Record<string, any>;
	const facts: Array<[string, string]> = [
		['value', valueText(r)],
		[
			'components',
			(r.component ?? []).map((c: any) => `${concept(c.code)}: ${valueText(c)}`).join('; '),
		],
		['status', [r.status, r.docStatus, r.intent].filter(Boolean).join(', ')],
		[
			'signed',
			listOf(r.attester)
				.map((a: any) => `${a.mode ?? ''} attester ${nameOfReference(a.party)}, ${a.time ?? ''}`)
				.join('; '),
		],
		['codes', codesOf(r.code ?? r.medicationCodeableConcept)],
		['clinical status', concept(r.clinicalStatus)],
		['verification', concept(r.verificationStatus)],
		[
			'category',
			(Array.isArray(r.category) ? r.category : [])
				.map((c: any) => (typeof c === 'string' ? c : concept(c)))
				.join(', '),
		],
		['criticality', r.criticality ?? ''],
		[
			'when',
			r.effectiveDateTime ??
				r.onsetDateTime ??
				r.authoredOn ??
				r.recordedDate ??
				r.start ??
				r.date ??
				r.period?.start ??
				r.occurrenceDateTime ??
				r.recorded ??
				'',
		],
		[
			'dosage',
			(r.dosageInstruction ?? [])
				.map((d: any) => d.text)
				.filter(Boolean)
				.join('; '),
		],
		[
			'reaction',
			(r.reaction ?? []).flatMap((x: any) => (x.manifestation ?? []).map(concept)).join(', '),
		],
		['conditions', (r.condition ?? []).map((c: any) => concept(c.code)).join(', ')],
		[
			'activities',
			(r.activity ?? [])
				.map((a: any) => a.detail?.description ?? concept(a.detail?.code))
				.filter(Boolean)
				.join('; '),
		],
		[
			'sections',
			(r.section ?? [])
				.map((s: any) => `${s.title ?? concept(s.code)} (${(s.entry ?? []).length})`)
				.join(', '),
		],
		[
			'note',
			(r.note ?? [])
				.map((n: any) => n.text)
				.filter(Boolean)
				.join(' · '),
		],
		// `author` and `performer` are one Reference in some resources (CarePlan, MedicationRequest), a list in others.
		[
			'by',
			[
				r.requester,
				r.recorder,
				r.asserter,
				...listOf(r.author),
				...listOf(r.participant).map((p: any) => p.individual ?? p.actor),
				...listOf(r.performer).map((p: any) => p.actor ?? p),
				...listOf(r.agent).map((a: any) => a.who),
			]
				.map(nameOfReference)
				.filter(Boolean)
				.join(', '),
		],
	];
	const narrative =
		typeof r.text?.div === 'string'
			? r.text.div
					.replace(/<[^>]*>/g, ' ')
					.replace(/\s+/g, ' ')
					.trim()
			: '';
	const key = referenceKey(resource);
	return [
		`<div class="card"><div class="head">${esc(headingOf(r))} <a class="small" href="${esc(`${fhirBasePath}/${key}`)}">${esc(key)}</a></div>`,
		`<dl>${facts
			.filter(([, text]) => text)
			.map(([label, text]) => `<dt>${esc(label)}</dt><dd>${esc(text)}</dd>`)
			.join('')}</dl>`,
		narrative ? `<p class="narrative">${esc(narrative)}</p>` : '',
		`</div>`,
	].join('');
}

/** An element R4 makes a list in one resource and a single value in another, as a list. */
function listOf(value: unknown): any[] {
	return value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
}

function headingOf(r: Record<string, any>): string {
	return (
		r.title ||
		concept(r.code) ||
		concept(r.medicationCodeableConcept) ||
		r.medicationReference?.display ||
		r.description ||
		nameOf(r.name) ||
		concept(r.relationship) ||
		r.class?.display ||
		r.class?.code ||
		concept(r.type?.[0]) ||
		r.resourceType
	);
}

function valueText(r: Record<string, any>): string {
	if (r.valueQuantity)
		return [
			r.valueQuantity.comparator,
			r.valueQuantity.value,
			r.valueQuantity.unit ?? r.valueQuantity.code,
		]
			.filter((x) => x !== undefined)
			.join(' ');
	if (r.valueCodeableConcept) return concept(r.valueCodeableConcept);
	for (const key of ['valueString', 'valueBoolean', 'valueInteger', 'valueDateTime', 'valueTime'])
		if (r[key] !== undefined) return String(r[key]);
	if (r.valueRange)
		return `${r.valueRange.low?.value ?? ''}–${r.valueRange.high?.value ?? ''} ${r.valueRange.high?.unit ?? r.valueRange.low?.unit ?? ''}`.trim();
	return '';
}

const SYSTEM_NAMES: Record<string, string> = {
	'http://snomed.info/sct': 'SNOMED CT',
	'http://loinc.org': 'LOINC',
	'http://hl7.org/fhir/sid/icd-10-cm': 'ICD-10-CM',
	'http://hl7.org/fhir/sid/icd-10': 'ICD-10',
};

/** A concept's codings as a coder reads them: "SNOMED CT 54150009 · ICD-10-CM J06.9". */
function codesOf(value: CodeableConcept | undefined): string {
	return (value?.coding ?? [])
		.filter((c) => c.code)
		.map((c) => `${SYSTEM_NAMES[c.system ?? ''] ?? c.system ?? ''} ${c.code}`.trim())
		.join(' · ');
}

function concept(value: CodeableConcept | undefined): string {
	if (!value || typeof value !== 'object') return '';
	return (
		value.text ||
		(value.coding ?? [])
			.map((c) => c.display || c.code)
			.filter(Boolean)
			.join(' / ')
	);
}

function nameOf(names: HumanName[] | string | undefined): string {
	if (typeof names === 'string') return names;
	const name = Array.isArray(names) ? names[0] : undefined;
	if (!name) return '';
	return (
		name.text ||
		[...(name.prefix ?? []), ...(name.given ?? []), name.family].filter(Boolean).join(' ')
	);
}

function identifiers(resource: {
	identifier?: Array<{ system?: string; value?: string }>;
}): string {
	return (resource.identifier ?? [])
		.map((i) => `${i.system ? `${i.system}|` : ''}${i.value ?? ''}`)
		.join(', ');
}

function esc(text: string): string {
	return text.replace(
		/[&<>"']/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
	);
}

function page(title: string, body: string): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans Devanagari",sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1d2430}
h1{margin-bottom:.2rem}h2{margin-top:1.6rem;border-bottom:1px solid #dde2ea;padding-bottom:.2rem}
.muted,.note{color:#5b6576}.small{font-size:.75rem;font-weight:normal;margin-left:.4rem}
table{border-collapse:collapse}td,th{padding:.25rem .8rem;border-bottom:1px solid #eef0f4;text-align:left}
.card{border:1px solid #dde2ea;border-radius:6px;padding:.6rem .8rem;margin:.5rem 0;background:#fbfcfd}
.head{font-weight:600}dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem;margin:.4rem 0 0}
dt{color:#5b6576}dd{margin:0}.narrative{margin:.4rem 0 0;color:#333}code{font-size:.85em}
</style></head><body>
${body}
</body></html>
`;
}
