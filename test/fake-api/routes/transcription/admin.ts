/**
 * Control of the fake transcription service: in-process (`fakeTranscription(api)`), over HTTP under
 * /__admin/transcription/… (`transcriptionAdmin`), and the HTTP client for a fake in another
 * process (`remoteFakeTranscription`).
 */
import { BUSINESS } from '../../fixtures';
import type { AdminDefinition, FakeClinicApi, FakeClinicState } from '../../types';
import { notifyByteWaiters, presignFor } from './upload';
import {
	DEFAULT_TRANSCRIPTION_OPTIONS,
	isPlainObject,
	pendingScripts,
	storeOf,
	type InitAnswerLoss,
	type Outcome,
	type PresignAnswer,
	type RejectedUpload,
	type Store,
	type StoredUpload,
	type Transaction,
	type TransactionScript,
	type TransactionView,
	type TranscriptionOptions,
} from './store';

export interface FakeTranscription {
	options(): TranscriptionOptions;
	setOptions(patch: Partial<TranscriptionOptions>): TranscriptionOptions;
	script(txnId: string, script: TransactionScript): void;
	transactions(): TransactionView[];
	transaction(txnId: string): TransactionView | undefined;
	uploads(): StoredUpload[];
	rejectedUploads(): RejectedUpload[];
	/** A presign without a token, for the bench and curl. */
	presign(txnId: string, baseUrl: string): PresignAnswer;
	/** The next matching init(s) are carried out, then their answer is lost (see InitAnswerLoss). */
	loseInitAnswer(loss: InitAnswerLoss): void;
	/** Calls `listener` after every init that starts a transcription, before it is answered (until reset). */
	onInitStarted(listener: (txnId: string) => void): void;
	/** File bytes received by the storage endpoint so far (all uploads, in-flight ones included). */
	fileBytesReceived(): number;
	/** Resolves once the storage endpoint has received at least this many file bytes in all. */
	waitForFileBytes(bytes: number): Promise<void>;
	reset(): void;
}

