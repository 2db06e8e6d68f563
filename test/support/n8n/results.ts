/** Reading an execution's results: what `n8n execute` prints and what the REST API returns. */

export interface NodeItem {
	json: Record<string, unknown>;
	binary?: Record<string, unknown>;
	pairedItem?: unknown;
	[key: string]: unknown;
}

export interface NodeRun {
	executionStatus?: string;
	executionTime?: number;
	data?: { main?: Array<NodeItem[] | null> };
	error?: ExecutionError;
	[key: string]: unknown;
}

export interface ExecutionError {
	message: string;
	description?: string | null;
	name?: string;
	httpCode?: string | number;
	node?: { name: string; type: string };
	[key: string]: unknown;
}

export interface ExecutionResult {
	status: string;
	/** Node name → its runs, as n8n stores them. */
	runData: Record<string, NodeRun[]>;
	/** The workflow's error when the run failed; undefined when it succeeded. */
	error?: ExecutionError;
	lastNodeExecuted?: string;
	/** The whole run as n8n reported it. */
	raw: Record<string, unknown>;
	/** How the `n8n execute` process ended (execute() only). */
	processExit?: { code: number | null; signal: NodeJS.Signals | null };
}

/**
 * Output items of a node's first run (main output 0 unless told). Throws with the execution's
 * error when the node did not produce output, so a failed run never looks like "0 items".
 */
export function nodeOutput(
	result: ExecutionResult,
	nodeName: string,
	options: { run?: number; output?: number } = {},
): NodeItem[] {
	const runs = result.runData[nodeName];
	const run = runs?.[options.run ?? 0];
	if (!run) {
		throw new Error(
			`node "${nodeName}" did not run (ran: ${Object.keys(result.runData).join(', ') || 'nothing'})` +
				describeError(result),
		);
	}
	if (run.error)
		throw new Error(
			`node "${nodeName}" failed: ${run.error.message}${run.error.description ? ` — ${run.error.description}` : ''}`,
		);
	const items = run.data?.main?.[options.output ?? 0];
	if (!items)
		throw new Error(
			`node "${nodeName}" has no output ${options.output ?? 0}` + describeError(result),
		);
	return items;
}

/** JSON of a node's output items. */
export function nodeJson(
	result: ExecutionResult,
	nodeName: string,
	options: { run?: number; output?: number } = {},
): Array<Record<string, unknown>> {
	return nodeOutput(result, nodeName, options).map((item) => item.json);
}

function describeError(result: ExecutionResult): string {
	if (!result.error) return '';
	return `; execution error: ${result.error.message}${result.error.description ? ` — ${result.error.description}` : ''}`;
}

/** Turns the run object n8n prints (or stores) into an ExecutionResult. */
export function toExecutionResult(run: Record<string, unknown>): ExecutionResult {
	const data = run.data as
		| {
				resultData?: {
					runData?: Record<string, NodeRun[]>;
					error?: ExecutionError;
					lastNodeExecuted?: string;
				};
		  }
		| undefined;
	const resultData = data?.resultData ?? {};
	return {
		status: String(run.status ?? (resultData.error ? 'error' : 'unknown')),
		runData: resultData.runData ?? {},
		error: resultData.error,
		lastNodeExecuted: resultData.lastNodeExecuted,
		raw: run,
	};
}

/**
 * Finds the run in `n8n execute`'s output (N8N_LOG_FORMAT=json): a log line whose message is the
 * run as JSON. n8n prints it after "Execution was successful" and after "Execution error:" alike.
 */
export function parseExecuteOutput(output: string): Record<string, unknown> | undefined {
	const lines = output.split('\n');
	for (let i = lines.length - 1; i >= 0; i--) {
		const line = lines[i].trim();
		if (!line.startsWith('{')) continue;
		let entry: { message?: unknown };
		try {
			entry = JSON.parse(line) as { message?: unknown };
		} catch {
			continue;
		}
		if (typeof entry.message !== 'string' || !entry.message.trimStart().startsWith('{')) continue;
		try {
			const run = JSON.parse(entry.message) as Record<string, unknown>;
			if (run && typeof run === 'object' && 'data' in run && typeof run.data === 'object')
				return run;
		} catch {
			// another JSON-looking message
		}
	}
	return undefined;
}

/** flatted's parse (n8n stores and sends run data in that form); small enough to keep here. */
export function flattedParse(text: string): unknown {
	// Every string becomes a String object: inside objects they are references (indexes into the
	// array); the array's own string entries are the real strings.
	const input = (
		JSON.parse(text, (_key, value: unknown) =>
			typeof value === 'string' ? new String(value) : value,
		) as unknown[]
	).map((v) => (v instanceof String ? String(v) : v));
	const revived = new Set<unknown>();
	const revive = (container: Record<string, unknown>): void => {
		for (const key of Object.keys(container)) {
			const value = container[key];
			if (!(value instanceof String)) continue;
			const target = input[Number(value)];
			container[key] = target;
			if (target !== null && typeof target === 'object' && !revived.has(target)) {
				revived.add(target);
				revive(target as Record<string, unknown>);
			}
		}
	};
	const root = input[0];
	if (root !== null && typeof root === 'object') {
		revived.add(root);
		revive(root as Record<string, unknown>);
	}
	return root;
}
