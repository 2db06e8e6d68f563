/**
 * A GC observer to preload into n8n (diagnostic, bench/upload-profile.ts):
 *
 *   bash bench/node24.sh bench/upload-profile.ts --print-window \
 *     --node-options "--require $PWD/bench/support/gcObserver.cjs"
 *
 * Every process that loads it appends one line per collection to $GC_OBSERVER_DIR/gc-<pid>.log
 * (default: the temp folder): epoch ms, kind (major / minor / incr / weak), pause in ms, heap used,
 * external and ArrayBuffer memory in MiB. The file of `n8n start` is the one whose first line says
 * so; compare its times with the storage POST windows that --print-window prints.
 */
const { PerformanceObserver, constants, performance } = require('node:perf_hooks');
const { openSync, writeSync } = require('node:fs');
const { join } = require('node:path');
const { tmpdir } = require('node:os');

const out = openSync(join(process.env.GC_OBSERVER_DIR || tmpdir(), `gc-${process.pid}.log`), 'a');
const kinds = {
	[constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
	[constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
	[constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incr',
	[constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
};
const mib = (bytes) => (bytes / 1048576).toFixed(0);
new PerformanceObserver((list) => {
	for (const entry of list.getEntries()) {
		const memory = process.memoryUsage();
		writeSync(
			out,
			`${Math.round(performance.timeOrigin + entry.startTime)} ${kinds[entry.detail.kind] || entry.detail.kind} ${entry.duration.toFixed(2)} heap=${mib(memory.heapUsed)} ext=${mib(memory.external)} ab=${mib(memory.arrayBuffers)}\n`,
		);
	}
}).observe({ entryTypes: ['gc'] });
writeSync(out, `start ${process.argv.join(' ')}\n`);
