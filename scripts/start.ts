/**
 * `npm start`: a local n8n with this package installed, talking to the fake clinic API.
 *
 *   1. installs n8n 2.41.1 and Node 24 into a cache outside the repository (first time: minutes)
 *   2. builds and packs this package, installs it into .n8n-local/ as n8n installs community packages
 *   3. starts the fake clinic API (in this process) on 127.0.0.1
 *   4. imports the credential "Clinic Scribe (local fake API)" and the examples/*.json workflows
 *   5. starts n8n on http://127.0.0.1:5678, creates (or logs in) the owner and prints what to do next
 *   Ctrl-C (or SIGTERM) stops n8n by its process group and closes the fake API.
 *
 * Environment (all optional):
 *   N8N_PORT                        n8n's port (5678)
 *   N8N_*, DB_*, EXECUTIONS_* …     passed to n8n (not its user folder, address or key)
 *   N8N_RUNNERS_BROKER_PORT         n8n's task runner broker port (a free one)
 *   CLINIC_SCRIBE_FAKE_API_PORT     the fake API's port (5690)
 *   CLINIC_SCRIBE_OWNER_EMAIL       owner e-mail (owner@clinic-scribe.local)
 *   CLINIC_SCRIBE_OWNER_PASSWORD    owner password (ClinicScribe-Local-1)
 *   CLINIC_SCRIBE_USER_FOLDER       n8n user folder (<repo>/.n8n-local)
 *   CLINIC_SCRIBE_CACHE             where n8n and Node 24 are installed (~/.cache/n8n-nodes-clinic-scribe)
 *   CLINIC_SCRIBE_EXAMPLES_DIR      workflows to import (<repo>/examples)
 *
 * Delete .n8n-local/ to start over (database, owner, imported workflows).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';

import { startFakeClinicApi, type FakeClinicApi } from '../test/fake-api/server';
import {
	CREDENTIAL_TYPE,
	N8nInstance,
	REPO_ROOT,
	buildPackage,
	ensureN8nInstalled,
	newId,
	packPackage,
	readWorkflowFile,
	withCredential,
	type WorkflowJson,
} from '../test/support/n8n';

const LOCAL_CREDENTIAL = { id: 'clinicScribeLocal01', name: 'Clinic Scribe (local fake API)' };
const EXAMPLES_DIR = process.env.CLINIC_SCRIBE_EXAMPLES_DIR || join(REPO_ROOT, 'examples');

function portFromEnv(name: string, fallback: number | undefined): number | undefined {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return fallback;
	const port = Number(raw);
	if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${name} must be a port number (1-65535), not "${raw}"`);
	return port;
}

const say = (line = '') => process.stdout.write(`${line}\n`);
const step = (line: string) => say(`\n▶ ${line}`);

let n8n: N8nInstance | undefined;
let api: FakeClinicApi | undefined;
let stopping = false;

async function shutdown(reason: string, exitCode: number): Promise<never> {
	if (!stopping) {
		stopping = true;
		say(`\n${reason}: stopping n8n and the fake clinic API…`);
		try {
			await n8n?.stop();
		} catch (error) {
			say(`  could not stop n8n cleanly: ${(error as Error).message}`);
		}
		await api?.close().catch(() => undefined);
		say('Stopped.');
	}
	// Anything still running that this process started is killed by the harness's exit hook.
	process.exit(exitCode);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
	process.on(signal, () => {
		if (stopping) return;
		void shutdown(`Received ${signal}`, signal === 'SIGINT' ? 130 : 143);
	});
}

/**
 * `npm start` runs `sh -c "tsx scripts/start.ts"`; a SIGTERM sent to npm alone kills npm and sh
 * without reaching tsx or this process, which would leave n8n running. Under npm, watch the
 * process that started tsx and stop when it is gone (Linux /proc; Ctrl-C reaches us directly).
 */
