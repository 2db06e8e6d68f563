/**
 * FHIR transactions, all or nothing (R4 http.html#transaction): every entry succeeds, or the store
 * is left as it was and the answer is one OperationOutcome naming every entry's problem.
 *
 * Medplum's BatchProcessor does the per-entry work (order: creates before updates; `urn:uuid:`
 * fullUrls rewritten to the ids given; `ifNoneExist` conditional creates; PUT with client ids).
 * It runs here in its batch mode, inside the repository's `atomically`, because its transaction
 * mode refuses what a visit's bundle holds: more than 50 updates ("Transaction contains more update
 * operations than allowed"), or a conditional create in a bundle of more than 8 entries
 * ("Transaction requires strict isolation but has too many entries"). Those limits protect
 * Medplum's PostgreSQL server; this store runs one request at a time and rolls back by snapshot.
 * Batch mode goes on after a failed entry, so every entry's problem is reported at once; the
 * duplicate-identity check of transaction mode is made here (two entries writing one resource).
 *
 * A Medplum-hosted EHR runs that transaction mode. With `routerLimits: 'medplum'` this server
 * refuses what it would refuse before anything is written, with Medplum's own code and words: its
 * BatchProcessor's preprocessing, in transaction mode, on a copy of the bundle (docs/fhir.md,
 * "Where real EHR servers differ").
 */
import { STATUS_CODES } from 'node:http';

import { OperationOutcomeError } from '@medplum/core';
import { BatchProcessor, processBatch } from '@medplum/fhir-router';
import type { FhirRouter } from '@medplum/fhir-router';
import type {
	Bundle,
	BundleEntry,
	OperationOutcome,
	OperationOutcomeIssue,
	Resource,
} from '@medplum/fhirtypes';

import { referenceKey, type EhrRepository } from './repository';
import { issue, validationIssues } from './validation';

export interface TransactionContext {
	repo: EhrRepository;
	router: FhirRouter;
	/** The FHIR base URL, for the response entries' fullUrl. */
	baseUrl: string;
	/** 'medplum': refuse what Medplum's transaction mode refuses (its limits); default none. */
	routerLimits?: RouterLimits;
}

/** Transaction limits of a real server the local EHR can apply: Medplum's (fhir-router). */
export type RouterLimits = 'none' | 'medplum';
export const ROUTER_LIMITS: readonly RouterLimits[] = ['none', 'medplum'];

/** Processes a `transaction` Bundle; throws an OperationOutcomeError (nothing stored) when any entry fails. */
export async function processTransaction(
	bundle: Bundle,
	context: TransactionContext,
): Promise<Bundle> {
	const { repo, router } = context;
	if (context.routerLimits === 'medplum') await refuseAsMedplumWould(bundle, context);
	const envelopeIssues = envelopeProblems(bundle);
	if (envelopeIssues.length > 0) throw refusal(envelopeIssues);
	const work: Bundle = { ...structuredClone(bundle), type: 'batch' };
	const entries = work.entry as BundleEntry[];

	return await repo.atomically(async (journal) => {
		const answer = await processBatch(
			{ method: 'POST', url: '', pathname: '', body: work, params: {}, query: {} },
			repo,
			router,
			work,
		);
		const answers = answer.entry ?? [];
		// After processing, every entry's target is known: creates got their ids, conditional URLs were resolved.
		const targets = entries.map(targetOf);
		const failed = new Set<number>();
		const issues: OperationOutcomeIssue[] = [];
		const outcomeIds = new Set<string | undefined>();
		answers.forEach((answered, index) => {
			if (statusOf(answered) < 400) return;
			failed.add(index);
			const outcome = answered.response?.outcome as OperationOutcome | undefined;
			outcomeIds.add(outcome?.id);
			issues.push(
				...inEntry(
					index,
					entries[index],
					outcome?.issue ?? [
						issue('processing', `refused with status ${answered.response?.status}`, ''),
					],
				),
			);
		});
		// A reference to an entry that was refused is reported by that entry's own problem.
		const refusedTargets = new Set(
			[...failed].map((index) => targets[index]).filter((t): t is string => t !== undefined),
		);
		const deferred = repo.unresolvedAfter(journal, refusedTargets);
		for (const problem of deferred) {
			const index = targets.indexOf(problem.resource);
			issues.push(
				...(index === -1
					? problem.issues.map((i) => ({
							...i,
							details: { text: `${problem.resource}: ${i.details?.text}` },
						}))
					: inEntry(index, entries[index], problem.issues)),
			);
		}
		if (issues.length > 0) {
			// The refused entries' status when they share one (412 multiple matches, 409, 404); else 400.
			throw refusal(
				issues,
				deferred.length === 0 && outcomeIds.size === 1 ? [...outcomeIds][0] : undefined,
			);
		}
		return bundleResponse('transaction-response', answers, context.baseUrl);
	});
}

