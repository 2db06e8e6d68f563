import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { INPUT_LANGUAGES } from '../../shared/audioFiles';
import { getClinicSettings } from '../../transport/runCredential';
import { isToolRun } from '../common.execute';
import { asNodeError } from '../errorItems';
import {
	errorItems,
	notSentForQuotaError,
	pairedItems,
	receiptItems,
	startUploads,
	stopNote,
	withBatchNote,
	type OrderedOutput,
} from './uploadAudio/batchRunner';
import { describePlans, planUploads, type UploadPlan } from './uploadAudio/plan';
import { runSession } from './uploadAudio/sessionFlow';
import { TEMPLATE_CHOICES, UPLOAD_METHOD_PARAMETER } from './uploadAudio/settings';
import { runTransaction } from './uploadAudio/transactionFlow';
import { resultsToRecords } from './resultsRecords';
import { waitForCompletionFields } from './resultsSettings';
import { waitForSessionResults } from './waitForResults';

const show = { resource: ['transcription'], operation: ['uploadAudio'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		placeholder: 'e.g. data',
		hint: 'The name of the input binary field holding the recording. Several fields: separate them with commas.',
		description:
			'Each named binary field of the item is one audio file of the transaction (wav, mp3, m4a, ogg, webm or mp4). In a workflow whose Binary Mode is Combined the same name works, as does a path such as _files.data.',
		displayOptions: { show },
	},
	{
		displayName: 'Upload Method',
		name: UPLOAD_METHOD_PARAMETER,
		type: 'options',
		options: [
			{
				name: 'Transaction',
				value: 'transaction',
				description:
					'Files go to cloud storage first, then the transcription is started. No size limit per file: use it for long recordings.',
			},
			{
				name: 'Session',
				value: 'session',
				description:
					"The service's session API: each file (at most 10 MB) is sent to the API itself, then the session is ended. Results come already decoded.",
			},
		],
		default: 'transaction',
		description:
			'How the recordings are sent. Get Results needs the same choice under Results Of (the output says it as upload_method).',
		displayOptions: { show },
	},
	{
		displayName: 'Transaction ID',
		name: 'transactionId',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.visitId }}',
		description:
			'Groups files: items with the same transaction ID are uploaded and transcribed together, as one session. Leave empty to generate one per item. It is the session ID for Get Results and the trigger. With Upload Method "Session": 16 to 32 letters, digits, _ or -.',
		displayOptions: { show },
	},
	{
		displayName: 'Input Languages',
		name: 'inputLanguages',
		type: 'multiOptions',
		options: INPUT_LANGUAGES.map((language) => ({
			name: `${language.name} (${language.id})`,
			value: language.id,
		})),
		default: ['en-IN'],
		required: true,
		description:
			'The language(s) spoken in the recording. An expression may give IDs such as "en-IN,hi".',
		displayOptions: { show },
	},
	{
		displayName: 'Output Templates',
		name: 'outputTemplates',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Template',
		default: {
			templates: [{ template: TEMPLATE_CHOICES.clinicalNotes, codificationNeeded: false }],
		},
		description: 'The documents to produce from the recording',
		displayOptions: { show },
		options: [
			{
				displayName: 'Template',
				name: 'templates',
				values: [
					{
						displayName: 'Template',
						name: 'template',
						type: 'options',
						options: [
							{
								name: 'Clinical Notes',
								value: TEMPLATE_CHOICES.clinicalNotes,
								description: 'Comprehensive structured clinical notes (clinical_notes_template)',
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
							{
								name: 'Transcript',
								value: TEMPLATE_CHOICES.transcript,
								description: 'Basic transcription with minimal structuring (transcript_template)',
							},
						],
						default: 'clinical_notes_template',
					},
					{
						displayName: 'Custom Template ID',
						name: 'customTemplateId',
						// Saved workflows may hold a plain string here: uploadAudio/settings.ts reads both shapes
						// (templateIdOf) and n8n 2.41's editor shows a string in a resource locator as it is, so
						// they run and display unchanged without a new node version. An empty ID is refused for a
						// Custom row and ignored otherwise.
						type: 'resourceLocator',
						default: { mode: 'list', value: '' },
						// Not `required`: n8n checks that inside a template row without its displayOptions
						// and would refuse to run every workflow whose rows are not custom.
						description: 'A template of your workspace: pick it from the list, or enter its ID',
						// Shown for the Custom Template choice of the same row only.
						displayOptions: { show: { template: [TEMPLATE_CHOICES.custom] } },
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
					{
						displayName: 'Codification Needed',
						name: 'codificationNeeded',
						type: 'boolean',
						default: false,
						description: 'Whether the document should carry medical codes (codification_needed)',
					},
				],
			},
		],
	},
	...waitForCompletionFields(
		show,
		'Whether to wait until the transcription is done and output its results instead of the upload receipts',
		false,
	),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Action',
				name: 'action',
				type: 'string',
				default: '',
				placeholder: 'e.g. scribe-v2',
				description:
					"The upload's action value. Leave empty unless the service gave you another value: the credential's API variant then decides (scribe-v2, or ekascribe-v2 for the public API).",
			},
			{
				displayName: 'Additional Data',
				name: 'additionalData',
				type: 'json',
				default: '{}',
				description:
					'A JSON object passed through to the transcription as additional_data, returned with the results',
			},
			{
				displayName: 'Mode',
				name: 'mode',
				type: 'options',
				options: [
					{
						name: 'Consultation',
						value: 'consultation',
						description: 'A conversation between doctor and patient',
					},
					{ name: 'Dictation', value: 'dictation', description: 'The doctor dictating alone' },
				],
				default: 'dictation',
				description: 'How the recording was made',
			},
			{
				displayName: 'Model',
				name: 'modelType',
				type: 'options',
				options: [
					{ name: 'Lite', value: 'lite', description: 'Lower latency' },
					{ name: 'Pro', value: 'pro', description: 'Most accurate' },
				],
				default: 'pro',
				description: 'The transcription model (model_type)',
			},
			{
				displayName: 'Output Language',
				name: 'outputLanguage',
				type: 'string',
				default: '',
				placeholder: 'e.g. en-IN',
				description: 'Language of the documents (output_language). Empty: the service decides.',
			},
		],
	},
];

