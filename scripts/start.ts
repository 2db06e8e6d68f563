/**
 * `npm start`: a local n8n with this package installed, talking to the fake clinic API.
 *
 *   1. installs n8n 2.41.1 and Node 24 into a cache outside the repository (first time: minutes)
 *   2. builds and packs this package, installs it into .n8n-local/ as n8n installs community packages
 *      (files in .n8n/nodes, and at n8n's start the rows n8n lists Settings → Community nodes from)
 *   3. starts the fake clinic API (in this process) on 127.0.0.1, with its fake messaging
 *      gateway; the local EHR, a FHIR R4 server (test/fhir-server, docs/local-ehr.md), and
 *      the local inbox (maildev), each as its own process on 127.0.0.1
 *   4. writes a sample recording into <user folder>/files/recordings/ (the one folder n8n may read)
 *   5. imports the credential "Clinic Scribe (local fake API)", the SMTP credential of the local
 *      inbox, local copies of the examples/*.json workflows, adapted to run here
 *      (scripts/localExamples.ts), and the OAuth2 credential "Clinic Scribe OAuth2 (local fake
 *      sign-in)", to connect through the fake API's sign-in provider (its login page; n8n's redirect
 *      URL is registered with it)
 *   6. starts n8n on http://127.0.0.1:5678, creates (or logs in) the owner, activates the examples
 *      that start with the Clinic Scribe Trigger, and prints what to do next
 *   Ctrl-C (or SIGTERM) stops n8n, the local EHR and the inbox by their process groups and closes
 *   the fake API.
 *   `npm run demo:complete` (scripts/demo-complete.ts) then makes the transcription trigger example
 *   fire, `npm run demo:clinic` (scripts/demo-clinic.ts) the appointment examples.
 *
 * Environment (all optional):
 *   N8N_PORT                        n8n's port (5678)
 *   N8N_*, DB_*, EXECUTIONS_* …     passed to n8n (not its user folder, address or key)
 *   N8N_RESTRICT_FILE_ACCESS_TO     folders n8n may read besides <user folder>/files
 *   N8N_RUNNERS_BROKER_PORT         n8n's task runner broker port (a free one)
 *   CLINIC_SCRIBE_FAKE_API_PORT     the fake API's port (5690)
 *   CLINIC_SCRIBE_EHR_PORT          the local EHR's port (5691): its page and /fhir, the FHIR base URL
 *   CLINIC_SCRIBE_INBOX_PORT        the local inbox's page (5692)
 *   CLINIC_SCRIBE_SMTP_PORT         the local inbox's SMTP port (5025)
 *   CLINIC_SCRIBE_OWNER_EMAIL       owner e-mail (owner@clinic-scribe.local)
 *   CLINIC_SCRIBE_OWNER_PASSWORD    owner password (ClinicScribe-Local-1)
 *   CLINIC_SCRIBE_USER_FOLDER       n8n user folder (<repo>/.n8n-local)
 *   CLINIC_SCRIBE_CACHE             where n8n and Node 24 are installed (~/.cache/n8n-nodes-clinic-scribe)
 *   CLINIC_SCRIBE_EXAMPLES_DIR      workflows to import (<repo>/examples)
 *
 * Delete .n8n-local/ to start over (database, owner, imported workflows).
 */
import { createHash } from 'node:crypto';
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';

import { SIGN_IN } from '../test/fake-api/fixtures';
import { fakeSignIn } from '../test/fake-api/routes/signIn';
import { fakeWebhooks } from '../test/fake-api/routes/webhooks';
import { startFakeClinicApi, type FakeClinicApi } from '../test/fake-api/server';
import {
	REPO_ROOT,
	buildPackage,
	ensureN8nInstalled,
	packPackage,
} from '../test/support/n8n/install';
import { N8nInstance } from '../test/support/n8n/instance';
import {
	CREDENTIAL_TYPE,
	TRIGGER_NODE_TYPE,
	newId,
	readWorkflowFile,
	type WorkflowJson,
} from '../test/support/n8n/workflows';
import { fakeApiCredentialData } from '../test/support/fakeApiCredential';
import { API_VARIANT_OPTIONS } from '../nodes/ClinicScribe/transport/authentication';
import { startFhirServer, type RunningFhirServer } from '../test/support/fhirServer';
import { startInbox, type RunningInbox } from '../test/support/inbox';
import {
	oauthRedirectUrl,
	signInCredentialData,
	SIGN_IN_CREDENTIAL_TYPE,
} from '../test/support/signInCredential';
import {
	LOCAL_CREDENTIAL,
	LOCAL_SIGN_IN_CREDENTIAL,
	LOCAL_SMTP_CREDENTIAL,
	SMTP_CREDENTIAL_TYPE,
	localCopy,
	smtpCredentialData,
	triggerEvents,
	type LocalSetup,
} from './localExamples';