function stopWhenNpmIsGone(): void {
	if (!process.env.npm_lifecycle_event || !existsSync(`/proc/${process.ppid}/stat`)) return;
	const parentOf = (pid: number): number | undefined => {
		try {
			// field 4 of /proc/<pid>/stat, after the parenthesised command name
			const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
			return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
		} catch {
			return undefined;
		}
	};
	const launcher = parentOf(process.ppid);
	if (!launcher) return;
	const timer = setInterval(() => {
		if (parentOf(process.ppid) !== launcher || parentOf(launcher) === undefined) {
			clearInterval(timer);
			void shutdown('npm start was stopped', 143);
		}
	}, 2000);
	timer.unref();
}

/** Imports the examples not imported yet, and those whose file changed since. */
async function importExamples(instance: N8nInstance, userFolder: string): Promise<Array<{ file: string; name: string; id: string; status: string }>> {
	if (!existsSync(EXAMPLES_DIR)) return [];
	const files = readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort();
	const statePath = join(userFolder, 'imported-examples.json');
	const state = existsSync(statePath)
		? (JSON.parse(readFileSync(statePath, 'utf8')) as Record<string, { id: string; sha256: string }>)
		: {};
	const toImport: WorkflowJson[] = [];
	const report: Array<{ file: string; name: string; id: string; status: string }> = [];
	for (const file of files) {
		const text = readFileSync(join(EXAMPLES_DIR, file), 'utf8');
		const sha256 = createHash('sha256').update(text).digest('hex');
		let workflow: WorkflowJson;
		try {
			workflow = readWorkflowFile(join(EXAMPLES_DIR, file));
		} catch (error) {
			say(`  skipping ${file}: not valid JSON (${(error as Error).message})`);
			continue;
		}
		if (!Array.isArray(workflow.nodes) || typeof workflow.connections !== 'object') {
			say(`  skipping ${file}: not a workflow (no nodes/connections)`);
			continue;
		}
		const previous = state[file];
		const id = previous?.id ?? (typeof workflow.id === 'string' && workflow.id ? workflow.id : newId());
		const status = !previous ? 'imported' : previous.sha256 !== sha256 ? 'updated (the example file changed)' : 'already imported';
		report.push({ file, name: String(workflow.name ?? file), id, status });
		if (previous && previous.sha256 === sha256) continue;
		toImport.push({ ...withCredential(workflow, CREDENTIAL_TYPE, LOCAL_CREDENTIAL), id });
		state[file] = { id, sha256 };
	}
	if (toImport.length > 0) {
		await instance.importWorkflows(toImport);
		writeFileSync(statePath, JSON.stringify(state, null, 2));
	}
	return report;
}

