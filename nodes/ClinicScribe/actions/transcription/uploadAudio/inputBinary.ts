/**
 * Finding an input item's file for Upload Audio, in either Binary Mode a workflow may have, through
 * n8n's own helpers only (`assertBinaryData` validates what it returns).
 *
 * - Separate (n8n's default): files are in `item.binary`; the field is its key.
 * - Combined (n8n 2.x workflow setting): n8n moves a node's output files into `json._files` and its
 *   helpers read a field name as a path into the item's JSON (`_files.data`). The plain name ("data",
 *   the field's default) is tried as `_files.<name>` too, so a workflow switched to Combined keeps
 *   working. n8n's in-memory (`default`) binary data mode leaves files in `item.binary` even in a
 *   combined workflow, where no path reaches them: there the file found under the name is handed to
 *   the helper as the binary object itself.
 */
import {
	NodeOperationError,
	type IBinaryData,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import { capitalised, isRecord } from '../../../shared/values';

/** Where n8n 2.x keeps an item's files in a workflow whose Binary Mode is combined (BINARY_IN_JSON_PROPERTY). */
export const COMBINED_FILES_PROPERTY = '_files';

export interface InputBinary {
	binary: IBinaryData;
	/** What to hand n8n's binary helpers (getBinaryDataBuffer) to read this file again. */
	reference: string | IBinaryData;
}

/** The file of an item's field (a name, or a path in a combined workflow), or an error that says which fields the item has. */
export function readInputBinary(
	ctx: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
	field: string,
): InputBinary {
	const candidates: Array<string | IBinaryData> = [field];
	if (!field.startsWith(`${COMBINED_FILES_PROPERTY}.`))
		candidates.push(`${COMBINED_FILES_PROPERTY}.${field}`);
	const beside = ownValue(item.binary, field);
	if (isRecord(beside)) candidates.push(beside as unknown as IBinaryData);
	for (const candidate of candidates) {
		try {
			return { binary: ctx.helpers.assertBinaryData(itemIndex, candidate), reference: candidate };
		} catch {
			// Not there in this Binary Mode; the next place, then the message below.
		}
	}
	const present = presentFields(item);
	throw new NodeOperationError(ctx.getNode(), `Item ${itemIndex} has no binary field "${field}"`, {
		description: present.length
			? `Its binary fields are: ${present.join(', ')}. Set Input Binary Field to the one holding the recording.`
			: 'The item holds no file. Read the recording into binary data first (for example with Read/Write Files from Disk or an HTTP Request node).',
		itemIndex,
	});
}

/** The names of an item's files, where either Binary Mode keeps them (for messages only). */
function presentFields(item: INodeExecutionData): string[] {
	const separate = Object.keys(item.binary ?? {});
	const combined = isRecord(item.json?.[COMBINED_FILES_PROPERTY])
		? Object.keys(item.json[COMBINED_FILES_PROPERTY] as object)
		: [];
	return [...new Set([...separate, ...combined])];
}

function ownValue(record: object | undefined, key: string): unknown {
	return record && Object.prototype.hasOwnProperty.call(record, key)
		? (record as Record<string, unknown>)[key]
		: undefined;
}

/**
 * The largest file n8n's `database` binary data mode (queue mode's default) can hand to a node: n8n
 * reads the whole file in one query, PostgreSQL sends a bytea as hex text ("\x" and two characters a
 * byte) and V8 holds no string over 0x1fffffe8 characters. Past it n8n 2.41's database driver throws
 * inside its socket handler and the read never ends (seen: bench/upload-database-mode.ts).
 */
export const DATABASE_MODE_READ_MAX_BYTES = (0x1fffffe8 - 2) / 2;

const MiB = 1024 * 1024;

/**
 * Refuses, before anything is sent, a file n8n's database binary mode cannot give back: the node
 * cannot tell which database n8n uses, so the limit is PostgreSQL's (queue mode's); on SQLite the
 * filesystem mode is n8n's default and has no such limit.
 */
export function assertReadableFromStore(
	ctx: IExecuteFunctions,
	binaryId: string,
	size: number,
	label: string,
	itemIndex: number,
): void {
	if (!binaryId.startsWith('database:') || size <= DATABASE_MODE_READ_MAX_BYTES) return;
	throw new NodeOperationError(
		ctx.getNode(),
		`${capitalised(label)} has ${(size / MiB).toFixed(1)} MiB, more than n8n's database binary mode can give back to a node (256 MiB)`,
		{
			description:
				"n8n keeps this file in its database (N8N_DEFAULT_BINARY_DATA_MODE=database, queue mode's default) and reads it back whole, as text twice its size; past 256 MiB that read never finishes. Split the recording into parts under 256 MiB and give them one Transaction ID (they are transcribed as one recording), or keep binary data elsewhere: N8N_DEFAULT_BINARY_DATA_MODE=s3 or azure (licensed n8n), or filesystem in regular mode. Nothing of this transaction was sent.",
			itemIndex,
		},
	);
}