/**
 * Medplum's checks of a transaction before it writes anything, run by Medplum's own code: more than
 * 50 updates ("Transaction contains more update operations than allowed"), or a conditional create,
 * update or delete in a bundle of more than 8 entries ("Transaction requires strict isolation but
 * has too many entries"); also its duplicate-identity and request checks. Throws its 400
 * OperationOutcome. It works on a copy: preprocessing gives created entries ids.
 */
async function refuseAsMedplumWould(bundle: Bundle, context: TransactionContext): Promise<void> {
	const copy = structuredClone(bundle);
	await new BatchProcessor(context.router, context.repo, copy, {
		method: 'POST',
		url: '',
		pathname: '',
		body: copy,
		params: {},
		query: {},
		config: { transactions: true },
	}).preprocess();
}

/** The Bundle itself, entries' resources aside (each is validated when it is written): type, request, fullUrl uniqueness, two entries writing one resource. */
function envelopeProblems(bundle: Bundle): OperationOutcomeIssue[] {
	if (!Array.isArray(bundle.entry) || bundle.entry.length === 0)
		return [issue('required', 'A transaction needs at least one entry', 'Bundle.entry')];
	const envelope = {
		...bundle,
		entry: bundle.entry.map((entry) =>
			entry && typeof entry === 'object' ? { ...entry, resource: undefined } : entry,
		),
	};
	const issues = validationIssues(envelope);
	const seen = new Map<string, number>();
	bundle.entry.forEach((entry, index) => {
		const url = entry?.request?.url;
		const method = entry?.request?.method;
		// Only unconditional writes name their target before processing; conditional ones are resolved by Medplum.
		const target =
			(method === 'PUT' || method === 'PATCH' || method === 'DELETE') && url && !url.includes('?')
				? url.replace(/^\/+/, '')
				: undefined;
		if (!target) return;
		const first = seen.get(target);
		if (first !== undefined)
			issues.push(
				issue(
					'duplicate',
					`Bundle.entry[${index}] writes ${target}, as Bundle.entry[${first}] does: one entry per resource in a transaction`,
					`Bundle.entry[${index}].request.url`,
				),
			);
		else seen.set(target, index);
	});
	return issues;
}

function targetOf(entry: BundleEntry): string | undefined {
	const method = entry.request?.method;
	if (method === 'POST' && entry.resource?.id) return referenceKey(entry.resource);
	if (
		(method === 'PUT' || method === 'PATCH' || method === 'DELETE') &&
		entry.request?.url &&
		!entry.request.url.includes('?')
	) {
		return entry.request.url.replace(/^\/+/, '').split('/').slice(0, 2).join('/');
	}
	return undefined;
}

/** Issues of one entry, with the entry named: expressions become paths in the Bundle. */
function inEntry(
	index: number,
	entry: BundleEntry,
	issues: OperationOutcomeIssue[],
): OperationOutcomeIssue[] {
	const type = entry.resource?.resourceType;
	const label = `Bundle.entry[${index}] (${entry.request?.method ?? '?'} ${entry.request?.url ?? '?'})`;
	const inBundle = (expression: string) =>
		type && (expression === type || expression.startsWith(`${type}.`))
			? `Bundle.entry[${index}].resource${expression.slice(type.length)}`
			: `Bundle.entry[${index}]${expression ? `.${expression}` : ''}`;
	return issues.map((i) => ({
		...i,
		details: { ...i.details, text: `${label}: ${i.details?.text ?? i.diagnostics ?? 'refused'}` },
		...(i.expression
			? { expression: i.expression.map(inBundle) }
			: { expression: [`Bundle.entry[${index}]`] }),
	}));
}

function statusOf(entry: BundleEntry): number {
	return Number.parseInt(entry.response?.status ?? '500', 10);
}

function refusal(issues: OperationOutcomeIssue[], outcomeId?: string): OperationOutcomeError {
	return new OperationOutcomeError({
		resourceType: 'OperationOutcome',
		...(outcomeId ? { id: outcomeId } : {}),
		issue: issues,
	});
}

/** Medplum's batch answer as R4 writes it: "201 Created", versioned locations, fullUrls (transaction and batch alike). */
export function bundleResponse(
	type: 'transaction-response' | 'batch-response',
	answers: BundleEntry[],
	baseUrl: string,
): Bundle {
	return {
		resourceType: 'Bundle',
		type,
		entry: answers.map((answered) => {
			const status = statusOf(answered);
			const resource = answered.resource as Resource | undefined;
			const version = resource?.meta?.versionId;
			return {
				...(resource?.id ? { fullUrl: `${baseUrl}/${referenceKey(resource)}` } : {}),
				...(resource ? { resource } : {}),
				response: {
					status: `${status} ${STATUS_CODES[status] ?? ''}`.trim(),
					...(resource?.id
						? { location: `${referenceKey(resource)}${version ? `/_history/${version}` : ''}` }
						: {}),
					...(version ? { etag: `W/"${version}"` } : {}),
					...(resource?.meta?.lastUpdated ? { lastModified: resource.meta.lastUpdated } : {}),
					...(answered.response?.outcome ? { outcome: answered.response.outcome } : {}),
				},
			};
		}),
	};
}
