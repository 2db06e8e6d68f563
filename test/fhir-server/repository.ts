/**
 * The local EHR's store: Medplum's in-memory repository, with every write checked and a rollback.
 *
 * Every write Medplum's router makes goes through createResource (updateResource and patchResource
 * call it), conditionalCreate or deleteResource; each is overridden here to refuse what
 * validation.ts refuses and references that resolve to nothing (references.ts).
 *
 * Two modes:
 *   - immediate (a single create/update/patch/delete, each entry of a batch): checked before it is
 *     written; a refused write changes nothing.
 *   - within `atomically` (a transaction): entries may refer to entries processed later, so
 *     references are checked once every entry is written (`unresolvedAfter`); until the work ends
 *     a snapshot is kept, and any failure restores it. Medplum's MemoryRepository has no rollback
 *     of its own (its withTransaction only calls the callback: "MockRepository currently does not
 *     support transactions"), hence the snapshot.
 * The HTTP layer lets one request at a time touch the store, so no write interleaves with a transaction.
 */
import { OperationOutcomeError, conflict } from '@medplum/core';
import type { SearchRequest, WithId } from '@medplum/core';
import { MemoryRepository } from '@medplum/fhir-router';
import type { CreateResourceOptions, DeleteResourceOptions } from '@medplum/fhir-router';
import type { OperationOutcome, OperationOutcomeIssue, Resource } from '@medplum/fhirtypes';

import { parseLiteralReference, referencesIn, unresolvedReferences } from './references';
import { validationIssues } from './validation';

type ResourceMaps = {
	resources: Map<string, Map<string, Resource>>;
	history: Map<string, Map<string, Resource[]>>;
};

/** What a transaction wrote and deleted, by `Type/id`. */
export interface Journal {
	written: Set<string>;
	deleted: Set<string>;
}

/** The problems of one resource found when a transaction's work is done. */
export interface DeferredProblem {
	/** `Type/id` of the resource the issues are about. */
	resource: string;
	issues: OperationOutcomeIssue[];
}

export const referenceKey = (resource: { resourceType: string; id?: string }): string =>
	`${resource.resourceType}/${resource.id}`;

export class EhrRepository extends MemoryRepository {
	/** This server's FHIR base URL; an absolute reference under it counts as local. */
	ownBaseUrl: string | undefined;
	private journal: Journal | undefined;

	override async createResource<T extends Resource>(
		resource: T,
		options?: CreateResourceOptions,
		update = false,
	): Promise<WithId<T>> {
		const withId = (resource.id ? resource : { ...resource, id: this.generateId() }) as WithId<T>;
		this.admit(withId);
		const stored = await super.createResource(withId, options, update);
		this.journal?.written.add(referenceKey(stored));
		return stored;
	}

	override async conditionalCreate<T extends Resource>(
		resource: T,
		search: SearchRequest<T>,
		options?: CreateResourceOptions,
	): Promise<{ resource: WithId<T>; outcome: OperationOutcome }> {
		// MemoryRepository creates through a private method here, not through createResource.
		this.admit(resource);
		const result = await super.conditionalCreate(resource, search, options);
		if (result.outcome.id === 'created') this.journal?.written.add(referenceKey(result.resource));
		return result;
	}

	override async deleteResource(
		resourceType: string,
		id: string,
		options?: DeleteResourceOptions,
	): Promise<void> {
		const key = `${resourceType}/${id}`;
		if (!this.journal) {
			const referrers = this.referrersOf(key);
			if (referrers.length > 0) {
				const named = referrers
					.slice(0, 10)
					.map((r) => `${r.resource} (${r.path})`)
					.join(', ');
				throw new OperationOutcomeError(
					conflict(
						`${key} cannot be deleted: ${referrers.length} reference(s) to it would resolve to nothing: ${named}${referrers.length > 10 ? ', …' : ''}. Delete or change those resources first.`,
					),
				);
			}
		}
		await super.deleteResource(resourceType, id, options);
		this.journal?.deleted.add(key);
	}

	/** Whether the store holds `type/id` now. */
	holds = (type: string, id: string): boolean => this.maps().resources.get(type)?.has(id) === true;

	/** Every resource held now. */
	*allResources(): Generator<Resource> {
		for (const byId of this.maps().resources.values()) yield* byId.values();
	}

	/** How many resources of each type are held. */
	counts(): Record<string, number> {
		const counts: Record<string, number> = {};
		for (const [type, byId] of this.maps().resources) if (byId.size > 0) counts[type] = byId.size;
		return counts;
	}

