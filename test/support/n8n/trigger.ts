/**
 * What the trigger's end-to-end tests need on top of test/support/n8n.ts: restarting n8n on the same
 * user folder and port (so the production webhook URL stays the same) with another activation mode,
 * waiting until n8n's start-up activation has run, and the trigger workflow and credential.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { N8nInstance } from './instance';
import type { OwnerAccount } from './restClient';
import {
	CREDENTIAL_TYPE,
	TRIGGER_NODE_TYPE,
	chain,
	type CredentialImport,
	type WorkflowJson,
} from './workflows';
import { fakeApiCredentialData } from '../fakeApiCredential';

/** n8n 2.41's switch between its activation modes; `false` is the older mode of n8n ≤ 1.x. */
export const PUBLICATION_SERVICE_ENV = 'N8N_USE_WORKFLOW_PUBLICATION_SERVICE';
export type ActivationMode = 'publication-service' | 'legacy';

export const E2E_OWNER: OwnerAccount = {
	email: 'owner@clinic-scribe.test',
	password: 'Clinic-Scribe-e2e-1',
	firstName: 'Test',
	lastName: 'Owner',
};

/**
 * One n8n user folder that survives restarts. Each start() makes a new N8nInstance on the same
 * folder and port, in the activation mode asked for, and waits until start-up activation is over.
 */
export class RestartableN8n {
	readonly userFolder: string;
	private current: N8nInstance | undefined;
	private port: number | undefined;
	private brokerPort: number | undefined;
	private installed = false;

	constructor(
		private readonly options: { packageTarball: string; env?: Record<string, string | undefined> },
	) {
		this.userFolder = mkdtempSync(join(tmpdir(), 'clinic-scribe-trigger-e2e-'));
	}

	get instance(): N8nInstance {
		if (!this.current) throw new Error('n8n is not created yet');
		return this.current;
	}

	/** An instance for CLI commands (import) while stopped; reuses folder and ports. */
	async prepare(mode: ActivationMode): Promise<N8nInstance> {
		if (this.current?.running) throw new Error('stop n8n first');
		// Ports below the kernel's ephemeral range: while n8n is stopped between restarts, another
		// test's freePort() (port 0) cannot be handed the port this n8n will listen on again.
		this.port ??= await portBelowEphemeralRange();
		this.brokerPort ??= await portBelowEphemeralRange(this.port);
		this.current = await N8nInstance.create({
			userFolder: this.userFolder,
			port: this.port,
			brokerPort: this.brokerPort,
			packageTarball: this.installed ? undefined : this.options.packageTarball,
			env: { ...this.options.env, [PUBLICATION_SERVICE_ENV]: mode === 'legacy' ? 'false' : 'true' },
		});
		this.installed = true;
		this.port = this.current.port;
		this.brokerPort = this.current.brokerPort;
		return this.current;
	}

	/**
	 * Starts n8n in the given mode and waits until its start-up activation has run (in the older mode
	 * n8n answers readiness before it activates workflows, and activation calls checkExists/create).
	 */
	async start(mode: ActivationMode): Promise<N8nInstance> {
		const instance = await this.prepare(mode);
		await instance.start();
		await waitForLog(instance, /Editor is now accessible/, 120_000);
		await instance.ensureOwner(E2E_OWNER);
		return instance;
	}

	async stop(): Promise<void> {
		await this.current?.stop();
	}

	async dispose(): Promise<void> {
		await this.current?.dispose();
		rmSync(this.userFolder, { recursive: true, force: true });
	}
}

/** A free port in 20000–29999 (outside Linux's default ephemeral range 32768–60999). */
export async function portBelowEphemeralRange(avoid?: number): Promise<number> {
	for (let attempt = 0; attempt < 50; attempt++) {
		const port = 20000 + Math.floor(Math.random() * 10000);
		if (port === avoid) continue;
		const free = await new Promise<boolean>((resolve) => {
			const server = createServer();
			server.once('error', () => resolve(false));
			server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
		});
		if (free) return port;
	}
	throw new Error('no free port found in 20000–29999');
}

/** Polls the server log of the current run until a line matches. */
export async function waitForLog(
	instance: N8nInstance,
	pattern: RegExp,
	timeoutMs: number,
): Promise<string> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const line = instance.recentServerLog().find((l) => pattern.test(l));
		if (line) return line;
		if (!instance.running) throw new Error(`n8n stopped before logging ${pattern}`);
		if (Date.now() > deadline)
			throw new Error(
				`n8n did not log ${pattern} within ${timeoutMs} ms:\n${instance.recentServerLog().slice(-30).join('\n')}`,
			);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

/** Polls until check() returns true, or throws with describe() after timeoutMs. */
export async function eventually(
	check: () => boolean | Promise<boolean>,
	describe: () => string,
	timeoutMs = 20_000,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (await check()) return;
		if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms: ${describe()}`);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

export const TRIGGER_CREDENTIAL = {
	id: 'clinicScribeTrg01',
	name: 'Clinic Scribe (trigger e2e fake API)',
};

export function fakeApiCredential(
	baseUrl: string,
	valid: { clientId: string; clientSecret: string; apiKey: string },
): CredentialImport {
	return {
		...TRIGGER_CREDENTIAL,
		type: CREDENTIAL_TYPE,
		data: fakeApiCredentialData({ url: baseUrl, validCredentials: valid }),
	};
}

/** Clinic Scribe Trigger → a No Operation node that shows what the trigger emitted. */
export function triggerWorkflow(options: {
	id: string;
	name: string;
	webhookId: string;
	parameters?: Record<string, unknown>;
}): WorkflowJson {
	return {
		id: options.id,
		name: options.name,
		nodes: [
			{
				// UUIDs as n8n gives them: PostgreSQL enforces n8n's varchar(36) for node ids (SQLite does not).
				id: randomUUID(),
				name: 'Transcription Completed',
				type: TRIGGER_NODE_TYPE,
				typeVersion: 1,
				position: [0, 0],
				webhookId: options.webhookId,
				parameters: { events: ['v2rx.completed'], options: {}, ...options.parameters },
				credentials: { clinicScribeApi: TRIGGER_CREDENTIAL },
			},
			{
				id: randomUUID(),
				name: 'Next Node',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [300, 0],
				parameters: {},
			},
		],
		connections: chain('Transcription Completed', 'Next Node'),
		settings: { executionOrder: 'v1' },
	};
}
