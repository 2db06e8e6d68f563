import {
	NodeConnectionTypes,
	type IHookFunctions,
	type INodePropertyOptions,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { CLINIC_EVENTS } from './trigger/clinicEvents';
import { authenticationProperty } from './shared/fields/credentialChoice';
import { fhirOutputFields } from './shared/fhir/fields';
import { TRANSCRIPTION_COMPLETED } from './trigger/completionEvents';
import { optionNameSubtitle } from './shared/fields/optionSubtitle';
import {
	resultsOutputProperty,
	resultsSourceProperty,
} from './shared/fields/resultsOutput.description';
import { DEFAULT_TOLERANCE_SECONDS } from './trigger/webhookSignature';
import { receiveDelivery } from './trigger/delivery';
import {
	createSubscriptionForWebhook,
	deleteSubscriptionsForWebhook,
	subscriptionExists,
} from './trigger/subscriptionLifecycle';

/** The node panel's text for the package's entry (see `description` below). */
export const ENTRY_DESCRIPTION =
	'Transcribe consultations into clinical documents, manage appointments and patients, and start workflows on clinic events or when a transcription completes';

/**
 * n8n has no option groups: the names start with their kind (Appointment …, Prescription …,
 * Receipt …, Schedule …, Transcription …), so the alphabetical list shows each kind together.
 */
const EVENT_OPTIONS: INodePropertyOptions[] = [
	{
		name: 'Transcription Completed',
		value: TRANSCRIPTION_COMPLETED,
		description: 'A transcription transaction finished (v2rx.completed)',
	},
	...CLINIC_EVENTS.map(({ name, value, description }) => ({ name, value, description })),
].sort((a, b) => a.name.localeCompare(b.name));

export class ClinicScribeTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Clinic Scribe Trigger',
		name: 'clinicScribeTrigger',
		icon: { light: 'file:clinicScribe.svg', dark: 'file:clinicScribe.dark.svg' },
		group: ['trigger'],
		// 1.1 moved a typed Signing Key into the credential; version 1 nodes keep their old option.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: optionNameSubtitle('events', EVENT_OPTIONS),
		// n8n's node panel shows this package as ONE entry (it folds "<name>Trigger" into "<name>")
		// and gives that entry the trigger's description, in "What triggers this workflow?" and in
		// "What happens next?" alike: so this text speaks for the actions and the trigger. The event
		// itself is described by its option below (the panel lists it as "On transcription completed").
		description: ENTRY_DESCRIPTION,
		defaults: { name: 'Clinic Scribe Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// Each credential for its Authentication choice (see authenticationProperty).
		credentials: [
			{
				name: 'clinicScribeApi',
				required: true,
				displayOptions: { show: { authentication: ['clinicScribeApi'] } },
			},
			{
				name: 'clinicScribeOAuth2Api',
				required: true,
				displayOptions: { show: { authentication: ['clinicScribeOAuth2Api'] } },
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'webhook',
			},
		],
		properties: [
			authenticationProperty,
			{
				displayName:
					'The clinic API must be able to reach this n8n: set WEBHOOK_URL to n8n\'s public address. Activating the workflow registers the production URL; "Listen for test event" registers the test URL until it stops.',
				name: 'reachabilityNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				options: EVENT_OPTIONS,
				default: [TRANSCRIPTION_COMPLETED],
				description:
					'The events to subscribe to, grouped by kind (Appointment, Prescription, Receipt, Transcription, …). One subscription carries all of them; deliveries of other events are acknowledged and dropped.',
			},
			{
				displayName: 'Include Results',
				name: 'includeResults',
				type: 'boolean',
				default: false,
				description:
					'Whether to fetch the finished documents of the session and output them decoded, as Transcription → Get Results does',
			},
			resultsOutputProperty({ includeResults: [true] }),
			...fhirOutputFields({ includeResults: [true], resultsOutput: ['fhirBundle'] }, 'trigger'),
			resultsSourceProperty({ includeResults: [true] }),
			{
				displayName: 'Include Appointment or Prescription',
				name: 'includeRecord',
				type: 'boolean',
				default: false,
				description:
					'Whether to fetch the full record of a clinic event and output it beside the event, as Appointment → Get and Prescription → Get do: the appointment of an appointment event (under appointment), the prescription of a prescription event (under prescription). Deliveries carry IDs only.',
			},
			{
				displayName: 'Verify Signature',
				name: 'verifySignature',
				type: 'boolean',
				default: true,
				description:
					'Whether to reject deliveries whose Eka-Webhook-Signature header does not prove they come from the clinic API',
				hint: 'Turn off only for a service that sends unsigned deliveries: anyone who learns the webhook URL can then start this workflow',
			},
			{
				displayName:
					'Signature verification is off: any request to the webhook URL starts this workflow. Turn it back on unless the service cannot sign its deliveries.',
				name: 'verificationOffNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { verifySignature: [false] } },
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Additional Event Names',
						name: 'additionalEventNames',
						type: 'string',
						default: '',
						placeholder: 'e.g. v2rx.failed',
						description:
							'Other event names to subscribe to, separated by commas, for events the service adds later',
					},
					{
						displayName: 'Signing Key (Deprecated)',
						name: 'signingKey',
						type: 'string',
						typeOptions: { password: true },
						default: '',
						description:
							'Stored in clear in the workflow: move it to the Webhook Signing Key field of the Clinic Scribe API credential (encrypted by n8n) and clear it here. Used only when the credential has none.',
						displayOptions: { show: { '@version': [1] } },
					},
					{
						displayName: 'Timestamp Tolerance (Seconds)',
						name: 'toleranceSeconds',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: DEFAULT_TOLERANCE_SECONDS,
						description:
							'How far the signed timestamp may be from now before a delivery is rejected as a replay',
						displayOptions: { show: { '/verifySignature': [true] } },
					},
				],
			},
		],
	};

	// The lifecycle and the delivery live in trigger/ (next to the pure subscription plan).
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await subscriptionExists(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await createSubscriptionForWebhook(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await deleteSubscriptionsForWebhook(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveDelivery(this);
	}
}
