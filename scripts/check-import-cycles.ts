/**
 * `npm run check:cycles`: fails when the shipped code (nodes/ and credentials/) has an import cycle.
 * Rooms only import downwards (CONTRIBUTING.md), so a cycle means an arrow points up somewhere.
 *
 *   tsx scripts/check-import-cycles.ts [--include-type-only] [folder …]
 * Prints each cycle as a chain of files, then the count; exit code 1 when there is any.
 */
import { resolve } from 'node:path';

import { findImportCycles } from './importCycles';

const args = process.argv.slice(2);
const includeTypeOnly = args.includes('--include-type-only');
const folders = args.filter((arg) => !arg.startsWith('--'));
const root = resolve(__dirname, '..');
const checked = folders.length > 0 ? folders : ['nodes', 'credentials'];

const cycles = findImportCycles(checked, root, { includeTypeOnly });
for (const cycle of cycles) process.stdout.write(`cycle: ${cycle.join(' → ')}\n`);
process.stdout.write(
	`import cycles in ${checked.join(', ')}${includeTypeOnly ? ' (type-only imports included)' : ''}: ${cycles.length}\n`,
);
process.exitCode = cycles.length > 0 ? 1 : 0;
