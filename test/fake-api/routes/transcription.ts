/**
 * The transcription flow of the fake clinic API (document 4.7 / 4.8, wire flow of the service notes),
 * strict about everything the service notes say a client must do:
 *
 *   POST /v1/file-upload?txn_id=&action=          presign (Bearer; action must be the variant's)
 *        → 200 {uploadData: {url, fields: {key: "<folder>${filename}", policy, x-amz-*}}, folderPath, txn_id}
 *   POST /storage/voice-uploads/                    the presigned storage POST (no auth header allowed)
 *        → 204; 403 when the policy expired or was forged; 400 on any multipart rule broken; 411 without
 *          Content-Length. The body is parsed as a stream (multipart.ts): every presigned field, `key`
 *          = folder + file name, the `file` part last, byte count and SHA-256 recorded per file.
 *   POST /voice/api/v2/transaction/init/:txn        (Bearer) → 201 {status, message, txn_id, b_id};
 *        409 already initialised; 422 a required field missing; 400 a wrong value; 400
 *        txn_limit_exceeded when the daily quota is used; 404 unknown transaction.
 *   GET  /voice/api/v3/status/:txn                  (Bearer) → 202 while processing (optionally held
 *        like the real long poll), then 200 (Base64 values: JSON for clinical notes and EMR, text with
 *        Hindi for the transcript, markdown for custom templates), or scripted 206 / 500 / FHIR form;
 *        404 unknown.
 *
 * Control in-process through `fakeTranscription(api)`, or over HTTP under /__admin/transcription/…:
 *   GET  /transcription/options · POST /transcription/options   defaults (processing polls, hold…)
 *   POST /transcription/script   {txn_id, outcome?, processingPolls?, processingMs?}
 *   GET  /transcription/transactions · GET /transcription/uploads · GET /transcription/rejected
 *   POST /transcription/presign  {txn_id, base_url}  a presign without a token (bench, curl)
 *   POST /transcription/lose-init-answer {txn_id?, kind, times?, ms?}  the next init(s) are carried
 *        out, then their answer is lost (500, dropped socket, malformed JSON, or held `ms`), the
 *        fault a client cannot tell from one that stopped the init (server faults stop it first)
 *   POST /transcription/reset
 */
import { createHmac, randomBytes } from 'node:crypto';

import { API_VARIANTS, BUSINESS } from '../fixtures';
import { boundaryFromContentType, parseMultipart, type MultipartPart } from '../multipart';
import type { AdminDefinition, FakeClinicApi, FakeClinicState, RouteContext, RouteDefinition } from '../server';

export const PRESIGN_PATH = '/v1/file-upload';
export const STORAGE_PATH = '/storage/voice-uploads/';
export const INIT_PATH = '/voice/api/v2/transaction/init/:txnId';
export const STATUS_PATH = '/voice/api/v3/status/:txnId';

export const INPUT_LANGUAGE_IDS = ['en-IN', 'en-US', 'hi', 'gu', 'kn', 'ml', 'ta', 'te', 'bn', 'mr', 'pa'] as const;
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

