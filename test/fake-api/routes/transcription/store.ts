/** The fake transcription service's state (one store per fake API), its wire names, and what every route shares. */
import { randomBytes } from 'node:crypto';

import { API_VARIANTS, BUSINESS } from '../../fixtures';
import type { FakeClinicState, RouteContext } from '../../types';

export const PRESIGN_PATH = '/v1/file-upload';

export const STORAGE_PATH = '/storage/voice-uploads/';

export const INIT_PATH = '/voice/api/v2/transaction/init/:txnId';

export const STATUS_PATH = '/voice/api/v3/status/:txnId';

export const INPUT_LANGUAGE_IDS = [
	'en-IN',
	'en-US',
	'hi',
	'gu',
	'kn',
	'ml',
	'ta',
	'te',
	'bn',
	'mr',
	'pa',
] as const;

export const CLINICAL_NOTES_ID = 'clinical_notes_template';

export const TRANSCRIPT_ID = 'transcript_template';

export type Outcome = 'success' | 'partial' | 'failure' | 'fhir';

export interface TranscriptionOptions {
	/** Status calls answered 202 before the results (per transaction). Default 1. */
	processingPolls: number;
	/** And/or: time after init during which the status call answers 202. Default 0. */
	processingMs: number;
	/** How long a status call is held before it answers 202 (the real service: about 14 s). Default 0. */
	holdMs: number;
	outcome: Outcome;
	/** Successful inits allowed before 400 txn_limit_exceeded ("a day": until reset). Default 20. */
	dailyTransactionLimit: number;
	/** Lifetime of a presigned policy. Default 15 minutes. */
	presignTtlMs: number;
	/** Template ids of the workspace, accepted besides the variant's three. */
	customTemplateIds: string[];
	/** content-length-range of the policy. Default 4 GiB. */
	maxUploadBytes: number;
}

export interface TransactionScript {
	outcome?: Outcome;
	processingPolls?: number;
	processingMs?: number;
	/** The EMR template's `prescription` for this visit, in place of the fake's own (benches, larger visits). */
	emrPrescription?: Record<string, unknown>;
}

export interface StoredUpload {
	txnId: string;
	key: string;
	fileName: string;
	size: number;
	sha256: string;
	contentType: string | undefined;
	/** The request's declared Content-Length and the bytes actually received. */
	contentLength: number;
	bodyBytes: number;
	/** Part names in the order received (`file` is last). */
	partOrder: string[];
	fields: Record<string, string>;
	/** Header names of the request, lower-case (to show no auth header came). */
	headerNames: string[];
}

export interface RejectedUpload {
	status: number;
	code: string;
	reason: string;
	headerNames: string[];
	partOrder: string[];
}

export interface TransactionView {
	txnId: string;
	businessId: string;
	folderPath: string;
	presigns: number;
	initialised: boolean;
	initBody?: Record<string, unknown>;
	/** Init requests that reached the handler (201, 409, 4xx alike). */
	initAttempts: number;
	/** Inits that started the transcription (the paid step): 0 or 1, since a second answers 409. */
	initsStarted: number;
	statusCalls: number;
	/** Status calls whose client closed the connection while the call was held (Stop, client timeout). */
	statusCallsAbandoned: number;
	script?: TransactionScript;
	uploads: StoredUpload[];
}

export interface PresignAnswer {
	uploadData: { url: string; fields: Record<string, string> };
	folderPath: string;
	txn_id: string;
}

export interface Transaction {
	txnId: string;
	businessId: string;
	folderPath: string;
	presigns: number;
	initBody?: Record<string, unknown>;
	initAt?: number;
	initAttempts: number;
	initsStarted: number;
	statusCalls: number;
	statusCallsAbandoned: number;
	script?: TransactionScript;
}

export interface Presign {
	txnId: string;
	folderPath: string;
	expiresAt: number;
	fields: Record<string, string>;
}

