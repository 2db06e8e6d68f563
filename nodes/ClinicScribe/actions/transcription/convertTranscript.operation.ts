import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { isFhirSourceTemplate } from '../../shared/fhir/fhirOutput';
import { templateIdOf } from '../../shared/answers/templateRecords';
import { textOf } from '../../shared/values';
import { getClinicSettings } from '../../transport/runCredential';
import {
	convertTranscript,
	createTranscriptSession,
} from '../../transport/transcription/convertTranscript';
import { fetchResults } from '../../transport/transcription/transaction';
import { patientDataForAgentProperties } from '../common.descriptions';
import { assertPatientDataMayGoToAgent, type OperationResult } from '../common.execute';
import { resultsToRecords } from './resultsRecords';
import {
	chosenOutput,
	readFailIfIncomplete,
	readResultsOutput,
	readWaitSettings,
	UPLOAD_NOT_FOUND_GRACE_MS,
	waitForCompletionFields,
} from './resultsSettings';
import { assertSessionComplete, waitForSessionResults } from './waitForResults';

const show = { resource: ['transcription'], operation: ['convertTranscript'] };

const TEMPLATE_CHOICES = {
	clinicalNotes: 'clinical_notes_template',
	emr: 'emr',
	custom: 'custom',
} as const;

export const description: INodeProperties[] = [
	...patientDataForAgentProperties(show),
	{
		displayName: 'Transcript',
		name: 'transcript',
		type: 'string',
		typeOptions: { rows: 6 },
		default: '',
		required: true,
		placeholder: 'e.g. {{ $json.text }}',
		description: 'The text to structure: typed notes, or the text of another speech-to-text node',
		displayOptions: { show },
	},
	{
		displayName: 'Template',
		name: 'convertTemplate',
		type: 'options',
		options: [
			{
				name: 'Clinical Notes',
				value: TEMPLATE_CHOICES.clinicalNotes,
				description: 'Structured clinical notes (clinical_notes_template)',
			},
			{
				name: 'Custom Template',
				value: TEMPLATE_CHOICES.custom,
				description: 'A template of your workspace, picked from its list or by ID',
			},
			{
				name: 'EMR Format',
				value: TEMPLATE_CHOICES.emr,
				description:
					'Format for electronic medical record systems (svc_emr_template, or eka_emr_template with the public API variant)',
			},
		],
		default: 'clinical_notes_template',
		description: 'The document to make from the transcript',
		displayOptions: { show },
	},
	{
		displayName: 'Custom Template',
		name: 'customTemplateId',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'A template of your workspace: pick it from the list, or enter its ID',
		displayOptions: { show: { ...show, convertTemplate: [TEMPLATE_CHOICES.custom] } },
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchTemplates', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. my_referral_letter_template',
			},
		],
	},
	...waitForCompletionFields(
		show,
		'Whether to wait until the document is made. Otherwise the session is output at once (status "processing"); Get Results with its session_id reads the document later.',
		true,
	),
];

/**
 * Create a session for the template → POST the transcript to convert-to-template → read the result
 * through the session's status call, as Get Results does. [EKA-OAS] and [EKA-JS-LEGACY] agree only
 * that the result comes back by polling the session; the documents endpoint is in [EKA-OAS] alone
 * and needs a second download of the markdown, so it is not used.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	runStartedAt: number,
): Promise<OperationResult> {
	assertPatientDataMayGoToAgent(this, itemIndex, 'Convert Transcript');
	const transcript = readTranscript(this, itemIndex);
	const output = chosenOutput(this, readResultsOutput(this, itemIndex), itemIndex);
	// Just after the conversion starts the status call may not know the session yet, as after an upload.
	const wait = readWaitSettings(this, itemIndex, UPLOAD_NOT_FOUND_GRACE_MS);
	const templateId = await readConvertTemplateId(this, itemIndex);
	if (output.form === 'fhirBundle' && !isFhirSourceTemplate(templateId)) {
		throw new NodeOperationError(
			this.getNode(),
			`Output "FHIR Transaction Bundle for the EHR" needs the EMR Format template, but item ${itemIndex} converts to ${templateId}`,
			{
				description:
					'The bundle is built from the EMR document: choose Template "EMR Format", or another Output. Nothing was sent.',
				itemIndex,
			},
		);
	}
	const sessionId = await createTranscriptSession(this, templateId, itemIndex);
	const started = await convertTranscript(this, sessionId, transcript, templateId, itemIndex);
	const results = wait
		? await waitForSessionResults(this, 'transaction', sessionId, wait, itemIndex, runStartedAt)
		: await fetchResults(this, 'transaction', sessionId, itemIndex);
	if (readFailIfIncomplete(this, itemIndex)) assertSessionComplete(this, results, itemIndex);
	return (await resultsToRecords(this, results, output, itemIndex)).map((record) => ({
		...record,
		document_id: started.documentId,
	}));
}

/**
 * The text, refused when empty. No size limit is checked: no source documents one ([EKA-OAS]
 * upload-transcript.mdx is silent), so the service's own answer decides.
 */
function readTranscript(ctx: IExecuteFunctions, itemIndex: number): string {
	const value = ctx.getNodeParameter('transcript', itemIndex, '') as unknown;
	const transcript =
		typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
	if (transcript.trim() === '') {
		const what =
			typeof value === 'string' || value === undefined || value === null
				? 'is empty'
				: `is not text (${Array.isArray(value) ? 'a list' : typeof value})`;
		throw new NodeOperationError(
			ctx.getNode(),
			`The Transcript field of item ${itemIndex} ${what}`,
			{
				description:
					'Enter the text to structure, for example {{ $json.text }} from the node before. Nothing was sent.',
				itemIndex,
			},
		);
	}
	return transcript;
}

async function readConvertTemplateId(ctx: IExecuteFunctions, itemIndex: number): Promise<string> {
	const choice =
		textOf(ctx.getNodeParameter('convertTemplate', itemIndex, TEMPLATE_CHOICES.clinicalNotes)) ??
		'';
	if (choice === TEMPLATE_CHOICES.emr)
		return (await getClinicSettings(ctx)).variantSettings.emrTemplateId;
	if (choice === TEMPLATE_CHOICES.custom) {
		const templateId = templateIdOf(ctx.getNodeParameter('customTemplateId', itemIndex, ''));
		if (templateId === '') {
			throw new NodeOperationError(
				ctx.getNode(),
				`The Custom Template field of item ${itemIndex} is empty`,
				{
					description:
						'Pick a template from the list, or enter its ID (Template → Get Many lists them). Nothing was sent.',
					itemIndex,
				},
			);
		}
		return templateId;
	}
	if (choice === TEMPLATE_CHOICES.clinicalNotes) return choice;
	throw new NodeOperationError(
		ctx.getNode(),
		`The Template field of item ${itemIndex} is "${choice}", which is not a template choice`,
		{
			description: 'Choose Clinical Notes, EMR Format or Custom Template. Nothing was sent.',
			itemIndex,
		},
	);
}
