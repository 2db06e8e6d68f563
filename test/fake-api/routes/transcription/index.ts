/**
 * The transcription flow of the fake clinic API ([IFD §4.7, §4.8], on the wire as [EKA-V2]
 * documents it), strict about everything a client must do:
 *
 *   POST /v1/file-upload?txn_id=&action=          presign (Bearer; action must be the variant's)
 *        → 200 {uploadData: {url, fields: {key: "<folder>${filename}", policy, x-amz-*}}, folderPath, txn_id}
 *   POST /storage/voice-uploads/                    the presigned storage POST (no auth header allowed)
 *        → 204; 403 when the policy expired or was forged; 400 on any multipart rule broken; 411 without
 *          Content-Length. The body is parsed as a stream (multipart.ts): every presigned field, `key`
 *          = folder + file name, the `file` part last, byte count and SHA-256 recorded per file.
 *   POST /voice/api/v2/transaction/init/:txn        (Bearer) → 201 {status, message, txn_id, b_id};
 *        409 already initialised; 422 a required field missing; 400 a wrong value (a file whose
 *        extension is not wav, mp3, m4a, ogg, webm or mp4: invalid_audio_format); 400
 *        txn_limit_exceeded when the daily quota is used; 404 unknown transaction.
 *   POST /voice/v1/sessions · POST /voice/api/v1/transaction/:txn/convert-to-template   notes from text
 *        (convert.ts): the conversion starts the session, which the status call then answers.
 *   GET  /voice/api/v3/status/:txn                  (Bearer) → 202 while processing (optionally held
 *        like the real long poll), then 200 (Base64 values: JSON for clinical notes and EMR, text with
 *        Hindi for the transcript, markdown for custom templates), or scripted 206 / 500 / FHIR form;
 *        404 unknown.
 *
 * The session API lives here too (the node's Transcription resource covers transactions and
 * sessions): sessionStore.ts (the sessions, their options, faults and control), sessionRoutes.ts
 * (its routes: audio, End, status, cancel, audio URL) and sessionDocuments.ts (a session's documents).
 *
 * Control in-process through `fakeTranscription(api)`, or over HTTP under /__admin/transcription/…:
 *   GET  /transcription/options · POST /transcription/options   defaults (processing polls, hold…)
 *   POST /transcription/script   {txn_id, outcome?, processingPolls?, processingMs?, emrPrescription?}
 *   GET  /transcription/transactions · GET /transcription/uploads · GET /transcription/rejected
 *   POST /transcription/presign  {txn_id, base_url}  a presign without a token (bench, curl)
 *   POST /transcription/lose-init-answer {txn_id?, kind, times?, ms?}  the next init(s) are carried
 *        out, then their answer is lost (500, dropped socket, malformed JSON, or held `ms`), the
 *        fault a client cannot tell from one that stopped the init (server faults stop it first)
 *   POST /transcription/reset
 */
import type { RouteDefinition } from '../../types';
import { convertToTemplate, CONVERT_PATH, createSession, SESSIONS_PATH } from './convert';
import { initTransaction } from './init';
import { sessionStatus } from './status';
import { INIT_PATH, PRESIGN_PATH, STATUS_PATH, STORAGE_PATH } from './store';
import { presign, storagePost } from './upload';

export { CONVERT_PATH, SESSIONS_PATH } from './convert';
export {
	fakeTranscription,
	remoteFakeTranscription,
	transcriptionAdmin,
	type FakeTranscription,
} from './admin';
export {
	base64Of,
	CLINICAL_NOTES_DOCUMENT,
	customTemplateText,
	emrDocument,
	FHIR_BUNDLE,
	templateDocument,
	TRANSCRIPT_TEXT,
} from './documents';
export {
	CLINICAL_NOTES_ID,
	DEFAULT_TRANSCRIPTION_OPTIONS,
	INIT_PATH,
	INPUT_LANGUAGE_IDS,
	PRESIGN_PATH,
	STATUS_PATH,
	STORAGE_PATH,
	TRANSCRIPT_ID,
	type InitAnswerLoss,
	type Outcome,
	type PresignAnswer,
	type RejectedUpload,
	type StoredUpload,
	type TransactionScript,
	type TransactionView,
	type TranscriptionOptions,
} from './store';

export const transcriptionRoutes: readonly RouteDefinition[] = [
	{ method: 'POST', pattern: PRESIGN_PATH, body: 'json', errorStyle: 'envelope', handler: presign },
	{
		method: 'POST',
		pattern: STORAGE_PATH,
		body: 'raw',
		errorStyle: 'envelope',
		handler: storagePost,
	},
	{
		method: 'POST',
		pattern: INIT_PATH,
		body: 'json',
		errorStyle: 'envelope',
		handler: initTransaction,
	},
	{
		method: 'GET',
		pattern: STATUS_PATH,
		body: 'none',
		errorStyle: 'envelope',
		handler: sessionStatus,
	},
	{
		method: 'POST',
		pattern: SESSIONS_PATH,
		body: 'json',
		errorStyle: 'envelope',
		handler: createSession,
	},
	{
		method: 'POST',
		pattern: CONVERT_PATH,
		body: 'json',
		errorStyle: 'envelope',
		handler: convertToTemplate,
	},
];
