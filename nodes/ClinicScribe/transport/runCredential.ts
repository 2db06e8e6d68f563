/**
 * The credential of one node run, read once at its first call (n8n's getCredentials: base URL,
 * variant, secrets to keep out of errors), and the secrets every error of the run is cleaned of.
 * Every call still goes through n8n's authenticated helper with the credential type alone, the
 * documented form that every n8n line supports: n8n reads the stored credential for that call, gets
 * a token when there is none, renews it after a 401 (once for the run's calls that fail together)
 * and stores it, so one token serves every item and execution.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { chosenCredentialType, type ClinicCredentialType } from '../shared/credentialChoice';
import { readCredentialSettings, type ClinicScribeSettings } from './credentialSettings';
import { redactionsFor, scrubErrorInPlace, type Redaction } from './errorBodies';
import type { ClinicApiContext } from './request';

export interface RunCredential {
	type: ClinicCredentialType;
	/** The credential's name in n8n, for messages that say which credential to fix. */
	name: string;
	data: ICredentialDataDecryptedObject;
	/** A call of this run has had an answer from the API: n8n holds a token by then. */
	answered: boolean;
	/** The call that goes first, while none has had an answer; the others wait for it. */
	firstCall?: Promise<unknown>;
	/** The call renewing the token the API refused; the run's other calls wait for it (authenticatedAttempt.ts). */
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

async function readRunCredential(ctx: ClinicApiContext): Promise<RunCredential> {
	const type = credentialTypeOf(ctx);
	const data = await ctx.getCredentials(type);
	return { type, name: ctx.getNode().credentials?.[type]?.name ?? '', data, answered: false };
}

/**
 * The credential type the node's Authentication field chose: the OAuth2 credential, or the Clinic
 * Scribe API credential (also for every node saved before the field existed).
 */
export function credentialTypeOf(ctx: ClinicApiContext): ClinicCredentialType {
	return chosenCredentialType(ctx.getNode().parameters ?? {});
}

export async function getClinicSettings(ctx: ClinicApiContext): Promise<ClinicScribeSettings> {
	const credential = await credentialOfRun(ctx);
	return readCredentialSettings(credential.data, credential.type);
}

/** The credential's secret values (never the client id or URLs, which help to diagnose). */
export function credentialSecrets(settings: ClinicScribeSettings): string[] {
	return [
		settings.clientSecret,
		settings.apiKey,
		settings.staticAccessToken,
		settings.sessionToken,
		settings.refreshToken,
		settings.signingKey,
		settings.idToken,
	].filter((value) => value !== '');
}

/**
 * Every value of the credential before the call and as n8n stores it now (a token renewed during
 * the call is only there: read again, on this error path only), and the call's own (`redact`).
 */
export async function callSecrets(
	ctx: ClinicApiContext,
	credential: RunCredential,
	before: ClinicScribeSettings,
	redact: string[] = [],
): Promise<Redaction[]> {
	return [...credentialSecrets(before), ...(await currentCredentialSecrets(ctx, credential)), ...redactionsFor(redact)];
}

/**
 * The credential's secrets as the run read them and as n8n stores them now: n8n keeps a token it
 * renewed during the run only in its database (the run's copy has the old one), so it is read again.
 */
async function currentCredentialSecrets(ctx: ClinicApiContext, credential: RunCredential): Promise<string[]> {
	const read = credentialSecrets(readCredentialSettings(credential.data, credential.type));
	try {
		return [...read, ...credentialSecrets(readCredentialSettings(await ctx.getCredentials(credential.type), credential.type))];
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
