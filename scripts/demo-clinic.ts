/**
 * `npm run demo:clinic`: makes the appointment examples fire in the n8n of `npm start`.
 *
 *   1. checks that the fake clinic API of `npm start` answers, and which clinic events something
 *      subscribed to (npm start activates the trigger examples, which subscribe)
 *   2. appointment booked: books an appointment on the fake API (tomorrow, 11:30 clinic time),
 *      delivers a signed `appointment.created` for it, prints each subscription's answer, and waits
 *      for the reminder the example posts to the fake messaging gateway
 *   3. appointment completed: a prescription with its PDF on the fake API, the appointment completed
 *      with it (CM), then the signed `appointment.statuschange`; prints each subscription's answer,
 *      and waits for the e-mail with the PDF in npm start's local inbox
 *
 * Environment: CLINIC_SCRIBE_FAKE_API_PORT (5690), CLINIC_SCRIBE_INBOX_PORT (5692), N8N_PORT (5678,
 * only for the hints).
 */
import { clinicEventSample } from '../test/fake-api/clinicEventSamples';
import type { GatewayMessage } from '../test/fake-api/routes/messageGateway';
import type { SeededPrescription } from '../test/fake-api/routes/prescription';
import type { DeliveryReport, FakeSubscription } from '../test/fake-api/routes/webhooks';
import { InboxClient } from '../test/support/inbox';

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

async function deliver(body: Record<string, unknown>): Promise<number> {
	const report = await admin<DeliveryReport>('POST', '/webhooks/deliver', { body }, 120_000);
	for (const attempt of report.attempts)
		say(`   ${attempt.endpoint}\n     → ${describeAttempt(attempt.status, attempt.response)}`);
	return report.attempts.filter((a) => a.status !== null && a.status >= 200 && a.status < 300)
		.length;
}

/** The appointment as the fake API keeps it (GET /dr/v1/appointment/{id} answers it). */
async function seedAppointment(appointment: Record<string, unknown>): Promise<void> {
	await admin('POST', '/appointments/seed', appointment);
}

/** Epoch seconds of tomorrow at hh:mm in the clinic's zone (Asia/Kolkata, +05:30, no DST). */
function tomorrowAtClinicTime(hour: number, minute: number): number {
	const offset = 330 * 60;
	const nowClinic = Math.floor(Date.now() / 1000) + offset;
	const midnight = nowClinic - (nowClinic % 86400);
	return midnight + 86400 + hour * 3600 + minute * 60 - offset;
}

