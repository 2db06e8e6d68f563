/** Delay faults: pauses before routing that close() ends at once (the request is then not answered). */
export class PendingDelays {
	private readonly delays = new Set<{
		timer: NodeJS.Timeout;
		resolve: (completed: boolean) => void;
	}>();

	/** Resolves true after `ms`, or false when cancelled by cancelAll (the server is closing). */
	sleep(ms: number): Promise<boolean> {
		return new Promise((resolve) => {
			const entry = {
				timer: setTimeout(() => {
					this.delays.delete(entry);
					resolve(true);
				}, ms),
				resolve,
			};
			this.delays.add(entry);
		});
	}

	cancelAll(): void {
		for (const delay of this.delays) {
			clearTimeout(delay.timer);
			delay.resolve(false);
		}
		this.delays.clear();
	}
}
