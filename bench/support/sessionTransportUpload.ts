/**
 * One large session upload through this package's own transport (`uploadSessionAudio`, the code the
 * node runs) with n8n's own HTTP helper (the cached n8n 2.41's OutboundHttp), outside n8n: the
 * node refuses files over 10 MB before sending, so a large single upload can only be measured here
 * (the fake's limit is lifted by the caller). The file is read as n8n's filesystem binary store
 * gives it (fs.ReadStream, 512 KiB chunks). Prints {"peakRssGrowthBytes": …} for this process.
 *
 *   node --import tsx bench/support/sessionTransportUpload.ts <credential JSON> <sessionId> <path> <size>
 */
import { createReadStream } from 'node:fs';

import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { ClinicScribeApi } from '../../credentials/ClinicScribeApi.credentials';
import { uploadSessionAudio } from '../../nodes/ClinicScribe/transport/transcription/session';
import { loadN8nHttpRequest } from '../../test/support/n8nHttpRequest';

async function main(): Promise<void> {
	const [credentialJson, sessionId, path, sizeText] = process.argv.slice(2);
	const credential = JSON.parse(credentialJson) as ICredentialDataDecryptedObject;
	const size = Number(sizeText);
	const n8nHttp = loadN8nHttpRequest();
	if (!n8nHttp) throw new Error('n8n is not installed in the cache: run npm run n8n:install');
	const type = new ClinicScribeApi();
	const ctx = {
		getNode: () => ({
			id: 'bench',
			name: 'Bench',
			type: 'clinicScribe',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
			credentials: { clinicScribeApi: { id: 'b', name: 'b' } },
		}),
		getCredentials: async () => ({ ...credential }),
		helpers: {
			httpRequest: n8nHttp,
			// As n8n's helper with a static access token: authenticate, then n8n's own request.
			httpRequestWithAuthentication: async (
				_type: string,
				options: IHttpRequestOptions,
				extra?: { credentialsDecrypted?: { data: ICredentialDataDecryptedObject } },
			) =>
				await n8nHttp(
					await type.authenticate(extra?.credentialsDecrypted?.data ?? credential, options),
				),
		},
	} as unknown as IExecuteFunctions;
	const baseline = process.memoryUsage.rss();
	let peak = baseline;
	const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
	const answer = await uploadSessionAudio(
		ctx,
		sessionId,
		{
			label: 'the bench file',
			size,
			contentType: 'audio/wav',
			sessionFileName: 'audio_0.wav',
			open: async () => createReadStream(path, { highWaterMark: 512 * 1024 }),
		},
		0,
	);
	clearInterval(sampler);
	peak = Math.max(peak, process.memoryUsage.rss());
	if (answer.statusCode !== 200) throw new Error(`session upload answered ${answer.statusCode}`);
	process.stdout.write(`${JSON.stringify({ peakRssGrowthBytes: peak - baseline })}\n`);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
