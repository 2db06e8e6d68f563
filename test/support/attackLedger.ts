/**
 * The attack-and-fault suite's ledger: every row of the suite (test/integration/attack/TABLE.md) records the
 * figures it asserted, so `npm run attack:totals` can print what the whole suite proved.
 *
 * A test asserts each figure first (expect(...).toBe(0)) and then records it; the ledger is a report
 * of asserted values, never the assertion itself. One JSON line per record, one file per jest worker
 * process, under .test-results/attack-ledger/ (cleared by `npm run test:attack`, read by
 * bench/attack-totals.ts).
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ATTACK_LEDGER_DIR = resolve(__dirname, '..', '..', '.test-results', 'attack-ledger');

/** The figures the issue asks the suite to hold at zero (absent = not applicable to the row). */
export interface AttackFigures {
	/** Input items without an output item (or with another item's output). */
	itemsLost?: number;
	/** Secret values (token, refresh token, client secret, API key, signing key) seen by a foreign host or in any output, error or log. */
	secretsSeen?: number;
	/** Transaction inits (paid transcriptions) started more than once for one recording. */
	duplicateInits?: number;
	/** Requests the fake API received for input the node should have refused. */
	requestsForBadInput?: number;
}

export interface AttackRecord {
	/** The row's id in test/integration/attack/TABLE.md, e.g. "redirect-301-dr". */
	row: string;
	/** What happened, in a few words ("refused: names host 127.0.0.1:4711"). */
	outcome: string;
	figures: AttackFigures;
}

export function recordAttack(row: string, outcome: string, figures: AttackFigures): void {
	mkdirSync(ATTACK_LEDGER_DIR, { recursive: true });
	const record: AttackRecord = { row, outcome, figures };
	appendFileSync(join(ATTACK_LEDGER_DIR, `${process.pid}.jsonl`), `${JSON.stringify(record)}\n`);
}
