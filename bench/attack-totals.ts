/**
 * Prints the attack-and-fault suite's totals from the ledger its tests wrote
 * (test/support/attackLedger.ts). Run `npm run test:attack` first (it runs the suite, then this).
 * Exits 1 when a row recorded a non-zero figure or no row was recorded at all.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	ATTACK_LEDGER_DIR,
	type AttackFigures,
	type AttackRecord,
} from '../test/support/attackLedger';

const FIGURES: Array<keyof AttackFigures> = [
	'itemsLost',
	'secretsSeen',
	'duplicateInits',
	'requestsForBadInput',
];

const records: AttackRecord[] = existsSync(ATTACK_LEDGER_DIR)
	? readdirSync(ATTACK_LEDGER_DIR)
			.filter((name) => name.endsWith('.jsonl'))
			.flatMap((name) =>
				readFileSync(join(ATTACK_LEDGER_DIR, name), 'utf8')
					.split('\n')
					.filter((line) => line.trim() !== '')
					.map((line) => JSON.parse(line) as AttackRecord),
			)
	: [];

if (records.length === 0) {
	console.log(`No attack-and-fault records in ${ATTACK_LEDGER_DIR}: run npm run test:attack.`);
	process.exit(1);
}

records.sort((a, b) => a.row.localeCompare(b.row));
const width = Math.max(...records.map((r) => r.row.length), 3);
console.log(`${'row'.padEnd(width)}  ${FIGURES.map((f) => f.padStart(19)).join(' ')}  outcome`);
const totals: Record<string, number> = {};
for (const record of records) {
	const cells = FIGURES.map((figure) => {
		const value = record.figures[figure];
		if (value !== undefined) totals[figure] = (totals[figure] ?? 0) + value;
		return (value === undefined ? '-' : String(value)).padStart(19);
	});
	console.log(`${record.row.padEnd(width)}  ${cells.join(' ')}  ${record.outcome}`);
}
console.log('');
console.log(`rows: ${records.length}`);
for (const figure of FIGURES) console.log(`${figure}: ${totals[figure] ?? 0}`);
const bad = FIGURES.some((figure) => (totals[figure] ?? 0) > 0);
console.log(bad ? 'FAIL: a figure is not zero' : 'PASS: every figure is zero');
process.exit(bad ? 1 : 0);
