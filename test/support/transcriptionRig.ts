/** Shared setup of the transcription integration tests: the fake API, audio files, node runs. */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { ClinicScribe } from '../../nodes/ClinicScribe/ClinicScribe.node';
import { fakeTranscription, type FakeTranscription } from '../fake-api/routes/transcription';
import { startFakeClinicApi, type FakeClinicApi } from '../fake-api/server';
import { createExecuteContext, fakeApiCredentials, type CredentialStore } from './nodeContext';
import { loadN8nHttpRequest } from './n8nHttpRequest';

export interface AudioFile {
	path: string;
	name: string;
	size: number;
	sha256: string;
	bytes: Buffer;
}

export interface RunOptions {
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	cancelSignal?: AbortSignal;
	/** Use n8n's own httpRequest helper (from the cached n8n) instead of the test context's. */
	n8nHttp?: boolean;
	credentials?: CredentialStore;
	/** n8n's execution id, run index and execution context data (see createExecuteContext). */
	executionId?: string;
	runIndex?: number;
	executionContextData?: Record<string, IDataObject>;
	/** Whose helpers the context follows (see createExecuteContext). Default the newest n8n's. */
	n8nLine?: 'newest' | 'oldest';
}

export class TranscriptionRig {
	api!: FakeClinicApi;
	fake!: FakeTranscription;
	readonly dir = mkdtempSync(join(tmpdir(), 'clinic-scribe-audio-'));
	private readonly files = new Map<string, string>();
	private nextId = 1;
	readonly node = new ClinicScribe();

	async start(): Promise<void> {
		this.api = await startFakeClinicApi();
		this.fake = fakeTranscription(this.api);
	}

	async stop(): Promise<void> {
		await this.api.close();
		rmSync(this.dir, { recursive: true, force: true });
	}

	reset(): void {
		this.api.reset();
		this.fake.reset();
	}

	credentials(extra: Record<string, string> = {}): CredentialStore {
		return fakeApiCredentials(this.api.url, this.api.validCredentials, extra);
	}

	/** A file of pseudo-random bytes on disk (content does not matter to the service). */
	audioFile(name: string, size: number): AudioFile {
		const bytes = randomBytes(size);
		const path = join(this.dir, `${this.nextId++}-${name}`);
		writeFileSync(path, bytes);
		return { path, name, size, sha256: createHash('sha256').update(bytes).digest('hex'), bytes };
	}

	/** Binary data as n8n's filesystem mode gives it: an id the helpers resolve to the file. */
	storedBinary(file: AudioFile, mimeType = 'application/octet-stream'): IBinaryData {
		const id = `filesystem-v2:test/${this.nextId++}`;
		this.files.set(id, file.path);
		return {
			id,
			data: 'filesystem-v2',
			mimeType,
			fileName: file.name,
			fileSize: `${file.size} B`,
		} as IBinaryData;
	}

	/**
	 * Binary data as n8n's database mode gives it (`database:<uuid>`). With `sparseSize` the file on
	 * disk is that long but holds no data (a size the node must check before it reads anything).
	 */
	databaseBinary(file: AudioFile, sparseSize?: number): IBinaryData {
		if (sparseSize !== undefined) truncateSync(file.path, sparseSize);
		const id = `database:${randomUUID()}`;
		this.files.set(id, file.path);
		return {
			id,
			data: 'database',
			mimeType: 'audio/wav',
			fileName: file.name,
			fileSize: `${sparseSize ?? file.size} B`,
		} as IBinaryData;
	}

	/** Binary data as n8n's default mode keeps it: Base64 in the item, no id. */
	inMemoryBinary(file: AudioFile, mimeType = 'application/octet-stream'): IBinaryData {
		return {
			data: file.bytes.toString('base64'),
			mimeType,
			fileName: file.name,
			fileSize: `${file.size} B`,
		};
	}

	context(parameters: Record<string, unknown>, options: RunOptions = {}): IExecuteFunctions {
		const { context } = createExecuteContext({
			credentials: options.credentials ?? this.credentials(),
			parameters,
			items: options.items,
			continueOnFail: options.continueOnFail,
			binaryFiles: Object.fromEntries(this.files),
			cancelSignal: options.cancelSignal,
			executionId: options.executionId,
			runIndex: options.runIndex,
			executionContextData: options.executionContextData,
			n8nLine: options.n8nLine,
		});
		if (options.n8nHttp) {
			const real = loadN8nHttpRequest();
			if (!real) throw new Error('n8n is not installed in the cache: run scripts/install-n8n.sh');
			(context.helpers as { httpRequest: unknown }).httpRequest = real;
		}
		return context;
	}

	async run(
		parameters: Record<string, unknown>,
		options: RunOptions = {},
	): Promise<INodeExecutionData[]> {
		const [output] = await this.node.execute.call(this.context(parameters, options));
		return output;
	}

	/**
	 * Runs the node over one item per entry of `perItem`: an entry's parameters take the place of
	 * `parameters`' for its item, as expressions would give them.
	 */
	async runPerItem(
		parameters: Record<string, unknown>,
		perItem: Array<Record<string, unknown>>,
		options: RunOptions = {},
	): Promise<INodeExecutionData[]> {
		const context = this.context(parameters, {
			...options,
			items: perItem.map(() => ({ json: {} })),
		});
		const base = context.getNodeParameter.bind(context);
		(context as { getNodeParameter: unknown }).getNodeParameter = (
			name: string,
			itemIndex: number,
			fallback?: unknown,
			parameterOptions?: unknown,
		) =>
			name in perItem[itemIndex]
				? perItem[itemIndex][name]
				: base(name, itemIndex, fallback as never, parameterOptions as never);
		const [output] = await this.node.execute.call(context);
		return output;
	}
}

export function uploadParameters(extra: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		resource: 'transcription',
		operation: 'uploadAudio',
		binaryPropertyName: 'data',
		transactionId: '',
		inputLanguages: ['en-IN'],
		outputTemplates: {
			templates: [
				{ template: 'clinical_notes_template', customTemplateId: '', codificationNeeded: false },
			],
		},
		waitForCompletion: false,
		timeoutMinutes: 1,
		pollIntervalSeconds: 1,
		resultsOutput: 'session',
		options: {},
		...extra,
	};
}

export function resultsParameters(
	sessionId: unknown,
	extra: Record<string, unknown> = {},
): Record<string, unknown> {
	return {
		resource: 'transcription',
		operation: 'getResults',
		sessionId,
		waitForCompletion: false,
		timeoutMinutes: 1,
		pollIntervalSeconds: 1,
		resultsOutput: 'session',
		...extra,
	};
}

export function item(
	binary: Record<string, IBinaryData>,
	json: IDataObject = {},
): INodeExecutionData {
	return { json, binary };
}
