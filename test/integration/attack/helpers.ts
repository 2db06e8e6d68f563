/** Shared pieces of the attack-and-fault suite's integration tests (credentials, secrets, calls). */
import type { IExecuteFunctions } from 'n8n-workflow';

import { getDoctorServices } from '../../../nodes/ClinicScribe/transport/doctorApi';
import { requestUploadTarget } from '../../../nodes/ClinicScribe/transport/transcription/transaction';
import {
	createSubscription,
	listSubscriptions,
} from '../../../nodes/ClinicScribe/transport/webhookApi';
import { API_VARIANTS } from '../../fake-api/fixtures';
import type { FakeClinicApi } from '../../fake-api/server';
import {
	createExecuteContext,
	fakeApiCredentials,
	type CredentialStore,
} from '../../support/nodeContext';

export const TOKEN_PATH = API_VARIANTS.document.tokenPath;
export const SIGNING_KEY = 'whsec-attack-suite-signing-key-9d81f2';

/** The four call families of the issue: what each calls, and the path its fault is put on. */
export interface CallFamily {
	name: 'token' | 'dr' | 'transcription' | 'webhook';
	/** Path prefix the fault is injected on. */
	path: string;
	/** Whether the credential must hold a token before the call (all but the token family). */
	needsToken: boolean;
	call: (ctx: IExecuteFunctions) => Promise<unknown>;
}

export const CALL_FAMILIES: CallFamily[] = [
	// Any API call starts with the exchange when the credential has no token yet.
	{
		name: 'token',
		path: TOKEN_PATH,
		needsToken: false,
		call: async (ctx) => await getDoctorServices(ctx, 'do1001'),
	},
	{
		name: 'dr',
		path: '/dr/v1/doctor/service/',
		needsToken: true,
		call: async (ctx) => await getDoctorServices(ctx, 'do1001'),
	},
	{
		name: 'transcription',
		path: '/v1/file-upload',
		needsToken: true,
		call: async (ctx) =>
			await requestUploadTarget(ctx, {
				txnId: 'attack-txn-1',
				action: 'scribe-v2',
				extraData: { mode: 'dictation' },
			}),
	},
	{
		name: 'webhook',
		path: '/notification/v1/connect/webhook/subscriptions',
		needsToken: true,
		call: async (ctx) =>
			await createSubscription(ctx, {
				eventNames: ['v2rx.completed'],
				endpoint: 'https://n8n.example.com/webhook/attack/webhook',
				signingKey: SIGNING_KEY,
				protocol: 'https',
			}),
	},
];

/** A credential for the fake API, holding a token already when asked (obtained by a real call). */
export async function credentialFor(
	api: FakeClinicApi,
	withToken: boolean,
): Promise<CredentialStore> {
	const store = fakeApiCredentials(api.url, api.validCredentials);
	if (withToken) await listSubscriptions(contextFor(store));
	return store;
}

export function contextFor(store: CredentialStore, continueOnFail = false): IExecuteFunctions {
	return createExecuteContext({ credentials: store, parameters: {}, continueOnFail }).context;
}

/** Every secret the credential holds or the calls sent: what must never leave or come back. */
export function secretsOf(store: CredentialStore): string[] {
	const values = [
		store.data.clientSecret,
		store.data.apiKey,
		store.data.sessionToken,
		store.data.refreshToken,
		store.data.accessToken,
		SIGNING_KEY,
	];
	return values.filter((value): value is string => typeof value === 'string' && value !== '');
}

/** Everything of an error n8n may show or store: own properties, message, description, stack, cause. */
export function everythingOf(value: unknown, seen = new WeakSet<object>(), depth = 0): string {
	if (typeof value === 'string') return value;
	if (typeof value !== 'object' || value === null) return String(value);
	if (seen.has(value) || depth > 10) return '';
	seen.add(value);
	const keys = new Set(Object.getOwnPropertyNames(value));
	if (value instanceof Error)
		for (const key of ['message', 'stack', 'description', 'cause']) keys.add(key);
	const parts: string[] = [];
	for (const key of keys) {
		const entry = (value as Record<string, unknown>)[key];
		if (entry === undefined || typeof entry === 'function') continue;
		parts.push(`${key}=${everythingOf(entry, seen, depth + 1)}`);
	}
	if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
		parts.push(JSON.stringify(value));
	}
	return parts.join('\n');
}

/** The secrets found in any text. */
export function secretsIn(text: string, secrets: string[]): string[] {
	return secrets.filter((secret) => text.includes(secret));
}

export async function caught(promise: Promise<unknown>): Promise<Error & { description?: string }> {
	try {
		await promise;
	} catch (error) {
		return error as Error & { description?: string };
	}
	throw new Error('expected the call to fail');
}