/** The API Variant of the demo's credential; the fake API answers only its token request. */
const DEMO_API_VARIANT = 'document' as const;

const EXAMPLES_DIR = process.env.CLINIC_SCRIBE_EXAMPLES_DIR || join(REPO_ROOT, 'examples');

function portFromEnv(name: string, fallback: number | undefined): number | undefined {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return fallback;
	const port = Number(raw);
	if (!Number.isInteger(port) || port < 1 || port > 65535)
		throw new Error(`${name} must be a port number (1-65535), not "${raw}"`);
	return port;
}

const say = (line = '') => process.stdout.write(`${line}\n`);
const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));
const step = (line: string) => say(`\n▶ ${line}`);

let n8n: N8nInstance | undefined;
let api: FakeClinicApi | undefined;
let ehr: RunningFhirServer | undefined;
let inbox: RunningInbox | undefined;
let stopping = false;

async function shutdown(reason: string, exitCode: number): Promise<never> {
	if (!stopping) {
		stopping = true;
		say(`\n${reason}: stopping n8n, the local EHR, the inbox and the fake clinic API…`);
		try {
			await n8n?.stop();
		} catch (error) {
			say(`  could not stop n8n cleanly: ${(error as Error).message}`);
		}
		await Promise.all([
			ehr
				?.stop()
				.catch((error: Error) => say(`  could not stop the local EHR cleanly: ${error.message}`)),
			inbox
				?.stop()
				.catch((error: Error) => say(`  could not stop the inbox cleanly: ${error.message}`)),
			api?.close().catch(() => undefined),
		]);
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

/**
 * 2 s of a 440 Hz tone, 16 kHz mono 16-bit PCM, as a WAV file (RIFF header + samples). The fake
 * API does not listen to it; it only has to be a real, small audio file.
 */
function sampleWav(seconds = 2, sampleRate = 16_000, frequency = 440): Buffer {
	const samples = Math.round(seconds * sampleRate);
	const dataBytes = samples * 2;
	const wav = Buffer.alloc(44 + dataBytes);
	wav.write('RIFF', 0, 'ascii');
	wav.writeUInt32LE(36 + dataBytes, 4);
	wav.write('WAVE', 8, 'ascii');
	wav.write('fmt ', 12, 'ascii');
	wav.writeUInt32LE(16, 16); // fmt chunk size
	wav.writeUInt16LE(1, 20); // PCM
	wav.writeUInt16LE(1, 22); // mono
	wav.writeUInt32LE(sampleRate, 24);
	wav.writeUInt32LE(sampleRate * 2, 28); // byte rate
	wav.writeUInt16LE(2, 32); // block align
	wav.writeUInt16LE(16, 34); // bits per sample
	wav.write('data', 36, 'ascii');
	wav.writeUInt32LE(dataBytes, 40);
	for (let i = 0; i < samples; i++) {
		// a short fade in and out, so it does not click
		const envelope = Math.min(1, i / 800, (samples - i) / 800);
		wav.writeInt16LE(
			Math.round(0.3 * 32767 * envelope * Math.sin((2 * Math.PI * frequency * i) / sampleRate)),
			44 + i * 2,
		);
	}
	return wav;
}

/** What a run of an example that reads the sample recording does, in one sentence. */
function whatItDoes(example: ImportedExample): string {
	const legs = [
		example.postsToEhr ? 'stores the visit in the local EHR (FHIR)' : '',
		example.sendsEmail ? 'e-mails the notes to the local inbox' : '',
	].filter(Boolean);
	return `It transcribes the sample recording on the fake API${legs.length > 0 ? `, then ${legs.join(' and ')}` : ''}.`;
}

interface ImportedExample {
	file: string;
	name: string;
	id: string;
	status: string;
	/** webhookId of each enabled Clinic Scribe Trigger (none: a workflow run by hand). */
	webhookIds: string[];
	/** It reads the sample recording. */
	readsRecording: boolean;
	/** It posts a FHIR bundle to the local EHR. */
	postsToEhr: boolean;
	/** It sends e-mail (to the local inbox). */
	sendsEmail: boolean;
	/** The events its triggers subscribe to. */
	events: string[];
}

/** Imports the examples not imported yet, and those whose local copy changed since. */
async function importExamples(
	instance: N8nInstance,
	userFolder: string,
	setup: LocalSetup,
): Promise<ImportedExample[]> {
	if (!existsSync(EXAMPLES_DIR)) return [];
	const files = readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort();
	const statePath = join(userFolder, 'imported-examples.json');
	const state = existsSync(statePath)
		? (JSON.parse(readFileSync(statePath, 'utf8')) as Record<
				string,
				{ id: string; sha256: string }
			>)
		: {};
	const toImport: WorkflowJson[] = [];
	const report: ImportedExample[] = [];
	for (const file of files) {
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
		const copy = localCopy(workflow, setup);
		// Of the copy: a change of the example or of the local setup (say the fake API's port) re-imports it.
		const sha256 = createHash('sha256').update(JSON.stringify(copy)).digest('hex');
		const previous = state[file];
		const id =
			previous?.id ?? (typeof workflow.id === 'string' && workflow.id ? workflow.id : newId());
		const status = !previous
			? 'imported'
			: previous.sha256 !== sha256
				? 'updated (the example or the local setup changed)'
				: 'already imported';
		const webhookIds = copy.nodes
			.filter((n) => n.type === TRIGGER_NODE_TYPE && !n.disabled)
			.map((n) => String(n.webhookId ?? ''));
		const readsRecording = copy.nodes.some(
			(n) =>
				n.type === 'n8n-nodes-base.readWriteFile' &&
				n.parameters.fileSelector === setup.recordingPath,
		);
		const events = copy.nodes
			.filter((n) => n.type === TRIGGER_NODE_TYPE && !n.disabled)
			.flatMap(triggerEvents);
		const postsToEhr = copy.nodes.some(
			(n) => n.type === 'n8n-nodes-base.httpRequest' && n.parameters.url === setup.fhirBaseUrl,
		);
		const sendsEmail = copy.nodes.some((n) => n.type === 'n8n-nodes-base.emailSend' && !n.disabled);
		report.push({
			file,
			name: String(workflow.name ?? file),
			id,
			status,
			webhookIds,
			readsRecording,
			postsToEhr,
			sendsEmail,
			events,
		});
		if (previous && previous.sha256 === sha256) continue;
		toImport.push({ ...copy, id });
		state[file] = { id, sha256 };
	}
	if (toImport.length > 0) {
		await instance.importWorkflows(toImport);
		writeFileSync(statePath, JSON.stringify(state, null, 2));
	}
	return report;
}

/**
 * Activates the examples that start with the Clinic Scribe Trigger, so each registers the local
 * n8n's production webhook URL with the fake API. The fake API starts empty every time: a workflow
 * left active by an earlier run is deactivated first (n8n does not re-check subscriptions at start),
 * then activated, which registers a fresh subscription. Returns one line per workflow.
 */
async function activateTriggerExamples(
	instance: N8nInstance,
	fake: FakeClinicApi,
	examples: ImportedExample[],
): Promise<Map<string, string>> {
	const outcome = new Map<string, string>();
	for (const example of examples.filter((e) => e.webhookIds.length > 0)) {
		try {
			const workflow = await instance.getWorkflow(example.id);
			if (workflow.active || workflow.activeVersionId)
				await instance.deactivateWorkflow(example.id);
			await instance.activateWorkflow(example.id);
			const urls = example.webhookIds.map((id) => instance.webhookUrl(`${id}/webhook`));
			const subscribed = new Set(
				fakeWebhooks(fake)
					.subscriptions()
					.map((s) => s.endpoint),
			);
			const missing = urls.filter((url) => !subscribed.has(url));
			outcome.set(
				example.id,
				missing.length === 0
					? `published (active), subscribed at ${urls.join(', ')}`
					: `published, but the fake API holds no subscription for ${missing.join(', ')}`,
			);
		} catch (error) {
			outcome.set(example.id, `not published: ${errorMessage(error)}`);
		}
	}
	return outcome;
}

async function main(): Promise<void> {
	stopWhenNpmIsGone();
	const port = portFromEnv('N8N_PORT', 5678) as number;
	const brokerPort = portFromEnv('N8N_RUNNERS_BROKER_PORT', undefined);
	const fakeApiPort = portFromEnv('CLINIC_SCRIBE_FAKE_API_PORT', 5690) as number;
	const ehrPort = portFromEnv('CLINIC_SCRIBE_EHR_PORT', 5691) as number;
	const inboxPort = portFromEnv('CLINIC_SCRIBE_INBOX_PORT', 5692) as number;
	const smtpPort = portFromEnv('CLINIC_SCRIBE_SMTP_PORT', 5025) as number;
	const userFolder = resolve(
		process.env.CLINIC_SCRIBE_USER_FOLDER || join(REPO_ROOT, '.n8n-local'),
	);
	// The one folder the local n8n may read files from (n8n 2 reads only below N8N_RESTRICT_FILE_ACCESS_TO).
	const filesDir = join(userFolder, 'files');
	const recordingPath = join(filesDir, 'recordings', 'consultation.wav');
	const yourFileAccess = process.env.N8N_RESTRICT_FILE_ACCESS_TO;
	// '' means "anywhere" to n8n; otherwise yours and ours (n8n separates folders with ';').
	const fileAccess =
		yourFileAccess === '' ? '' : [yourFileAccess, filesDir].filter(Boolean).join(';');
	const owner = {
		email: process.env.CLINIC_SCRIBE_OWNER_EMAIL || 'owner@clinic-scribe.local',
		password: process.env.CLINIC_SCRIBE_OWNER_PASSWORD || 'ClinicScribe-Local-1',
		firstName: 'Clinic',
		lastName: 'Owner',
	};

	step(
		'Installing n8n 2.41.1 and Node 24 (cached; the first time takes several minutes and ~3 GiB)',
	);
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
			env: {
				N8N_LOG_FORMAT: process.env.N8N_LOG_FORMAT || 'text',
				N8N_RESTRICT_FILE_ACCESS_TO: fileAccess,
			},
		});
		n8n.installPackage(tarball);
		say(
			`  installed ${basename(tarball)} into ${relative(REPO_ROOT, userFolder) || userFolder}/.n8n/nodes/node_modules`,
		);
		say("  (recorded in n8n's database when n8n starts, so Settings → Community nodes lists it)");
	} finally {
		rmSync(packDir, { recursive: true, force: true });
	}

	step(`Starting the fake clinic API on 127.0.0.1:${fakeApiPort}`);
	try {
		api = await startFakeClinicApi({
			port: fakeApiPort,
			// As a real service: only the demo credential's API Variant has its token request here, so
			// a credential made with the other variant gets the advice its field's help promises.
			variant: DEMO_API_VARIANT,
			rejectOtherTokenFlow: true,
			onRequestDone: (r) =>
				say(
					`  [fake API] ${r.method} ${r.path} → ${r.status ?? 'no answer'}${r.fault ? ` (injected ${r.fault})` : ''}`,
				),
		});
	} catch (error) {
		throw new Error(
			`could not start the fake clinic API on port ${fakeApiPort} (${(error as Error).message}); set CLINIC_SCRIBE_FAKE_API_PORT to a free port`,
		);
	}
	say(`  ${api.url}`);

	step(`Starting the local EHR (a FHIR R4 server) on 127.0.0.1:${ehrPort}`);
	try {
		ehr = await startFhirServer({
			port: ehrPort,
			nodeBin: installed.nodeBin,
			// "<time> POST /fhir -> 200 (34 ms)": method, path, status and time, never a body
			onRequestLog: (line) => say(`  [EHR] ${line.replace(/^\S+ /, '')}`),
		});
	} catch (error) {
		throw new Error(
			`could not start the local EHR on port ${ehrPort} (${errorMessage(error)}); set CLINIC_SCRIBE_EHR_PORT to a free port`,
		);
	}
	say(`  what it holds: ${ehr.pageUrl}   FHIR base URL: ${ehr.fhirBaseUrl}`);

	step(`Starting the local inbox (maildev) on 127.0.0.1: SMTP ${smtpPort}, page ${inboxPort}`);
	try {
		inbox = await startInbox({ smtpPort, webPort: inboxPort, nodeBin: installed.nodeBin });
	} catch (error) {
		throw new Error(
			`could not start the local inbox on ports ${smtpPort} and ${inboxPort} (${errorMessage(error)}); set CLINIC_SCRIBE_SMTP_PORT and CLINIC_SCRIBE_INBOX_PORT to free ports`,
		);
	}
	say(`  ${inbox.webUrl}/`);

	step('Sample recording');
	if (existsSync(recordingPath)) {
		say(
			`  ${relative(REPO_ROOT, recordingPath) || recordingPath} (already there; delete it to get the sample again)`,
		);
	} else {
		mkdirSync(dirname(recordingPath), { recursive: true });
		writeFileSync(recordingPath, sampleWav());
		say(`  wrote ${relative(REPO_ROOT, recordingPath) || recordingPath} (2 s, 440 Hz tone)`);
	}
	say(
		`  n8n may read files below ${fileAccess === '' ? 'any folder (N8N_RESTRICT_FILE_ACCESS_TO is empty)' : fileAccess.split(';').join(', ')}`,
	);

	step(
		`Importing the credentials "${LOCAL_CREDENTIAL.name}", "${LOCAL_SMTP_CREDENTIAL.name}" and "${LOCAL_SIGN_IN_CREDENTIAL.name}", and local copies of the example workflows`,
	);
	await n8n.importCredentials([
		{
			...LOCAL_CREDENTIAL,
			type: CREDENTIAL_TYPE,
			data: fakeApiCredentialData(api, { apiVariant: DEMO_API_VARIANT }),
		},
		{ ...LOCAL_SMTP_CREDENTIAL, type: SMTP_CREDENTIAL_TYPE, data: smtpCredentialData(inbox) },
		// Imported afresh, not connected: the fake API's tokens do not outlive a restart.
		{ ...LOCAL_SIGN_IN_CREDENTIAL, type: SIGN_IN_CREDENTIAL_TYPE, data: signInCredentialData(api) },
	]);
	// What a clinic asks the service to do: register this n8n's OAuth Redirect URL for the client.
	fakeSignIn(api).registerRedirectUri(oauthRedirectUrl(n8n));
	say(`  the fake sign-in provider accepts ${oauthRedirectUrl(n8n)} as redirect URL`);
	const examples = await importExamples(n8n, userFolder, {
		fakeApiUrl: api.url,
		fhirBaseUrl: ehr.fhirBaseUrl,
		inboxUrl: inbox.webUrl,
		recordingPath,
	});
	if (examples.length === 0) say('  no examples/*.json yet');
	for (const e of examples) say(`  ${e.name} (${e.file}): ${e.status}`);

	step(`Starting n8n on ${n8n.baseUrl}`);
	await n8n.start();
	const ownerState = await n8n.ensureOwner(owner).catch((error: Error) => {
		say(`  could not log in as ${owner.email}: ${error.message}`);
		say(
			'  (the owner of this .n8n-local has another password: use it, or delete .n8n-local/ to start over)',
		);
		return 'unknown' as const;
	});

	const triggerExamples = examples.filter((e) => e.webhookIds.length > 0);
	let activation = new Map<string, string>();
	if (triggerExamples.length > 0) {
		step(
			'Publishing (activating) the trigger examples (each subscribes to its events on the fake API)',
		);
		if (ownerState === 'unknown') {
			say('  skipped: not logged in. Log in, open the workflow and publish it by hand.');
		} else {
			activation = await activateTriggerExamples(n8n, api, triggerExamples);
			for (const e of triggerExamples) say(`  ${e.name}: ${activation.get(e.id)}`);
		}
	}

	const logPath =
		relative(process.cwd(), join(userFolder, 'n8n.log')) || join(userFolder, 'n8n.log');
	const manualExamples = examples.filter((e) => e.webhookIds.length === 0);
	const demoCommand = (script: string) =>
		[
			fakeApiPort === 5690 ? '' : `CLINIC_SCRIBE_FAKE_API_PORT=${fakeApiPort} `,
			ehrPort === 5691 ? '' : `CLINIC_SCRIBE_EHR_PORT=${ehrPort} `,
			inboxPort === 5692 ? '' : `CLINIC_SCRIBE_INBOX_PORT=${inboxPort} `,
			port === 5678 ? '' : `N8N_PORT=${port} `,
			`npm run ${script}`,
		].join('');
	const short = (name: string) =>
		name.length <= 40 ? name : `${name.slice(0, Math.max(name.lastIndexOf(' ', 40), 20))}…`;
	const nextSteps: string[] = [];
	for (const e of manualExamples) {
		nextSteps.push(`Open "${short(e.name)}" and click "Execute workflow".`);
		if (e.readsRecording) nextSteps.push(`   ${whatItDoes(e)}`);
	}
	for (const e of triggerExamples) {
		const state = activation.get(e.id) ?? 'not published';
		nextSteps.push(
			`"${short(e.name)}" is ${state.startsWith('published (active), subscribed') ? "published (n8n 2's word for active)" : `${state} (publish it by hand)`}.`,
		);
		if (e.events.includes('v2rx.completed')) {
			nextSteps.push(`   To make it fire, in another terminal:  ${demoCommand('demo:complete')}`);
			nextSteps.push(
				'   (the fake API finishes a transcription and delivers a signed v2rx.completed),',
			);
		} else {
			nextSteps.push(`   To make it fire, in another terminal:  ${demoCommand('demo:clinic')}`);
			nextSteps.push(`   (the fake API delivers signed clinic events: ${e.events.join(', ')}),`);
		}
		nextSteps.push("   then open the workflow's Executions tab.");
	}
	nextSteps.push(`What reached the fake messaging gateway:  curl ${api.url}/__admin/messages`);
	say(`
────────────────────────────────────────────────────────────────────────────
 n8n is running with n8n-nodes-clinic-scribe installed.

   Open       ${n8n.baseUrl}
   Log in     ${owner.email} / ${owner.password}${ownerState === 'created' ? '   (owner created just now)' : ''}

 Next steps
${nextSteps.map((line) => (line.startsWith('   ') ? `    ${line}` : `   • ${line}`)).join('\n')}

 Local services (127.0.0.1 only; they forget everything when npm start stops)
   Inbox      ${inbox.webUrl}/   the doctor's e-mails (SMTP ${inbox.smtpHost}:${inbox.smtpPort}, the credential "${LOCAL_SMTP_CREDENTIAL.name}")
   EHR        ${ehr.pageUrl}   what it holds, each patient's visits (FHIR base URL ${ehr.fhirBaseUrl})

 The credential "${LOCAL_CREDENTIAL.name}" points at the fake clinic API
 (${api.url}); the examples use it. Add a "Clinic Scribe" node to a new
 workflow to try the other operations.

 Fake API credentials, to make another credential by hand
 (API Variant: ${API_VARIANT_OPTIONS[DEMO_API_VARIANT].name},
  Environment: Custom Base URL, Base URL: ${api.url}):
   Client ID ${api.validCredentials.clientId}   Client Secret ${api.validCredentials.clientSecret}   Workspace API Key ${api.validCredentials.apiKey}
 To see the API Variant advice, choose the other variant and Save: the test says which one to pick.

 Sign in with the clinic account (OAuth2): open Overview → Credentials →
 "${LOCAL_SIGN_IN_CREDENTIAL.name}", click Connect and sign in
 on the fake provider's login page as
   User name ${SIGN_IN.user.username}   Password ${SIGN_IN.user.password}
 then pick "Sign In With the Clinic Account (OAuth2)" as a Clinic Scribe node's Authentication.

 n8n's log:   ${logPath}
 Stop:        Ctrl-C
 Start over:  delete .n8n-local/ (database, owner, imported workflows)
────────────────────────────────────────────────────────────────────────────
`);

	const exit = await n8n.serverExit();
	if (!stopping) {
		say(
			`\nn8n exited by itself (code ${exit?.code ?? 'none'}, signal ${exit?.signal ?? 'none'}). Last lines of ${logPath}:`,
		);
		for (const line of n8n.recentServerLog().slice(-20)) say(`  ${line}`);
		await shutdown('n8n stopped', 1);
	}
}

main().catch(async (error: unknown) => {
	process.stderr.write(
		`\nnpm start failed: ${error instanceof Error ? error.message : String(error)}\n`,
	);
	await shutdown('Error', 1);
});
