/**
 * MedLink, the service's entity linking ([EKA-MEDLINK]), as calls through `clinicApiRequest`
 * (`Authorization: Bearer`, as every path outside `/dr`):
 *
 * - `getMedLinkRegistry`: `GET /med-link/registry/`, the ontologies and their versions.
 * - `linkTermsBatch`: `POST /med-link/nel/link/batch`, 1–5 terms of one ontology.
 *
 * Both only look up: linking stores nothing and the docs name no charge per call, so a POST whose
 * answer was lost or refused for now (429, 5xx) is sent again as a read is (`idempotent`).
 *
 * `medLinkVersions` and `linkDistinctTerms` serve Link Terms and the FHIR output's Add Codes alike:
 * within one run of a node (one `ctx`), the registry is read once and each distinct term is asked
 * once, however many items ask for it.
 */
import { concurrencyGate } from '../shared/concurrencyGate';
import {
	MEDLINK_ONTOLOGIES,
	planBatches,
	readBatchBlocks,
	readsAsRegistry,
	readTermCode,
	registryVersion,
	termKey,
	type CodeLookup,
	type MedLinkOntology,
	type TermCode,
} from '../shared/answers/medLinkTerms';
import type { ClinicApiContext, ClinicApiResponse } from './apiCall';
import { unexpectedBodyError } from './errors';
import { clinicApiRequest } from './request';
import { PRODUCTION_POLICY } from './retryPolicy';
import { scrubCredentialSecrets } from './runCredential';

const MEDLINK_REGISTRY_PATH = '/med-link/registry/';
const MEDLINK_BATCH_PATH = '/med-link/nel/link/batch';

/** How long a call may take and what cancels it (the trigger's budget); none for a node's run. */
interface CallBounds {
	abortSignal?: AbortSignal;
	timeoutMs?: number;
}

const REGISTRY_PURPOSE = "MedLink's registry of ontologies";
const LINK_PURPOSE = 'the MedLink codes of the terms';

async function getMedLinkRegistry(
	ctx: ClinicApiContext,
	itemIndex: number | undefined,
	bounds: CallBounds,
): Promise<ClinicApiResponse> {
	return await clinicApiRequest(ctx, {
		method: 'GET',
		path: MEDLINK_REGISTRY_PATH,
		idempotent: true,
		purpose: REGISTRY_PURPOSE,
		itemIndex,
		...bounds,
	});
}

async function linkTermsBatch(
	ctx: ClinicApiContext,
	batch: { ontology: string; version: string; queries: string[] },
	itemIndex: number | undefined,
	bounds: CallBounds,
): Promise<ClinicApiResponse> {
	return await clinicApiRequest(ctx, {
		method: 'POST',
		path: MEDLINK_BATCH_PATH,
		body: { queries: batch.queries, ontology: batch.ontology, version: batch.version, top_k: 3 },
		idempotent: true,
		purpose: LINK_PURPOSE,
		// The terms are clinical text: an error does not repeat them.
		redact: batch.queries,
		itemIndex,
		...bounds,
	});
}

/** What one run of a node has asked MedLink: the registry's versions, and each term's code (or failure). */
interface RunMemo {
	versions?: Promise<Map<MedLinkOntology, string>>;
	terms: Map<string, Promise<TermOutcome>>;
}

/** A term's code, or the error of the call that was to give it. */
type TermOutcome = { code: TermCode } | { error: unknown };

// Keyed by the node's context, which is one object for one run: nothing outlives the run.
const runMemos = new WeakMap<object, RunMemo>();

function memoOf(ctx: ClinicApiContext): RunMemo {
	let memo = runMemos.get(ctx);
	if (!memo) {
		memo = { terms: new Map() };
		runMemos.set(ctx, memo);
	}
	return memo;
}

/**
 * The version to ask for of each ontology the registry offers (its first), read once a run. Throws
 * the call's error, or an error when the answer is not the documented registry; a failed read is not
 * kept, so the next item asks again.
 */
export async function medLinkVersions(
	ctx: ClinicApiContext,
	itemIndex?: number,
	bounds: CallBounds = {},
): Promise<Map<MedLinkOntology, string>> {
	const memo = memoOf(ctx);
	const versions = (memo.versions ??= (async () => {
		const response = await getMedLinkRegistry(ctx, itemIndex, bounds);
		if (!readsAsRegistry(response.body))
			throw unexpectedBodyError(ctx, { purpose: REGISTRY_PURPOSE, itemIndex }, response.statusCode);
		const versions = new Map<MedLinkOntology, string>();
		for (const ontology of Object.keys(MEDLINK_ONTOLOGIES) as MedLinkOntology[]) {
			const version = registryVersion(response.body, ontology);
			if (version !== undefined) versions.set(ontology, version);
		}
		return versions;
	})());
	// A failed read is forgotten (this caller still gets its error).
	versions.catch(() => {
		if (memo.versions === versions) memo.versions = undefined;
	});
	return await versions;
}

