/**
 * What one upload (a transaction or a session) shares with the others of Upload Audio's run: the
 * gate on uploads in flight, the halt, the IDs this node run sent a start for, and what it has sent
 * so far. The batch runner makes one; the two flows use it.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { runIndexOf } from './ids';
import type { UploadPlan } from './plan';

export interface BatchRun {
	/** The IDs this node run sent a start for, across n8n's Retry On Fail. */
	ownIds: OwnUploadIds;
	/** The bound on file uploads in flight at once, across the run's uploads. */
	uploadGate: <T>(task: () => Promise<T>) => Promise<T>;
	/** True once no further request may be sent (a failure without Continue On Fail, or the quota). */
	halted(): boolean;
	/** Before each request: throws UploadHalted once the run is halted. */
	throwIfHalted(): void;
	/** Called the moment a failure is known (before any other upload's code runs again). */
	noteFailure(plan: UploadPlan, error: unknown): void;
}

/** Thrown inside an upload that stops before its next request because the run was halted. */
export class UploadHalted extends Error {}

/** What one upload has sent so far: what the stop note and the quota message say of it. */
export interface UploadProgress {
	/**
	 * The request that starts the paid transcription (a transaction's init, a session's End) was
	 * sent: the upload may have been started even if no clear answer came.
	 */
	startRequestSent: boolean;
	/** File uploads begun (files may be stored even if the transcription was never requested). */
	uploadsSent: number;
}

/**
 * The IDs this node sent a start for (a transaction's init, a session's create), per run of the
 * node, kept in n8n's execution data: on n8n's Retry On Fail a conflict on one of them is its own.
 */
export interface OwnUploadIds {
	has(id: string): boolean;
	add(id: string): void;
	forget(id: string): void;
}

/** The execution-data key; its name is older than the session method (it holds session ids too). */
const OWN_IDS_KEY = 'clinicScribeInitSent';

export function ownUploadIds(ctx: IExecuteFunctions): OwnUploadIds {
	let byRun: Record<string, string[]> = {};
	try {
		const context = ctx.getContext('node');
		const kept = context[OWN_IDS_KEY];
		if (typeof kept === 'object' && kept !== null && !Array.isArray(kept)) byRun = kept as Record<string, string[]>;
		else context[OWN_IDS_KEY] = byRun;
	} catch {
		// No execution data to keep it in: remembered for this run only.
	}
	const run = String(runIndexOf(ctx));
	return {
		has: (id) => (byRun[run] ?? []).includes(id),
		add: (id) => {
			const ids = (byRun[run] ??= []);
			if (!ids.includes(id)) ids.push(id);
		},
		forget: (id) => {
			byRun[run] = (byRun[run] ?? []).filter((kept) => kept !== id);
		},
	};
}
