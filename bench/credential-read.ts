/**
 * What one credential read costs n8n for each shape of an OAuth2 credential (issue 27): n8n 2.41.1's
 * own `CredentialsHelper.applyDefaultsAndOverwrites`, run in this process the way a node's
 * `getCredentials` runs it on every signed call (the execution's workflow resolves the credential's
 * expressions, with n8n's expression engine started with n8n's own settings: the `vm` engine by
 * default). It leaves out what every shape pays alike (the database read and the decryption), so the
 * difference between the shapes is what a read costs beyond them:
 *
 *   generic OAuth2        n8n's generic OAuth2 credential (oAuth2Api), plain URLs as a user types them
 *   shipped, Production   the Clinic Scribe OAuth2 API credential as shipped, Environment Production
 *   shipped, Custom       the same, Environment Custom
 *   plain URLs            the shipped credential with plain sign-in URLs in place of the two expressions
 *                         (an experiment: one type per environment would hold them)
 *   one expression        the token URL an expression, the sign-in URL plain
 *   constant expressions  both URLs `={{ "…" }}`: what an expression costs whatever it says
 *
 * CPU ms per read (this process's, which is n8n's work here), min / median / max over the rounds.
 *
 *   npm run bench:credential-read -- [--reads 2000] [--rounds 5]
 */
import { join } from 'node:path';

import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { ClinicScribeOAuth2Api } from '../credentials/ClinicScribeOAuth2Api.credentials';
import {
	loadCredentialsHelper,
	n8nGenericOAuth2Credential,
	n8nModulesDir,
	type ExpressionResolveValues,
	type N8nCredentialsHelper,
} from '../test/support/n8n/credentialsHelper';
import { pinnedN8nVersions } from '../test/support/n8n/install';
import { argument, formatSpread, requireNode24, runBench, say, spread } from './support/inN8n';

const SIGN_IN = 'https://accounts.eka.care/oauth2/authorize';
const TOKEN = 'https://accounts.eka.care/oauth2/token';
const CUSTOM = {
	customAuthUrl: 'https://id.gw.example/oauth2/authorize',
	customAccessTokenUrl: 'https://id.gw.example/oauth2/token',
	baseUrl: 'https://gw.example',
};
const CLIENT = {
	clientId: 'clinic-client',
	clientSecret: 'clinic-secret',
	grantType: 'pkce',
	oauthTokenData: { access_token: 'access', refresh_token: 'refresh', expires_in: 3600 },
};

interface Shape {
	name: string;
	type: ICredentialType;
	stored: ICredentialDataDecryptedObject;
	/** The sign-in URLs n8n must resolve (checked on every round: a wrong shape fails the bench). */
	expected: { authUrl: string; accessTokenUrl: string };
}

/** The shipped credential with its two sign-in URL defaults replaced. */
function shippedWith(authUrl: string, accessTokenUrl: string): ICredentialType {
	const type = new ClinicScribeOAuth2Api();
	const defaults: Record<string, string> = { authUrl, accessTokenUrl };
	type.properties = type.properties.map(
		(p): INodeProperties => (p.name in defaults ? { ...p, default: defaults[p.name] } : p),
	);
	return type;
}

function shapes(genericOAuth2: ICredentialType): Shape[] {
	const production = { ...CLIENT, environment: 'production' };
	const atProduction = { authUrl: SIGN_IN, accessTokenUrl: TOKEN };
	return [
		{
			name: 'generic OAuth2',
			type: genericOAuth2,
			stored: { ...CLIENT, ...atProduction, scope: 'openid', authentication: 'body' },
			expected: atProduction,
		},
		{
			name: 'shipped, Production',
			type: new ClinicScribeOAuth2Api(),
			stored: production,
			expected: atProduction,
		},
		{
			name: 'shipped, Custom',
			type: new ClinicScribeOAuth2Api(),
			stored: { ...CLIENT, environment: 'custom', ...CUSTOM },
			expected: { authUrl: CUSTOM.customAuthUrl, accessTokenUrl: CUSTOM.customAccessTokenUrl },
		},
		{
			name: 'plain URLs',
			type: shippedWith(SIGN_IN, TOKEN),
			stored: production,
			expected: atProduction,
		},
		{
			name: 'one expression',
			type: shippedWith(
				SIGN_IN,
				new ClinicScribeOAuth2Api().properties.find((p) => p.name === 'accessTokenUrl')
					?.default as string,
			),
			stored: production,
			expected: atProduction,
		},
		{
			name: 'constant expressions',
			type: shippedWith(`={{ "${SIGN_IN}" }}`, `={{ "${TOKEN}" }}`),
			stored: production,
			expected: atProduction,
		},
	];
}

interface N8nWorkflowModule {
	Expression: {
		initExpressionEngine(options: Record<string, unknown>): Promise<void>;
		disposeExpressionEngine(): Promise<void>;
	};
	Workflow: new (parameters: Record<string, unknown>) => {
		expression: { acquireIsolate(): Promise<boolean> };
	};
}

