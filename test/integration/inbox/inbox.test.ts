/**
 * The local inbox (maildev, started by test/support/inbox.ts as `npm start` will): a message sent
 * over SMTP arrives and reads back through its REST API, text and HTML intact (Hindi included);
 * it listens on 127.0.0.1 only; stopping it frees its ports and removes its mail.
 */
import { existsSync, readdirSync } from 'node:fs';

import { startInbox, type RunningInbox } from '../../support/inbox';
import { accepts, externalAddresses, listeningAddresses } from '../../support/listeners';
import { isPortFree } from '../../support/n8n/processes';
import { describeWithNode24 } from '../../support/node24';
import { sendMail } from '../../support/smtp';

const describeInbox = describeWithNode24('inbox.test.ts');

let inbox: RunningInbox;

describeInbox('the local inbox (maildev 3.0.0, Node 24)', () => {
	beforeAll(async () => {
		inbox = await startInbox();
	}, 120_000);
	afterAll(async () => await inbox?.stop());

	test('listens on 127.0.0.1 only: SMTP and web page', async () => {
		for (const port of [inbox.smtpPort, inbox.webPort]) {
			const listening = listeningAddresses(port);
			if (listening) expect(listening).toEqual(['127.0.0.1']);
			expect(await accepts('127.0.0.1', port)).toBe(true);
			for (const address of externalAddresses())
				expect({ address, port, accepted: await accepts(address, port) }).toEqual({
					address,
					port,
					accepted: false,
				});
		}
	});

	test('a message sent over SMTP arrives and reads back through the API (list, one, HTML), then the inbox empties', async () => {
		await inbox.deleteAll();
		const reply = await sendMail({
			host: inbox.smtpHost,
			port: inbox.smtpPort,
			from: 'scribe@clinic.test',
			to: ['doctor@clinic.test'],
			subject: 'Visit notes — आशा वर्मा',
			text: 'Diagnosis: बुखार (fever)\nMedication: Paracetamol 500 mg',
			html: '<h1>Visit notes</h1><p>Diagnosis: <b>बुखार (fever)</b></p>',
		});
		expect(reply).toMatch(/^250/);
		const listed = await inbox.waitForEmail((m) => m.subject.startsWith('Visit notes'));
		expect(listed).toMatchObject({
			subject: 'Visit notes — आशा वर्मा',
			from: [{ address: 'scribe@clinic.test' }],
			to: [{ address: 'doctor@clinic.test' }],
		});
		const one = await inbox.email(listed.id);
		expect(one?.text).toContain('Diagnosis: बुखार (fever)\nMedication: Paracetamol 500 mg');
		expect(await inbox.emailHtml(listed.id)).toContain('<p>Diagnosis: <b>बुखार (fever)</b></p>');
		expect(await inbox.email('no-such-id')).toBeUndefined();

		await inbox.deleteAll();
		expect(await inbox.emails()).toEqual([]);
	});

	test('the page a person opens is served at the web URL', async () => {
		const page = await fetch(`${inbox.webUrl}/`, { headers: { accept: 'text/html' } });
		expect(page.status).toBe(200);
		expect(await page.text()).toContain('MailDev');
	});

	test('stopping frees both ports and removes its folder (the mail with it)', async () => {
		const second = await startInbox();
		await sendMail({
			host: second.smtpHost,
			port: second.smtpPort,
			from: 'a@clinic.test',
			to: ['b@clinic.test'],
			subject: 'kept?',
			text: 'patient data',
		});
		await second.waitForEmail();
		expect(
			readdirSync(second.folder, { recursive: true }).some((name) => String(name).endsWith('.eml')),
		).toBe(true);
		await second.stop();
		expect(await isPortFree(second.smtpPort)).toBe(true);
		expect(await isPortFree(second.webPort)).toBe(true);
		expect(existsSync(second.folder)).toBe(false);
	}, 120_000);
});
