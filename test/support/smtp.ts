/**
 * A minimal SMTP client over node:net, for tests that put a message into the local inbox without a
 * mail library: EHLO, MAIL FROM, RCPT TO, DATA, QUIT, no TLS, no authentication (the inbox on
 * 127.0.0.1 asks for neither). The message is MIME, UTF-8, text and optionally HTML, base64 encoded.
 */
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';

export interface MailToSend {
	host: string;
	port: number;
	from: string;
	to: string[];
	subject: string;
	text: string;
	html?: string;
	/** Whole conversation bound (default 15 s). */
	timeoutMs?: number;
}

/** Sends one message; resolves with the server's answer to DATA (`250 …`), rejects with the reply it refused. */
export async function sendMail(mail: MailToSend): Promise<string> {
	const socket = connect({ host: mail.host, port: mail.port });
	socket.setEncoding('utf8');
	let buffer = '';
	let waiting: { resolve: (reply: string) => void; reject: (error: Error) => void } | undefined;
	let failure: Error | undefined;
	const fail = (error: Error) => {
		failure ??= error;
		waiting?.reject(failure);
		waiting = undefined;
	};
	/** A complete reply: its last line has a space after the code (`250 OK`), earlier ones a dash. */
	const takeReply = (): string | undefined => {
		const lines = buffer.split('\r\n');
		// the last element is an unfinished line (or empty): not yet part of a reply
		const last = lines.slice(0, -1).findIndex((line) => /^\d{3}( |$)/.test(line));
		if (last === -1) return undefined;
		const reply = lines.slice(0, last + 1).join('\n');
		buffer = lines.slice(last + 1).join('\r\n');
		return reply;
	};
	socket.on('data', (chunk: string) => {
		buffer += chunk;
		const reply = waiting && takeReply();
		if (reply !== undefined && waiting) {
			waiting.resolve(reply);
			waiting = undefined;
		}
	});
	socket.on('error', fail);
	socket.on('close', () => fail(new Error('the SMTP server closed the connection')));
	socket.setTimeout(mail.timeoutMs ?? 15_000, () => {
		fail(new Error(`no SMTP reply within ${mail.timeoutMs ?? 15_000} ms`));
		socket.destroy();
	});

	const reply = (expected: number, after: string) =>
		new Promise<string>((resolve, reject) => {
			if (failure) return reject(failure);
			const check = (text: string) =>
				text.startsWith(String(expected))
					? resolve(text)
					: reject(new Error(`SMTP ${after}: expected ${expected}, got "${text}"`));
			const ready = takeReply();
			if (ready !== undefined) check(ready);
			else waiting = { resolve: check, reject };
		});
	const command = async (line: string, expected: number) => {
		socket.write(`${line}\r\n`);
		return await reply(expected, line.split(':')[0]);
	};

	try {
		await reply(220, 'greeting');
		await command('EHLO clinic-scribe.test', 250);
		await command(`MAIL FROM:<${mail.from}>`, 250);
		for (const to of mail.to) await command(`RCPT TO:<${to}>`, 250);
		await command('DATA', 354);
		socket.write(mimeMessage(mail));
		const accepted = await command('.', 250);
		await command('QUIT', 221).catch(() => undefined); // the message is in; a slow goodbye changes nothing
		return accepted;
	} finally {
		socket.removeAllListeners('close');
		socket.destroy();
	}
}

function mimeMessage(mail: MailToSend): string {
	const boundary = `=_clinic-scribe-${randomUUID()}`;
	const base64Lines = (text: string) =>
		(
			Buffer.from(text, 'utf8')
				.toString('base64')
				.match(/.{1,76}/g) ?? []
		).join('\r\n');
	const part = (type: string, text: string) =>
		[
			`Content-Type: ${type}; charset=utf-8`,
			'Content-Transfer-Encoding: base64',
			'',
			base64Lines(text),
		].join('\r\n');
	const headers = [
		`From: <${mail.from}>`,
		`To: ${mail.to.map((to) => `<${to}>`).join(', ')}`,
		`Subject: =?UTF-8?B?${Buffer.from(mail.subject, 'utf8').toString('base64')}?=`,
		`Date: ${new Date().toUTCString()}`,
		`Message-ID: <${randomUUID()}@clinic-scribe.test>`,
		'MIME-Version: 1.0',
	];
	const body = mail.html
		? [
				`Content-Type: multipart/alternative; boundary="${boundary}"`,
				'',
				`--${boundary}`,
				part('text/plain', mail.text),
				`--${boundary}`,
				part('text/html', mail.html),
				`--${boundary}--`,
			].join('\r\n')
		: part('text/plain', mail.text);
	// base64 lines never start with "."; no dot-stuffing needed
	return `${[...headers, body].join('\r\n')}\r\n`;
}
