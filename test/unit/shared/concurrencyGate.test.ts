/**
 * The concurrency gate (shared/concurrencyGate.ts) that bounds Upload Audio's file uploads and the
 * reads of many items: at most `limit` holders at once, the others in the order they asked, a place
 * freed by a task that fails as by one that succeeds. Every task here ends when the test says so
 * (a deferred promise), so nothing depends on how fast the machine is.
 */
import { concurrencyGate } from '../../../nodes/ClinicScribe/shared/concurrencyGate';

interface Deferred<T> {
	promise: Promise<T>;
	resolve(value: T): void;
	reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
	let resolve!: (value: T) => void;
	let reject!: (error: unknown) => void;
	const promise = new Promise<T>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return { promise, resolve, reject };
}

/** Lets every promise callback that is ready run (one turn of the event loop), without a timer. */
async function settle(): Promise<void> {
	await new Promise<void>((resolve) => setImmediate(resolve));
}

/** `count` tasks through a gate of `limit`; each ends when the test resolves or rejects its deferred. */
function gatedTasks(limit: number, count: number) {
	const gate = concurrencyGate(limit);
	const ends = Array.from({ length: count }, () => deferred<string>());
	const started: number[] = [];
	let running = 0;
	let mostAtOnce = 0;
	const holder = async (end: Deferred<string>, index: number): Promise<string> => {
		const release = await gate.acquire();
		try {
			started.push(index);
			running++;
			mostAtOnce = Math.max(mostAtOnce, running);
			return await end.promise;
		} finally {
			running--;
			release();
		}
	};
	const results = ends.map((end, index) =>
		holder(end, index).then(
			(value) => ({ value }),
			(error: unknown) => ({ error }),
		),
	);
	return { ends, results, started, running: () => running, mostAtOnce: () => mostAtOnce };
}

describe('concurrencyGate', () => {
	test('starts at most `limit` tasks, the others when a place frees, in the order they asked', async () => {
		const run = gatedTasks(2, 5);
		await settle();
		expect(run.started).toEqual([0, 1]);

		run.ends[1].resolve('b');
		await settle();
		expect(run.started).toEqual([0, 1, 2]);
		expect(run.running()).toBe(2);

		run.ends[0].resolve('a');
		await settle();
		expect(run.started).toEqual([0, 1, 2, 3]);

		run.ends[2].resolve('c');
		run.ends[3].resolve('d');
		await settle();
		expect(run.started).toEqual([0, 1, 2, 3, 4]);
		run.ends[4].resolve('e');

		expect(await Promise.all(run.results)).toEqual([
			{ value: 'a' },
			{ value: 'b' },
			{ value: 'c' },
			{ value: 'd' },
			{ value: 'e' },
		]);
		expect(run.mostAtOnce()).toBe(2);
		expect(run.running()).toBe(0);
	});

	test('a task that fails gives its error to its caller alone and frees its place for the next one', async () => {
		const run = gatedTasks(1, 3);
		await settle();
		expect(run.started).toEqual([0]);

		const failure = new Error('storage refused');
		run.ends[0].reject(failure);
		await settle();
		expect(run.started).toEqual([0, 1]);

		run.ends[1].resolve('second');
		await settle();
		run.ends[2].resolve('third');

		expect(await Promise.all(run.results)).toEqual([
			{ error: failure },
			{ value: 'second' },
			{ value: 'third' },
		]);
		expect(run.mostAtOnce()).toBe(1);
	});

	test('a task that throws before it awaits anything frees its place too', async () => {
		const gate = concurrencyGate(1);
		const thrown = new Error('bad input');
		const throwAtOnce = (): string => {
			throw thrown;
		};
		const through = async (task: () => string | Promise<string>): Promise<string> => {
			const release = await gate.acquire();
			try {
				return await task();
			} finally {
				release();
			}
		};
		const first = through(throwAtOnce);
		const second = through(async () => await Promise.resolve('after'));

		await expect(first).rejects.toBe(thrown);
		await expect(second).resolves.toBe('after');
	});

	test('a place given back twice frees one place, not two', async () => {
		const gate = concurrencyGate(1);
		const release = await gate.acquire();
		const second = gate.acquire();
		const third = gate.acquire();
		let thirdThrough = false;
		void third.then(() => (thirdThrough = true));
		release();
		release();
		const releaseSecond = await second;
		await settle();
		expect(thirdThrough).toBe(false);
		releaseSecond();
		(await third)();
		expect(thirdThrough).toBe(true);
	});

	test('with fewer tasks than places, every task starts at once', async () => {
		const run = gatedTasks(6, 3);
		await settle();
		expect(run.started).toEqual([0, 1, 2]);
		for (const [index, end] of run.ends.entries()) end.resolve(String(index));
		expect(await Promise.all(run.results)).toEqual([
			{ value: '0' },
			{ value: '1' },
			{ value: '2' },
		]);
	});

	test('the gate stays usable after it ran empty: later tasks are bounded the same way', async () => {
		const gate = concurrencyGate(1);
		(await gate.acquire())();

		const run = { started: [] as number[] };
		const ends = [deferred<void>(), deferred<void>()];
		const later = ends.map(async (end, index) => {
			const release = await gate.acquire();
			try {
				run.started.push(index);
				await end.promise;
			} finally {
				release();
			}
		});
		await settle();
		expect(run.started).toEqual([0]);
		ends[0].resolve();
		await settle();
		expect(run.started).toEqual([0, 1]);
		ends[1].resolve();
		await Promise.all(later);
	});
});
