/**
 * The trigger's subscription lifecycle (n8n's checkExists, create, delete), acting on the decisions
 * of subscriptionPlan.ts with the calls of transport/webhookApi.ts and the static data of
 * storedSubscription.ts.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IHookFunctions,
	type IWebhookFunctions,
} from 'n8n-workflow';

import { chosenEventNames } from './completionEvents';
import { generateSigningKey } from './webhookSignature';
import { textOf } from '../shared/values';
import {
	createSubscription,
	deleteSubscription,
	listSubscriptions,
	registrationRefusedError,
	type RemoteSubscription,
} from '../transport/webhookApi';
import { clearStored, credentialSigningKey, readStored, writeStored } from './storedSubscription';
import {
	decideExists,
	isEndpointAlreadyRegistered,
	protocolOf,
	signingKeyForNewSubscription,
	subscriptionsToRemove,
	type WantedSubscription,
} from './subscriptionPlan';

/**
 * n8n's older activation mode calls checkExists at every start of n8n: it must say true for the
 * subscription made earlier, or each restart would add one.
 */
export async function subscriptionExists(ctx: IHookFunctions): Promise<boolean> {
	const wanted = await wantedSubscription(ctx);
	const staticData = ctx.getWorkflowStaticData('node');
	const remote = await listSubscriptions(ctx);
	const decision = decideExists(
		readStored(staticData, await credentialSigningKey(ctx)),
		remote,
		wanted,
	);
	switch (decision.kind) {
		case 'keep':
			return true;
		case 'adopt':
			writeStored(
				staticData,
				{
					subscriptionId: decision.id,
					signingKey: decision.signingKey,
					endpoint: wanted.endpoint,
					eventNames: wanted.eventNames,
				},
				await credentialSigningKey(ctx),
			);
			ctx.logger.info(
				'Clinic Scribe Trigger: took over the existing subscription for this webhook URL',
				{
					subscriptionId: decision.id,
				},
			);
			return true;
		case 'replace':
			ctx.logger.debug(`Clinic Scribe Trigger: registering anew: ${decision.reason}`);
			return false;
	}
}

/** Ends with exactly one subscription for this URL, whose key the node holds. */
export async function createSubscriptionForWebhook(ctx: IHookFunctions): Promise<boolean> {
	const wanted = await wantedSubscription(ctx);
	const staticData = ctx.getWorkflowStaticData('node');
	const credentialKey = await credentialSigningKey(ctx);
	const stored = readStored(staticData, credentialKey);
	warnWhenUnreachable(ctx, wanted.endpoint);

	// Anything at our URL is a leftover (checkExists said it cannot be used), and so is the
	// stored subscription wherever it points (e.g. an old WEBHOOK_URL).
	await removeSubscriptions(
		ctx,
		subscriptionsToRemove(stored, await listSubscriptions(ctx), wanted.endpoint),
	);

	const signingKey = signingKeyForNewSubscription(stored, wanted, generateSigningKey);
	const register = async () =>
		await createSubscription(ctx, {
			eventNames: wanted.eventNames,
			endpoint: wanted.endpoint,
			signingKey,
			protocol: protocolOf(wanted.endpoint),
		});

	let outcome = await register();
	if (
		outcome.kind === 'refused' &&
		isEndpointAlreadyRegistered(outcome.statusCode, outcome.message)
	) {
		// Registered meanwhile (another n8n main, a retried request): its key is not ours.
		ctx.logger.info(
			'Clinic Scribe Trigger: the webhook URL was already registered; replacing that subscription',
		);
		await removeSubscriptions(
			ctx,
			subscriptionsToRemove({}, await listSubscriptions(ctx), wanted.endpoint),
		);
		outcome = await register();
	}
	if (outcome.kind === 'refused') {
		throw registrationRefusedError(
			ctx,
			outcome,
			isEndpointAlreadyRegistered(outcome.statusCode, outcome.message),
		);
	}

	writeStored(
		staticData,
		{
			subscriptionId: outcome.id,
			signingKey,
			endpoint: wanted.endpoint,
			eventNames: wanted.eventNames,
		},
		credentialKey,
	);
	return true;
}

/** Deactivation: the stored subscription and anything else at our URL; 404 counts as done. */
export async function deleteSubscriptionsForWebhook(ctx: IHookFunctions): Promise<boolean> {
	const staticData = ctx.getWorkflowStaticData('node');
	const stored = readStored(staticData, undefined);
	const endpoint = ctx.getNodeWebhookUrl('default') ?? stored.endpoint ?? '';
	let remote: RemoteSubscription[] | undefined;
	try {
		remote = await listSubscriptions(ctx);
	} catch (error) {
		// The stored id is still deleted below; only leftovers at our URL may stay.
		ctx.logger.warn(
			`Clinic Scribe Trigger: could not list subscriptions while deactivating: ${(error as Error).message}`,
		);
		remote = undefined;
	}
	await removeSubscriptions(ctx, subscriptionsToRemove(stored, remote, endpoint));
	clearStored(staticData);
	return true;
}

async function wantedSubscription(ctx: IHookFunctions): Promise<WantedSubscription> {
	const endpoint = ctx.getNodeWebhookUrl('default');
	if (!endpoint) {
		throw new NodeOperationError(ctx.getNode(), 'n8n did not give this trigger a webhook URL', {
			description: 'Save the workflow and activate it again.',
		});
	}
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const eventNames = chosenEventNames(
		ctx.getNodeParameter('events', []),
		options.additionalEventNames,
	);
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
async function userSigningKeyOf(
	ctx: IHookFunctions | IWebhookFunctions,
	options: IDataObject,
): Promise<string | undefined> {
	const fromCredential = await credentialSigningKey(ctx);
	if (fromCredential) return fromCredential;
	return typeof options.signingKey === 'string' ? textOf(options.signingKey) : undefined;
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
