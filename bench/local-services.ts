/**
 * The local EHR (test/fhir-server) and the local inbox (maildev), started as tests and `npm start`
 * start them (test/support/fhirServer.ts, test/support/inbox.ts): how long each takes to start, how
 * much memory each holds, how long the EHR takes to answer a transaction, and how soon a message
 * sent over SMTP can be read back. Prints figures; asserts nothing (there is no target: these are
 * development services, the figures say what to expect of them).
 *
 *   npm run bench:local-services        (bash bench/node24.sh bench/local-services.ts)
 *
 * Times are medians of several rounds, measured by this process around real HTTP/SMTP on loopback;
 * memory is the service process's resident set (VmRSS) and its peak (VmHWM) from /proc.
 */
import { readFileSync } from 'node:fs';

import {
	repairedServiceBundle,
	serviceShapedBundle,
	visitTransaction,
} from '../test/support/fhirBundles';
import { startFhirServer, type RunningFhirServer } from '../test/support/fhirServer';
import { startInbox } from '../test/support/inbox';
import { sendMail } from '../test/support/smtp';

const STARTS = 3;
const ROUNDS = 20;
const VISITS_FOR_MEMORY = 500;

const median = (values: number[]) =>
	[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => `${Math.round(value)} ms`;

/** VmRSS and VmHWM of a process, MiB. */
function memoryOf(pid: number): { rss: number; peak: number } {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kib = (name: string) =>
		Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
	return { rss: Math.round(kib('VmRSS') / 1024), peak: Math.round(kib('VmHWM') / 1024) };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
	const started = performance.now();
	const value = await work();
	return { value, ms: performance.now() - started };
}

async function transactionMs(
	ehr: RunningFhirServer,
	bundle: Parameters<RunningFhirServer['transaction']>[0],
	expectedStatus: number,
): Promise<number> {
	const { value, ms: took } = await timed(() => ehr.transaction(bundle));
	if (value.status !== expectedStatus)
		throw new Error(
			`expected ${expectedStatus}, got ${value.status}: ${JSON.stringify(value.body).slice(0, 500)}`,
		);
	return took;
}

async function fhirServer(): Promise<void> {
	console.log('Local EHR (FHIR R4 on Medplum 5.2.13, Node 24 process)');
	const starts: Array<{ wall: number; started: number; definitions: number }> = [];
	for (let i = 0; i < STARTS; i++) {
		const { value: ehr, ms: wall } = await timed(() => startFhirServer());
		starts.push({ wall, started: ehr.startedInMs, definitions: ehr.definitionsLoadedInMs });
		await ehr.stop();
	}
	console.log(
		`  start, spawn to answering metadata: ${ms(median(starts.map((s) => s.wall)))} (median of ${STARTS}; in the process: ${ms(median(starts.map((s) => s.started)))} from its start to listening, of which loading the R4 definitions ${ms(median(starts.map((s) => s.definitions)))})`,
	);

	const ehr = await startFhirServer();
	try {
		const idle = memoryOf(ehr.pid);
		console.log(`  memory after start: ${idle.rss} MiB resident`);

		const visit = { id: 'bench-visit', patientIdentifier: 'B-1', doctorIdentifier: 'DB-1' };
		const first = await transactionMs(ehr, visitTransaction(visit), 200);
		const again: number[] = [];
		for (let i = 0; i < ROUNDS; i++)
			again.push(await transactionMs(ehr, visitTransaction(visit), 200));
		console.log(
			`  visit transaction, 7 entries (Patient, Practitioner by ifNoneExist; 5 PUT): first ${ms(first)}, sent again (updates) ${ms(median(again))} median of ${ROUNDS}`,
		);

		const mended = repairedServiceBundle({
			id: 'bench-service',
			patientIdentifier: 'B-2',
			doctorIdentifier: 'DB-2',
		});
		const mendedFirst = await transactionMs(ehr, mended, 200);
		const mendedAgain: number[] = [];
		for (let i = 0; i < ROUNDS; i++) mendedAgain.push(await transactionMs(ehr, mended, 200));
		const size = Buffer.byteLength(JSON.stringify(mended));
		console.log(
			`  service-shaped transaction, 47 entries (${Math.round(size / 1024)} KiB): first ${ms(mendedFirst)}, again ${ms(median(mendedAgain))} median of ${ROUNDS}`,
		);

		const refused = { ...serviceShapedBundle(), type: 'transaction' as const };
		const refusals: number[] = [];
		for (let i = 0; i < ROUNDS; i++) refusals.push(await transactionMs(ehr, refused, 400));
		console.log(
			`  service-shaped bundle as it is, 44 entries, refused (every entry's reasons, rolled back): ${ms(median(refusals))} median of ${ROUNDS}`,
		);

		const many = await timed(async () => {
			for (let i = 0; i < VISITS_FOR_MEMORY; i++)
				await transactionMs(
					ehr,
					visitTransaction({
						id: `bench-${i}`,
						patientIdentifier: `BM-${i}`,
						doctorIdentifier: 'DB-1',
					}),
					200,
				);
		});
		const loaded = memoryOf(ehr.pid);
		const counts = await ehr.counts();
		const held = Object.values(counts).reduce((a, b) => a + b, 0);
		console.log(
			`  ${VISITS_FOR_MEMORY} more visits stored one by one: ${ms(many.ms / VISITS_FOR_MEMORY)} each on average (the snapshot for rollback grows with the store); then ${held} resources held, ${loaded.rss} MiB resident, peak ${loaded.peak} MiB`,
		);
	} finally {
		await ehr.stop();
	}
}

async function inbox(): Promise<void> {
	console.log('Local inbox (maildev 3.0.0, Node 24 process)');
	const walls: number[] = [];
	for (let i = 0; i < STARTS; i++) {
		const { value, ms: wall } = await timed(() => startInbox());
		walls.push(wall);
		if (i < STARTS - 1) await value.stop();
		else {
			try {
				console.log(
					`  start, spawn to /api/healthz: ${ms(median(walls))} (median of ${STARTS}); memory ${memoryOf(value.pid).rss} MiB resident`,
				);
				const arrivals: number[] = [];
				for (let round = 0; round < ROUNDS; round++) {
					const subject = `bench ${round}`;
					const { ms: took } = await timed(async () => {
						await sendMail({
							host: value.smtpHost,
							port: value.smtpPort,
							from: 'bench@clinic.test',
							to: ['doctor@clinic.test'],
							subject,
							text: 'Diagnosis: बुखार (fever)',
							html: '<p>Diagnosis: <b>बुखार (fever)</b></p>',
						});
						await value.waitForEmail((m) => m.subject === subject);
					});
					arrivals.push(took);
				}
				console.log(
					`  one message: SMTP send until the REST API lists it: ${ms(median(arrivals))} median of ${ROUNDS} (the API is polled every 100 ms)`,
				);
			} finally {
				await value.stop();
			}
		}
	}
}

async function main(): Promise<void> {
	await fhirServer();
	await inbox();
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
