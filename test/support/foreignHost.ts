/**
 * A "foreign host": a second listener on another port that records everything it receives (method,
 * URL, headers, body). Attack tests point redirects at it and then count what reached it.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ForeignRequest {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
	body: string;
}

export interface ForeignHost {
	/** http://127.0.0.1:<port> */
	readonly url: string;
	/** host:port, as an error message names it. */
	readonly host: string;
	readonly requests: ForeignRequest[];
	/** The secrets (of those given) found anywhere in what the host received. */
	secretsSeen(secrets: string[]): string[];
	close(): Promise<void>;
}

export async function startForeignHost(): Promise<ForeignHost> {
	const requests: ForeignRequest[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			requests.push({
				method: req.method ?? 'GET',
				url: req.url ?? '/',
				headers: { ...req.headers },
				body: Buffer.concat(chunks).toString('utf8'),
			});
			// A plausible success, so a client that followed would carry on.
			res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		url: `http://127.0.0.1:${port}`,
		host: `127.0.0.1:${port}`,
		requests,
		secretsSeen(secrets: string[]): string[] {
			const seen = JSON.stringify(requests);
			return secrets.filter((secret) => secret !== '' && seen.includes(secret));
		},
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