/**
 * All items at once, because items sharing a transaction ID form one upload (a transaction, or a
 * session with Upload Method "Session"): every item is read and checked before anything is sent
 * (uploadAudio/plan.ts), the uploads go several at a time (uploadAudio/batchRunner.ts), each with
 * the flow of its Upload Method (transactionFlow.ts, sessionFlow.ts), then the receipts or, with
 * Wait for Completion, the results come out in the order of the input items.
 *
 * The batch rule: without Continue On Fail, once the first failure is known no upload starts and
 * none in flight sends another request (those in flight finish the request they are in; one whose
 * start request was already sent finishes); the error lists the uploads started (running and
 * counted), any whose start request got no clear answer, any other that failed, and those not
 * sent. With Continue On Fail, a failed upload becomes error items and the others go on, except
 * after the daily quota's answer: no further request is sent then.
 */
export async function executeBatch(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	if (isToolRun(this)) {
		throw new NodeOperationError(
			this.getNode(),
			'Upload Audio cannot be used as an AI agent tool',
			{
				description:
					'An agent cannot hand over binary files. Upload recordings in a regular workflow step; agents can use Get Results.',
			},
		);
	}
	const plans = await planUploads(this, items, await getClinicSettings(this));
	const continueOnFail = this.continueOnFail();

	const firstProblem = plans.find((plan) => plan.problem)?.problem;
	if (firstProblem && !continueOnFail) throw firstProblem;

	const flows = { transaction: runTransaction, session: runSession };
	const batch = startUploads(
		this,
		plans.filter((plan) => !plan.problem),
		continueOnFail,
		flows,
	);
	await Promise.all(batch.workers);
	const { outcomes, firstFailure } = batch.result();
	if (firstFailure && !continueOnFail)
		throw withBatchNote(firstFailure.error, stopNote(plans, outcomes, firstFailure.plan));

	const output: OrderedOutput = [];
	const started: Array<{ plan: UploadPlan; receipts: IDataObject[] }> = [];
	for (const plan of plans) {
		const outcome = plan.problem ? undefined : outcomes.get(plan);
		if (plan.problem) output.push(...errorItems(plan, plan.problem));
		else if (outcome === undefined || outcome.kind === 'halted')
			output.push(...errorItems(plan, notSentForQuotaError(this, plan, outcome?.uploadsSent ?? 0)));
		else if (outcome.kind === 'failed') output.push(...errorItems(plan, outcome.error));
		else started.push({ plan, receipts: outcome.receipts });
	}

	const waitStartedAt = Date.now();
	for (const { plan, receipts } of started) {
		const wait = plan.settings.wait;
		if (!wait) {
			output.push(...receiptItems(plan, receipts));
			continue;
		}
		try {
			const results = await waitForSessionResults(
				this,
				plan.settings.uploadMethod,
				plan.id,
				wait,
				plan.itemIndexes[0],
				waitStartedAt,
			);
			const chosen = { form: plan.settings.resultsOutput, fhir: plan.settings.fhirOutput };
			for (const json of await resultsToRecords(this, results, chosen, plan.itemIndexes[0])) {
				output.push({ order: plan.itemIndexes[0], data: { json, pairedItem: pairedItems(plan) } });
			}
		} catch (error) {
			const nodeError = asNodeError(this, error, plan.itemIndexes[0]);
			if (!continueOnFail) {
				throw withBatchNote(
					nodeError,
					`Every transaction of this run was started: ${describePlans(started.map((entry) => entry.plan))}. Get their results with Get Results instead of uploading the recordings again.`,
				);
			}
			output.push(...errorItems(plan, nodeError));
		}
	}
	// Stable sort: by the first input item each output belongs to.
	return output.sort((a, b) => a.order - b.order).map((entry) => entry.data);
}