	/**
	 * Runs `work` as one unit: references are checked when it ends (`unresolvedAfter`, called by
	 * the work itself), and if it throws, the store returns to what it held before.
	 */
	async atomically<T>(work: (journal: Journal) => Promise<T>): Promise<T> {
		if (this.journal) throw new Error('atomically() does not nest');
		const snapshot = this.snapshot();
		const journal: Journal = { written: new Set(), deleted: new Set() };
		this.journal = journal;
		try {
			return await work(journal);
		} catch (error) {
			this.restore(snapshot);
			throw error;
		} finally {
			this.journal = undefined;
		}
	}

	/**
	 * After a unit's writes: references of what it wrote that resolve to nothing, and references
	 * left to what it deleted. `countAsHeld` (`Type/id`) are taken as resolving (entries refused
	 * for reasons of their own).
	 */
	unresolvedAfter(
		journal: Journal,
		countAsHeld: ReadonlySet<string> = new Set(),
	): DeferredProblem[] {
		const problems: DeferredProblem[] = [];
		const { resources } = this.maps();
		const holds = (type: string, id: string) =>
			this.holds(type, id) || countAsHeld.has(`${type}/${id}`);
		for (const key of journal.written) {
			const { type, id } = parseLiteralReference(key) as { type: string; id: string };
			const stored = resources.get(type)?.get(id);
			if (!stored) continue; // deleted again by the same unit
			const issues = unresolvedReferences(stored, holds, this.ownBaseUrl);
			if (issues.length > 0) problems.push({ resource: key, issues });
		}
		for (const key of journal.deleted) {
			const { type, id } = parseLiteralReference(key) as { type: string; id: string };
			if (this.holds(type, id)) continue; // created again
			for (const referrer of this.referrersOf(key)) {
				problems.push({
					resource: referrer.resource,
					issues: [
						{
							severity: 'error',
							code: 'conflict',
							details: {
								text: `${referrer.path} refers to ${key}, which this transaction deletes`,
							},
							expression: [referrer.path],
						},
					],
				});
			}
		}
		return problems;
	}

	/** Held resources (other than the target itself) with a reference to `key`, and where. */
	private referrersOf(key: string): Array<{ resource: string; path: string }> {
		const found: Array<{ resource: string; path: string }> = [];
		for (const resource of this.allResources()) {
			const own = referenceKey(resource);
			if (own === key) continue;
			for (const { path, reference } of referencesIn(resource)) {
				const parsed = parseLiteralReference(reference, this.ownBaseUrl);
				if (!('problem' in parsed) && `${parsed.type}/${parsed.id}` === key)
					found.push({ resource: own, path });
			}
		}
		return found;
	}

	/** Refuses a resource that fails validation, or (outside a unit) whose references resolve to nothing. */
	private admit(resource: Resource): void {
		const issues = validationIssues(resource);
		if (issues.length === 0 && !this.journal)
			issues.push(...unresolvedReferences(resource, this.holds, this.ownBaseUrl));
		if (issues.length > 0)
			throw new OperationOutcomeError({ resourceType: 'OperationOutcome', issue: issues });
	}

	private maps(): ResourceMaps {
		// MemoryRepository's private fields (plain properties at run time), pinned by the exact
		// @medplum/fhir-router version in package.json; a change there fails here, loudly.
		const self = this as unknown as Partial<ResourceMaps>;
		if (!(self.resources instanceof Map) || !(self.history instanceof Map)) {
			throw new Error(
				'@medplum/fhir-router MemoryRepository no longer keeps its resources in the maps `resources` and `history`: update test/fhir-server/repository.ts',
			);
		}
		return self as ResourceMaps;
	}

	private snapshot(): ResourceMaps {
		const { resources, history } = this.maps();
		return {
			resources: new Map([...resources].map(([type, byId]) => [type, new Map(byId)])),
			history: new Map(
				[...history].map(([type, byId]) => [
					type,
					new Map([...byId].map(([id, versions]) => [id, [...versions]])),
				]),
			),
		};
	}

	private restore(snapshot: ResourceMaps): void {
		const { resources, history } = this.maps();
		resources.clear();
		history.clear();
		for (const [type, byId] of snapshot.resources) resources.set(type, byId);
		for (const [type, byId] of snapshot.history) history.set(type, byId);
	}
}
