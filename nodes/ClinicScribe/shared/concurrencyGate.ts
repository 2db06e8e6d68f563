/**
 * A gate that lets at most `limit` tasks run at once; the others wait in the order they asked.
 * Uses no timer: a finished task hands its place to the next waiting one.
 */
export function concurrencyGate(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
	let running = 0;
	const waiting: Array<() => void> = [];
	return async <T>(task: () => Promise<T>): Promise<T> => {
		if (running >= limit) await new Promise<void>((resolveTurn) => waiting.push(resolveTurn));
		else running++;
		try {
			return await task();
		} finally {
			const next = waiting.shift();
			// The place passes straight to the next task, so `running` stays as it is.
			if (next) next();
			else running--;
		}
	};
}
