/**
 * Upload Audio's settings of one item (upload method, languages, templates, options, waiting), read
 * and checked before anything is sent. Items of one transaction or session must agree on them.
 */
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { INPUT_LANGUAGES, readInputLanguages } from '../../../shared/audioFiles';
import { isFhirSourceTemplate, type FhirOutputSettings } from '../../../shared/fhir/fhirOutput';
import type { ResultsOutput } from '../../../shared/answers/sessionResults';
import { templateIdOf } from '../../../shared/answers/templateRecords';
import { readJsonObjectParameter, sameJsonValue, trimmedString } from '../../../shared/values';
import type { ClinicScribeSettings } from '../../../transport/authentication';
import {
	readFhirOutputSettings,
	readResultsOutput,
	readWaitSettings,
	UPLOAD_NOT_FOUND_GRACE_MS,
	type WaitSettings,
} from '../resultsSettings';

export const TEMPLATE_CHOICES = {
	clinicalNotes: 'clinical_notes_template',
	/** Replaced by the API variant's EMR template id (svc_emr_template or eka_emr_template). */
	emr: 'emr',
	transcript: 'transcript_template',
	custom: 'custom',
} as const;

/**
 * Transaction: the flow of [IFD §4.7] (presign → storage → init → status call). Session: the
 * session API of [EKA-OAS] (create → raw upload of each file → end → the session read). Both group
 * items by the ID field.
 */
export type UploadMethod = 'transaction' | 'session';

export const UPLOAD_METHOD_PARAMETER = 'uploadMethod';

/** What an item asks its transaction or session for. Items of one upload must agree on it. */
export interface UploadSettings {
	uploadMethod: UploadMethod;
	action: string;
	mode: string;
	modelType: string;
	inputLanguages: string[];
	templates: Array<{ template_id: string; codification_needed: boolean }>;
	additionalData?: IDataObject;
	outputLanguage?: string;
	wait?: WaitSettings;
	resultsOutput: ResultsOutput;
	/** The FHIR bundle's choices, when waiting with Output "FHIR Transaction Bundle for the EHR". */
	fhirOutput?: FhirOutputSettings;
}

/** The settings of an upload none of whose items could be read: it has a problem, so it is never sent. */
export const UNREAD_SETTINGS: Readonly<UploadSettings> = {
	uploadMethod: 'transaction',
	action: '',
	mode: '',
	modelType: '',
	inputLanguages: [],
	templates: [],
	resultsOutput: 'session',
};

/** The item's Upload Method; undefined when an expression gave something else. */
export function readUploadMethod(
	ctx: IExecuteFunctions,
	itemIndex: number,
): UploadMethod | undefined {
	const value = ctx.getNodeParameter(UPLOAD_METHOD_PARAMETER, itemIndex, 'transaction') as unknown;
	if (value === 'transaction' || value === 'session') return value;
	return value === undefined || value === null || value === '' ? 'transaction' : undefined;
}