const OPTION_CHECKS: { [K in keyof TranscriptionOptions]: (value: unknown) => boolean } = {
	processingPolls: (v) => Number.isInteger(v) && (v as number) >= 0,
	processingMs: (v) => Number.isInteger(v) && (v as number) >= 0,
	holdMs: (v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 60_000,
	outcome: (v) => v === 'success' || v === 'partial' || v === 'failure' || v === 'fhir',
	dailyTransactionLimit: (v) => Number.isInteger(v) && (v as number) >= 0,
	presignTtlMs: (v) => Number.isInteger(v) && (v as number) >= 0,
	customTemplateIds: (v) =>
		Array.isArray(v) && v.every((id) => typeof id === 'string' && id !== ''),
	maxUploadBytes: (v) => Number.isInteger(v) && (v as number) >= 1,
};

function validateOptions(patch: unknown): Partial<TranscriptionOptions> {
	if (!isPlainObject(patch)) throw new Error('options must be an object');
	for (const [key, value] of Object.entries(patch)) {
		const check = OPTION_CHECKS[key as keyof TranscriptionOptions];
		if (!check) throw new Error(`unknown transcription option ${key}`);
		if (!check(value))
			throw new Error(`invalid value for transcription option ${key}: ${JSON.stringify(value)}`);
	}
	return patch as Partial<TranscriptionOptions>;
}

function validateScript(input: unknown): TransactionScript {
	if (!isPlainObject(input)) throw new Error('script must be an object');
	const script: TransactionScript = {};
	if (input.outcome !== undefined) {
		if (!OPTION_CHECKS.outcome(input.outcome))
			throw new Error('outcome must be success, partial, failure or fhir');
		script.outcome = input.outcome as Outcome;
	}
	for (const key of ['processingPolls', 'processingMs'] as const) {
		if (input[key] === undefined) continue;
		if (!OPTION_CHECKS[key](input[key])) throw new Error(`${key} must be a whole number >= 0`);
		script[key] = input[key] as number;
	}
	if (input.emrPrescription !== undefined) {
		if (!isPlainObject(input.emrPrescription)) throw new Error('emrPrescription must be an object');
		script.emrPrescription = input.emrPrescription;
	}
	return script;
}

function view(store: Store, txn: Transaction): TransactionView {
	const result: TransactionView = {
		txnId: txn.txnId,
		businessId: txn.businessId,
		folderPath: txn.folderPath,
		presigns: txn.presigns,
		initialised: txn.initBody !== undefined,
		initAttempts: txn.initAttempts,
		initsStarted: txn.initsStarted,
		statusCalls: txn.statusCalls,
		statusCallsAbandoned: txn.statusCallsAbandoned,
		uploads: store.uploads.filter((upload) => upload.txnId === txn.txnId),
	};
	if (txn.initBody) result.initBody = txn.initBody;
	if (txn.script) result.script = txn.script;
	return result;
}

function controls(state: FakeClinicState): FakeTranscription {
	const store = storeOf(state);
	return {
		options: () => ({ ...store.options, customTemplateIds: [...store.options.customTemplateIds] }),
		setOptions: (patch) => {
			Object.assign(store.options, validateOptions(patch));
			return { ...store.options };
		},
		script: (txnId, script) => {
			const txn = store.transactions.get(txnId);
			const valid = validateScript(script);
			if (txn) txn.script = { ...txn.script, ...valid };
			else pendingScripts(store).set(txnId, valid);
		},
		transactions: () => [...store.transactions.values()].map((txn) => view(store, txn)),
		transaction: (txnId) => {
			const txn = store.transactions.get(txnId);
			return txn ? view(store, txn) : undefined;
		},
		uploads: () => [...store.uploads],
		rejectedUploads: () => [...store.rejected],
		presign: (txnId, baseUrl) =>
			presignFor(store, txnId, BUSINESS.business_id, baseUrl.replace(/\/+$/, '')),
		loseInitAnswer: (loss) => {
			if (!isPlainObject(loss) || !['status500', 'drop', 'malformed', 'slow'].includes(loss.kind))
				throw new Error('kind must be status500, drop, malformed or slow');
			const times = loss.times ?? 1;
			if (!(times === Infinity || (Number.isInteger(times) && times >= 1)))
				throw new Error('times must be an integer >= 1 or Infinity');
			if (
				loss.ms !== undefined &&
				!(Number.isInteger(loss.ms) && loss.ms >= 0 && loss.ms <= 600_000)
			)
				throw new Error('ms must be 0..600000');
			if (loss.txnId !== undefined && (typeof loss.txnId !== 'string' || loss.txnId === ''))
				throw new Error('txnId must be a non-empty string');
			store.initAnswerLosses.push({ ...loss, times });
		},
		onInitStarted: (listener) => {
			store.initListeners.push(listener);
		},
		fileBytesReceived: () => store.fileBytesReceived,
		waitForFileBytes: (bytes) =>
			new Promise<void>((resolve) => {
				store.byteWaiters.push({ bytes, resolve });
				notifyByteWaiters(store);
			}),
		reset: () => {
			store.options = {
				...DEFAULT_TRANSCRIPTION_OPTIONS,
				customTemplateIds: [...DEFAULT_TRANSCRIPTION_OPTIONS.customTemplateIds],
			};
			store.transactions.clear();
			store.presigns.clear();
			store.objects.clear();
			store.uploads.length = 0;
			store.rejected.length = 0;
			store.initsToday = 0;
			store.initAnswerLosses = [];
			store.initListeners = [];
			store.fileBytesReceived = 0;
			for (const waiter of store.byteWaiters) waiter.resolve();
			store.byteWaiters = [];
			pendingScripts(store).clear();
		},
	};
}

/** In-process control of a fake API started in this process. */
export function fakeTranscription(api: FakeClinicApi): FakeTranscription {
	return controls(api.state);
}

export const transcriptionAdmin: readonly AdminDefinition[] = [
	{
		method: 'GET',
		action: '/transcription/options',
		handler: ({ state }) => controls(state).options(),
	},
	{
		method: 'POST',
		action: '/transcription/options',
		handler: ({ state, input }) =>
			controls(state).setOptions(input as Partial<TranscriptionOptions>),
	},
	{
		method: 'POST',
		action: '/transcription/script',
		handler: ({ state, input }) => {
			if (!isPlainObject(input) || typeof input.txn_id !== 'string' || input.txn_id === '')
				throw new Error('txn_id is required');
			const { txn_id: txnId, ...script } = input;
			controls(state).script(txnId, script as TransactionScript);
			return { ok: true };
		},
	},
	{
		method: 'GET',
		action: '/transcription/transactions',
		handler: ({ state }) => controls(state).transactions(),
	},
	{
		method: 'GET',
		action: '/transcription/uploads',
		handler: ({ state }) => controls(state).uploads(),
	},
	{
		method: 'GET',
		action: '/transcription/rejected',
		handler: ({ state }) => controls(state).rejectedUploads(),
	},
	{
		method: 'POST',
		action: '/transcription/presign',
		handler: ({ state, input }) => {
			if (!isPlainObject(input) || typeof input.txn_id !== 'string' || input.txn_id === '')
				throw new Error('txn_id is required');
			if (
				typeof input.base_url !== 'string' ||
				!/^http:\/\/127\.0\.0\.1:\d+\/?$/.test(input.base_url)
			)
				throw new Error('base_url must be the fake API address, http://127.0.0.1:<port>');
			return controls(state).presign(input.txn_id, input.base_url);
		},
	},
	{
		method: 'POST',
		action: '/transcription/lose-init-answer',
		handler: ({ state, input }) => {
			if (!isPlainObject(input)) throw new Error('body must be an object');
			const { txn_id: txnId, kind, times, ms } = input;
			controls(state).loseInitAnswer({
				txnId: txnId as string | undefined,
				kind: kind as InitAnswerLoss['kind'],
				times: times === 'Infinity' ? Infinity : (times as number | undefined),
				ms: ms as number | undefined,
			});
			return { ok: true };
		},
	},
	{
		method: 'POST',
		action: '/transcription/reset',
		handler: ({ state }) => {
			controls(state).reset();
			return { ok: true };
		},
	},
];

/** Control over HTTP, for a fake API running in another process (test/fake-api/cli.ts). */
export function remoteFakeTranscription(baseUrl: string) {
	const admin = async <T>(method: 'GET' | 'POST', action: string, body?: unknown): Promise<T> => {
		const send = async () =>
			await fetch(`${baseUrl}/__admin/transcription/${action}`, {
				method,
				headers: body === undefined ? {} : { 'content-type': 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
		let response: Response;
		try {
			response = await send();
		} catch {
			// A kept-alive connection the server closed meanwhile: once more on a fresh one.
			response = await send();
		}
		const text = await response.text();
		if (!response.ok) throw new Error(`admin ${action}: HTTP ${response.status} ${text}`);
		return JSON.parse(text) as T;
	};
	return {
		options: async () => await admin<TranscriptionOptions>('GET', 'options'),
		setOptions: async (patch: Partial<TranscriptionOptions>) =>
			await admin<TranscriptionOptions>('POST', 'options', patch),
		script: async (txnId: string, script: TransactionScript) =>
			await admin<{ ok: true }>('POST', 'script', { txn_id: txnId, ...script }),
		transactions: async () => await admin<TransactionView[]>('GET', 'transactions'),
		uploads: async () => await admin<StoredUpload[]>('GET', 'uploads'),
		rejectedUploads: async () => await admin<RejectedUpload[]>('GET', 'rejected'),
		presign: async (txnId: string) =>
			await admin<PresignAnswer>('POST', 'presign', { txn_id: txnId, base_url: baseUrl }),
		loseInitAnswer: async (loss: InitAnswerLoss) =>
			await admin<{ ok: true }>('POST', 'lose-init-answer', {
				txn_id: loss.txnId,
				kind: loss.kind,
				times: loss.times === Infinity ? 'Infinity' : loss.times,
				ms: loss.ms,
			}),
		reset: async () => await admin<{ ok: true }>('POST', 'reset'),
	};
}
