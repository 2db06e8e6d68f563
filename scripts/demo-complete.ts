/**
 * `npm run demo:complete`: makes the Clinic Scribe Trigger example fire in the n8n of `npm start`.
 *
 *   1. checks that the fake clinic API of `npm start` answers, and that something subscribed to
 *      v2rx.completed (npm start activates the trigger example, which subscribes)
 *   2. creates a finished transcription session on the fake API, over its public wire flow
 *      (token → presign → storage → init), as a real upload would, naming the patient and the
 *      doctor (Additional Data; test/support/clinicVisit.ts)
 *   3. asks the fake API to deliver a signed `v2rx.completed` for it to every subscription, and
 *      prints each subscription's answer
 *   4. waits for the visit in the local EHR (its Encounter carries the session ID, its Composition
 *      the notes) and prints how long that took from the delivery, and the patient's page
 *
 *   npm run demo:complete                     a new session, visit-demo-<date>-<time>
 *   npm run demo:complete -- <transaction id> the event for a session that exists already (say one
 *                                             the transcription example made; see its output)
 *
 * Environment: CLINIC_SCRIBE_FAKE_API_PORT (5690), CLINIC_SCRIBE_EHR_PORT (5691),
 * CLINIC_SCRIBE_INBOX_PORT (5692, only for the hints), N8N_PORT (5678, only for the hints).
 */
import {
	ENCOUNTER_SYSTEM,
	VISIT_ADDITIONAL_DATA,
	VISIT_PATIENT_IDENTIFIER,
} from '../test/support/clinicVisit';
import { startFinishedSession, SESSION_TEMPLATES } from '../test/support/fakeTranscriptionSession';
import { FhirClient } from '../test/support/fhirServer';
import type { DeliveryReport, FakeSubscription } from '../test/fake-api/routes/webhooks';
import type { TransactionView } from '../test/fake-api/routes/transcription';
import type { ValidCredentials } from '../test/fake-api/server';

const say = (line = '') => process.stdout.write(`${line}\n`);

class Stop extends Error {}

function portFromEnv(name: string, fallback: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return fallback;
	const port = Number(raw);
	if (!Number.isInteger(port) || port < 1 || port > 65535)
		throw new Stop(`${name} must be a port number (1-65535), not "${raw}"`);
	return port;
}

/** The fake API's address, http://127.0.0.1:<CLINIC_SCRIBE_FAKE_API_PORT> (set in main). */
let baseUrl = '';

async function admin<T>(
	method: 'GET' | 'POST',
	action: string,
	body?: unknown,
	timeoutMs = 10_000,
): Promise<T> {
	let response: Response;
	try {
		response = await fetch(`${baseUrl}/__admin${action}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(timeoutMs),
		});
	} catch (error) {
		const cause = (error as Error & { cause?: { code?: string } }).cause;
		if (cause?.code === 'ECONNREFUSED') {
			throw new Stop(
				`Nothing answers on ${baseUrl}: is \`npm start\` running?\n` +
					'Start it in another terminal (npm start), wait for "n8n is running", then run this again.' +
					(process.env.CLINIC_SCRIBE_FAKE_API_PORT
						? ''
						: '\n(If npm start runs its fake API on another port, set CLINIC_SCRIBE_FAKE_API_PORT.)'),
			);
		}
		throw new Stop(
			`The fake clinic API at ${baseUrl} did not answer /__admin${action}: ${String(cause ?? (error as Error).message)}`,
		);
	}
	const text = await response.text();
	if (!response.ok)
		throw new Stop(
			`The fake clinic API answered ${response.status} to ${method} /__admin${action}: ${text.slice(0, 500)}`,
		);
	try {
		return JSON.parse(text) as T;
	} catch {
		throw new Stop(
			`${baseUrl} answered /__admin${action} with something that is not JSON: is it the fake clinic API of \`npm start\`?`,
		);
	}
}

function stamp(date = new Date()): string {
	const pad = (n: number) => String(n).padStart(2, '0');
	return `${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}-${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`;
}

function describeAttempt(status: number | null, response: string): string {
	if (status === null) return `no answer (${response}): is n8n still running?`;
	if (status >= 200 && status < 300) return `${status}: accepted, n8n started the workflow`;
	if (status === 401)
		return "401: n8n rejected the signature (the subscription's key is not the one n8n holds; deactivate and activate the workflow)";
	if (status === 404)
		return '404: no active workflow at this URL (activate the workflow, or restart npm start)';
	return `${status}: ${response.slice(0, 200)}`;
}