export function readUploadSettings(
	ctx: IExecuteFunctions,
	itemIndex: number,
	settings: ClinicScribeSettings,
): UploadSettings {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const languages = readInputLanguages(ctx.getNodeParameter('inputLanguages', itemIndex, []));
	if (languages.unknown.length > 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Input Languages of item ${itemIndex} has an unknown language ID: ${languages.unknown.map((id) => `"${id}"`).join(', ')}`,
			{
				description: `Use the IDs the API knows: ${INPUT_LANGUAGES.map((language) => language.id).join(', ')}.`,
				itemIndex,
			},
		);
	}
	if (languages.ids.length === 0) {
		throw new NodeOperationError(ctx.getNode(), `Input Languages of item ${itemIndex} is empty`, {
			description:
				'Pick the language(s) spoken in the recording, for example en-IN, or en-IN and hi for a mixed consultation.',
			itemIndex,
		});
	}
	const uploadMethod = readUploadMethod(ctx, itemIndex);
	if (!uploadMethod) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The Upload Method of item ${itemIndex} must be "transaction" or "session"`,
			{
				description: 'Choose Transaction (the default) or Session. Nothing was sent.',
				itemIndex,
			},
		);
	}
	const result: UploadSettings = {
		uploadMethod,
		action: trimmedString(options.action) || settings.variantSettings.uploadAction,
		mode: trimmedString(options.mode) || 'dictation',
		modelType: trimmedString(options.modelType) || 'pro',
		inputLanguages: languages.ids,
		templates: readTemplates(ctx, itemIndex, settings),
		resultsOutput: readResultsOutput(ctx, itemIndex),
	};
	if (!['dictation', 'consultation'].includes(result.mode)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Mode of item ${itemIndex} must be dictation or consultation`,
			{
				itemIndex,
				description:
					'Choose Dictation or Consultation under Options → Mode, or make its expression give one of those. Nothing was sent.',
			},
		);
	}
	if (!['pro', 'lite'].includes(result.modelType)) {
		throw new NodeOperationError(ctx.getNode(), `Model of item ${itemIndex} must be pro or lite`, {
			itemIndex,
			description:
				'Choose Pro or Lite under Options → Model, or make its expression give one of those. Nothing was sent.',
		});
	}
	const additionalData = readAdditionalData(ctx, options.additionalData, itemIndex);
	if (additionalData) result.additionalData = additionalData;
	const outputLanguage = trimmedString(options.outputLanguage);
	if (outputLanguage) result.outputLanguage = outputLanguage;
	const wait = readWaitSettings(ctx, itemIndex, UPLOAD_NOT_FOUND_GRACE_MS);
	if (wait) result.wait = wait;
	if (wait && result.resultsOutput === 'fhirBundle') {
		result.fhirOutput = readFhirOutputSettings(ctx, itemIndex);
		assertFhirSourceRequested(ctx, result.templates, itemIndex);
	}
	if (uploadMethod === 'session') assertSessionSettings(ctx, result, itemIndex);
	return result;
}

/**
 * The first setting two items of one upload disagree on, in the words of the node's fields. Values
 * are compared as JSON values: an object with the same keys in another order is the same.
 */
export function differingSetting(a: UploadSettings, b: UploadSettings): string | undefined {
	const checks: Array<[string, unknown, unknown]> = [
		['Upload Method', a.uploadMethod, b.uploadMethod],
		['Action', a.action, b.action],
		['Mode', a.mode, b.mode],
		['Model', a.modelType, b.modelType],
		['Input Languages', a.inputLanguages, b.inputLanguages],
		['Output Templates', a.templates, b.templates],
		['Additional Data', a.additionalData, b.additionalData],
		['Output Language', a.outputLanguage, b.outputLanguage],
		['Wait for Completion', a.wait, b.wait],
		['Output', a.resultsOutput, b.resultsOutput],
		['Patient and Doctor of the FHIR output', a.fhirOutput, b.fhirOutput],
	];
	return checks.find(([, left, right]) => !sameJsonValue(left, right))?.[0];
}

/** What the session API cannot take ([EKA-OAS] limits), refused before sending. */
function assertSessionSettings(
	ctx: IExecuteFunctions,
	settings: UploadSettings,
	itemIndex: number,
): void {
	const refuse = (message: string, description: string) => {
		throw new NodeOperationError(
			ctx.getNode(),
			`${message} (item ${itemIndex}, Upload Method "Session")`,
			{ description: `${description} Nothing was sent.`, itemIndex },
		);
	};
	if (settings.templates.length > 2) {
		refuse(
			`A session makes at most 2 output templates, but ${settings.templates.length} are chosen`,
			'Keep two templates, or choose Upload Method "Transaction".',
		);
	}
	if (settings.templates.some((template) => template.codification_needed)) {
		refuse(
			'Codification Needed is not available with the session API',
			'Turn Codification Needed off, or choose Upload Method "Transaction".',
		);
	}
	if (settings.outputLanguage) {
		refuse(
			'Output Language is not available with the session API',
			'Remove the Output Language option, or choose Upload Method "Transaction".',
		);
	}
}

/**
 * The FHIR output is built from the EMR template (or a FHIR template): an upload that asks for
 * neither would be paid for and give no bundle, so it is refused before anything is sent. The
 * template is never added on the user's behalf (it is paid work the user did not choose).
 */
function assertFhirSourceRequested(
	ctx: IExecuteFunctions,
	templates: UploadSettings['templates'],
	itemIndex: number,
): void {
	if (templates.some((template) => isFhirSourceTemplate(template.template_id))) return;
	throw new NodeOperationError(
		ctx.getNode(),
		`Output "FHIR Transaction Bundle for the EHR" needs the EMR Format template, which item ${itemIndex} does not ask for`,
		{
			description:
				'The bundle is built from the EMR document: add EMR Format under Output Templates, or choose another Output. Nothing was sent.',
			itemIndex,
		},
	);
}

function readTemplates(
	ctx: IExecuteFunctions,
	itemIndex: number,
	settings: ClinicScribeSettings,
): Array<{ template_id: string; codification_needed: boolean }> {
	const collection = ctx.getNodeParameter('outputTemplates', itemIndex, {}) as {
		templates?: Array<{
			template?: string;
			customTemplateId?: unknown;
			codificationNeeded?: boolean;
		}>;
	};
	const chosen: Array<{ template_id: string; codification_needed: boolean }> = [];
	const offered: string[] = Object.values(TEMPLATE_CHOICES);
	for (const [position, entry] of (collection.templates ?? []).entries()) {
		let templateId = trimmedString(entry.template);
		if (!offered.includes(templateId)) {
			// An expression gave something else (a typo, a workspace template id): nothing is sent.
			const shown =
				typeof entry.template === 'string'
					? `"${entry.template.slice(0, 80)}"`
					: String(entry.template);
			throw new NodeOperationError(
				ctx.getNode(),
				`Output Templates › Template ${position + 1} of item ${itemIndex} is ${shown}, which is not one of the offered templates`,
				{
					description: `Use one of: ${offered.map((value) => `"${value}"`).join(', ')}. A template of your workspace goes in Custom Template ID, with Template set to "custom".`,
					itemIndex,
				},
			);
		}
		if (templateId === TEMPLATE_CHOICES.emr) templateId = settings.variantSettings.emrTemplateId;
		if (templateId === TEMPLATE_CHOICES.custom) {
			templateId = templateIdOf(entry.customTemplateId);
			if (!templateId) {
				throw new NodeOperationError(
					ctx.getNode(),
					`An output template of item ${itemIndex} is Custom but its Custom Template ID is empty`,
					{
						description:
							"Enter the custom template's ID from your workspace, or pick one of the standard templates.",
						itemIndex,
					},
				);
			}
		}
		if (!templateId || chosen.some((template) => template.template_id === templateId)) continue;
		chosen.push({
			template_id: templateId,
			codification_needed: entry.codificationNeeded === true,
		});
	}
	if (chosen.length === 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			`No output template is chosen for item ${itemIndex}`,
			{
				description:
					'Add at least one output template (for example Clinical Notes) under Output Templates.',
				itemIndex,
			},
		);
	}
	return chosen;
}

function readAdditionalData(
	ctx: IExecuteFunctions,
	value: unknown,
	itemIndex: number,
): IDataObject | undefined {
	const reading = readJsonObjectParameter(value);
	if (reading.problem === 'is not valid JSON') {
		throw new NodeOperationError(
			ctx.getNode(),
			`Additional Data of item ${itemIndex} is not valid JSON`,
			{
				description:
					'Enter a JSON object, for example {"doctor": {"id": "do1001"}}, or remove the option.',
				itemIndex,
			},
		);
	}
	if (reading.problem) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Additional Data of item ${itemIndex} must be a JSON object`,
			{
				description: 'Wrap the values in an object, for example {"visit": "V-42"}.',
				itemIndex,
			},
		);
	}
	return reading.object && Object.keys(reading.object).length > 0 ? reading.object : undefined;
}
