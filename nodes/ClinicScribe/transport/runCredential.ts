/**
 * The run's credential: the one the node's Authentication field chose, read once per run (at its
 * first call) and shared by the run's calls, with what its token coordination keeps
 * (tokenRenewal.ts); its settings, and the secrets every error of the run is cleaned of.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { chosenCredentialType, type ClinicCredentialType } from '../shared/fields/credentialChoice';
import type { ClinicApiContext } from './apiCall';
import {
	credentialSecrets,
	readCredentialSettings,
	type ClinicScribeSettings,
} from './authentication';
import { scrubErrorInPlace } from './secretScrubbing';

export interface RunCredential {
	type: ClinicCredentialType;
	/** The credential's name in n8n, for messages that say which credential to fix. */
	name: string;
	/** As read at the run's start, with the tokens this run renewed. */
	data: ICredentialDataDecryptedObject;
	/** A call of this run has had an answer from the API: n8n holds a token by then. */
	answered: boolean;
	/** The call that goes first, while none has had an answer; the others wait for it. */
	firstCall?: Promise<void>;
	/** The call renewing the token the API refused; the run's other calls wait for it. */
	renewal?: Promise<unknown>;
}

// Keyed by the context object: n8n makes one per node run (or hook, webhook, list search), and a
// context has one credential, so nothing is shared across runs, executions or credentials.
const runCredentials = new WeakMap<ClinicApiContext, Promise<RunCredential>>();

export async function credentialOfRun(ctx: ClinicApiContext): Promise<RunCredential> {
	let pending = runCredentials.get(ctx);
	if (!pending) {
		pending = readRunCredential(ctx);
		runCredentials.set(ctx, pending);
		// A failed read (no credential chosen) is not remembered: the next call reports it again.
		pending.catch(() => runCredentials.delete(ctx));
	}
	return await pending;
}

/**
 * The credential the node's Authentication field chose: the OAuth2 credential, or the Clinic Scribe
 * API credential (also for every node saved before the field existed).
 */
async function readRunCredential(ctx: ClinicApiContext): Promise<RunCredential> {
	const type = chosenCredentialType(ctx.getNode().parameters ?? {});
	const data = await ctx.getCredentials(type);
	return { type, name: ctx.getNode().credentials?.[type]?.name ?? '', data, answered: false };
}

/** The run's credential's fields (read once per run). */
export async function getClinicSettings(ctx: ClinicApiContext): Promise<ClinicScribeSettings> {
	const credential = await credentialOfRun(ctx);
	return readCredentialSettings(credential.data, credential.type);
}

/**
 * Every value of the credential before the call and as n8n stores it now (a token renewed during
 * the call is only there: read again, on this error path only).
 */
export async function callSecrets(
	ctx: ClinicApiContext,
	credential: RunCredential,
	before: ClinicScribeSettings,
): Promise<string[]> {
	return [...credentialSecrets(before), ...(await currentCredentialSecrets(ctx, credential))];
}

/**
 * The credential's secrets as the run read them and as n8n stores them now: n8n keeps a token it
 * renewed during the run only in its database (the run's copy has the old one), so it is read again.
 */
async function currentCredentialSecrets(
	ctx: ClinicApiContext,
	credential: RunCredential,
): Promise<string[]> {
	const read = credentialSecrets(readCredentialSettings(credential.data, credential.type));
	try {
		return [
			...read,
			...credentialSecrets(
				readCredentialSettings(await ctx.getCredentials(credential.type), credential.type),
			),
		];
	} catch {
		// Not readable now: the values read at the start of the run are removed all the same.
		return read;
	}
}

/** Removes the credential's secrets from an error made anywhere (in place), before it is shown or stored. */
export async function scrubCredentialSecrets(ctx: ClinicApiContext, error: unknown): Promise<void> {
	try {
		scrubErrorInPlace(error, await currentCredentialSecrets(ctx, await credentialOfRun(ctx)));
	} catch {
		// No readable credential: nothing of it can be in the error either.
	}
}
