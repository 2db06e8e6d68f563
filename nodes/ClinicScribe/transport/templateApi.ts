/**
 * The workspace's templates ([EKA-OAS] `/voice/api/v1/template`, Bearer), as calls. Refusals become
 * errors that say what went wrong and what to do; shaping is in shared/.
 */
import { NodeApiError, type IDataObject, type JsonObject } from 'n8n-workflow';

import { classifyTemplateRefusal } from '../shared/answers/templateRecords';
import type { ClinicApiContext, ClinicApiResponse } from './apiCall';
import { readErrorFields } from './errors';
import { clinicApiRequest, pathSegment } from './request';

/** The documented path ([EKA-OAS], [EKA-JS]); [EKA-SCRIBE]'s undocumented `/voice/v1/templates` is not called. */
const TEMPLATES_PATH = '/voice/api/v1/template';

/** [EKA-OAS] answers 404/422, [EKA-SCRIBE] 400 for every 4xx: each is read for what it says. */
const REFUSALS = [400, 404, 422];

export async function listTemplates(
	ctx: ClinicApiContext,
	itemIndex?: number,
): Promise<ClinicApiResponse> {
	const request = { purpose: "the workspace's templates", itemIndex };
	const response = await clinicApiRequest(ctx, {
		method: 'GET',
		path: TEMPLATES_PATH,
		idempotent: true,
		acceptStatuses: REFUSALS,
		purpose: request.purpose,
		itemIndex,
	});
	return refusedOrAnswer(ctx, response, request);
}

export interface TemplateFields {
	title?: string;
	description?: string;
	sectionIds?: string[];
}

export async function createTemplate(
	ctx: ClinicApiContext,
	fields: Required<TemplateFields>,
	itemIndex: number,
): Promise<ClinicApiResponse> {
	const request = { purpose: 'the new template', itemIndex };
	const response = await clinicApiRequest(ctx, {
		method: 'POST',
		path: TEMPLATES_PATH,
		// `section_ids` is required even when empty ([EKA-OAS] create-template.mdx); `type` is left out: its
		// need is undocumented and the service defaults it.
		body: { title: fields.title, desc: fields.description, section_ids: fields.sectionIds },
		// Not repeated on a network error: a second POST could create the template twice.
		idempotent: false,
		acceptStatuses: REFUSALS,
		purpose: request.purpose,
		itemIndex,
	});
	return refusedOrAnswer(ctx, response, request);
}

export async function updateTemplate(
	ctx: ClinicApiContext,
	templateId: string,
	fields: TemplateFields,
	itemIndex: number,
): Promise<ClinicApiResponse> {
	const body: IDataObject = {};
	if (fields.title !== undefined) body.title = fields.title;
	if (fields.description !== undefined) body.desc = fields.description;
	// Accepted by [EKA-SCRIBE], not listed by [EKA-OAS]: sent only when the user sets it.
	if (fields.sectionIds !== undefined) body.section_ids = fields.sectionIds;
	const request = { purpose: `the update of template "${templateId}"`, itemIndex, templateId };
	const response = await clinicApiRequest(ctx, {
		method: 'PATCH',
		path: `${TEMPLATES_PATH}/${pathSegment(ctx, templateId, 'Template ID', itemIndex)}`,
		body,
		// The same fields set twice leave the same template.
		idempotent: true,
		acceptStatuses: REFUSALS,
		purpose: request.purpose,
		itemIndex,
	});
	return refusedOrAnswer(ctx, response, request);
}

export async function deleteTemplate(
	ctx: ClinicApiContext,
	templateId: string,
	itemIndex: number,
): Promise<ClinicApiResponse> {
	const request = { purpose: `the deletion of template "${templateId}"`, itemIndex, templateId };
	const response = await clinicApiRequest(ctx, {
		method: 'DELETE',
		path: `${TEMPLATES_PATH}/${pathSegment(ctx, templateId, 'Template ID', itemIndex)}`,
		idempotent: true,
		acceptStatuses: REFUSALS,
		purpose: request.purpose,
		itemIndex,
	});
	return refusedOrAnswer(ctx, response, request);
}

interface TemplateRequest {
	purpose: string;
	itemIndex?: number;
	templateId?: string;
}

function refusedOrAnswer(
	ctx: ClinicApiContext,
	response: ClinicApiResponse,
	request: TemplateRequest,
): ClinicApiResponse {
	if (response.statusCode >= 200 && response.statusCode < 300) return response;
	throw templateRefusedError(ctx, request, response.statusCode, response.body);
}

/** The service's refusal, said as what went wrong and what to do (its own words kept in the message). */
function templateRefusedError(
	ctx: ClinicApiContext,
	request: TemplateRequest,
	statusCode: number,
	body: unknown,
): NodeApiError {
	const fields = readErrorFields(body);
	const label = fields.code ? `${statusCode} ${fields.code}` : `${statusCode}`;
	const apiSaid = fields.message ? `: ${fields.message}` : '';
	const item = request.itemIndex === undefined ? '' : ` (item ${request.itemIndex})`;
	const id = request.templateId ? `"${request.templateId}"` : '';
	let message: string;
	let description: string;
	switch (classifyTemplateRefusal(statusCode, fields.message)) {
		case 'not-found':
			message = `The workspace has no template ${id}${item}: it does not exist or was deleted (HTTP ${label}${apiSaid})`;
			description =
				'Pick the template from the list, or use Template → Get Many to see the IDs the workspace has. A deleted template is archived and cannot be used again.';
			break;
		case 'not-editable':
			message = `Template ${id}${item} is one of the service's own templates, which cannot be changed or deleted (HTTP ${label}${apiSaid})`;
			description =
				'Create a template of your own (Template → Create), for example from its description, and change that one.';
			break;
		case 'invalid':
			message = `The clinic API refused ${request.purpose}${item}: a field is missing or not valid (HTTP ${label}${apiSaid})`;
			description =
				'Check Title (required, not empty), Instructions and Section IDs (IDs of existing sections, or none), then run again.';
			break;
		default:
			message = `The clinic API refused ${request.purpose}${item} (HTTP ${label}${apiSaid})`;
			description =
				'Check the template fields and the credential (templates need a workspace that has custom templates), then run again.';
	}
	return new NodeApiError(
		ctx.getNode(),
		{
			status_code: statusCode,
			code: fields.code ?? null,
			message: fields.message ?? null,
		} as JsonObject,
		{
			message,
			description,
			httpCode: String(statusCode),
			itemIndex: request.itemIndex,
		},
	);
}