async function main(): Promise<void> {
	baseUrl = `http://127.0.0.1:${portFromEnv('CLINIC_SCRIBE_FAKE_API_PORT', 5690)}`;
	const n8nPort = portFromEnv('N8N_PORT', 5678);
	const inbox = new InboxClient(
		`http://127.0.0.1:${portFromEnv('CLINIC_SCRIBE_INBOX_PORT', 5692)}`,
	);
	if (process.argv.length > 2) {
		say('usage: npm run demo:clinic');
		return;
	}
	say(`Fake clinic API: ${baseUrl}`);
	const subscriptions = await admin<FakeSubscription[]>('GET', '/webhooks/subscriptions');
	const subscribedTo = (event: string) =>
		subscriptions.filter((s) => s.event_names.includes(event));
	const booked = subscribedTo('appointment.created');
	const completed = subscribedTo('appointment.statuschange');
	if (booked.length + completed.length === 0) {
		throw new Stop(
			'Nothing is subscribed to appointment.created or appointment.statuschange, so no workflow would start.\n' +
				`npm start activates the appointment examples; if it said "not activated", log in on http://127.0.0.1:${n8nPort},\n` +
				'open "Example: appointment booked → …" (or "appointment completed → …") and activate it.',
		);
	}

	const appointmentId = `appt-demo-${stamp()}`;
	if (booked.length > 0) {
		say(
			`\n1. Appointment booked: ${appointmentId} on the fake API, then a signed appointment.created for it…`,
		);
		await seedAppointment({
			appointment_id: appointmentId,
			status: 'BK',
			start_time: tomorrowAtClinicTime(11, 30),
		});
		const before = new Set((await admin<GatewayMessage[]>('GET', '/messages')).map((m) => m.id));
		const accepted = await deliver(clinicEventSample('appointment-pw', { appointmentId }));
		if (accepted > 0) {
			say('   waiting for the reminder the workflow posts to the fake messaging gateway…');
			const deadline = Date.now() + 20_000;
			let arrived: GatewayMessage[] = [];
			while (Date.now() < deadline && arrived.length < accepted) {
				arrived = (await admin<GatewayMessage[]>('GET', '/messages')).filter(
					(m) => !before.has(m.id) && m.appointment_id === appointmentId,
				);
				if (arrived.length < accepted) await new Promise((resolve) => setTimeout(resolve, 500));
			}
			if (arrived.length === 0)
				say('   nothing arrived within 20 s: open the execution in n8n to see why.');
			for (const message of arrived)
				say(
					`   received ${message.id} (${String(message.body.channel)}): "${String(message.body.text)}"`,
				);
		}
	} else {
		say('\n1. Nothing subscribed to appointment.created: skipped.');
	}

	if (completed.length > 0) {
		say(
			'\n2. Appointment completed: a prescription with its PDF, the appointment completed with it (CM), then a signed appointment.statuschange…',
		);
		const seeded = await admin<SeededPrescription>('POST', '/prescriptions', {
			baseUrl,
			pdfText: `Prescription for ${appointmentId}`,
		});
		say(
			`   prescription ${seeded.prescription_id}, PDF ${seeded.prescription_url ?? seeded.pdf_path}`,
		);
		await seedAppointment({
			appointment_id: appointmentId,
			status: 'CM',
			start_time: tomorrowAtClinicTime(11, 30),
			prescription_id: seeded.prescription_id,
			prescription_url: seeded.prescription_url,
		});
		const accepted = await deliver(
			clinicEventSample('appointment-statuschange-pw', { appointmentId, status: 'CM' }),
		);
		if (accepted > 0) {
			say('   waiting for the workflow to fetch the prescription PDF…');
			const deadline = Date.now() + 20_000;
			let served: Array<{ status?: number }> = [];
			while (Date.now() < deadline && served.length === 0) {
				served = await admin<Array<{ status?: number }>>(
					'GET',
					`/requests?method=GET&path=${encodeURIComponent(seeded.pdf_path)}`,
				);
				if (served.length === 0) await new Promise((resolve) => setTimeout(resolve, 500));
			}
			if (served.length === 0)
				say('   no PDF request within 20 s: open the execution in n8n to see why.');
			else {
				say(
					`   the PDF was fetched (HTTP ${String(served[0].status)}); waiting for the e-mail in the local inbox…`,
				);
				const pdfName = `${seeded.prescription_id}.pdf`;
				const email = await inbox
					.waitForEmail((e) => e.attachments.some((a) => a.filename === pdfName), 20_000)
					.catch(() => undefined);
				say(
					email
						? `   e-mailed to ${email.to.map((t) => t.address).join(', ')}: "${email.subject}", with ${pdfName}; read it at ${inbox.webUrl}/`
						: `   no e-mail with ${pdfName} in the local inbox (${inbox.webUrl}/) within 20 s: open the execution in n8n to see why.`,
				);
			}
		}
	} else {
		say('\n2. Nothing subscribed to appointment.statuschange: skipped.');
	}

	say(`
Next:
  • See the runs in n8n: http://127.0.0.1:${n8nPort} → open the example workflow → Executions.
  • Every message the fake messaging gateway received:  curl ${baseUrl}/__admin/messages
  • Every e-mail sent:  ${inbox.webUrl}/`);
}

main().catch((error: unknown) => {
	if (error instanceof Stop) {
		process.stderr.write(`\n${error.message}\n`);
	} else {
		process.stderr.write(
			`\ndemo:clinic failed: ${error instanceof Error ? error.message : String(error)}\n`,
		);
	}
	process.exitCode = 1;
});
