/**
 * Upload Audio, step one: read every item's parameters and binary files, check them, and group the
 * items into transactions, before anything is sent. A problem found here fails the transaction of
 * that item with nothing uploaded.
 */
import { randomUUID } from 'crypto';
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import { audioContentType, audioFileProblem, readInputLanguages, storageFileNames, INPUT_LANGUAGES } from '../../shared/audioFiles';
import type { ClinicScribeSettings } from '../../transport/credentialSettings';
import { pathIdProblem } from '../../transport/request';
import type { StorageFile } from '../../transport/storageUpload';
import type { ResultsOutput } from '../../shared/sessionResults';
import { readResultsOutput, readWaitSettings, UPLOAD_NOT_FOUND_GRACE_MS, type WaitSettings } from './waitForResults';

/** Bigger reads from the binary store mean fewer, larger writes to the socket. */
const BINARY_READ_CHUNK_BYTES = 512 * 1024;

export const TEMPLATE_CHOICES = {
	clinicalNotes: 'clinical_notes_template',
	/** Replaced by the API variant's EMR template id (svc_emr_template or eka_emr_template). */
	emr: 'emr',
	transcript: 'transcript_template',
	custom: 'custom',
} as const;

export interface PlannedFile extends StorageFile {
	itemIndex: number;
	binaryProperty: string;
	/** The file's name in n8n, before it was made unique and safe for storage. */
	originalFileName: string | undefined;
}

/** What an item asks the transaction for. Items of one transaction must agree on it. */
export interface TransactionSettings {
	action: string;
	mode: string;
	modelType: string;
	inputLanguages: string[];
	templates: Array<{ template_id: string; codification_needed: boolean }>;
	additionalData?: IDataObject;
	outputLanguage?: string;
	wait?: WaitSettings;
	resultsOutput: ResultsOutput;
}

export interface TransactionPlan {
	txnId: string;
	/** Input items of the transaction, in order. */
	itemIndexes: number[];
	files: PlannedFile[];
	settings: TransactionSettings;
	/** Set when the transaction must not be sent: the first problem found, naming the item. */
	problem?: NodeOperationError;
}

/** A transaction id generated for an item whose Transaction ID field is empty. */
export function generateTransactionId(): string {
	return `n8n-${randomUUID()}`;
}

