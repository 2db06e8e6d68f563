/**
 * Pure reading and decoding of the transcription results ([IFD §2.4, §4.8]), of a transaction's
 * status call and of the session API's read, into one SessionResults.
 *
 * The status call's HTTP status is the signal ([EKA-V2] result.mdx: 200 done, 202 processing, 206
 * partial, 500 failed, 400/404 unknown); every template's `value` is Base64 of UTF-8 text that is
 * JSON when it is JSON and plain text otherwise (transcripts, markdown). One template that does not
 * decode never fails the rest.
 * No n8n runtime, no HTTP: used by the action node and by the trigger. How results become output
 * items: resultsOutput.ts.
 */
import { asRecord, textOf } from '../values';

/**
 * How results become items: one per session, one per template, a readable text view, or one FHIR
 * transaction bundle per visit for an EHR (fhir/fhirOutput.ts).
 */
export type ResultsOutput = 'session' | 'templates' | 'simple' | 'fhirBundle';

/**
 * `expired`: a session of the session API that was never ended in time (410), final. `cancelled`: a
 * session of the session API cancelled (Cancel Session), final: it holds no results.
 */
type SessionStatus =
	| 'completed'
	| 'processing'
	| 'partial'
	| 'failed'
	| 'not_found'
	| 'expired'
	| 'cancelled';

/** How a template's value was read: JSON document, text, or nothing to read. */
type TemplateFormat = 'json' | 'text' | 'empty';

export interface DecodedTemplate {
	templateId: string;
	name: string;
	/** As the API sent it: success, partial_success, failure, in-progress ('' when absent). */
	status: string;
	/** The API's own `type` field, when it sent one. */
	type?: string;
	format: TemplateFormat;
	/** The decoded document: an object/array for JSON, a string for text, null when empty. */
	value: unknown;
	errors: unknown[];
	warnings: unknown[];
}

export interface SessionResults {
	sessionId: string;
	status: SessionStatus;
	httpStatus: number;
	templates: DecodedTemplate[];
	/** The older status API's FHIR bundle (`data.output.fhir`), decoded; also listed in `templates`. */
	fhir?: unknown;
	additionalData?: unknown;
	/** The session API's `patient_details` ([EKA-OAS]: `oid` is the patient directory's id), when sent. */
	patientDetails?: unknown;
	createdAt?: unknown;
	/** The API's error code and message for failed or unknown sessions, when it sent them. */
	error?: { code?: string; message?: string };
}

/** Template ids of [IFD §2.5] that the results are read by (the EMR id differs by API variant, so it is read from the output). */
export const CLINICAL_NOTES_TEMPLATE_ID = 'clinical_notes_template';
export const TRANSCRIPT_TEMPLATE_ID = 'transcript_template';
const FHIR_TEMPLATE_ID = 'fhir';

/** A transaction's state from its status call's HTTP status ([EKA-V2] result.mdx). */
export function transactionStatusFromHttp(httpStatus: number): SessionStatus {
	if (httpStatus === 202) return 'processing';
	if (httpStatus === 206) return 'partial';
	if (httpStatus === 400 || httpStatus === 404) return 'not_found';
	if (httpStatus >= 200 && httpStatus < 300) return 'completed';
	return 'failed';
}

/** True when waiting longer cannot change the answer. */
export function isFinalStatus(status: SessionStatus): boolean {
	return status !== 'processing';
}

/** A transaction's status call (`GET /voice/api/v3/status/{txn_id}`), decoded; the session API's read is readSessionApiResults. */
export function readTransactionResults(
	sessionId: string,
	httpStatus: number,
	body: unknown,
): SessionResults {
	const root = asRecord(body);
	const data = asRecord(root?.data);
	const results: SessionResults = {
		sessionId,
		status: transactionStatusFromHttp(httpStatus),
		httpStatus,
		templates: [],
	};
	const output = data?.output;
	if (Array.isArray(output)) {
		results.templates = output.map((entry, index) => readTemplateEntry(entry, index));
	} else if (asRecord(output)) {
		// The other sample of [IFD §4.8]: {fhir: <Base64 JSON>}. Any other key is read the same way.
		for (const [key, value] of Object.entries(output as Record<string, unknown>)) {
			const decoded = decodeTemplateValue(value);
			const template: DecodedTemplate = {
				templateId: key,
				name: key === FHIR_TEMPLATE_ID ? 'FHIR bundle' : key,
				status: decoded.format === 'empty' ? '' : 'success',
				format: decoded.format,
				value: decoded.value,
				errors: [],
				warnings: [],
			};
			if (key === FHIR_TEMPLATE_ID) results.fhir = decoded.value;
			results.templates.push(template);
		}
	}
	if (data && data.additional_data !== undefined) results.additionalData = data.additional_data;
	if (data && data.patient_details !== undefined) results.patientDetails = data.patient_details;
	if (data && data.created_at !== undefined) results.createdAt = data.created_at;
	const error = readApiError(root);
	if (error) results.error = error;
	return results;
}