/** An init carried out whose answer is then lost: what a client sees as an unknown outcome. */
export interface InitAnswerLoss {
	/** Only inits of this transaction; any when absent. */
	txnId?: string;
	kind: 'status500' | 'drop' | 'malformed' | 'slow';
	/** How many inits it applies to. Default 1. */
	times?: number;
	/** For `slow`: how long the 201 is held. */
	ms?: number;
}

export interface Store {
	options: TranscriptionOptions;
	initAnswerLosses: Array<Required<Pick<InitAnswerLoss, 'kind' | 'times'>> & InitAnswerLoss>;
	/** In-process hooks told of every init that started a transcription (tests: "between items"). */
	initListeners: Array<(txnId: string) => void>;
	transactions: Map<string, Transaction>;
	/** By policy (the field value), to find what a storage POST was presigned for. */
	presigns: Map<string, Presign>;
	/** By storage key. */
	objects: Map<string, StoredUpload>;
	uploads: StoredUpload[];
	rejected: RejectedUpload[];
	initsToday: number;
	fileBytesReceived: number;
	byteWaiters: Array<{ bytes: number; resolve: () => void }>;
	signingKey: Buffer;
}

export const DEFAULT_TRANSCRIPTION_OPTIONS: Readonly<TranscriptionOptions> = Object.freeze({
	processingPolls: 1,
	processingMs: 0,
	holdMs: 0,
	outcome: 'success',
	dailyTransactionLimit: 20,
	presignTtlMs: 15 * 60_000,
	customTemplateIds: ['tpl-soap-note'],
	maxUploadBytes: 4 * 1024 ** 3,
});

const stores = new WeakMap<FakeClinicState, Store>();

export function storeOf(state: FakeClinicState): Store {
	let store = stores.get(state);
	if (!store) {
		store = {
			options: {
				...DEFAULT_TRANSCRIPTION_OPTIONS,
				customTemplateIds: [...DEFAULT_TRANSCRIPTION_OPTIONS.customTemplateIds],
			},
			initAnswerLosses: [],
			initListeners: [],
			transactions: new Map(),
			presigns: new Map(),
			objects: new Map(),
			uploads: [],
			rejected: [],
			initsToday: 0,
			fileBytesReceived: 0,
			byteWaiters: [],
			signingKey: randomBytes(32),
		};
		stores.set(state, store);
	}
	return store;
}

/** Scripts for transactions not presigned yet: applied when they are. */
const scriptsByStore = new WeakMap<Store, Map<string, TransactionScript>>();

export function pendingScripts(store: Store): Map<string, TransactionScript> {
	let scripts = scriptsByStore.get(store);
	if (!scripts) {
		scripts = new Map();
		scriptsByStore.set(store, scripts);
	}
	return scripts;
}

export function voiceError(ctx: RouteContext, status: number, code: string, message: string): void {
	ctx.sendJson(status, { error: { code, message } });
}

/** The token's business, or undefined after answering 401. Bearer only ([EKA-V2]). */
export function bearerBusiness(ctx: RouteContext): string | undefined {
	const header = ctx.req.headers.authorization;
	const match = typeof header === 'string' ? /^Bearer (.+)$/.exec(header) : null;
	const check = ctx.state.tokens.checkAccess(match ? match[1] : undefined);
	if (!check.valid) {
		voiceError(ctx, 401, 'unauthorized', 'token expired or invalid');
		return undefined;
	}
	return check.subject === 'static' ? BUSINESS.business_id : check.subject.businessId;
}

export function variantOf(ctx: { state: FakeClinicState }) {
	return API_VARIANTS[ctx.state.options.variant];
}

/** Holds a status call like the real long poll, ending early when the client closes the connection. */
export function holdUnlessClientLeaves(
	ctx: RouteContext,
	ms: number,
): Promise<'held' | 'client-left'> {
	return new Promise((resolve) => {
		const onClose = () => {
			clearTimeout(timer);
			resolve('client-left');
		};
		const timer = setTimeout(() => {
			ctx.res.off('close', onClose);
			resolve('held');
		}, ms).unref();
		ctx.res.once('close', onClose);
	});
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