interface Transaction {
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

interface Presign {
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

interface Store {
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

function storeOf(state: FakeClinicState): Store {
	let store = stores.get(state);
	if (!store) {
		store = {
			options: { ...DEFAULT_TRANSCRIPTION_OPTIONS, customTemplateIds: [...DEFAULT_TRANSCRIPTION_OPTIONS.customTemplateIds] },
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

// ---------------------------------------------------------------------------------------------
// Documents the fake "produces" (tests compare the node's decoded output with these)
// ---------------------------------------------------------------------------------------------

export const CLINICAL_NOTES_DOCUMENT = Object.freeze({
	chief_complaints: ['Fever for 3 days', 'Dry cough'],
	history_of_present_illness:
		'Fever up to 101 °F for three days with a dry cough. In the patient\'s words: "मुझे तीन दिन से बुखार है".',
	vitals: { temperature: '100.8 °F', pulse: '92/min', blood_pressure: '124/80 mmHg', spo2: '97%' },
	examination: 'Throat congested. Chest clear on auscultation.',
	diagnosis: ['Acute upper respiratory tract infection'],
	medications: [
		{ name: 'Paracetamol 650 mg', dose: '1 tablet', frequency: 'three times a day after food', duration: '3 days' },
		{ name: 'Cetirizine 10 mg', dose: '1 tablet', frequency: 'at night', duration: '5 days' },
	],
	advice: ['Warm fluids', 'Rest for two days'],
	follow_up: 'After 5 days, or earlier if breathless',
});

export function emrDocument(codification: boolean) {
	return {
		encounter: { type: 'consultation', language: 'en-IN' },
		complaints: [{ text: 'Fever', duration: '3 days' }, { text: 'Dry cough' }],
		diagnoses: [codification ? { text: 'Acute upper respiratory tract infection', code: 'J06.9', system: 'ICD-10' } : { text: 'Acute upper respiratory tract infection' }],
		prescriptions: [
			{ drug: 'Paracetamol', strength: '650 mg', frequency: '1-1-1', days: 3 },
			{ drug: 'Cetirizine', strength: '10 mg', frequency: '0-0-1', days: 5 },
		],
	};
}

export const TRANSCRIPT_TEXT = [
	'Doctor: Good morning. What brings you in today?',
	'Patient: मुझे तीन दिन से बुखार और सूखी खांसी है।',
	'Doctor: Any breathlessness or chest pain?',
	'Patient: नहीं, सांस की कोई तकलीफ़ नहीं है।',
	'Doctor: Take paracetamol three times a day and come back after five days.',
].join('\n');

export function customTemplateText(templateId: string): string {
	return `# ${templateId}\n\n**S:** Fever and dry cough for 3 days.\n**O:** Temp 100.8 °F, throat congested.\n**A:** Acute URTI.\n**P:** Paracetamol, cetirizine; review in 5 days.\n`;
}

export const FHIR_BUNDLE = Object.freeze({
	resourceType: 'Bundle',
	type: 'document',
	entry: [
		{ resource: { resourceType: 'Composition', status: 'final', title: 'Consultation note' } },
		{ resource: { resourceType: 'Condition', code: { text: 'Acute upper respiratory tract infection' } } },
	],
});

export function base64Of(value: unknown): string {
	return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8').toString('base64');
}

// ---------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------

export const transcriptionRoutes: readonly RouteDefinition[] = [
	{ method: 'POST', pattern: PRESIGN_PATH, body: 'json', errorStyle: 'envelope', handler: presign },
	{ method: 'POST', pattern: STORAGE_PATH, body: 'raw', errorStyle: 'envelope', handler: storagePost },
	{ method: 'POST', pattern: INIT_PATH, body: 'json', errorStyle: 'envelope', handler: initTransaction },
	{ method: 'GET', pattern: STATUS_PATH, body: 'none', errorStyle: 'envelope', handler: sessionStatus },
];

function voiceError(ctx: RouteContext, status: number, code: string, message: string): void {
	ctx.sendJson(status, { error: { code, message } });
}

/** The token's business, or undefined after answering 401. Bearer only (service notes). */
function bearerBusiness(ctx: RouteContext): string | undefined {
	const header = ctx.req.headers.authorization;
	const match = typeof header === 'string' ? /^Bearer (.+)$/.exec(header) : null;
	const check = ctx.state.tokens.checkAccess(match ? match[1] : undefined);
	if (!check.valid) {
		voiceError(ctx, 401, 'unauthorized', 'token expired or invalid');
		return undefined;
	}
	return check.subject === 'static' ? BUSINESS.business_id : check.subject.businessId;
}

function variantOf(ctx: { state: FakeClinicState }) {
	return API_VARIANTS[ctx.state.options.variant];
}

function presign(ctx: RouteContext): void {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return;
	const txnIds = ctx.query.getAll('txn_id');
	if (txnIds.length !== 1 || txnIds[0].trim() === '') return voiceError(ctx, 400, 'invalid_txn_id', 'query parameter txn_id is required');
	const action = ctx.query.get('action');
	const expected = variantOf(ctx).uploadAction;
	if (action !== expected) return voiceError(ctx, 400, 'invalid_action', `action must be ${expected}`);
	const body = ctx.body;
	if (body && body.length > 0) {
		if (!body.isJsonMediaType || !isPlainObject(body.value)) return voiceError(ctx, 400, 'invalid_body', 'body must be a JSON object');
		const extra = body.value;
		if (extra.mode !== undefined && extra.mode !== 'dictation' && extra.mode !== 'consultation')
			return voiceError(ctx, 400, 'invalid_mode', 'mode must be dictation or consultation');
		if (extra.model_type !== undefined && extra.model_type !== 'pro' && extra.model_type !== 'lite')
			return voiceError(ctx, 400, 'invalid_model_type', 'model_type must be pro or lite');
	}
	const origin = `http://${ctx.req.headers.host ?? '127.0.0.1'}`;
	ctx.sendJson(200, presignFor(storeOf(ctx.state), txnIds[0], businessId, origin));
}

function presignFor(store: Store, txnId: string, businessId: string, origin: string): PresignAnswer {
	let txn = store.transactions.get(txnId);
	if (!txn) {
		const day = new Date().toISOString().slice(0, 10).replace(/-/g, '');
		txn = { txnId, businessId, folderPath: `EC_${businessId}/${day}/${txnId}/`, presigns: 0, initAttempts: 0, initsStarted: 0, statusCalls: 0, statusCallsAbandoned: 0 };
		const scripted = pendingScripts(store).get(txnId);
		if (scripted) {
			txn.script = scripted;
			pendingScripts(store).delete(txnId);
		}
		store.transactions.set(txnId, txn);
	}
	txn.presigns++;
	const expiresAt = Date.now() + store.options.presignTtlMs;
	const date = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
	const credential = `FAKEAKID/${date.slice(0, 8)}/ap-south-1/s3/aws4_request`;
	const policy = Buffer.from(
		JSON.stringify({
			expiration: new Date(expiresAt).toISOString(),
			conditions: [
				{ bucket: 'voice-uploads' },
				['starts-with', '$key', txn.folderPath],
				['content-length-range', 1, store.options.maxUploadBytes],
				{ 'x-amz-algorithm': 'AWS4-HMAC-SHA256' },
				{ 'x-amz-credential': credential },
				{ 'x-amz-date': date },
				{ nonce: randomBytes(6).toString('hex') },
			],
		}),
	).toString('base64');
	const fields: Record<string, string> = {
		key: `${txn.folderPath}\${filename}`,
		'x-amz-algorithm': 'AWS4-HMAC-SHA256',
		'x-amz-credential': credential,
		'x-amz-date': date,
		'x-amz-security-token': `FwoGZXIvYXdzE${randomBytes(12).toString('base64url')}`,
		policy,
		'x-amz-signature': createHmac('sha256', store.signingKey).update(policy).digest('hex'),
	};
	store.presigns.set(policy, { txnId, folderPath: txn.folderPath, expiresAt, fields });
	return { uploadData: { url: `${origin}${STORAGE_PATH}`, fields }, folderPath: txn.folderPath, txn_id: txnId };
}

function s3Error(ctx: RouteContext, status: number, code: string, message: string): void {
	if (ctx.res.headersSent) return;
	const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
	ctx.res.writeHead(status, { 'content-type': 'application/xml', 'content-length': String(Buffer.byteLength(xml)) });
	ctx.res.end(xml);
}

async function storagePost(ctx: RouteContext): Promise<void> {
	const store = storeOf(ctx.state);
	const headerNames = Object.keys(ctx.req.headers);
	const body = ctx.rawBody();
	const reject = async (status: number, code: string, reason: string, partOrder: string[] = []) => {
		store.rejected.push({ status, code, reason, headerNames, partOrder });
		s3Error(ctx, status, code, reason);
		body.resume();
	};
	if (ctx.req.headers.authorization !== undefined || ctx.req.headers.auth !== undefined) {
		return reject(400, 'InvalidArgument', 'An authorization header must not be sent with a presigned POST');
	}
	const declared = ctx.req.headers['content-length'];
	if (declared === undefined || !/^\d+$/.test(declared)) return reject(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
	const boundary = boundaryFromContentType(ctx.req.headers['content-type']);
	if (!boundary) return reject(400, 'InvalidArgument', 'Content-Type must be multipart/form-data with a boundary');

	let fileStartedAt = 0;
	const parsed = await parseMultipart(body, boundary, {
		onPartStart: (part) => {
			if (part.filename !== undefined) fileStartedAt = store.fileBytesReceived;
		},
		onFileBytes: (bytes) => {
			store.fileBytesReceived = fileStartedAt + bytes;
			notifyByteWaiters(store);
		},
	});
	const partOrder = parsed.parts.map((part) => part.name);
	if (parsed.error) return reject(400, 'MalformedPOSTRequest', `The body of your POST request is not well-formed multipart/form-data: ${parsed.error}`, partOrder);
	if (parsed.preambleBytes > 0) return reject(400, 'MalformedPOSTRequest', 'Unexpected bytes before the first boundary', partOrder);
	if (parsed.totalBytes !== Number(declared))
		return reject(400, 'IncompleteBody', `Content-Length was ${declared} but ${parsed.totalBytes} bytes arrived`, partOrder);

	const files = parsed.parts.filter((part): part is Extract<MultipartPart, { kind: 'file' }> => part.kind === 'file');
	if (files.length !== 1 || files[0].name !== 'file')
		return reject(400, 'InvalidArgument', 'POST requires exactly one file upload per request, in a part named "file"', partOrder);
	if (parsed.parts[parsed.parts.length - 1].kind !== 'file')
		return reject(400, 'InvalidArgument', 'The file part must be the last part of the form (fields after it are ignored by S3)', partOrder);
	const file = files[0];
	const fields: Record<string, string> = {};
	for (const part of parsed.parts) {
		if (part.kind !== 'field') continue;
		if (fields[part.name] !== undefined) return reject(400, 'InvalidArgument', `Field ${part.name} sent twice`, partOrder);
		fields[part.name] = part.value;
	}
	const presigned = fields.policy === undefined ? undefined : store.presigns.get(fields.policy);
	if (!presigned) return reject(403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed (unknown policy)', partOrder);
	if (fields['x-amz-signature'] !== createHmac('sha256', store.signingKey).update(fields.policy).digest('hex'))
		return reject(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.', partOrder);
	if (Date.now() > presigned.expiresAt) return reject(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.', partOrder);
	for (const [name, value] of Object.entries(presigned.fields)) {
		if (name === 'key') continue;
		if (fields[name] === undefined) return reject(403, 'AccessDenied', `Invalid according to Policy: missing field ${name}`, partOrder);
		if (fields[name] !== value) return reject(403, 'AccessDenied', `Invalid according to Policy: field ${name} was changed`, partOrder);
	}
	const extra = Object.keys(fields).filter((name) => !(name in presigned.fields));
	if (extra.length > 0) return reject(403, 'AccessDenied', `Invalid according to Policy: Extra input fields: ${extra.join(', ')}`, partOrder);
	const expectedKey = `${presigned.folderPath}${file.filename}`;
	if (fields.key !== expectedKey)
		return reject(400, 'InvalidArgument', `key must be the folder path plus the file name (${expectedKey}), got ${fields.key}`, partOrder);
	if (file.filename === '' || file.size === 0) return reject(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size', partOrder);
	if (file.size > store.options.maxUploadBytes) return reject(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size', partOrder);

	const upload: StoredUpload = {
		txnId: presigned.txnId,
		key: fields.key,
		fileName: file.filename,
		size: file.size,
		sha256: file.sha256,
		contentType: file.contentType,
		contentLength: Number(declared),
		bodyBytes: parsed.totalBytes,
		partOrder,
		fields,
		headerNames,
	};
	store.objects.set(upload.key, upload);
	store.uploads.push(upload);
	ctx.res.writeHead(204, { etag: `"${file.sha256.slice(0, 32)}"`, location: `${STORAGE_PATH}${encodeURI(upload.key)}` });
	ctx.res.end();
}

function notifyByteWaiters(store: Store): void {
	if (store.byteWaiters.length === 0) return;
	store.byteWaiters = store.byteWaiters.filter((waiter) => {
		if (store.fileBytesReceived < waiter.bytes) return true;
		waiter.resolve();
		return false;
	});
}

const REQUIRED_INIT_FIELDS = [
	'mode',
	'transfer',
	'batch_s3_url',
	'client_generated_files',
	'model_type',
	'input_language',
	'output_format_template',
] as const;
const OPTIONAL_INIT_FIELDS = ['additional_data', 'output_language'];

async function initTransaction(ctx: RouteContext): Promise<void> {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return;
	const store = storeOf(ctx.state);
	const body = ctx.body;
	if (!body || !body.isJsonMediaType || !isPlainObject(body.value))
		return voiceError(ctx, 400, 'invalid_body', 'body must be a JSON object sent as application/json');
	const txn = store.transactions.get(ctx.params.txnId);
	if (!txn || txn.businessId !== businessId) return voiceError(ctx, 404, 'txn_not_found', 'transaction not found: ask for an upload URL first');
	txn.initAttempts++;
	if (txn.initBody) return voiceError(ctx, 409, 'txn_already_initialised', 'transaction already initialised');
	const input = body.value;
	for (const field of REQUIRED_INIT_FIELDS) {
		if (input[field] === undefined || input[field] === null) return voiceError(ctx, 422, 'missing_field', `${field} is required`);
	}
	const unknown = Object.keys(input).filter((key) => !(REQUIRED_INIT_FIELDS as readonly string[]).includes(key) && !OPTIONAL_INIT_FIELDS.includes(key));
	if (unknown.length > 0) return voiceError(ctx, 400, 'invalid_field', `unknown field(s): ${unknown.join(', ')}`);
	const problem = initProblem(ctx, store, txn, input);
	if (problem) return voiceError(ctx, 400, problem.code, problem.message);
	if (store.initsToday >= store.options.dailyTransactionLimit)
		return voiceError(ctx, 400, 'txn_limit_exceeded', 'Daily transaction limit exceeded for this workspace');
	store.initsToday++;
	txn.initBody = input;
	txn.initAt = Date.now();
	txn.initsStarted++;
	for (const listener of store.initListeners) listener(txn.txnId);
	const answer = { status: 'success', message: 'Transaction initialised successfully', txn_id: txn.txnId, b_id: businessId };
	const loss = store.initAnswerLosses.find((entry) => entry.txnId === undefined || entry.txnId === txn.txnId);
	if (loss) {
		if (--loss.times <= 0) store.initAnswerLosses.splice(store.initAnswerLosses.indexOf(loss), 1);
		if (loss.kind === 'drop') return void ctx.req.socket.destroy();
		if (loss.kind === 'status500') return voiceError(ctx, 500, 'internal_error', 'upstream timed out');
		if (loss.kind === 'malformed') {
			const text = '{"status": "success", "txn_id": ';
			ctx.res.writeHead(201, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
			return void ctx.res.end(text);
		}
		if ((await holdUnlessClientLeaves(ctx, loss.ms ?? 1_000)) === 'client-left') return;
	}
	ctx.sendJson(201, answer);
}

function initProblem(
	ctx: RouteContext,
	store: Store,
	txn: Transaction,
	input: Record<string, unknown>,
): { code: string; message: string } | undefined {
	if (input.mode !== 'dictation' && input.mode !== 'consultation') return { code: 'invalid_mode', message: 'mode must be dictation or consultation' };
	if (input.transfer !== 'non-vaded') return { code: 'invalid_transfer', message: 'transfer must be non-vaded' };
	if (input.model_type !== 'pro' && input.model_type !== 'lite') return { code: 'invalid_model_type', message: 'model_type must be pro or lite' };
	const origin = `http://${ctx.req.headers.host ?? '127.0.0.1'}`;
	if (input.batch_s3_url !== `${origin}${STORAGE_PATH}${txn.folderPath}`)
		return { code: 'invalid_batch_s3_url', message: 'batch_s3_url must be the upload URL followed by the folder path' };
	const files = input.client_generated_files;
	if (!Array.isArray(files) || files.length === 0 || files.some((name) => typeof name !== 'string' || name === ''))
		return { code: 'invalid_files', message: 'client_generated_files must be a non-empty array of file names' };
	if (new Set(files).size !== files.length) return { code: 'invalid_files', message: 'client_generated_files lists a file twice' };
	const missing = (files as string[]).filter((name) => !store.objects.has(`${txn.folderPath}${name}`));
	if (missing.length > 0) return { code: 'files_not_uploaded', message: `files not uploaded: ${missing.join(', ')}` };
	const languages = input.input_language;
	if (!Array.isArray(languages) || languages.length === 0) return { code: 'invalid_input_language', message: 'input_language must be a non-empty array' };
	const unknownLanguages = languages.filter((id) => !(INPUT_LANGUAGE_IDS as readonly unknown[]).includes(id));
	if (unknownLanguages.length > 0) return { code: 'invalid_input_language', message: `unknown language id(s): ${unknownLanguages.join(', ')}` };
	const templates = input.output_format_template;
	if (!Array.isArray(templates) || templates.length === 0)
		return { code: 'invalid_output_format_template', message: 'output_format_template must be a non-empty array' };
	const known = [CLINICAL_NOTES_ID, variantOf(ctx).emrTemplateId, TRANSCRIPT_ID, ...store.options.customTemplateIds];
	for (const template of templates) {
		if (!isPlainObject(template) || typeof template.template_id !== 'string' || typeof template.codification_needed !== 'boolean')
			return { code: 'invalid_output_format_template', message: 'each template needs template_id (string) and codification_needed (boolean)' };
		if (!known.includes(template.template_id)) return { code: 'invalid_template_id', message: `unknown template_id ${template.template_id}` };
	}
	if (input.additional_data !== undefined && !isPlainObject(input.additional_data))
		return { code: 'invalid_additional_data', message: 'additional_data must be an object' };
	if (input.output_language !== undefined && typeof input.output_language !== 'string')
		return { code: 'invalid_output_language', message: 'output_language must be a string' };
	return undefined;
}

async function sessionStatus(ctx: RouteContext): Promise<void> {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return;
	const store = storeOf(ctx.state);
	const txn = store.transactions.get(ctx.params.txnId);
	if (!txn || txn.businessId !== businessId || !txn.initBody) return voiceError(ctx, 404, 'txn_not_found', 'no such transaction');
	txn.statusCalls++;
	const script = { ...pickScript(store.options), ...txn.script };
	const readyAt = (txn.initAt ?? 0) + (script.processingMs ?? 0);
	const stillPolling = txn.statusCalls <= (script.processingPolls ?? 0);
	if (stillPolling || Date.now() < readyAt) {
		// The real service holds the call (long poll) before it says "still processing".
		const hold = stillPolling ? store.options.holdMs : Math.min(store.options.holdMs, readyAt - Date.now());
		if (hold > 0 && (await holdUnlessClientLeaves(ctx, hold)) === 'client-left') {
			// The client closed the connection during the hold (Stop, its own timeout): nothing to answer.
			txn.statusCallsAbandoned++;
			return;
		}
		if (stillPolling || Date.now() < readyAt) return ctx.sendJson(202, processingBody(ctx, txn));
	}
	const [status, body] = resultsBody(ctx, txn, script.outcome ?? 'success');
	ctx.sendJson(status, body);
}

function pickScript(options: TranscriptionOptions): TransactionScript {
	return { outcome: options.outcome, processingPolls: options.processingPolls, processingMs: options.processingMs };
}

/** Holds a status call like the real long poll, ending early when the client closes the connection. */
function holdUnlessClientLeaves(ctx: RouteContext, ms: number): Promise<'held' | 'client-left'> {
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

interface RequestedTemplate {
	template_id: string;
	codification_needed: boolean;
}

function requestedTemplates(txn: Transaction): RequestedTemplate[] {
	return (txn.initBody?.output_format_template as RequestedTemplate[] | undefined) ?? [];
}

function templateName(ctx: { state: FakeClinicState }, templateId: string): string {
	if (templateId === CLINICAL_NOTES_ID) return 'Clinical Notes';
	if (templateId === TRANSCRIPT_ID) return 'Transcript';
	if (templateId === variantOf(ctx).emrTemplateId) return 'EMR Format';
	return `Custom: ${templateId}`;
}

/** The document a template produces, as the value before Base64, and its type. */
export function templateDocument(emrTemplateId: string, template: RequestedTemplate): { value: unknown; type: string } {
	if (template.template_id === CLINICAL_NOTES_ID) return { value: CLINICAL_NOTES_DOCUMENT, type: 'json' };
	if (template.template_id === TRANSCRIPT_ID) return { value: TRANSCRIPT_TEXT, type: 'text' };
	if (template.template_id === emrTemplateId) return { value: emrDocument(template.codification_needed), type: 'json' };
	return { value: customTemplateText(template.template_id), type: 'markdown' };
}

function processingBody(ctx: RouteContext, txn: Transaction) {
	return {
		data: {
			output: requestedTemplates(txn).map((template) => ({
				template_id: template.template_id,
				name: templateName(ctx, template.template_id),
				value: '',
				status: 'in-progress',
				errors: [],
				warnings: [],
			})),
		},
	};
}

function resultsBody(ctx: RouteContext, txn: Transaction, outcome: Outcome): [number, unknown] {
	const emrId = variantOf(ctx).emrTemplateId;
	const extra = { additional_data: txn.initBody?.additional_data ?? {}, created_at: new Date(txn.initAt ?? Date.now()).toISOString() };
	if (outcome === 'fhir') return [200, { data: { output: { fhir: base64Of(FHIR_BUNDLE) }, ...extra } }];
	const templates = requestedTemplates(txn);
	const success = (template: RequestedTemplate) => {
		const document = templateDocument(emrId, template);
		return {
			template_id: template.template_id,
			name: templateName(ctx, template.template_id),
			value: base64Of(document.value),
			type: document.type,
			status: 'success',
			errors: [],
			warnings: [],
		};
	};
	const failure = (template: RequestedTemplate) => ({
		template_id: template.template_id,
		name: templateName(ctx, template.template_id),
		value: '',
		status: 'failure',
		errors: [{ code: 'template_generation_failed', message: 'Could not generate this template from the audio' }],
		warnings: [],
	});
	if (outcome === 'success') return [200, { data: { output: templates.map(success), ...extra } }];
	if (outcome === 'failure') {
		return [500, { data: { output: templates.map(failure), ...extra }, error: { code: 'transcription_failed', message: 'All templates failed' } }];
	}
	// partial: the first template made it; with one template, it made it only in part.
	if (templates.length === 1) {
		return [206, { data: { output: [{ ...success(templates[0]), status: 'partial_success', warnings: ['Some sections could not be generated: audio unclear'] }], ...extra } }];
	}
	return [206, { data: { output: templates.map((template, index) => (index === 0 ? success(template) : failure(template))), ...extra } }];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// Control
// ---------------------------------------------------------------------------------------------

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
	customTemplateIds: (v) => Array.isArray(v) && v.every((id) => typeof id === 'string' && id !== ''),
	maxUploadBytes: (v) => Number.isInteger(v) && (v as number) >= 1,
};

function validateOptions(patch: unknown): Partial<TranscriptionOptions> {
	if (!isPlainObject(patch)) throw new Error('options must be an object');
	for (const [key, value] of Object.entries(patch)) {
		const check = OPTION_CHECKS[key as keyof TranscriptionOptions];
		if (!check) throw new Error(`unknown transcription option ${key}`);
		if (!check(value)) throw new Error(`invalid value for transcription option ${key}: ${JSON.stringify(value)}`);
	}
	return patch as Partial<TranscriptionOptions>;
}

function validateScript(input: unknown): TransactionScript {
	if (!isPlainObject(input)) throw new Error('script must be an object');
	const script: TransactionScript = {};
	if (input.outcome !== undefined) {
		if (!OPTION_CHECKS.outcome(input.outcome)) throw new Error('outcome must be success, partial, failure or fhir');
		script.outcome = input.outcome as Outcome;
	}
	for (const key of ['processingPolls', 'processingMs'] as const) {
		if (input[key] === undefined) continue;
		if (!OPTION_CHECKS[key](input[key])) throw new Error(`${key} must be a whole number >= 0`);
		script[key] = input[key] as number;
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
		presign: (txnId, baseUrl) => presignFor(store, txnId, BUSINESS.business_id, baseUrl.replace(/\/+$/, '')),
		loseInitAnswer: (loss) => {
			if (!isPlainObject(loss) || !['status500', 'drop', 'malformed', 'slow'].includes(loss.kind))
				throw new Error('kind must be status500, drop, malformed or slow');
			const times = loss.times ?? 1;
			if (!(times === Infinity || (Number.isInteger(times) && times >= 1))) throw new Error('times must be an integer >= 1 or Infinity');
			if (loss.ms !== undefined && !(Number.isInteger(loss.ms) && loss.ms >= 0 && loss.ms <= 600_000)) throw new Error('ms must be 0..600000');
			if (loss.txnId !== undefined && (typeof loss.txnId !== 'string' || loss.txnId === '')) throw new Error('txnId must be a non-empty string');
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
			store.options = { ...DEFAULT_TRANSCRIPTION_OPTIONS, customTemplateIds: [...DEFAULT_TRANSCRIPTION_OPTIONS.customTemplateIds] };
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

/** Scripts for transactions not presigned yet: applied when they are. */
const scriptsByStore = new WeakMap<Store, Map<string, TransactionScript>>();
function pendingScripts(store: Store): Map<string, TransactionScript> {
	let scripts = scriptsByStore.get(store);
	if (!scripts) {
		scripts = new Map();
		scriptsByStore.set(store, scripts);
	}
	return scripts;
}

/** In-process control of a fake API started in this process. */
export function fakeTranscription(api: FakeClinicApi): FakeTranscription {
	return controls(api.state);
}

export const transcriptionAdmin: readonly AdminDefinition[] = [
	{ method: 'GET', action: '/transcription/options', handler: ({ state }) => controls(state).options() },
	{ method: 'POST', action: '/transcription/options', handler: ({ state, input }) => controls(state).setOptions(input as Partial<TranscriptionOptions>) },
	{
		method: 'POST',
		action: '/transcription/script',
		handler: ({ state, input }) => {
			if (!isPlainObject(input) || typeof input.txn_id !== 'string' || input.txn_id === '') throw new Error('txn_id is required');
			const { txn_id: txnId, ...script } = input;
			controls(state).script(txnId, script as TransactionScript);
			return { ok: true };
		},
	},
	{ method: 'GET', action: '/transcription/transactions', handler: ({ state }) => controls(state).transactions() },
	{ method: 'GET', action: '/transcription/uploads', handler: ({ state }) => controls(state).uploads() },
	{ method: 'GET', action: '/transcription/rejected', handler: ({ state }) => controls(state).rejectedUploads() },
	{
		method: 'POST',
		action: '/transcription/presign',
		handler: ({ state, input }) => {
			if (!isPlainObject(input) || typeof input.txn_id !== 'string' || input.txn_id === '') throw new Error('txn_id is required');
			if (typeof input.base_url !== 'string' || !/^http:\/\/127\.0\.0\.1:\d+\/?$/.test(input.base_url))
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
		setOptions: async (patch: Partial<TranscriptionOptions>) => await admin<TranscriptionOptions>('POST', 'options', patch),
		script: async (txnId: string, script: TransactionScript) => await admin<{ ok: true }>('POST', 'script', { txn_id: txnId, ...script }),
		transactions: async () => await admin<TransactionView[]>('GET', 'transactions'),
		uploads: async () => await admin<StoredUpload[]>('GET', 'uploads'),
		rejectedUploads: async () => await admin<RejectedUpload[]>('GET', 'rejected'),
		presign: async (txnId: string) => await admin<PresignAnswer>('POST', 'presign', { txn_id: txnId, base_url: baseUrl }),
		loseInitAnswer: async (loss: InitAnswerLoss) =>
			await admin<{ ok: true }>('POST', 'lose-init-answer', { txn_id: loss.txnId, kind: loss.kind, times: loss.times === Infinity ? 'Infinity' : loss.times, ms: loss.ms }),
		reset: async () => await admin<{ ok: true }>('POST', 'reset'),
	};
}
