import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IHookFunctions,
	type INodeExecutionData,
	type INodePropertyOptions,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { optionNameSubtitle } from './actions/common.descriptions';
import { isResultsOutput, RESULTS_OUTPUT_PARAMETER, resultsOutputProperty } from './actions/transcription/resultsOutput.description';
import {
	chosenEventNames,
	isChosenEvent,
	normalizeCompletionEvent,
	TRANSCRIPTION_COMPLETED,
	type CompletionEvent,
} from './shared/completionEvents';
import { sessionResultsToRecords } from './shared/sessionResults';
import { textOf } from './shared/values';
import {
	decideExists,
	isEndpointAlreadyRegistered,
	protocolOf,
	signingKeyForNewSubscription,
	subscriptionsToRemove,
	type RemoteSubscription,
	type StoredSubscription,
	type WantedSubscription,
} from './shared/subscriptionPlan';
import {
	DEFAULT_TOLERANCE_SECONDS,
	generateSigningKey,
	MAX_DELIVERY_BYTES,
	ReplayGuard,
	SIGNATURE_HEADER,
	verifySignature,
} from './shared/webhookSignature';
import {
	createSubscription,
	deleteSubscription,
	listSubscriptions,
	registrationRefusedError,
	type CreateOutcome,
} from './transport/webhookApi';
import { getClinicSettings } from './transport/request';
import { fetchSessionResults } from './transport/transcriptionApi';

/** The node panel's text for the package's entry (see `description` below). */
export const ENTRY_DESCRIPTION =
	'Transcribe consultations into clinical documents, look up doctors, services and patients, and start workflows when a transcription completes';

