/**
 * Runs the local EHR (FHIR R4 server) as its own process, under Node >= 22.18 (the cached Node 24):
 *
 *   bash scripts/with-node24.sh node --import tsx test/fhir-server/cli.ts [--port 0] [--log]
 *     [--router-limits none|medplum]
 *
 * Prints exactly one JSON line on stdout once it listens:
 *   {"url", "fhirBaseUrl", "pid", "definitionsLoadedInMs", "startedInMs"} (startedInMs: since the
 * process started)
 * then serves until SIGINT or SIGTERM, closes and exits 0. --log writes one line per request to
 * stderr (method, path, status, milliseconds; never bodies). --router-limits medplum refuses
 * transactions as a Medplum-hosted EHR does (server.ts). test/support/fhirServer.ts starts it.
 */
import { startFhirServerInProcess } from './server';
import type { FhirServer, FhirServerOptions } from './server';
import { ROUTER_LIMITS, type RouterLimits } from './transaction';

const USAGE = 'usage: cli.ts [--port <n>] [--log] [--router-limits none|medplum]';

export function parseCliArgs(argv: readonly string[]): FhirServerOptions & { log: boolean } {
	const options: FhirServerOptions & { log: boolean } = { log: false };
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] =
			argv[i].startsWith('--') && argv[i].includes('=')
				? argv[i].split(/=(.*)/s, 2)
				: [argv[i], undefined];
		switch (flag) {
			case '--port': {
				const port = Number(inline ?? argv[++i]);
				if (!Number.isInteger(port) || port < 0 || port > 65535)
					throw new Error('--port must be 0..65535');
				options.port = port;
				break;
			}
			case '--log':
				options.log = true;
				break;
			case '--router-limits': {
				const limits = inline ?? argv[++i];
				if (!ROUTER_LIMITS.includes(limits as RouterLimits))
					throw new Error(`--router-limits must be one of ${ROUTER_LIMITS.join(', ')}`);
				options.routerLimits = limits as RouterLimits;
				break;
			}
			default:
				throw new Error(`unknown argument ${argv[i]}`);
		}
	}
	return options;
}

export async function runCli(argv: readonly string[] = process.argv.slice(2)): Promise<FhirServer> {
	const { log, ...options } = parseCliArgs(argv);
	if (log)
		options.onRequestDone = (r) =>
			process.stderr.write(
				`${new Date().toISOString()} ${r.method} ${r.path} -> ${r.status} (${r.ms} ms)\n`,
			);
	const server = await startFhirServerInProcess(options);
	const line = {
		url: server.url,
		fhirBaseUrl: server.fhirBaseUrl,
		pid: process.pid,
		definitionsLoadedInMs: server.definitionsLoadedInMs,
		// performance.now() counts from the process's start: loading modules and definitions, listening
		startedInMs: Math.round(performance.now()),
	};
	process.stdout.write(`${JSON.stringify(line)}\n`);

	let stopping = false;
	const stop = (signal: NodeJS.Signals) => {
		if (stopping) return;
		stopping = true;
		server.close().then(
			() => process.exit(0),
			(error: unknown) => {
				process.stderr.write(`local EHR: error while stopping on ${signal}: ${String(error)}\n`);
				process.exit(1);
			},
		);
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
	return server;
}

if (require.main === module) {
	runCli().catch((error: unknown) => {
		process.stderr.write(
			`local EHR: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`,
		);
		process.exit(2);
	});
}
