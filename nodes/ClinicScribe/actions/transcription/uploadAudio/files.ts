/**
 * Upload Audio's files of one item: found in its binary fields, checked (an audio format, a size
 * the upload method and n8n's binary store can take) and named for storage or for the session,
 * before anything is sent. A file is read only when it is uploaded (`open`).
 */
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import {
	ACCEPTED_FORMATS_ADVICE,
	audioContentType,
	audioFileProblem,
	extensionOf,
	needsSignature,
	SIGNATURE_BYTES,
	storageFileNames,
} from '../../../shared/audioFiles';
import { capitalised } from '../../../shared/values';
import {
	SESSION_AUDIO_EXTENSIONS,
	SESSION_FILE_NAME,
	SESSION_SINGLE_UPLOAD_MAX_BYTES,
} from '../../../transport/transcription/session';
import type { StorageFile } from '../../../transport/uploadBody';
import { assertReadableFromStore, readInputBinary } from './inputBinary';
import type { UploadMethod } from './settings';

/** Bigger reads from the binary store mean fewer, larger writes to the socket. */
const BINARY_READ_CHUNK_BYTES = 512 * 1024;

export interface PlannedFile extends StorageFile {
	itemIndex: number;
	binaryProperty: string;
	/** The file's name in n8n, before it was made unique and safe for storage. */
	originalFileName: string | undefined;
}

/** The files of the item's Input Binary Field(s), checked; throws for the first that cannot be sent. */
export async function readItemFiles(
	ctx: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
): Promise<PlannedFile[]> {
	const raw = String(ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data') ?? '');
	const properties = [
		...new Set(
			raw
				.split(',')
				.map((name) => name.trim())
				.filter((name) => name !== ''),
		),
	];
	if (properties.length === 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The Input Binary Field of item ${itemIndex} is empty`,
			{
				description: 'Enter the name of the binary field that holds the recording, usually "data".',
				itemIndex,
			},
		);
	}
	const files: PlannedFile[] = [];
	for (const property of properties) {
		// Only through n8n's helpers: a combined workflow keeps files where item.binary is not.
		const { binary, reference } = readInputBinary(ctx, item, itemIndex, property);
		let size: number | undefined;
		let fileName = binary.fileName;
		let mimeType = binary.mimeType;
		let open: StorageFile['open'];
		if (binary.id) {
			const id = binary.id;
			const metadata = await ctx.helpers.getBinaryMetadata(id);
			size = typeof metadata.fileSize === 'number' ? metadata.fileSize : Number(metadata.fileSize);
			assertReadableFromStore(
				ctx,
				id,
				size,
				`the file in binary field "${property}" of item ${itemIndex}`,
				itemIndex,
			);
			fileName = fileName ?? metadata.fileName;
			mimeType = mimeType || metadata.mimeType || '';
			open = async () => await ctx.helpers.getBinaryStream(id, BINARY_READ_CHUNK_BYTES);
		} else {
			// n8n's default mode keeps the file in the item as Base64: it is sent from that text,
			// decoded a piece at a time (uploadBody.ts), never copied whole.
			const base64 = typeof binary.data === 'string' ? binary.data : undefined;
			size = base64 === undefined ? undefined : Buffer.byteLength(base64, 'base64');
			open = async () =>
				base64 === undefined
					? await ctx.helpers.getBinaryDataBuffer(itemIndex, reference)
					: { base64 };
		}
		// A name and type that say nothing (a voice note saved as "file", application/octet-stream):
		// the first bytes tell whether it is audio, and which.
		const firstBytes =
			needsSignature(fileName, mimeType) && size ? await readFirstBytes(open) : undefined;
		const problem = audioFileProblem({ fileName, mimeType, size, firstBytes });
		if (problem) {
			throw new NodeOperationError(
				ctx.getNode(),
				// The file's name stays out: recordings are often named after the patient.
				`The file in binary field "${property}" of item ${itemIndex} ${problem}`,
				{
					description: `${ACCEPTED_FORMATS_ADVICE} Nothing of this transaction was uploaded.`,
					itemIndex,
				},
			);
		}
		files.push({
			itemIndex,
			binaryProperty: property,
			label: `the file in binary field "${property}" of item ${itemIndex}`,
			originalFileName: fileName,
			fileName: fileName ?? '',
			contentType: audioContentType(fileName, mimeType, firstBytes) as string,
			size: size as number,
			open,
		});
	}
	return files;
}

/** The first bytes of a file, from either binary mode (a stream is closed after its first chunk). */
async function readFirstBytes(open: StorageFile['open']): Promise<Uint8Array> {
	const source = await open();
	if ('base64' in source) {
		// 4 Base64 characters are 3 bytes.
		return Buffer.from(source.base64.slice(0, Math.ceil(SIGNATURE_BYTES / 3) * 4), 'base64');
	}
	if (Buffer.isBuffer(source)) return source.subarray(0, SIGNATURE_BYTES);
	try {
		for await (const chunk of source)
			return Buffer.from(chunk as Uint8Array).subarray(0, SIGNATURE_BYTES);
		return Buffer.alloc(0);
	} finally {
		source.destroy();
	}
}

/** A `single` session upload holds at most 10 MB per file: checked before anything is sent. */
export function assertSessionFileSizes(ctx: IExecuteFunctions, files: PlannedFile[]): void {
	const tooLarge = files.find((file) => file.size > SESSION_SINGLE_UPLOAD_MAX_BYTES);
	if (!tooLarge) return;
	const megabytes = (tooLarge.size / 1_000_000).toFixed(1);
	throw new NodeOperationError(
		ctx.getNode(),
		`${capitalised(tooLarge.label)} has ${megabytes} MB, more than the 10 MB a session upload may hold`,
		{
			description:
				'Choose Upload Method "Transaction" for long recordings (its uploads go to storage and have no such limit), or split the recording into parts of at most 10 MB. Nothing of this session was sent.',
			itemIndex: tooLarge.itemIndex,
		},
	);
}

/** Gives the files of one upload the names they are sent under (storage or session names). */
export function nameFiles(files: PlannedFile[], method: UploadMethod): void {
	const named = method === 'session' ? sessionFileNames : storageFileNames;
	const names = named(
		files.map((file) => ({ fileName: file.originalFileName, contentType: file.contentType })),
	);
	files.forEach((file, index) => (file.fileName = names[index]));
}

/**
 * The names of a session's files: `audio_<n>.<ext>` (n from 0, in order), the form the service
 * requires (`<base>_<n>.<ext>`); the extension is the file's own when the service reads it, else
 * the one of its content type.
 */
export function sessionFileNames(
	files: Array<{ fileName: string | undefined; contentType: string }>,
): string[] {
	const readable = new Set(['webm', 'mp3', 'wav', 'ogg', 'm4a', 'mp4']);
	return files.map((file, index) => {
		const own = extensionOf(file.fileName);
		const extension = readable.has(own)
			? own
			: (SESSION_AUDIO_EXTENSIONS[file.contentType] ?? 'webm');
		const name = `audio_${index}.${extension}`;
		if (!SESSION_FILE_NAME.test(name))
			throw new Error(`internal: ${name} is not a session file name`);
		return name;
	});
}
