/**
 * n8n's own CredentialsHelper of one installed version (scripts/install-n8n.sh), loaded into this
 * process: what n8n makes of a stored credential before its OAuth2 machinery reads it (defaults
 * applied, hidden OAuth fields pinned, expressions resolved). Its methods run on a stand-in for the
 * services n8n's container would give it: the credential types (the one given and n8n-nodes-base's
 * `oAuth2Api`, its parent), no overwrites, no managed OAuth, no external secrets.
 * Used by test/integration/compatibility/oauth2CredentialResolution.test.ts and
 * bench/credential-read.ts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { installCacheDir } from '../node24';
import { pinnedN8nVersions, type N8nLine } from './install';

/**
 * What n8n passes to resolve a credential's expressions with an execution's workflow (a node's
 * `getCredentials` does: its `expressionResolveValues`). Without it n8n builds a workflow of its own.
 */
export interface ExpressionResolveValues {
	workflow: unknown;
	runExecutionData: unknown;
	runIndex: number;
	itemIndex: number;
	node: { name: string };
	connectionInputData: unknown[];
}

export interface N8nCredentialsHelper {
	getCredentialsProperties(type: string): INodeProperties[];
	resolve(
		stored: ICredentialDataDecryptedObject,
		withExecution?: ExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject>;
}

/** Where one installed n8n's modules are. */
export function n8nModulesDir(line: N8nLine): string {
	return join(installCacheDir(), `n8n-${pinnedN8nVersions()[line]}`, 'node_modules');
}

/** n8n-nodes-base's generic OAuth2 credential (`oAuth2Api`) of one installed n8n. */
export function n8nGenericOAuth2Credential(line: N8nLine): ICredentialType {
	const { OAuth2Api } = require(
		join(n8nModulesDir(line), 'n8n-nodes-base', 'dist', 'credentials', 'OAuth2Api.credentials.js'),
	) as { OAuth2Api: new () => ICredentialType };
	return new OAuth2Api();
}

/** n8n's CredentialsHelper of one installed version for these credential types; undefined when that n8n is not installed. */
export function loadCredentialsHelper(
	line: N8nLine,
	...credentialTypes: ICredentialType[]
): N8nCredentialsHelper | undefined {
	const modules = n8nModulesDir(line);
	const helperFile = join(modules, 'n8n', 'dist', 'credentials-helper.js');
	if (!existsSync(helperFile)) return undefined;
	require(join(modules, 'reflect-metadata'));
	const { CredentialsHelper } = require(helperFile) as {
		CredentialsHelper: { prototype: Record<string, (...args: unknown[]) => unknown> };
	};
	const types: Record<string, ICredentialType> = { oAuth2Api: n8nGenericOAuth2Credential(line) };
	for (const type of credentialTypes) types[type.name] = type;
	const helper = Object.assign(Object.create(CredentialsHelper.prototype) as object, {
		credentialTypes: { getByName: (name: string) => types[name] },
		credentialsOverwrites: {
			applyOverwrite: (_type: string, data: ICredentialDataDecryptedObject) => data,
			usesManagedAuth: () => false,
			getOverwrites: () => undefined,
		},
		credentialCanUseExternalSecrets: async () => false,
	}) as Record<string, (...args: unknown[]) => unknown>;
	const major = Number(pinnedN8nVersions()[line].split('.')[0]);
	const typeName = credentialTypes[0]?.name ?? 'oAuth2Api';
	return {
		getCredentialsProperties: (type) => helper.getCredentialsProperties(type) as INodeProperties[],
		// n8n 1.x takes the credential's id and name as its third argument (for external secrets).
		resolve: async (stored, withExecution) =>
			(await (major >= 2
				? helper.applyDefaultsAndOverwrites(
						{},
						stored,
						typeName,
						'internal',
						undefined,
						withExecution,
					)
				: helper.applyDefaultsAndOverwrites(
						{},
						stored,
						{ id: '1', name: 'Clinic Sign-in' },
						typeName,
						'internal',
						undefined,
						withExecution,
					))) as ICredentialDataDecryptedObject,
	};
}