/**
 * The session API's state ([EKA-OAS] get-session.mdx): from the body's `status` first,
 * because a failed session is answered with HTTP 200 and `"status":"failed"`; else from the HTTP
 * status (202 processing, 206 partial, 410 expired, 404 unknown). `created` (not ended yet) is
 * processing: the results come once the session is ended, or it expires. A cancelled session (its
 * `status`, or the `user_status` / `processing_status` the cancel sets) is `cancelled`.
 */
export function sessionApiStatus(httpStatus: number, body: unknown): SessionStatus {
	if (httpStatus === 404 || httpStatus === 400) return 'not_found';
	if (httpStatus === 410) return 'expired';
	if (isCancelledSession(body)) return 'cancelled';
	const stated = bodyStatusOf(body);
	if (stated === 'failed') return 'failed';
	if (stated === 'expired') return 'expired';
	if (stated === 'partial') return 'partial';
	if (stated === 'created' || stated === 'processing') return 'processing';
	if (stated === 'completed') return httpStatus === 206 ? 'partial' : 'completed';
	if (httpStatus === 202) return 'processing';
	if (httpStatus === 206) return 'partial';
	if (httpStatus >= 200 && httpStatus < 300) return 'completed';
	return 'failed';
}

/**
 * Where a session of the session API stands for an upload, read from the body `status` [EKA-OAS]
 * documents only (`created` on create, `processing` after End, then `completed`/`partial`/`failed`), never
 * from the HTTP status beside it (a `created` session may be answered 200 or 202): `open` takes
 * audio and an End; `ended` was ended (processing or done); `unknown` is a status no source gives.
 * 404 and 410 are [EKA-OAS]'s unknown and expired answers.
 */
export type SessionLifecycle = 'open' | 'ended' | 'expired' | 'cancelled' | 'not_found' | 'unknown';

export function sessionLifecycle(httpStatus: number, body: unknown): SessionLifecycle {
	if (httpStatus === 404) return 'not_found';
	if (httpStatus === 410) return 'expired';
	if (isCancelledSession(body)) return 'cancelled';
	const stated = bodyStatusOf(body);
	if (stated === 'created') return 'open';
	if (stated === 'expired') return 'expired';
	if (
		stated === 'processing' ||
		stated === 'completed' ||
		stated === 'partial' ||
		stated === 'failed'
	)
		return 'ended';
	return 'unknown';
}

/**
 * The audio files a session holds, as the service names them (`<n>.<ext>`), from `audio_files`; an
 * empty list when it says it received none; undefined when it says nothing.
 */
export function sessionAudioFiles(body: unknown): string[] | undefined {
	const root = asRecord(body);
	if (Array.isArray(root?.audio_files))
		return root.audio_files.filter((name): name is string => typeof name === 'string');
	if (root?.audio_files_received === 0) return [];
	return undefined;
}

/** The name the service stores an upload under: `audio_3.wav` → `3.wav` ([EKA-SCRIBE] audio_adaptor.py). */
export function storedAudioName(fileName: string): string | undefined {
	const match = /_(\d+)\.([a-zA-Z0-9]+)$/.exec(fileName);
	return match ? `${Number(match[1])}.${match[2].toLowerCase()}` : undefined;
}

function bodyStatusOf(body: unknown): string {
	const stated = asRecord(body)?.status;
	return typeof stated === 'string' ? stated.trim().toLowerCase() : '';
}

/** Cancelled: the body's status, or either field the cancel sets ([EKA-MSA] cancelSession; [EKA-SCRIBE]'s enums). */
function isCancelledSession(body: unknown): boolean {
	const root = asRecord(body);
	return [root?.status, root?.user_status, root?.processing_status].some(
		(value) => typeof value === 'string' && value.trim().toLowerCase() === 'cancelled',
	);
}

/**
 * A read of `GET /voice/v1/sessions/{id}`: `templates` is a list of one-key objects
 * (`{"<template_id>": {status, document_id, data, …}}`) whose `data` the service already decoded
 * (an object, or text); the top-level `transcript` becomes the transcript_template entry.
 */