const EVENT_OPTIONS: INodePropertyOptions[] = [
	{
		name: 'Transcription Completed',
		value: TRANSCRIPTION_COMPLETED,
		description: 'A transcription transaction finished (v2rx.completed)',
	},
];

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
		credentials: [{ name: 'clinicScribeApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'webhook',
			},
		],
		properties: [
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
				description: 'The events to subscribe to. Deliveries of other events are acknowledged and dropped.',
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
			{
				displayName: 'Verify Signature',
				name: 'verifySignature',
				type: 'boolean',
				default: true,
				description: 'Whether to reject deliveries whose Eka-Webhook-Signature header does not prove they come from the clinic API',
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
						description: 'Other event names to subscribe to, separated by commas, for events the service adds later',
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
						description: 'How far the signed timestamp may be from now before a delivery is rejected as a replay',
						displayOptions: { show: { '/verifySignature': [true] } },
					},
				],
			},
		],
	};

	webhookMethods = {
		default: {
			/**
			 * n8n's older activation mode calls this at every start of n8n: it must say true for the
			 * subscription made earlier, or each restart would add one.
			 */
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const wanted = await wantedSubscription(this);
				const staticData = this.getWorkflowStaticData('node');
				const remote = await listSubscriptions(this);
				const decision = decideExists(readStored(staticData, await credentialSigningKey(this)), remote, wanted);
				switch (decision.kind) {
					case 'keep':
						return true;
					case 'adopt':
						writeStored(
							staticData,
							{ subscriptionId: decision.id, signingKey: decision.signingKey, endpoint: wanted.endpoint, eventNames: wanted.eventNames },
							await credentialSigningKey(this),
						);
						this.logger.info('Clinic Scribe Trigger: took over the existing subscription for this webhook URL', {
							subscriptionId: decision.id,
						});
						return true;
					case 'replace':
						this.logger.debug(`Clinic Scribe Trigger: registering anew: ${decision.reason}`);
						return false;
				}
			},

			/** Ends with exactly one subscription for this URL, whose key the node holds. */
			async create(this: IHookFunctions): Promise<boolean> {
				const wanted = await wantedSubscription(this);
				const staticData = this.getWorkflowStaticData('node');
				const credentialKey = await credentialSigningKey(this);
				const stored = readStored(staticData, credentialKey);
				warnWhenUnreachable(this, wanted.endpoint);

				// Anything at our URL is a leftover (checkExists said it cannot be used), and so is the
				// stored subscription wherever it points (e.g. an old WEBHOOK_URL).
				await removeSubscriptions(this, subscriptionsToRemove(stored, await listSubscriptions(this), wanted.endpoint));

				const signingKey = signingKeyForNewSubscription(stored, wanted, generateSigningKey);
				const register = async (): Promise<CreateOutcome> =>
					await createSubscription(this, {
						eventNames: wanted.eventNames,
						endpoint: wanted.endpoint,
						signingKey,
						protocol: protocolOf(wanted.endpoint),
					});

				let outcome = await register();
				if (outcome.kind === 'refused' && isEndpointAlreadyRegistered(outcome.statusCode, outcome.message)) {
					// Registered meanwhile (another n8n main, a retried request): its key is not ours.
					this.logger.info('Clinic Scribe Trigger: the webhook URL was already registered; replacing that subscription');
					await removeSubscriptions(this, subscriptionsToRemove({}, await listSubscriptions(this), wanted.endpoint));
					outcome = await register();
				}
				if (outcome.kind === 'refused') {
					throw registrationRefusedError(this, outcome, isEndpointAlreadyRegistered(outcome.statusCode, outcome.message));
				}

				writeStored(
					staticData,
					{ subscriptionId: outcome.id, signingKey, endpoint: wanted.endpoint, eventNames: wanted.eventNames },
					credentialKey,
				);
				return true;
			},

			/** Deactivation: the stored subscription and anything else at our URL; 404 counts as done. */
			async delete(this: IHookFunctions): Promise<boolean> {
				const staticData = this.getWorkflowStaticData('node');
				const stored = readStored(staticData, undefined);
				const endpoint = this.getNodeWebhookUrl('default') ?? stored.endpoint ?? '';
				let remote: RemoteSubscription[] | undefined;
				try {
					remote = await listSubscriptions(this);
				} catch (error) {
					// The stored id is still deleted below; only leftovers at our URL may stay.
					this.logger.warn(`Clinic Scribe Trigger: could not list subscriptions while deactivating: ${(error as Error).message}`);
					remote = undefined;
				}
				await removeSubscriptions(this, subscriptionsToRemove(stored, remote, endpoint));
				clearStored(staticData);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		// Read-only use of static data: webhook() may run in another process (queue mode).
		const staticData = this.getWorkflowStaticData('node');
		const options = this.getNodeParameter('options', {}) as IDataObject;

		const rawBody = Buffer.isBuffer(request.rawBody) ? request.rawBody : undefined;
		if (rawBody && rawBody.length > MAX_DELIVERY_BYTES) {
			// Refused before any check or use of it (n8n's own bound, N8N_PAYLOAD_SIZE_MAX, is far larger).
			this.logger.warn(`Clinic Scribe Trigger: refused a delivery of ${rawBody.length} bytes (at most ${MAX_DELIVERY_BYTES})`);
			this.getResponseObject().status(413).json({ message: 'Delivery too large' });
			return { noWebhookResponse: true };
		}

		const nowSeconds = Math.floor(Date.now() / 1000);
		const signatureHeader = request.headers[SIGNATURE_HEADER] as string | string[] | undefined;
		const signature = Array.isArray(signatureHeader) ? signatureHeader[0] : signatureHeader;
		const verifying = this.getNodeParameter('verifySignature', true) !== false;
		if (verifying) {
			const stored = readStored(staticData, staticData.signingKeyInCredential === true ? await credentialSigningKey(this) : undefined);
			const check = verifySignature({
				header: signatureHeader,
				rawBody,
				signingKey: stored.signingKey,
				nowSeconds,
				toleranceSeconds: toleranceOf(options),
			});
			if (!check.valid) {
				// The reason only: nothing of the body is ever logged.
				this.logger.warn(`Clinic Scribe Trigger: rejected a delivery (signature ${check.reason})`);
				this.getResponseObject().status(401).json({ message: 'Signature check failed' });
				return { noWebhookResponse: true };
			}
			if (signature && replayGuard.wasAccepted(signature, nowSeconds)) {
				// The very delivery already started the workflow: a replay, or the service delivering
				// again. Acknowledged (so a service stops retrying) and dropped, so nothing runs twice.
				this.logger.warn('Clinic Scribe Trigger: acknowledged and dropped a delivery already accepted (signature replayed)');
				return {};
			}
		}
		const accepted = (): void => {
			if (verifying && signature) replayGuard.remember(signature, nowSeconds, toleranceOf(options));
		};

		const event = normalizeCompletionEvent(this.getBodyData());
		const chosen = chosenEventNames(this.getNodeParameter('events', []), options.additionalEventNames);
		if (!event || !isChosenEvent(event, chosen)) {
			// Not even the event name: it comes from the body, which may be unverified.
			this.logger.debug('Clinic Scribe Trigger: acknowledged and dropped a delivery of an event not chosen');
			return {};
		}

		if (this.getNodeParameter('includeResults', false) !== true) {
			accepted();
			return { workflowData: [[{ json: eventJson(event) }]] };
		}
		// Remembered only once it succeeded: after a failed fetch the service may deliver it again.
		const items = await itemsWithResults(this, event);
		accepted();
		return { workflowData: [items] };
	}
}

// -------------------------------------------------------------------------------------------------

/**
 * Signed deliveries already accepted by this process (see ReplayGuard). Module state by design: the
 * replay cache must outlive one webhook() call and be shared by every workflow's trigger in the
 * process, and it cannot live in static data, which webhook() may only read (it may run in another
 * process in queue mode). Bounded in size and by the signature's timestamp tolerance.
 */
const replayGuard = new ReplayGuard();

