/**
 * The one retry loop (transport/retryPolicy.ts): attempts, the answer's Retry-After, Stop during a pause,
 * and the rule of what may be sent again. Every repeated call of the package goes through it; the
 * calls themselves are proven over real HTTP in the integration tests.
 */
import {
	isTransientNetworkFailure,
	mayRetry,
	outcomeUnknown,
	withRetries,
} from '../../../nodes/ClinicScribe/transport/retryPolicy';

/** What an attempt gives `withRetries`: a value, or a failure worth another try (with the answer's Retry-After). */
type AttemptResult<T> =
	| { kind: 'done'; value: T }
	| { kind: 'retry'; error: Error; retryAfter?: string | string[] };

/**
 * The pauses asked of n8n's sleep (ms). It ends them at once, or (`endless`) never, as n8n 1.x's
 * ignores a signal; `onPause` runs once a pause has begun.
 */
const pauses: number[] = [];
let endless = false;
let onPause: (() => void) | undefined;

jest.mock('n8n-workflow', () => ({
	...jest.requireActual('n8n-workflow'),
	sleep: async (ms: number) => {
		pauses.push(ms);
		onPause?.();
		if (endless) await new Promise<never>(() => undefined);
	},
}));

beforeEach(() => {
	pauses.length = 0;
	endless = false;
	onPause = undefined;
	// The random half of the back-off, fixed at its middle unless a test says otherwise.
	jest.spyOn(Math, 'random').mockReturnValue(0.5);
});

afterEach(() => {
	jest.restoreAllMocks();
});

const FAST = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 };

/** An attempt function that answers from a script, counting its calls. */
function scripted<T>(results: Array<AttemptResult<T>>) {
	const seen: number[] = [];
	return {
		seen,
		attempt: async (attempt: number) => {
			seen.push(attempt);
			return results[Math.min(attempt, results.length) - 1];
		},
	};
}

const retry = (message: string, retryAfter?: string): AttemptResult<string> => ({
	kind: 'retry',
	error: new Error(message),
	retryAfter,
});

describe('withRetries', () => {
	test('tries again until done, numbering the attempts', async () => {
		const script = scripted([retry('first'), retry('second'), { kind: 'done', value: 'third' }]);
		await expect(withRetries(FAST, script.attempt)).resolves.toBe('third');
		expect(script.seen).toEqual([1, 2, 3]);
	});

	test("throws the last attempt's error once the policy's attempts are used up", async () => {
		const script = scripted([
			retry('first'),
			retry('second'),
			retry('third'),
			{ kind: 'done', value: 'never' },
		]);
		await expect(withRetries(FAST, script.attempt)).rejects.toThrow('third');
		expect(script.seen).toEqual([1, 2, 3]);
	});

	test('an attempt that throws ends the loop at once (a failure not worth another try)', async () => {
		let calls = 0;
		const attempt = async (): Promise<AttemptResult<string>> => {
			calls++;
			throw new Error('refused');
		};
		await expect(withRetries(FAST, attempt)).rejects.toThrow('refused');
		expect(calls).toBe(1);
	});

	test("the pause: the answer's Retry-After (seconds or a date, bounded by the policy), else exponential back-off", async () => {
		const script = scripted([
			retry('busy'),
			retry('busy', '2'),
			retry('busy', '3600'),
			retry('busy', new Date(Date.now() + 60_000).toUTCString()),
			retry('busy', new Date(0).toUTCString()),
			retry('busy'),
			retry('busy'),
			{ kind: 'done', value: 'ok' },
		]);
		await expect(
			withRetries({ attempts: 8, baseDelayMs: 100, maxDelayMs: 5_000 }, script.attempt),
		).resolves.toBe('ok');
		// Attempts 1, 6 and 7 had no Retry-After: 100 * 2^(attempt - 1), at most the policy's maximum,
		// half of it fixed and half random (here the random half's middle: 3/4 of it).
		expect(pauses).toEqual([75, 2_000, 5_000, 5_000, 0, 2_400, 3_750]);
	});

	test('the back-off without a Retry-After is half fixed, half random: calls refused together come back at different times', async () => {
		const backOff = (random: number) => {
			jest.spyOn(Math, 'random').mockReturnValue(random);
			pauses.length = 0;
			return withRetries(
				{ attempts: 4, baseDelayMs: 100, maxDelayMs: 5_000 },
				scripted([retry('busy'), retry('busy'), retry('busy'), { kind: 'done', value: 'ok' }])
					.attempt,
			).then(() => [...pauses]);
		};
		expect(await backOff(0)).toEqual([50, 100, 200]);
		expect(await backOff(0.999)).toEqual([99.95, 199.9, 399.8]);

		jest.restoreAllMocks();
		const runs: number[][] = [];
		for (let run = 0; run < 20; run++) {
			pauses.length = 0;
			await withRetries(
				{ attempts: 2, baseDelayMs: 1_000, maxDelayMs: 5_000 },
				scripted([retry('busy'), { kind: 'done', value: 'ok' }]).attempt,
			);
			runs.push([...pauses]);
		}
		const firstPauses = runs.map(([pause]) => pause);
		expect(firstPauses.every((pause) => pause >= 500 && pause < 1_000)).toBe(true);
		expect(new Set(firstPauses).size).toBeGreaterThan(1);
	});

	test('the back-off follows the policy it is given', async () => {
		const script = scripted([
			retry('busy'),
			retry('busy'),
			retry('busy'),
			retry('busy', '3600'),
			{ kind: 'done', value: 'ok' },
		]);
		await expect(
			withRetries({ attempts: 5, baseDelayMs: 10, maxDelayMs: 25 }, script.attempt),
		).resolves.toBe('ok');
		expect(pauses).toEqual([7.5, 15, 18.75, 25]);
	});

	test("Stop during the pause ends it at once with the stop error, though n8n's sleep would never end; nothing is tried again", async () => {
		endless = true;
		const controller = new AbortController();
		onPause = () => controller.abort();
		let calls = 0;
		const attempt = async (): Promise<AttemptResult<string>> => {
			calls++;
			return retry('busy');
		};
		await expect(
			withRetries(FAST, attempt, {
				signal: controller.signal,
				stopped: () => new Error('stopped'),
			}),
		).rejects.toThrow('stopped');
		expect(calls).toBe(1);
		expect(pauses).toEqual([0.75]);
	});

	test('a signal that fired during the attempt: the stop is reported, not the failure', async () => {
		const controller = new AbortController();
		const attempt = async (): Promise<AttemptResult<string>> => {
			controller.abort();
			return retry('reset');
		};
		await expect(
			withRetries(FAST, attempt, {
				signal: controller.signal,
				stopped: () => new Error('stopped'),
			}),
		).rejects.toThrow('stopped');
	});
});