async function main(): Promise<void> {
	stopWhenNpmIsGone();
	const port = portFromEnv('N8N_PORT', 5678) as number;
	const brokerPort = portFromEnv('N8N_RUNNERS_BROKER_PORT', undefined);
	const fakeApiPort = portFromEnv('CLINIC_SCRIBE_FAKE_API_PORT', 5690) as number;
	const userFolder = process.env.CLINIC_SCRIBE_USER_FOLDER || join(REPO_ROOT, '.n8n-local');
	const owner = {
		email: process.env.CLINIC_SCRIBE_OWNER_EMAIL || 'owner@clinic-scribe.local',
		password: process.env.CLINIC_SCRIBE_OWNER_PASSWORD || 'ClinicScribe-Local-1',
		firstName: 'Clinic',
		lastName: 'Owner',
	};

	step('Installing n8n 2.41.1 and Node 24 (cached; the first time takes several minutes and ~3 GiB)');
	const installed = await ensureN8nInstalled();
	say(`  n8n: ${installed.n8nBin}`);

	step('Building and packing this package');
	await buildPackage();
	const packDir = mkdtempSync(join(tmpdir(), 'clinic-scribe-start-pack-'));
	try {
		const tarball = await packPackage(packDir);
		mkdirSync(userFolder, { recursive: true });
		n8n = await N8nInstance.create({
			userFolder,
			port,
			brokerPort,
			logFile: join(userFolder, 'n8n.log'),
			// your N8N_* settings apply (say N8N_LOG_LEVEL=debug), over these
			inheritN8nEnv: true,
			env: { N8N_LOG_FORMAT: process.env.N8N_LOG_FORMAT || 'text' },
		});
		n8n.installPackage(tarball);
		say(`  installed ${basename(tarball)} into ${relative(REPO_ROOT, userFolder) || userFolder}/.n8n/nodes/node_modules`);
	} finally {
		rmSync(packDir, { recursive: true, force: true });
	}

	step(`Starting the fake clinic API on 127.0.0.1:${fakeApiPort}`);
	try {
		api = await startFakeClinicApi({
			port: fakeApiPort,
			onRequestDone: (r) => say(`  [fake API] ${r.method} ${r.path} → ${r.status ?? 'no answer'}${r.fault ? ` (injected ${r.fault})` : ''}`),
		});
	} catch (error) {
		throw new Error(`could not start the fake clinic API on port ${fakeApiPort} (${(error as Error).message}); set CLINIC_SCRIBE_FAKE_API_PORT to a free port`);
	}
	say(`  ${api.url}`);

	step(`Importing the credential "${LOCAL_CREDENTIAL.name}" and the example workflows`);
	await n8n.importCredentials([
		{
			...LOCAL_CREDENTIAL,
			type: CREDENTIAL_TYPE,
			data: {
				apiVariant: 'document',
				environment: 'custom',
				baseUrl: api.url,
				authMethod: 'clientCredentials',
				clientId: api.validCredentials.clientId,
				clientSecret: api.validCredentials.clientSecret,
				apiKey: api.validCredentials.apiKey,
			},
		},
	]);
	const examples = await importExamples(n8n, userFolder);
	if (examples.length === 0) say('  no examples/*.json yet');
	for (const e of examples) say(`  ${e.name} (${e.file}): ${e.status}`);

	step(`Starting n8n on ${n8n.baseUrl}`);
	await n8n.start();
	const ownerState = await n8n.ensureOwner(owner).catch((error: Error) => {
		say(`  could not log in as ${owner.email}: ${error.message}`);
		say('  (the owner of this .n8n-local has another password: use it, or delete .n8n-local/ to start over)');
		return 'unknown' as const;
	});

	const logPath = relative(process.cwd(), join(userFolder, 'n8n.log')) || join(userFolder, 'n8n.log');
	say(`
────────────────────────────────────────────────────────────────────────────
 n8n is running with n8n-nodes-clinic-scribe installed.

   Open       ${n8n.baseUrl}
   Log in     ${owner.email} / ${owner.password}${ownerState === 'created' ? '   (owner created just now)' : ''}

 The credential "${LOCAL_CREDENTIAL.name}" points at the fake clinic API
 (${api.url}); the examples above use it. Open one and click "Execute workflow",
 or add a "Clinic Scribe" node to a new workflow.

 Fake API credentials, to make another credential by hand
 (Environment: Custom Base URL, Base URL: ${api.url}):
   Client ID ${api.validCredentials.clientId}   Client Secret ${api.validCredentials.clientSecret}   Workspace API Key ${api.validCredentials.apiKey}

 n8n's log:   ${logPath}
 Stop:        Ctrl-C
 Start over:  delete .n8n-local/ (database, owner, imported workflows)
────────────────────────────────────────────────────────────────────────────
`);

	const exit = await n8n.serverExit();
	if (!stopping) {
		say(`\nn8n exited by itself (code ${exit?.code ?? 'none'}, signal ${exit?.signal ?? 'none'}). Last lines of ${logPath}:`);
		for (const line of n8n.recentServerLog().slice(-20)) say(`  ${line}`);
		await shutdown('n8n stopped', 1);
	}
}

main().catch(async (error: unknown) => {
	process.stderr.write(`\nnpm start failed: ${error instanceof Error ? error.message : String(error)}\n`);
	await shutdown('Error', 1);
});
