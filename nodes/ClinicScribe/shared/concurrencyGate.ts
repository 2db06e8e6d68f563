/** A place taken at a concurrency gate: give it back once, when the work it holds has ended. */
type ReleaseGate = () => void;

export interface ConcurrencyGate {
	/**
	 * Waits for a place (at once while fewer than `limit` are taken; else in the order asked) and
	 * gives the function that frees it. Take it right before the bounded work and free it in a
	 * `finally`, so a failure frees it as a success does.
	 */
	acquire(): Promise<ReleaseGate>;
}

/**
 * A gate that lets at most `limit` holders through at once; the others wait in the order they
 * asked. Uses no timer: a freed place passes straight to the next waiting holder.
 */
export function concurrencyGate(limit: number): ConcurrencyGate {
	let taken = 0;
	const waiting: Array<() => void> = [];
	const releaseOnce = (): ReleaseGate => {
		let released = false;
		return () => {
			if (released) return;
			released = true;
			const next = waiting.shift();
			// The place passes straight to the next holder, so `taken` stays as it is.
			if (next) next();
			else taken--;
		};
	};
	return {
		async acquire() {
			if (taken >= limit) await new Promise<void>((resolveTurn) => waiting.push(resolveTurn));
			else taken++;
			return releaseOnce();
		},
	};
}
