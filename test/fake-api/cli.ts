/**
 * Runs the fake clinic API as its own process:
 *
 *   tsx test/fake-api/cli.ts [--port 0] [--variant document|public] [--patients-form profiles|patients]
 *                            [--services-form array|object] [--token-lifetime <seconds>] [--log]
 *
 * Prints exactly one JSON line on stdout: {"url", "credentials", "variant", "pid"}; then serves until
 * SIGINT or SIGTERM, closes and exits 0. --log writes one line per request to stderr (method, path,
 * status; never headers or bodies). Control it over HTTP under <url>/__admin/.
 */
import { startFakeClinicApi } from './server';
import type { FakeClinicApi, FakeClinicApiOptions } from './server';

const USAGE =
	'usage: cli.ts [--port <n>] [--variant document|public] [--patients-form profiles|patients] ' +
	'[--services-form array|object] [--token-lifetime <seconds>] [--log]';

export function parseCliArgs(argv: readonly string[]): FakeClinicApiOptions & { log: boolean } {
	const options: FakeClinicApiOptions & { log: boolean } = { log: false };
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] =
			argv[i].startsWith('--') && argv[i].includes('=')
				? argv[i].split(/=(.*)/s, 2)
				: [argv[i], undefined];
		const value = (): string => {
			const v = inline ?? argv[++i];
			if (v === undefined) throw new Error(`${flag} needs a value`);
			return v;
		};
		switch (flag) {
			case '--port': {
				const port = Number(value());
				if (!Number.isInteger(port) || port < 0 || port > 65535)
					throw new Error('--port must be 0..65535');
				options.port = port;
				break;
			}
			case '--variant': {
				const v = value();
				if (v !== 'document' && v !== 'public')
					throw new Error('--variant must be document or public');
				options.variant = v;
				break;
			}
			case '--patients-form': {
				const v = value();
				if (v !== 'profiles' && v !== 'patients')
					throw new Error('--patients-form must be profiles or patients');
				options.patientsForm = v;
				break;
			}
			case '--services-form': {
				const v = value();
				if (v !== 'array' && v !== 'object')
					throw new Error('--services-form must be array or object');
				options.servicesForm = v;
				break;
			}
			case '--token-lifetime': {
				const seconds = Number(value());
				if (!Number.isInteger(seconds) || seconds < 1)
					throw new Error('--token-lifetime must be a whole number of seconds >= 1');
				options.accessTokenLifetimeSeconds = seconds;
				break;
			}
			case '--log':
				options.log = true;
				break;
			default:
				throw new Error(`unknown argument ${argv[i]}`);
		}
	}
	return options;
}

export async function runCli(
	argv: readonly string[] = process.argv.slice(2),
): Promise<FakeClinicApi> {
	const { log, ...options } = parseCliArgs(argv);
	if (log) {
		options.onRequestDone = (r) =>
			process.stderr.write(
				`${new Date(r.time).toISOString()} ${r.method} ${r.path} -> ${r.status ?? 'no answer'}${r.fault ? ` (fault ${r.fault})` : ''}\n`,
			);
	}
	const api = await startFakeClinicApi(options);
	process.stdout.write(
		`${JSON.stringify({ url: api.url, credentials: api.validCredentials, variant: api.options.variant, pid: process.pid })}\n`,
	);

	let stopping = false;
	const stop = (signal: NodeJS.Signals) => {
		if (stopping) return;
		stopping = true;
		api.close().then(
			() => process.exit(0),
			(error: unknown) => {
				process.stderr.write(
					`fake clinic API: error while stopping on ${signal}: ${String(error)}\n`,
				);
				process.exit(1);
			},
		);
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
	return api;
}

if (require.main === module) {
	runCli().catch((error: unknown) => {
		process.stderr.write(
			`fake clinic API: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`,
		);
		process.exit(2);
	});
}