export function readSessionApiResults(
	sessionId: string,
	httpStatus: number,
	body: unknown,
): SessionResults {
	const root = asRecord(body);
	const results: SessionResults = {
		sessionId,
		status: sessionApiStatus(httpStatus, body),
		httpStatus,
		templates: [],
	};
	for (const entry of Array.isArray(root?.templates) ? root.templates : []) {
		const record = asRecord(entry);
		if (!record) continue;
		for (const [templateId, raw] of Object.entries(record)) {
			const document = asRecord(raw) ?? {};
			const decoded = readDecodedValue(document.data);
			const template: DecodedTemplate = {
				templateId,
				name: textOf(document.name) ?? templateId,
				status: textOf(document.status) ?? '',
				format: decoded.format,
				value: decoded.value,
				errors: asList(document.errors),
				warnings: asList(document.warnings),
			};
			const type = textOf(document.document_type);
			if (type) template.type = type;
			results.templates.push(template);
		}
	}
	const transcript = textOf(root?.transcript);
	if (
		transcript &&
		!results.templates.some((template) => template.templateId === TRANSCRIPT_TEMPLATE_ID)
	) {
		results.templates.push({
			templateId: TRANSCRIPT_TEMPLATE_ID,
			name: 'Transcript',
			// While processing the transcript is only partial (202).
			status: results.status === 'processing' ? 'in-progress' : 'success',
			format: 'text',
			value: transcript,
			errors: [],
			warnings: [],
		});
	}
	if (root?.additional_data !== undefined) results.additionalData = root.additional_data;
	if (root?.patient_details !== undefined) results.patientDetails = root.patient_details;
	if (root?.created_at !== undefined) results.createdAt = root.created_at;
	const errors = asList(root?.processing_errors);
	const error =
		readApiError(root) ??
		(errors.length > 0 ? { message: errors.map(messageOf).filter(Boolean).join('; ') } : undefined);
	if (error && (error.code || error.message)) results.error = error;
	return results;
}

/** A value the service decoded already: objects are the document, text is parsed when it is JSON. */
function readDecodedValue(value: unknown): { format: TemplateFormat; value: unknown } {
	if (value === undefined || value === null) return { format: 'empty', value: null };
	if (typeof value === 'object') return { format: 'json', value };
	return parseJsonOrText(String(value));
}

function readTemplateEntry(entry: unknown, index: number): DecodedTemplate {
	const record = asRecord(entry) ?? {};
	const templateId = textOf(record.template_id) ?? `template_${index + 1}`;
	const decoded = decodeTemplateValue(record.value);
	const template: DecodedTemplate = {
		templateId,
		name: textOf(record.name) ?? templateId,
		status: textOf(record.status) ?? '',
		format: decoded.format,
		value: decoded.value,
		errors: asList(record.errors),
		warnings: asList(record.warnings),
	};
	const type = textOf(record.type);
	if (type) template.type = type;
	return template;
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Base64 → UTF-8 → JSON when it is a JSON object or array, text otherwise. A value that is not
 * Base64 of UTF-8 text is kept as received rather than garbled. Values already decoded (objects) pass.
 */
export function decodeTemplateValue(value: unknown): { format: TemplateFormat; value: unknown } {
	if (value === undefined || value === null) return { format: 'empty', value: null };
	if (typeof value === 'object') return { format: 'json', value };
	if (typeof value !== 'string') return { format: 'text', value: String(value) };
	const compact = value.replace(/\s+/g, '');
	if (compact === '') return { format: 'empty', value: null };
	let decodedText: string | undefined;
	if (BASE64.test(compact) && compact.length % 4 !== 1) {
		try {
			decodedText = utf8.decode(Buffer.from(compact, 'base64'));
		} catch {
			decodedText = undefined;
		}
	}
	const textValue = (decodedText ?? value).replace(/^\uFEFF/, '');
	return parseJsonOrText(textValue);
}

function parseJsonOrText(textValue: string): { format: TemplateFormat; value: unknown } {
	const trimmed = textValue.trim();
	if (trimmed === '') return { format: 'empty', value: null };
	if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
		try {
			return { format: 'json', value: JSON.parse(trimmed) as unknown };
		} catch {
			// Markdown or prose that happens to start with a bracket: text it is.
		}
	}
	return { format: 'text', value: textValue };
}

function readApiError(
	root: Record<string, unknown> | undefined,
): { code?: string; message?: string } | undefined {
	if (!root) return undefined;
	const error = asRecord(root.error);
	const code = error ? textOf(error.code) : textOf(root.code);
	const message = error
		? (textOf(error.message) ?? textOf(error.msg))
		: (textOf(root.message) ?? textOf(root.error));
	if (!code && !message) return undefined;
	const result: { code?: string; message?: string } = {};
	if (code) result.code = code;
	if (message) result.message = message;
	return result;
}

/** The words of an error or warning entry the API sent: its message, or its code, or the entry as text. */
export function messageOf(entry: unknown): string {
	if (typeof entry === 'string') return entry;
	const record = asRecord(entry);
	if (!record) return entry === undefined || entry === null ? '' : String(entry);
	return (
		textOf(record.message) ?? textOf(record.msg) ?? textOf(record.code) ?? JSON.stringify(record)
	);
}

function asList(value: unknown): unknown[] {
	if (Array.isArray(value)) return value;
	if (value === undefined || value === null || value === '') return [];
	return [value];
}