/** n8n's expression engine started as n8n 2.41 starts it (its ExpressionEngineConfig, N8N_EXPRESSION_ENGINE_* applied). */
async function startExpressionEngine(modules: string): Promise<N8nWorkflowModule> {
	require(join(modules, 'reflect-metadata'));
	const workflowModule = require(join(modules, 'n8n-workflow')) as N8nWorkflowModule;
	const { Container } = require(join(modules, '@n8n', 'di')) as {
		Container: { get<T>(type: new () => T): T };
	};
	const { ExpressionEngineConfig } = require(
		join(modules, '@n8n', 'config', 'dist', 'configs', 'expression-engine.config.js'),
	) as { ExpressionEngineConfig: new () => Record<string, unknown> };
	const config = Container.get(ExpressionEngineConfig);
	say(
		`n8n's expression engine: ${String(config.engine)} (N8N_EXPRESSION_ENGINE), pool ${String(config.poolSize)}`,
	);
	await workflowModule.Expression.initExpressionEngine({
		engine: config.engine,
		poolSize: config.poolSize,
		maxCodeCacheSize: config.maxCodeCacheSize,
		bridgeTimeout: config.bridgeTimeout,
		bridgeMemoryLimit: config.bridgeMemoryLimit,
		idleTimeoutMs: typeof config.idleTimeout === 'number' ? config.idleTimeout * 1000 : undefined,
		lazyAcquire: config.lazyAcquire,
		compileCache: config.compileCache,
	});
	return workflowModule;
}

/** The execution a node's credential read belongs to: its workflow holds an isolate for the run, as n8n's does. */
async function executionOf(n8nWorkflow: N8nWorkflowModule): Promise<ExpressionResolveValues> {
	const node = {
		id: 'call',
		name: 'Call',
		type: 'bench.call',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const noTypes = { description: { properties: [] } };
	const workflow = new n8nWorkflow.Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: {
			getByName: () => noTypes,
			getByNameAndVersion: () => noTypes,
			getKnownTypes: () => ({}),
		},
	});
	await workflow.expression.acquireIsolate();
	return {
		workflow,
		runExecutionData: null,
		runIndex: 0,
		itemIndex: 0,
		node,
		connectionInputData: [],
	};
}

/** CPU ms per read over `reads` reads, each after a turn of the event loop (as between a node's calls). */
async function cpuPerRead(
	helper: N8nCredentialsHelper,
	shape: Shape,
	execution: ExpressionResolveValues,
	reads: number,
): Promise<number> {
	const before = process.cpuUsage();
	for (let i = 0; i < reads; i++) {
		const resolved = await helper.resolve({ ...shape.stored }, execution);
		if (
			resolved.authUrl !== shape.expected.authUrl ||
			resolved.accessTokenUrl !== shape.expected.accessTokenUrl
		)
			throw new Error(
				`${shape.name}: n8n resolved ${String(resolved.authUrl)} and ${String(resolved.accessTokenUrl)}, not ${shape.expected.authUrl} and ${shape.expected.accessTokenUrl}`,
			);
		await new Promise((resolve) => setImmediate(resolve));
	}
	const used = process.cpuUsage(before);
	return (used.user + used.system) / 1000 / reads;
}

async function main(): Promise<void> {
	requireNode24();
	const reads = argument('reads', 2000);
	const rounds = argument('rounds', 5);
	const modules = n8nModulesDir('newest');
	const n8nWorkflow = await startExpressionEngine(modules);
	const all = shapes(n8nGenericOAuth2Credential('newest'));
	const helpers = all.map((shape) => {
		const helper = loadCredentialsHelper('newest', shape.type);
		if (!helper) throw new Error('n8n is not installed: bash scripts/install-n8n.sh');
		return helper;
	});
	const execution = await executionOf(n8nWorkflow);
	say(
		`credential read bench: n8n ${pinnedN8nVersions().newest}'s applyDefaultsAndOverwrites, ${reads} reads × ${rounds} rounds per shape, Node ${process.version}`,
	);
	const perRead = all.map(() => [] as number[]);
	for (const [i, shape] of all.entries()) await cpuPerRead(helpers[i], shape, execution, 200);
	for (let round = 1; round <= rounds; round++) {
		for (const [i, shape] of all.entries())
			perRead[i].push(await cpuPerRead(helpers[i], shape, execution, reads));
		say(
			`round ${round}: ${all.map((s, i) => `${s.name} ${perRead[i][round - 1].toFixed(3)}`).join(' | ')} ms`,
		);
	}
	say();
	say('CPU ms per credential read beyond the database and decryption, min / median / max:');
	const generic = perRead[0];
	for (const [i, shape] of all.entries()) {
		const extra = spread(perRead[i].map((ms, round) => ms - generic[round]));
		say(
			`  ${shape.name.padEnd(22)} ${formatSpread(spread(perRead[i]), 3)}   minus generic OAuth2 in the same round ${formatSpread(extra, 3)}`,
		);
	}
	await n8nWorkflow.Expression.disposeExpressionEngine();
}

runBench(main);
