/**
 * The local inbox: maildev 3.0.0 (npm, a devDependency) as its own process, for tests and
 * `npm start`. SMTP and its web page/REST API listen on 127.0.0.1 only (`--ip`, `--web-ip`; maildev
 * binds every interface by default). It runs under the cached Node 24: two of maildev's
 * dependencies ask for Node >= 22 (content-disposition 3, cookie 2), although its basic flow also
 * runs on Node 20.
 *
 * Isolation: maildev reads MAILDEV_* variables and a config file found in any parent folder of its
 * working directory, and keeps messages as .eml files in a shared /tmp/maildev; so the child gets
 * no MAILDEV_* variable, an explicit empty config file and a mail folder of its own, removed on stop.
 *
 *   const inbox = await startInbox();
 *   // n8n's Send Email node: host 127.0.0.1, port inbox.smtpPort, SSL/TLS off, no user
 *   const mail = await inbox.waitForEmail((m) => m.subject.includes('Visit'));
 *   inbox.webUrl;  // the page a person opens
 *   await inbox.stop();
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { REPO_ROOT } from './n8n/install';
import { delay, freePort, isPortFree } from './n8n/processes';
import { envWithNode, pollUntil, spawnService } from './localService';
import { ensureNode24 } from './node24';

const MAILDEV_BIN = join(REPO_ROOT, 'node_modules', 'maildev', 'dist', 'bin', 'maildev.js');

export interface InboxStartOptions {
	/** SMTP port on 127.0.0.1; default a free one. */
	smtpPort?: number;
	/** Web page and REST API port on 127.0.0.1; default a free one. */
	webPort?: number;
	/** Node to run maildev with; default the cached Node 24 (installed first when missing). */
	nodeBin?: string;
	/** Largest message accepted, in bytes (maildev's default: 50 MB). */
	maxMessageBytes?: number;
	/** Default 60 s. */
	startTimeoutMs?: number;
}

/** A message as maildev's REST API returns it (the fields tests read; maildev sends more). */
export interface InboxEmail {
	id: string;
	time: string;
	subject: string;
	from: Array<{ address: string; name: string }>;
	to: Array<{ address: string; name: string }>;
	text?: string;
	html?: string;
	headers: Record<string, string>;
	attachments: Array<{ filename?: string; contentType?: string; size?: number }>;
}

/** maildev's REST API (`<webUrl>/api/…`). */
export class InboxClient {
	constructor(readonly webUrl: string) {}

	/** GET /api/email: every message, oldest first. */
	async emails(): Promise<InboxEmail[]> {
		return (await this.json('GET', '/api/email')) as InboxEmail[];
	}

	/** GET /api/email/:id (marks it read); undefined when there is no such message. */
	async email(id: string): Promise<InboxEmail | undefined> {
		const response = await fetch(`${this.webUrl}/api/email/${encodeURIComponent(id)}`);
		if (response.status === 404) return undefined;
		if (!response.ok) throw new Error(`GET /api/email/${id}: ${response.status}`);
		return (await response.json()) as InboxEmail;
	}

	/** GET /api/email/:id/html: the HTML part as maildev serves it to its page. */
	async emailHtml(id: string): Promise<string> {
		const response = await fetch(`${this.webUrl}/api/email/${encodeURIComponent(id)}/html`);
		if (!response.ok)
			throw new Error(`GET /api/email/${id}/html: ${response.status} ${await response.text()}`);
		return await response.text();
	}

	/** DELETE /api/email/all. */
	async deleteAll(): Promise<void> {
		await this.json('DELETE', '/api/email/all');
	}

	/** Polls the inbox until a message matches (default: any); fails after timeoutMs listing what arrived. */
	async waitForEmail(
		matches: (email: InboxEmail) => boolean = () => true,
		timeoutMs = 30_000,
	): Promise<InboxEmail> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const emails = await this.emails();
			const found = emails.find(matches);
			if (found) return found;
			if (Date.now() > deadline) {
				throw new Error(
					`No matching e-mail within ${timeoutMs} ms; the inbox holds ${emails.length}: ${emails.map((e) => JSON.stringify(e.subject)).join(', ') || 'none'}`,
				);
			}
			await delay(100);
		}
	}

	/** GET /api/healthz. */
	async healthy(): Promise<boolean> {
		const response = await fetch(`${this.webUrl}/api/healthz`).catch(() => undefined);
		return response?.ok === true && (await response.text()).trim() === 'true';
	}

	private async json(method: string, path: string): Promise<unknown> {
		const response = await fetch(`${this.webUrl}${path}`, { method });
		if (!response.ok)
			throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
		return await response.json();
	}
}

export interface RunningInbox extends InboxClient {
	readonly smtpHost: '127.0.0.1';
	readonly smtpPort: number;
	readonly webPort: number;
	readonly pid: number;
	/** maildev's own folder (its config and the messages, as .eml files); removed by stop(). */
	readonly folder: string;
	/** Stops maildev's process group and removes its folder. */
	stop(): Promise<void>;
}

export async function startInbox(options: InboxStartOptions = {}): Promise<RunningInbox> {
	const nodeBin = options.nodeBin ?? (await ensureNode24());
	// Ports chosen here may be taken before maildev binds them: try again with others (not with the caller's).
	const attempts = options.smtpPort !== undefined || options.webPort !== undefined ? 1 : 3;
	for (let attempt = 1; ; attempt++) {
		const smtpPort = options.smtpPort ?? (await freePort());
		const webPort = options.webPort ?? (await freePort());
		try {
			return await startMaildev(nodeBin, smtpPort, webPort, options);
		} catch (error) {
			const portTaken = !(await isPortFree(smtpPort)) || !(await isPortFree(webPort));
			if (attempt >= attempts || !portTaken) throw error;
		}
	}
}

async function startMaildev(
	nodeBin: string,
	smtpPort: number,
	webPort: number,
	options: InboxStartOptions,
): Promise<RunningInbox> {
	const folder = mkdtempSync(join(tmpdir(), 'clinic-scribe-inbox-'));
	const config = join(folder, 'maildev.json');
	writeFileSync(config, '{}\n');
	const mailDirectory = join(folder, 'mail');
	const args = [
		MAILDEV_BIN,
		'--config',
		config,
		'--ip',
		'127.0.0.1',
		'--web-ip',
		'127.0.0.1',
		'-s',
		String(smtpPort),
		'-w',
		String(webPort),
		'--mail-directory',
		mailDirectory,
	];
	if (options.maxMessageBytes !== undefined)
		args.push('--max-message-size', String(options.maxMessageBytes));
	const env = envWithNode(nodeBin);
	for (const name of Object.keys(env)) if (name.startsWith('MAILDEV_')) delete env[name];
	const service = spawnService(nodeBin, args, {
		cwd: folder,
		env,
		what: 'the local inbox (maildev)',
	});
	const client = new InboxClient(`http://127.0.0.1:${webPort}`);
	const stop = async () => {
		await service.stop();
		rmSync(folder, { recursive: true, force: true });
	};
	try {
		await pollUntil(
			service,
			'the local inbox (maildev)',
			options.startTimeoutMs ?? 60_000,
			async () => ((await client.healthy()) ? true : undefined),
		);
		return Object.assign(client, {
			smtpHost: '127.0.0.1' as const,
			smtpPort,
			webPort,
			pid: service.pid,
			folder,
			stop,
		});
	} catch (error) {
		await stop();
		throw error;
	}
}
