/**
 * Transcription results as output items, in the form the Output field chooses
 * (resultsOutput.description.ts): one item per session, one per template, or a readable view (text
 * and HTML, readableDocument.ts) with the issues in words. Pure: used by the action node and by the trigger.
 */
import type { IDataObject } from 'n8n-workflow';

import { readableHtml, readableText } from './readableDocument';
import {
	CLINICAL_NOTES_TEMPLATE_ID,
	messageOf,
	TRANSCRIPT_TEMPLATE_ID,
	type DecodedTemplate,
	type ResultsOutput,
	type SessionResults,
} from './sessionResults';

/**
 * The items for one session, in the chosen output form. Never empty: a session is always reported.
 * The FHIR bundle needs the user's choices and fetches of its own: fhir/fhirOutput.ts.
 */
export function sessionResultsToRecords(
	results: SessionResults,
	output: Exclude<ResultsOutput, 'fhirBundle'>,
): IDataObject[] {
	if (output === 'templates') return templateRecords(results);
	if (output === 'simple') return [simpleRecord(results)];
	return [sessionRecord(results)];
}

function sessionRecord(results: SessionResults): IDataObject {
	const record: IDataObject = {
		session_id: results.sessionId,
		status: results.status,
		http_status: results.httpStatus,
		templates: results.templates.map(templateFields),
		documents: documentsById(results.templates),
	};
	if (results.additionalData !== undefined)
		record.additional_data = results.additionalData as IDataObject;
	if (results.createdAt !== undefined) record.created_at = results.createdAt as string;
	if (results.error) record.error = errorFields(results.error);
	return record;
}

function templateRecords(results: SessionResults): IDataObject[] {
	const common: IDataObject = {
		session_id: results.sessionId,
		session_status: results.status,
		http_status: results.httpStatus,
	};
	if (results.error) common.error = errorFields(results.error);
	if (results.templates.length === 0) {
		// Still processing, unknown, or failed without templates: one item says so.
		return [
			{
				...common,
				template_id: null,
				name: null,
				status: null,
				format: 'empty',
				value: null,
				errors: [],
				warnings: [],
			},
		];
	}
	return results.templates.map((template) => ({ ...common, ...templateFields(template) }));
}

function templateFields(template: DecodedTemplate): IDataObject {
	const fields: IDataObject = {
		template_id: template.templateId,
		name: template.name,
		status: template.status,
		format: template.format,
		value: template.value as IDataObject,
		errors: template.errors as IDataObject[],
		warnings: template.warnings as IDataObject[],
	};
	if (template.type) fields.type = template.type;
	return fields;
}

function documentsById(templates: DecodedTemplate[]): IDataObject {
	const documents: IDataObject = {};
	for (const template of templates) {
		if (template.format !== 'empty')
			setOwn(documents, template.templateId, template.value as IDataObject);
	}
	return documents;
}

/** Keys come from the API: defined, not assigned, so "__proto__" is a key like any other. */
function setOwn(record: IDataObject, key: string, value: IDataObject[string]): void {
	Object.defineProperty(record, key, {
		value,
		enumerable: true,
		writable: true,
		configurable: true,
	});
}

function simpleRecord(results: SessionResults): IDataObject {
	const notes = results.templates.find((t) => t.templateId === CLINICAL_NOTES_TEMPLATE_ID);
	const transcript = results.templates.find((t) => t.templateId === TRANSCRIPT_TEMPLATE_ID);
	const others: IDataObject = {};
	for (const template of results.templates) {
		if (template === notes || template === transcript || template.format === 'empty') continue;
		setOwn(others, template.name || template.templateId, readableText(template.value));
	}
	const record: IDataObject = {
		session_id: results.sessionId,
		status: results.status,
		clinical_notes: notes && notes.format !== 'empty' ? readableText(notes.value) : null,
		transcript: transcript && transcript.format !== 'empty' ? readableText(transcript.value) : null,
		// The same as HTML fragments, escaped, for an HTML e-mail (Send Email → Email Format HTML or Both).
		clinical_notes_html: notes && notes.format !== 'empty' ? readableHtml(notes.value) : null,
		transcript_html:
			transcript && transcript.format !== 'empty' ? readableHtml(transcript.value) : null,
	};
	if (Object.keys(others).length > 0) record.other_documents = others;
	const issues = describeIssues(results);
	if (issues.length > 0) record.issues = issues;
	return record;
}

/** What a reader should know about failed or incomplete templates, in words. */
export function describeIssues(results: SessionResults): string[] {
	const issues: string[] = [];
	if (results.status === 'processing') issues.push('The transcription is still being processed.');
	if (results.status === 'not_found') issues.push('The API does not know this session ID.');
	if (results.status === 'expired')
		issues.push('The session expired before it was ended; it holds no results.');
	if (results.status === 'cancelled')
		issues.push('The session was cancelled; it holds no results.');
	if (results.error?.message) issues.push(`The API said: ${results.error.message}`);
	for (const template of results.templates) {
		const label = template.name || template.templateId;
		if (template.status === 'failure') issues.push(`${label}: failed${summarise(template.errors)}`);
		else if (template.status === 'partial_success')
			issues.push(`${label}: only partly produced${summarise(template.errors)}`);
		else if (template.status === 'in-progress') issues.push(`${label}: still in progress`);
		if (template.warnings.length > 0)
			issues.push(`${label}: warning${summarise(template.warnings)}`);
	}
	return issues;
}

function summarise(list: unknown[]): string {
	const parts = list.map(messageOf).filter((part) => part !== '');
	return parts.length > 0 ? ` (${parts.join('; ')})` : '';
}

function errorFields(error: { code?: string; message?: string }): IDataObject {
	return { code: error.code ?? null, message: error.message ?? null };
}