describe('what may be sent again', () => {
	test.each([
		// [idempotent, repeatAfterServerError, status (undefined: no answer), may repeat]
		[true, false, undefined, true],
		[true, false, 500, true],
		[false, false, undefined, false],
		[false, false, 500, false],
		[false, false, 503, false],
		[false, false, 408, true],
		[false, false, 429, true],
		[false, true, 500, true],
		[false, true, 429, true],
		[false, true, undefined, false],
	])(
		'idempotent %s, repeat after a 5xx %s, answer %s: %s',
		(idempotent, repeatAfterServerError, status, expected) => {
			const failure =
				status === undefined
					? { noAnswer: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) }
					: { status };
			expect(mayRetry(failure, { idempotent, repeatAfterServerError })).toBe(expected);
		},
	);

	test('no answer or a 5xx leaves the outcome unknown; any other answer does not', () => {
		expect([undefined, 500, 502, 504].map((status) => outcomeUnknown(status))).toEqual([
			true,
			true,
			true,
			true,
		]);
		expect([200, 400, 408, 409, 429].map((status) => outcomeUnknown(status))).toEqual([
			false,
			false,
			false,
			false,
			false,
		]);
	});
});

describe('mayRetry: the one rule every repeated request follows (clinic API calls, the token exchange, storage uploads, links)', () => {
	test.each([
		[408, true],
		[429, true],
		[500, true],
		[502, true],
		[503, true],
		[504, true],
		[501, false],
		[505, false],
		[507, false],
		[400, false],
		[401, false],
		[403, false],
		[404, false],
		[409, false],
		[422, false],
	])('a request safe to repeat, answered %s: sent again %s', (status, expected) => {
		expect(mayRetry({ status })).toBe(expected);
	});

	test.each([
		['ECONNRESET', true],
		['ECONNREFUSED', true],
		['EPIPE', true],
		['ETIMEDOUT', true],
		['ECONNABORTED', true],
		['ESOCKETTIMEDOUT', true],
		['EAI_AGAIN', true],
		['ENOTFOUND', false],
		['ERR_CANCELED', false],
		[undefined, false],
	])('no answer, system error %s: sent again %s', (code, expected) => {
		const thrown = Object.assign(new Error('failed'), code === undefined ? {} : { code });
		expect(mayRetry({ noAnswer: thrown })).toBe(expected);
		expect(isTransientNetworkFailure(thrown)).toBe(expected);
	});

	test('the code is read where n8n keeps it: on a cause (n8n 2.x) or as the httpCode (n8n 1.x)', () => {
		expect(
			mayRetry({
				noAnswer: Object.assign(new Error('wrapped'), {
					cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
				}),
			}),
		).toBe(true);
		expect(
			mayRetry({ noAnswer: Object.assign(new Error('wrapped'), { httpCode: 'ECONNRESET' }) }),
		).toBe(true);
		expect(mayRetry({ noAnswer: Object.assign(new Error('wrapped'), { httpCode: '500' }) })).toBe(
			false,
		);
	});

	test('a call that is not safe to repeat: only an answer that says it was not taken, or a 5xx the API makes harmless', () => {
		const booking = { idempotent: false };
		expect([408, 429, 500, 503].map((status) => mayRetry({ status }, booking))).toEqual([
			true,
			true,
			false,
			false,
		]);
		expect(
			mayRetry({ noAnswer: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }, booking),
		).toBe(false);
		const end = { idempotent: false, repeatAfterServerError: true };
		expect([429, 500, 501, 503].map((status) => mayRetry({ status }, end))).toEqual([
			true,
			true,
			false,
			true,
		]);
	});
});