/**
 * The codes of the terms, each distinct term (per ontology; case and spacing ignored) asked once a
 * run, in batches of at most 5 with a bounded number in flight. A batch that fails fails its terms
 * (in `failed`, by termKey) and is not kept, so a later item asks again; with `stopAtFirstFailure`
 * no batch is sent after the first failure (its terms fail with that error too).
 */
export async function linkDistinctTerms(
	ctx: ClinicApiContext,
	asked: Array<{ ontology: MedLinkOntology; version: string; terms: string[] }>,
	options: { itemIndex?: number; bounds?: CallBounds; stopAtFirstFailure?: boolean } = {},
): Promise<CodeLookup> {
	const memo = memoOf(ctx);
	const versions = new Map(asked.map((entry) => [entry.ontology, entry.version]));
	const pending = new Map<string, Promise<TermOutcome>>();
	const toAsk = asked.map(({ ontology, terms }) => ({
		ontology,
		terms: terms.filter((term) => {
			const key = termKey(ontology, term);
			const known = memo.terms.get(key);
			if (known) pending.set(key, known);
			return !known;
		}),
	}));
	const gate = concurrencyGate(PRODUCTION_POLICY.readConcurrency);
	let firstFailure: { error: unknown } | undefined;
	for (const batch of planBatches(toAsk)) {
		const version = versions.get(batch.ontology) as string;
		const outcomes = (async (): Promise<TermOutcome[]> => {
			const release = await gate.acquire();
			try {
				if (firstFailure) return batch.keys.map(() => firstFailure as { error: unknown });
				const response = await linkTermsBatch(
					ctx,
					{ ontology: batch.ontology, version, queries: batch.queries },
					options.itemIndex,
					options.bounds ?? {},
				);
				const blocks = readBatchBlocks(response.body, batch.queries.length);
				if (!blocks)
					throw unexpectedBodyError(
						ctx,
						{ purpose: LINK_PURPOSE, itemIndex: options.itemIndex },
						response.statusCode,
					);
				return blocks.map((block, index) => ({
					code: readTermCode(block, {
						term: batch.queries[index],
						ontology: batch.ontology,
						version,
					}),
				}));
			} catch (error) {
				await scrubCredentialSecrets(ctx, error);
				if (options.stopAtFirstFailure) firstFailure ??= { error };
				// Not kept: a later item of the run asks these terms again.
				for (const key of batch.keys) memo.terms.delete(key);
				return batch.keys.map(() => ({ error }));
			} finally {
				release();
			}
		})();
		batch.keys.forEach((key, index) => {
			const outcome = outcomes.then((list) => list[index]);
			memo.terms.set(key, outcome);
			pending.set(key, outcome);
		});
	}
	const lookup: CodeLookup = { codes: new Map(), failed: new Map() };
	for (const [key, outcome] of pending) {
		const settled = await outcome;
		if ('code' in settled) lookup.codes.set(key, settled.code);
		else lookup.failed.set(key, settled.error);
	}
	return lookup;
}

/**
 * The codes of terms in whatever code systems they are asked in, never throwing: a registry that
 * cannot be read, a code system it does not offer, or a failed batch leaves the terms concerned in
 * `failed` with the reason (the FHIR output's Add Codes decides what that means for the item).
 */
export async function lookUpTermCodes(
	ctx: ClinicApiContext,
	asked: Array<{ ontology: MedLinkOntology; terms: string[] }>,
	options: { itemIndex?: number; bounds?: CallBounds } = {},
): Promise<CodeLookup> {
	let versions: Map<MedLinkOntology, string>;
	try {
		versions = await medLinkVersions(ctx, options.itemIndex, options.bounds);
	} catch (error) {
		await scrubCredentialSecrets(ctx, error);
		return { codes: new Map(), failed: failuresOf(asked, () => error) };
	}
	const offered = asked.flatMap(({ ontology, terms }) => {
		const version = versions.get(ontology);
		return version === undefined ? [] : [{ ontology, version, terms }];
	});
	const lookup = await linkDistinctTerms(ctx, offered, options);
	const notOffered = asked.filter(({ ontology }) => !versions.has(ontology));
	for (const [key, error] of failuresOf(
		notOffered,
		(ontology) =>
			new Error(`MedLink's registry offers no version of ${MEDLINK_ONTOLOGIES[ontology].label}`),
	))
		lookup.failed.set(key, error);
	return lookup;
}

/** Every asked term (by termKey) with the error that kept it uncoded. */
function failuresOf(
	asked: Array<{ ontology: MedLinkOntology; terms: string[] }>,
	errorOf: (ontology: MedLinkOntology) => unknown,
): Map<string, unknown> {
	const failed = new Map<string, unknown>();
	for (const { ontology, terms } of asked)
		for (const term of terms) failed.set(termKey(ontology, term), errorOf(ontology));
	return failed;
}
