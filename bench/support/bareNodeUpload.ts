/**
 * Bare Node's own streaming upload, the yardstick of issue 10's goal 2: `http.request` with the
 * file piped from `fs.createReadStream` between the multipart head and tail (the same frame the
 * node sends), exact Content-Length. Prints {"peakRssGrowthBytes": …} for this process.
 *
 *   node --import tsx bench/support/bareNodeUpload.ts <url> <target JSON> <path> <size> <fileName>
 */
import { createReadStream } from 'node:fs';
import { request } from 'node:http';

import { multipartFrame, type StorageTarget } from '../../nodes/ClinicScribe/transport/uploadBody';

async function main(): Promise<void> {
	const [url, targetJson, path, sizeText, fileName] = process.argv.slice(2);
	const target = JSON.parse(targetJson) as StorageTarget;
	const size = Number(sizeText);
	const frame = multipartFrame(target, { fileName, contentType: 'audio/wav', size });
	const baseline = process.memoryUsage.rss();
	let peak = baseline;
	const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
	const status = await new Promise<number>((resolveStatus, reject) => {
		const req = request(
			url,
			{
				method: 'POST',
				headers: {
					'content-type': `multipart/form-data; boundary=${frame.boundary}`,
					'content-length': String(frame.contentLength),
				},
			},
			(res) => {
				res.resume();
				res.once('end', () => resolveStatus(res.statusCode ?? 0));
			},
		);
		req.once('error', reject);
		req.write(frame.head);
		const file = createReadStream(path);
		file.once('error', reject);
		file.once('end', () => req.end(frame.tail));
		file.pipe(req, { end: false });
	});
	clearInterval(sampler);
	peak = Math.max(peak, process.memoryUsage.rss());
	if (status !== 204) throw new Error(`bare Node upload: storage answered ${status}`);
	process.stdout.write(`${JSON.stringify({ peakRssGrowthBytes: peak - baseline })}\n`);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
