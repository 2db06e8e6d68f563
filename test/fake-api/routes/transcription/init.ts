/** `POST /voice/api/v2/transaction/init/:txn`: the paid step, its checks, the daily quota and lost answers. */
import type { RouteContext } from '../../types';
import { activeTemplateIds } from '../template';
import {
	bearerBusiness,
	CLINICAL_NOTES_ID,
	holdUnlessClientLeaves,
	INPUT_LANGUAGE_IDS,
	isPlainObject,
	STORAGE_PATH,
	storeOf,
	TRANSCRIPT_ID,
	variantOf,
	voiceError,
	type Store,
	type Transaction,
} from './store';

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

/** The file extensions the transcription reads. */
export const TRANSACTION_FORMATS: readonly string[] = ['wav', 'mp3', 'm4a', 'ogg', 'webm', 'mp4'];

export async function initTransaction(ctx: RouteContext): Promise<void> {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return;
	const store = storeOf(ctx.state);
	const body = ctx.body;
	if (!body || !body.isJsonMediaType || !isPlainObject(body.value))
		return voiceError(
			ctx,
			400,
			'invalid_body',
			'body must be a JSON object sent as application/json',
		);
	const txn = store.transactions.get(ctx.params.txnId);
	if (!txn || txn.businessId !== businessId)
		return voiceError(
			ctx,
			404,
			'txn_not_found',
			'transaction not found: ask for an upload URL first',
		);
	txn.initAttempts++;
	if (txn.initBody)
		return voiceError(ctx, 409, 'txn_already_initialised', 'transaction already initialised');
	const input = body.value;
	for (const field of REQUIRED_INIT_FIELDS) {
		if (input[field] === undefined || input[field] === null)
			return voiceError(ctx, 422, 'missing_field', `${field} is required`);
	}
	const unknown = Object.keys(input).filter(
		(key) =>
			!(REQUIRED_INIT_FIELDS as readonly string[]).includes(key) &&
			!OPTIONAL_INIT_FIELDS.includes(key),
	);
	if (unknown.length > 0)
		return voiceError(ctx, 400, 'invalid_field', `unknown field(s): ${unknown.join(', ')}`);
	const problem = initProblem(ctx, store, txn, input);
	if (problem) return voiceError(ctx, 400, problem.code, problem.message);
	if (store.initsToday >= store.options.dailyTransactionLimit)
		return voiceError(
			ctx,
			400,
			'txn_limit_exceeded',
			'Daily transaction limit exceeded for this workspace',
		);
	store.initsToday++;
	txn.initBody = input;
	txn.initAt = Date.now();
	txn.initsStarted++;
	for (const listener of store.initListeners) listener(txn.txnId);
	const answer = {
		status: 'success',
		message: 'Transaction initialised successfully',
		txn_id: txn.txnId,
		b_id: businessId,
	};
	const loss = store.initAnswerLosses.find(
		(entry) => entry.txnId === undefined || entry.txnId === txn.txnId,
	);
	if (loss) {
		if (--loss.times <= 0) store.initAnswerLosses.splice(store.initAnswerLosses.indexOf(loss), 1);
		if (loss.kind === 'drop') return void ctx.req.socket.destroy();
		if (loss.kind === 'status500')
			return voiceError(ctx, 500, 'internal_error', 'upstream timed out');
		if (loss.kind === 'malformed') {
			const text = '{"status": "success", "txn_id": ';
			ctx.res.writeHead(201, {
				'content-type': 'application/json',
				'content-length': String(Buffer.byteLength(text)),
			});
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
	if (input.mode !== 'dictation' && input.mode !== 'consultation')
		return { code: 'invalid_mode', message: 'mode must be dictation or consultation' };
	if (input.transfer !== 'non-vaded')
		return { code: 'invalid_transfer', message: 'transfer must be non-vaded' };
	if (input.model_type !== 'pro' && input.model_type !== 'lite')
		return { code: 'invalid_model_type', message: 'model_type must be pro or lite' };
	const origin = `http://${ctx.req.headers.host ?? '127.0.0.1'}`;
	if (input.batch_s3_url !== `${origin}${STORAGE_PATH}${txn.folderPath}`)
		return {
			code: 'invalid_batch_s3_url',
			message: 'batch_s3_url must be the upload URL followed by the folder path',
		};
	const files = input.client_generated_files;
	if (
		!Array.isArray(files) ||
		files.length === 0 ||
		files.some((name) => typeof name !== 'string' || name === '')
	)
		return {
			code: 'invalid_files',
			message: 'client_generated_files must be a non-empty array of file names',
		};
	if (new Set(files).size !== files.length)
		return { code: 'invalid_files', message: 'client_generated_files lists a file twice' };
	const missing = (files as string[]).filter(
		(name) => !store.objects.has(`${txn.folderPath}${name}`),
	);
	if (missing.length > 0)
		return { code: 'files_not_uploaded', message: `files not uploaded: ${missing.join(', ')}` };
	// The service tells a file's format by its extension ([IFD §4.7]) and reads these ([EKA-OAS] openapi.yaml: upload-audio's extensions, the discovery document's audio_formats).
	const unreadable = (files as string[]).filter(
		(name) =>
			!name.includes('.') ||
			!TRANSACTION_FORMATS.includes(name.slice(name.lastIndexOf('.') + 1).toLowerCase()),
	);
	if (unreadable.length > 0)
		return {
			code: 'invalid_audio_format',
			message: `unsupported audio format: ${unreadable.join(', ')} (supported: ${TRANSACTION_FORMATS.join(', ')})`,
		};
	const languages = input.input_language;
	if (!Array.isArray(languages) || languages.length === 0)
		return { code: 'invalid_input_language', message: 'input_language must be a non-empty array' };
	const unknownLanguages = languages.filter(
		(id) => !(INPUT_LANGUAGE_IDS as readonly unknown[]).includes(id),
	);
	if (unknownLanguages.length > 0)
		return {
			code: 'invalid_input_language',
			message: `unknown language id(s): ${unknownLanguages.join(', ')}`,
		};
	const templates = input.output_format_template;
	if (!Array.isArray(templates) || templates.length === 0)
		return {
			code: 'invalid_output_format_template',
			message: 'output_format_template must be a non-empty array',
		};
	// The workspace's templates (routes/template.ts) count too: one created there can be used here.
	const known = [
		CLINICAL_NOTES_ID,
		variantOf(ctx).emrTemplateId,
		TRANSCRIPT_ID,
		...store.options.customTemplateIds,
		...activeTemplateIds(ctx.state),
	];
	for (const template of templates) {
		if (
			!isPlainObject(template) ||
			typeof template.template_id !== 'string' ||
			typeof template.codification_needed !== 'boolean'
		)
			return {
				code: 'invalid_output_format_template',
				message: 'each template needs template_id (string) and codification_needed (boolean)',
			};
		if (!known.includes(template.template_id))
			return {
				code: 'invalid_template_id',
				message: `unknown template_id ${template.template_id}`,
			};
	}
	if (input.additional_data !== undefined && !isPlainObject(input.additional_data))
		return { code: 'invalid_additional_data', message: 'additional_data must be an object' };
	if (input.output_language !== undefined && typeof input.output_language !== 'string')
		return { code: 'invalid_output_language', message: 'output_language must be a string' };
	return undefined;
}
