/**
 * The Clinic Scribe Trigger's answer time inside n8n (issue 27: nothing else gets slower): a
 * published trigger on `appointment.created` with Include Appointment (it fetches the appointment
 * before it answers the service), signed deliveries from the fake service one after another, and the
 * time from sending each delivery to the trigger's answer. The fake API answers the fetch at once,
 * so the figure is the trigger's own work (verification, the fetch through the transport, starting
 * the run). Prints min / median / max over the deliveries, after a few not counted.
 *
 *   npm run bench:trigger -- [--deliveries 40]
 */
import { randomUUID } from 'node:crypto';

import { clinicEventSample } from '../test/fake-api/clinicEventSamples';
import { fakeAppointments } from '../test/fake-api/routes/appointment';
import { fakeWebhooks } from '../test/fake-api/routes/webhooks';
import { triggerWorkflow } from '../test/support/n8n/trigger';
import { CREDENTIAL_TYPE } from '../test/support/n8n/workflows';
import {
	argument,
	BENCH_CREDENTIAL,
	formatSpread,
	requireNode24,
	runBench,
	say,
	spread,
	startBenchFakeApi,
	startBenchN8n,
} from './support/inN8n';

const WARM_UP = 3;

async function main(): Promise<void> {
	requireNode24();
	const deliveries = argument('deliveries', 40);
	const fake = await startBenchFakeApi();
	const { api } = fake;
	const workflow = triggerWorkflow({
		id: 'benchTriggerAnswer1',
		name: 'bench-trigger-answer',
		webhookId: randomUUID(),
		parameters: { events: ['appointment.created'], includeRecord: true },
	});
	workflow.nodes[0].credentials = { [CREDENTIAL_TYPE]: BENCH_CREDENTIAL };
	say(
		`trigger bench: ${deliveries} deliveries (after ${WARM_UP} not counted), Node ${process.version}, fake API ${api.url}; starting n8n…`,
	);
	const bench = await startBenchN8n({ api, workflows: [workflow] });
	try {
		const answerMs: number[] = [];
		for (let i = 0; i < WARM_UP + deliveries; i++) {
			const appointmentId = `appt-bench-${i}`;
			fakeAppointments(api).seed({ appointment_id: appointmentId, start_time: 1795500000 });
			const started = performance.now();
			const report = await fakeWebhooks(api).deliver({
				body: clinicEventSample('appointment-pw', { appointmentId }),
			});
			const ms = performance.now() - started;
			const statuses = report.attempts.map((attempt) => attempt.status);
			if (statuses.length !== 1 || statuses[0] !== 200)
				throw new Error(`delivery ${i}: the trigger answered ${JSON.stringify(statuses)}`);
			if (api.requestsTo(`/dr/v1/appointment/${appointmentId}`, 'GET').length !== 1)
				throw new Error(`delivery ${i}: the appointment was not fetched once`);
			if (i >= WARM_UP) answerMs.push(ms);
		}
		say();
		say(
			`the trigger's answer to the service, ms, min / median / max of ${deliveries} deliveries (inside n8n 2.41.1, Node ${process.version}):`,
		);
		say(
			`  Include Appointment, the appointment answered at once: ${formatSpread(spread(answerMs), 1)}`,
		);
	} finally {
		await bench.dispose();
		await api.close();
	}
}

runBench(main);