async function main(): Promise<void> {
	baseUrl = `http://127.0.0.1:${portFromEnv('CLINIC_SCRIBE_FAKE_API_PORT', 5690)}`;
	const n8nPort = portFromEnv('N8N_PORT', 5678);
	const ehr = new FhirClient(
		`http://127.0.0.1:${portFromEnv('CLINIC_SCRIBE_EHR_PORT', 5691)}/fhir`,
	);
	const inboxUrl = `http://127.0.0.1:${portFromEnv('CLINIC_SCRIBE_INBOX_PORT', 5692)}/`;
	const given = process.argv[2];
	if (process.argv.length > 3 || given === '--help' || given === '-h') {
		say('usage: npm run demo:complete [-- <transaction id>]');
		return;
	}

	const { credentials } = await admin<{ url: string; credentials: ValidCredentials }>(
		'GET',
		'/credentials',
	);
	say(`Fake clinic API: ${baseUrl}`);

	const subscriptions = (await admin<FakeSubscription[]>('GET', '/webhooks/subscriptions')).filter(
		(s) => s.event_names.includes('v2rx.completed'),
	);
	if (subscriptions.length === 0) {
		throw new Stop(
			'Nothing is subscribed to v2rx.completed, so no workflow would start.\n' +
				`npm start activates the trigger example; if it said "not activated", log in on http://127.0.0.1:${n8nPort},\n` +
				'open "Example: finished transcription → …" and activate it (or stop npm start and start it again).',
		);
	}
	say(`Subscribed to v2rx.completed: ${subscriptions.map((s) => s.endpoint).join(', ')}`);

	let transactionId: string;
	if (given) {
		const known = (await admin<TransactionView[]>('GET', '/transcription/transactions')).find(
			(t) => t.txnId === given,
		);
		if (!known?.initialised) {
			throw new Stop(
				`The fake API holds no started transaction "${given}" (it forgets everything when npm start stops). Run without an argument to make one.`,
			);
		}
		transactionId = given;
		say(`\n1. Using the existing transaction ${transactionId}`);
	} else {
		transactionId = `visit-demo-${stamp()}`;
		say(
			`\n1. Creating a finished transcription session, ${transactionId} (token → presign → upload → start)…`,
		);
		try {
			await startFinishedSession(baseUrl, credentials, transactionId, SESSION_TEMPLATES, {
				...VISIT_ADDITIONAL_DATA,
			});
		} catch (error) {
			throw new Stop(`The fake API did not take the session: ${(error as Error).message}`);
		}
		say(
			'   done: its results (clinical notes, EMR document, transcript) are ready; the upload named Ravi Kumar (patient directory) and Dr. Asha Rao',
		);
	}

	say(`\n2. Delivering a signed v2rx.completed for ${transactionId}…`);
	const delivered = performance.now();
	const report = await admin<DeliveryReport>(
		'POST',
		'/webhooks/deliver',
		{ transactionId },
		120_000,
	);
	for (const attempt of report.attempts)
		say(`   ${attempt.endpoint}\n     → ${describeAttempt(attempt.status, attempt.response)}`);
	const accepted = report.attempts.filter(
		(a) => a.status !== null && a.status >= 200 && a.status < 300,
	).length;
	if (accepted === 0) throw new Stop('No subscription accepted the delivery: nothing ran.');

	say('\n3. Waiting for the visit in the local EHR…');
	const stored = await visitInEhr(ehr, transactionId, 30_000);
	if (!stored) {
		say(
			'   nothing arrived within 30 s: open the execution in n8n to see why (the EHR\'s reasons are on the item of "EHR\'s Reasons").',
		);
	} else {
		const seconds = ((performance.now() - delivered) / 1000).toFixed(2);
		say(`   stored ${seconds} s after the delivery: ${stored.summary}`);
		say(`   the patient's page: ${stored.patientPage}`);
	}

	say(`
Next:
  • See the run in n8n: http://127.0.0.1:${n8nPort} → open the trigger workflow → Executions
    (or the Overview page's Executions list).
  • What the local EHR holds:  ${ehr.pageUrl}
  • The doctor's e-mail:  ${inboxUrl}`);
}

/**
 * Polls the EHR for the visit's Encounter (identified by the session ID) and its Composition;
 * undefined after timeoutMs. Only resources already committed are found: a transaction is stored
 * whole, so the Composition's presence means the whole visit is there.
 */
async function visitInEhr(
	ehr: FhirClient,
	sessionId: string,
	timeoutMs: number,
): Promise<{ summary: string; patientPage: string } | undefined> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		const [encounter] = await ehr
			.search('Encounter', { identifier: `${ENCOUNTER_SYSTEM}|${sessionId}` })
			.catch(() => []);
		const [composition] = encounter
			? await ehr.search('Composition', { encounter: `Encounter/${encounter.id}` }).catch(() => [])
			: [];
		if (encounter && composition) {
			const [patient] = await ehr.search('Patient', { identifier: VISIT_PATIENT_IDENTIFIER });
			const sections = ((composition as { section?: Array<{ title?: string }> }).section ?? [])
				.map((section) => section.title)
				.join(', ');
			return {
				summary: `Encounter/${encounter.id}, Composition/${composition.id} (${sections})`,
				patientPage: ehr.patientPageUrl(String(patient?.id)),
			};
		}
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	return undefined;
}

main().catch((error: unknown) => {
	if (error instanceof Stop) {
		process.stderr.write(`\n${error.message}\n`);
	} else {
		process.stderr.write(
			`\ndemo:complete failed: ${error instanceof Error ? error.message : String(error)}\n`,
		);
	}
	process.exitCode = 1;
});