/** Why a transaction id cannot be used as one path segment of the API, or undefined. */
export function transactionIdProblem(txnId: string): string | undefined {
	const pathProblem = pathIdProblem(txnId);
	if (pathProblem) return pathProblem;
	if (txnId.length > 128) return 'is longer than 128 characters';
	if (/\s/.test(txnId)) return 'contains spaces or line breaks';
	if (/[/\\?#%]/.test(txnId)) return 'contains one of / \\ ? # %';
	if ([...txnId].some((character) => character.charCodeAt(0) < 32 || character.charCodeAt(0) === 127)) {
		return 'contains control characters';
	}
	return undefined;
}

/** Reads all items; never throws for one item's problem (it is recorded on its transaction). */
export async function planTransactions(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	settings: ClinicScribeSettings,
): Promise<TransactionPlan[]> {
	const plans = new Map<string, TransactionPlan>();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const { txnId, problem: idProblem } = readTransactionId(ctx, itemIndex);
		let itemSettings: TransactionSettings | undefined;
		let files: PlannedFile[] = [];
		let problem = idProblem;
		if (!problem) {
			try {
				itemSettings = readTransactionSettings(ctx, itemIndex, settings);
				files = await readItemFiles(ctx, items[itemIndex], itemIndex);
			} catch (error) {
				problem = asOperationError(ctx, error, itemIndex);
			}
		}
		let plan = plans.get(txnId);
		if (!plan) {
			// Without settings the item has a problem, so the placeholder is never sent.
			plan = { txnId, itemIndexes: [], files: [], settings: itemSettings ?? { ...UNREAD_SETTINGS } };
			plans.set(txnId, plan);
		}
		plan.itemIndexes.push(itemIndex);
		plan.files.push(...files);
		if (!plan.problem && problem) plan.problem = problem;
		if (!plan.problem && itemSettings && plan.itemIndexes.length > 1) {
			const differs = differingSetting(plan.settings, itemSettings);
			if (differs) {
				plan.problem = new NodeOperationError(
					ctx.getNode(),
					`Items ${plan.itemIndexes[0]} and ${itemIndex} share transaction "${txnId}" but ask for a different ${differs}`,
					{
						description:
							'Files of one transaction are transcribed together, with one set of options. Give these items the same options, or different Transaction IDs.',
						itemIndex,
					},
				);
			}
		}
	}
	for (const plan of plans.values()) {
		if (plan.problem) continue;
		const names = storageFileNames(plan.files.map((file) => ({ fileName: file.originalFileName, contentType: file.contentType })));
		plan.files.forEach((file, index) => (file.fileName = names[index]));
	}
	return [...plans.values()];
}

function readTransactionId(ctx: IExecuteFunctions, itemIndex: number): { txnId: string; problem?: NodeOperationError } {
	const raw = ctx.getNodeParameter('transactionId', itemIndex, '') as unknown;
	const txnId = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
	if (txnId === '') return { txnId: generateTransactionId() };
	const problem = transactionIdProblem(txnId);
	if (!problem) return { txnId };
	return {
		// A key of its own, so a bad id never joins another item's transaction.
		txnId: `invalid:${itemIndex}`,
		problem: new NodeOperationError(ctx.getNode(), `The Transaction ID of item ${itemIndex} ${problem}`, {
			description:
				'Use letters, digits and - _ . : only (for example a visit ID such as visit-2024-0042), or leave the field empty to have one generated.',
			itemIndex,
		}),
	};
}

const UNREAD_SETTINGS: TransactionSettings = {
	action: '',
	mode: '',
	modelType: '',
	inputLanguages: [],
	templates: [],
	resultsOutput: 'session',
};

function readTransactionSettings(ctx: IExecuteFunctions, itemIndex: number, settings: ClinicScribeSettings): TransactionSettings {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const languages = readInputLanguages(ctx.getNodeParameter('inputLanguages', itemIndex, []));
	if (languages.unknown.length > 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Input Languages of item ${itemIndex} has an unknown language ID: ${languages.unknown.map((id) => `"${id}"`).join(', ')}`,
			{ description: `Use the IDs the API knows: ${INPUT_LANGUAGES.map((language) => language.id).join(', ')}.`, itemIndex },
		);
	}
	if (languages.ids.length === 0) {
		throw new NodeOperationError(ctx.getNode(), `Input Languages of item ${itemIndex} is empty`, {
			description: 'Pick the language(s) spoken in the recording, for example en-IN, or en-IN and hi for a mixed consultation.',
			itemIndex,
		});
	}
	const result: TransactionSettings = {
		action: text(options.action) || settings.variantSettings.uploadAction,
		mode: text(options.mode) || 'dictation',
		modelType: text(options.modelType) || 'pro',
		inputLanguages: languages.ids,
		templates: readTemplates(ctx, itemIndex, settings),
		resultsOutput: readResultsOutput(ctx, itemIndex),
	};
	if (!['dictation', 'consultation'].includes(result.mode)) {
		throw new NodeOperationError(ctx.getNode(), `Mode of item ${itemIndex} must be dictation or consultation`, { itemIndex });
	}
	if (!['pro', 'lite'].includes(result.modelType)) {
		throw new NodeOperationError(ctx.getNode(), `Model of item ${itemIndex} must be pro or lite`, { itemIndex });
	}
	const additionalData = readAdditionalData(ctx, options.additionalData, itemIndex);
	if (additionalData) result.additionalData = additionalData;
	const outputLanguage = text(options.outputLanguage);
	if (outputLanguage) result.outputLanguage = outputLanguage;
	const wait = readWaitSettings(ctx, itemIndex, UPLOAD_NOT_FOUND_GRACE_MS);
	if (wait) result.wait = wait;
	return result;
}

function readTemplates(
	ctx: IExecuteFunctions,
	itemIndex: number,
	settings: ClinicScribeSettings,
): Array<{ template_id: string; codification_needed: boolean }> {
	const collection = ctx.getNodeParameter('outputTemplates', itemIndex, {}) as {
		templates?: Array<{ template?: string; customTemplateId?: string; codificationNeeded?: boolean }>;
	};
	const chosen: Array<{ template_id: string; codification_needed: boolean }> = [];
	for (const entry of collection.templates ?? []) {
		let templateId = text(entry.template);
		if (templateId === TEMPLATE_CHOICES.emr) templateId = settings.variantSettings.emrTemplateId;
		if (templateId === TEMPLATE_CHOICES.custom) {
			templateId = text(entry.customTemplateId);
			if (!templateId) {
				throw new NodeOperationError(ctx.getNode(), `An output template of item ${itemIndex} is Custom but its Custom Template ID is empty`, {
					description: "Enter the custom template's ID from your workspace, or pick one of the standard templates.",
					itemIndex,
				});
			}
		}
		if (!templateId || chosen.some((template) => template.template_id === templateId)) continue;
		chosen.push({ template_id: templateId, codification_needed: entry.codificationNeeded === true });
	}
	if (chosen.length === 0) {
		throw new NodeOperationError(ctx.getNode(), `No output template is chosen for item ${itemIndex}`, {
			description: 'Add at least one output template (for example Clinical Notes) under Output Templates.',
			itemIndex,
		});
	}
	return chosen;
}

function readAdditionalData(ctx: IExecuteFunctions, value: unknown, itemIndex: number): IDataObject | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	let parsed: unknown = value;
	if (typeof value === 'string') {
		try {
			parsed = JSON.parse(value);
		} catch {
			throw new NodeOperationError(ctx.getNode(), `Additional Data of item ${itemIndex} is not valid JSON`, {
				description: 'Enter a JSON object, for example {"doctor": {"id": "do1001"}}, or remove the option.',
				itemIndex,
			});
		}
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		throw new NodeOperationError(ctx.getNode(), `Additional Data of item ${itemIndex} must be a JSON object`, {
			description: 'Wrap the values in an object, for example {"visit": "V-42"}.',
			itemIndex,
		});
	}
	return Object.keys(parsed).length > 0 ? (parsed as IDataObject) : undefined;
}

async function readItemFiles(ctx: IExecuteFunctions, item: INodeExecutionData, itemIndex: number): Promise<PlannedFile[]> {
	const raw = String(ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data') ?? '');
	const properties = [...new Set(raw.split(',').map((name) => name.trim()).filter((name) => name !== ''))];
	if (properties.length === 0) {
		throw new NodeOperationError(ctx.getNode(), `The Input Binary Field of item ${itemIndex} is empty`, {
			description: 'Enter the name of the binary field that holds the recording, usually "data".',
			itemIndex,
		});
	}
	const files: PlannedFile[] = [];
	for (const property of properties) {
		if (!item.binary?.[property]) {
			const present = Object.keys(item.binary ?? {});
			throw new NodeOperationError(ctx.getNode(), `Item ${itemIndex} has no binary field "${property}"`, {
				description: present.length
					? `Its binary fields are: ${present.join(', ')}. Set Input Binary Field to the one holding the recording.`
					: 'The item holds no file. Read the recording into binary data first (for example with Read/Write Files from Disk or an HTTP Request node).',
				itemIndex,
			});
		}
		const binary = ctx.helpers.assertBinaryData(itemIndex, property);
		let size: number | undefined;
		let fileName = binary.fileName;
		let mimeType = binary.mimeType;
		let open: StorageFile['open'];
		if (binary.id) {
			const id = binary.id;
			const metadata = await ctx.helpers.getBinaryMetadata(id);
			size = typeof metadata.fileSize === 'number' ? metadata.fileSize : Number(metadata.fileSize);
			fileName = fileName ?? metadata.fileName;
			mimeType = mimeType || metadata.mimeType || '';
			open = async () => await ctx.helpers.getBinaryStream(id, BINARY_READ_CHUNK_BYTES);
		} else {
			// n8n's default mode keeps the file in the item, Base64: it is in memory already.
			size = typeof binary.data === 'string' ? Buffer.byteLength(binary.data, 'base64') : undefined;
			open = async () => await ctx.helpers.getBinaryDataBuffer(itemIndex, property);
		}
		const problem = audioFileProblem({ fileName, mimeType, size });
		if (problem) {
			throw new NodeOperationError(
				ctx.getNode(),
				// The file's name stays out: recordings are often named after the patient.
				`The file in binary field "${property}" of item ${itemIndex} ${problem}`,
				{
					description:
						'Send a recording in one of the accepted formats: wav, mp3, m4a, ogg, webm or mp4. Nothing of this transaction was uploaded.',
					itemIndex,
				},
			);
		}
		files.push({
			itemIndex,
			binaryProperty: property,
			label: `the file in binary field "${property}" of item ${itemIndex}`,
			originalFileName: fileName,
			fileName: fileName ?? '',
			contentType: audioContentType(fileName, mimeType) as string,
			size: size as number,
			open,
		});
	}
	return files;
}

/** The first setting two items of one transaction disagree on, in the words of the node's fields. */
function differingSetting(a: TransactionSettings, b: TransactionSettings): string | undefined {
	const checks: Array<[string, unknown, unknown]> = [
		['Action', a.action, b.action],
		['Mode', a.mode, b.mode],
		['Model', a.modelType, b.modelType],
		['Input Languages', a.inputLanguages, b.inputLanguages],
		['Output Templates', a.templates, b.templates],
		['Additional Data', a.additionalData, b.additionalData],
		['Output Language', a.outputLanguage, b.outputLanguage],
		['Wait for Completion', a.wait, b.wait],
		['Output', a.resultsOutput, b.resultsOutput],
	];
	const found = checks.find(([, left, right]) => JSON.stringify(left) !== JSON.stringify(right));
	return found?.[0];
}

function asOperationError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): NodeOperationError {
	if (error instanceof NodeOperationError) return error;
	return new NodeOperationError(ctx.getNode(), error instanceof Error ? error : String(error), { itemIndex });
}

function text(value: unknown): string {
	return typeof value === 'string' ? value.trim() : '';
}
