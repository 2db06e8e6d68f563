/**
 * Attack: an id made only of dots, or empty after trimming, in every field that goes into a URL path.
 * URL parsers resolve "..", "%2E%2E" and "." segments, so such an id would reach another path of the
 * API (a doctor id ".." would call /dr/v1/doctor/). Each must be refused before any request, with an
 * error naming the field; the fake API must receive nothing. An odd but valid id must stay one
 * segment under its own route (checked on the path the fake resolved).
 */
import { deleteSubscription } from '../../../nodes/ClinicScribe/transport/webhookApi';
import { recordAttack } from '../../support/attackLedger';
import {
	item,
	resultsParameters,
	TranscriptionRig,
	uploadParameters,
} from '../../support/transcriptionRig';
import { caught, contextFor, credentialFor } from './helpers';

const rig = new TranscriptionRig();

beforeAll(async () => await rig.start());
afterAll(async () => await rig.stop());
beforeEach(() => rig.reset());

const DOTS = [
	['dot', '.'],
	['two-dots', '..'],
	['three-dots', '...'],
	['dots-in-spaces', ' .. '],
] as const;
const EMPTY = [
	['blank', '   '],
	['empty', ''],
] as const;

const doctorServices = (doctorId: string) => ({
	resource: 'doctor',
	operation: 'getServices',
	doctorId: { __rl: true, mode: 'id', value: doctorId },
	returnAll: true,
	options: {},
});

function expectNothingSent(row: string, error: Error, field: RegExp): void {
	expect(error.message).toMatch(field);
	const sent = rig.api.requests.length;
	expect(sent).toBe(0);
	recordAttack(row, `refused before any request: "${error.message}"`, {
		requestsForBadInput: sent,
	});
}

describe('Doctor ID', () => {
	it.each([...DOTS, ...EMPTY])('%s is refused before any request', async (label, value) => {
		const error = await caught(rig.run(doctorServices(value)));
		expectNothingSent(`dotted-id-doctor-${label}`, error, /Doctor/);
	});

	it('an odd but valid id stays one segment of its own route', async () => {
		await caught(rig.run(doctorServices('a/../b')));
		const [received] = rig.api.requestsTo('/dr/v1/doctor/service/');
		expect(received.route).toBe('/dr/v1/doctor/service/:doctorId');
		expect(received.path).toBe('/dr/v1/doctor/service/a%2F..%2Fb');
		expect(received.pathname).toBe('/dr/v1/doctor/service/a/../b');
	});
});

describe('Session ID (Get Results)', () => {
	it.each([...DOTS, ...EMPTY])('%s is refused before any request', async (label, value) => {
		const error = await caught(rig.run(resultsParameters(value)));
		expectNothingSent(`dotted-id-session-${label}`, error, /Session ID/);
	});
});

describe('Transaction ID (Upload Audio)', () => {
	// Empty means "generate one", so only the dotted forms are bad input here.
	it.each(DOTS)(
		'%s is refused before any request (no presign, upload or init)',
		async (label, value) => {
			const file = rig.audioFile('visit.wav', 1_000);
			const error = await caught(
				rig.run(uploadParameters({ transactionId: value }), {
					items: [item({ data: rig.storedBinary(file) })],
				}),
			);
			expectNothingSent(`dotted-id-transaction-${label}`, error, /Transaction ID/);
			expect(rig.fake.uploads()).toEqual([]);
		},
	);
});

describe('webhook subscription ID', () => {
	it.each([...DOTS, ...EMPTY])('%s is refused before any request', async (label, value) => {
		const store = await credentialFor(rig.api, true);
		rig.api.requests.length = 0;
		const error = await caught(deleteSubscription(contextFor(store), value));
		expectNothingSent(`dotted-id-subscription-${label}`, error, /subscription ID/);
	});
});

describe('Template ID (Template → Get, which reads the list)', () => {
	it.each([...DOTS, ...EMPTY])('%s is refused before any request', async (label, value) => {
		const error = await caught(
			rig.run({
				resource: 'template',
				operation: 'get',
				templateId: { __rl: true, mode: 'id', value },
			}),
		);
		expectNothingSent(`dotted-id-template-get-${label}`, error, /Template/);
	});
});

describe('a dot inside a segment is sent as a dot (RFC 3986), never %2E', () => {
	it('a session file name arrives as audio_0.wav, under its own route', async () => {
		const file = rig.audioFile('visit.wav', 1_000);
		await rig.run(
			uploadParameters({ uploadMethod: 'session', transactionId: 'dotted-segment-session-01' }),
			{ items: [item({ data: rig.storedBinary(file) })] },
		);
		const [upload] = rig.api.requestsTo(/\/audio\//, 'POST');
		expect(upload.path).toBe('/voice/v1/sessions/dotted-segment-session-01/audio/audio_0.wav');
		expect(upload.route).toBe('/voice/v1/sessions/:sessionId/audio/:fileName');
	});
});
