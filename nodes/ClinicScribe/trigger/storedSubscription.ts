/**
 * The subscription the trigger keeps in the workflow's static data (`getWorkflowStaticData('node')`).
 * A key kept in the credential is not copied into static data (stored in clear): only a marker is.
 */
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { textOf } from '../shared/values';
import { getClinicSettings } from '../transport/runCredential';
import type { StoredSubscription } from './subscriptionPlan';

/** The credential's Webhook Signing Key, or undefined when it has none. */
export async function credentialSigningKey(
	ctx: IHookFunctions | IWebhookFunctions,
): Promise<string | undefined> {
	const settings = await getClinicSettings(ctx);
	return settings.signingKey !== '' ? settings.signingKey : undefined;
}

export function readStored(
	staticData: IDataObject,
	credentialKey: string | undefined,
): StoredSubscription {
	return {
		subscriptionId: textOf(staticData.subscriptionId),
		signingKey:
			staticData.signingKeyInCredential === true ? credentialKey : textOf(staticData.signingKey),
		endpoint: textOf(staticData.endpoint),
		eventNames: Array.isArray(staticData.eventNames)
			? staticData.eventNames.filter((n): n is string => typeof n === 'string')
			: undefined,
	};
}

export function writeStored(
	staticData: IDataObject,
	subscription: Required<StoredSubscription>,
	credentialKey: string | undefined,
): void {
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

export function clearStored(staticData: IDataObject): void {
	delete staticData.subscriptionId;
	delete staticData.signingKey;
	delete staticData.signingKeyInCredential;
	delete staticData.endpoint;
	delete staticData.eventNames;
}