async function wantedSubscription(ctx: IHookFunctions): Promise<WantedSubscription> {
	const endpoint = ctx.getNodeWebhookUrl('default');
	if (!endpoint) {
		throw new NodeOperationError(ctx.getNode(), 'n8n did not give this trigger a webhook URL', {
			description: 'Save the workflow and activate it again.',
		});
	}
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const eventNames = chosenEventNames(ctx.getNodeParameter('events', []), options.additionalEventNames);
	if (eventNames.length === 0) {
		throw new NodeOperationError(ctx.getNode(), 'No event is chosen', {
			description: 'Choose at least one event in the Events field of the Clinic Scribe Trigger.',
		});
	}
	return { endpoint, eventNames, userSigningKey: await userSigningKeyOf(ctx, options) };
}

/**
 * The key the user chose: the credential's Webhook Signing Key (encrypted at rest), else the
 * node option of version 1 nodes (stored in clear in the workflow; read so they keep working).
 */
async function userSigningKeyOf(ctx: IHookFunctions | IWebhookFunctions, options: IDataObject): Promise<string | undefined> {
	const fromCredential = await credentialSigningKey(ctx);
	if (fromCredential) return fromCredential;
	return typeof options.signingKey === 'string' ? textOf(options.signingKey) : undefined;
}

async function credentialSigningKey(ctx: IHookFunctions | IWebhookFunctions): Promise<string | undefined> {
	const settings = await getClinicSettings(ctx);
	return settings.signingKey !== '' ? settings.signingKey : undefined;
}

async function removeSubscriptions(ctx: IHookFunctions, ids: string[]): Promise<void> {
	for (const id of ids) await deleteSubscription(ctx, id);
}

/** The service must reach the URL; a loopback address only works with a local test service. */
function warnWhenUnreachable(ctx: IHookFunctions, endpoint: string): void {
	if (/^[a-z]+:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?\//i.test(endpoint)) {
		ctx.logger.warn(
			`Clinic Scribe Trigger: registering ${endpoint}, a loopback address the clinic API cannot reach unless it runs on this machine. Set WEBHOOK_URL to n8n's public address.`,
		);
	}
}

function toleranceOf(options: IDataObject): number {
	const value = Number(options.toleranceSeconds);
	return Number.isFinite(value) && value > 0 ? value : DEFAULT_TOLERANCE_SECONDS;
}

/**
 * The items Transcription → Get Results gives for the session, each with the event under `event`.
 * A failed fetch throws: n8n then records a failed execution and answers the service 500, so the
 * failure is visible and the service may deliver again.
 */
async function itemsWithResults(ctx: IWebhookFunctions, event: CompletionEvent): Promise<INodeExecutionData[]> {
	if (!event.sessionId) {
		throw new NodeOperationError(ctx.getNode(), 'The delivery names no session, so its results cannot be fetched', {
			description: 'Turn off Include Results to receive such deliveries as they are.',
		});
	}
	const chosen = ctx.getNodeParameter(RESULTS_OUTPUT_PARAMETER, 'session');
	const output = isResultsOutput(chosen) ? chosen : 'session';
	const results = await fetchSessionResults(ctx, event.sessionId);
	return sessionResultsToRecords(results, output).map((record) => ({ json: { ...record, event: eventJson(event) } }));
}

function eventJson(event: CompletionEvent): IDataObject {
	return {
		event: event.event,
		transactionId: event.transactionId,
		sessionId: event.sessionId,
		status: event.status,
		timestamp: event.timestamp,
		shape: event.shape,
		body: event.body,
	};
}

// --- static data ----------------------------------------------------------------------------------

/** A key kept in the credential is not copied into static data (stored in clear): only a marker is. */
function readStored(staticData: IDataObject, credentialKey: string | undefined): StoredSubscription {
	return {
		subscriptionId: textOf(staticData.subscriptionId),
		signingKey: staticData.signingKeyInCredential === true ? credentialKey : textOf(staticData.signingKey),
		endpoint: textOf(staticData.endpoint),
		eventNames: Array.isArray(staticData.eventNames)
			? staticData.eventNames.filter((n): n is string => typeof n === 'string')
			: undefined,
	};
}

function writeStored(staticData: IDataObject, subscription: Required<StoredSubscription>, credentialKey: string | undefined): void {
	const keyInCredential = credentialKey !== undefined && subscription.signingKey === credentialKey;
	staticData.subscriptionId = subscription.subscriptionId;
	if (keyInCredential) {
		delete staticData.signingKey;
		staticData.signingKeyInCredential = true;
	} else {
		staticData.signingKey = subscription.signingKey;
		delete staticData.signingKeyInCredential;
	}
	staticData.endpoint = subscription.endpoint;
	staticData.eventNames = subscription.eventNames;
}

function clearStored(staticData: IDataObject): void {
	delete staticData.subscriptionId;
	delete staticData.signingKey;
	delete staticData.signingKeyInCredential;
	delete staticData.endpoint;
	delete staticData.eventNames;
}
