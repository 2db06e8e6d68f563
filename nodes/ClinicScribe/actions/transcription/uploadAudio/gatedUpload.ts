/**
 * The one way both flows upload an upload's files: through the run's gate, several at once, and
 * stopping at the first failure.
 */
import { UploadHalted, type BatchRun, type UploadProgress } from './batchRun';
import type { PlannedFile } from './files';
import type { UploadPlan } from './plan';

type FileResult<T> = { kind: 'sent'; answer: T } | { kind: 'failed'; error: unknown } | { kind: 'not_sent' };

/**
 * Sends each file with `send`, at most as many at once as the run's gate lets through. A file that
 * fails stops the files of this upload not yet begun, and the run hears of it at once
 * (noteFailure); the first failure in file order is thrown once every begun file has ended, so no
 * upload outlives the node. Files not begun because the run was halted: UploadHalted. Otherwise
 * the answers, in file order.
 */
export async function uploadThroughGate<T>(
	run: BatchRun,
	plan: UploadPlan,
	progress: UploadProgress,
	files: PlannedFile[],
	send: (file: PlannedFile) => Promise<T>,
): Promise<T[]> {
	let failed = false;
	const results = await Promise.all(
		files.map(
			async (file) =>
				await run.uploadGate(async (): Promise<FileResult<T>> => {
					if (failed || run.halted()) return { kind: 'not_sent' };
					progress.uploadsSent++;
					try {
						return { kind: 'sent', answer: await send(file) };
					} catch (error) {
						failed = true;
						run.noteFailure(plan, error);
						return { kind: 'failed', error };
					}
				}),
		),
	);
	const failure = results.find((result) => result.kind === 'failed');
	if (failure) throw failure.error;
	const answers = results.flatMap((result) => (result.kind === 'sent' ? [result.answer] : []));
	if (answers.length < results.length) throw new UploadHalted();
	return answers;
}
