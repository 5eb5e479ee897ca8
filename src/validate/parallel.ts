import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { checkFast, type FastPassed } from './fast-path.js';
import type { WorkerBatch, WorkerResult } from './worker.js';

/** Below this many files, starting a worker (loading the validator again) costs more than it saves. */
export const AUTO_PARALLEL_MIN_FILES = 1500;
const BATCH = 250;

/**
 * The built worker script next to this module (`dist/validate/worker.js`, or `dist/worker.js`
 * beside the single-file bundle). Running from TypeScript sources there is none: the run is then
 * sequential, with the same results.
 */
function workerScript(): URL | undefined {
  const url = new URL('./worker.js', import.meta.url);
  return url.protocol === 'file:' && existsSync(fileURLToPath(url)) ? url : undefined;
}

/** How many threads a run of `count` files uses: `jobs` when given, else all cores for big runs. */
export function threadsFor(count: number, jobs: number | undefined): number {
  if (jobs !== undefined) return Math.max(1, Math.min(jobs, count));
  return count >= AUTO_PARALLEL_MIN_FILES ? Math.min(availableParallelism(), 4) : 1;
}

/**
 * Runs the fast-path check over `files` on `threads` threads: the main thread and `threads - 1`
 * workers take batches from one queue. Results are stored by position, so they are the same, in
 * the same order, whatever the thread count and timing.
 */
export async function checkAllFast(files: readonly string[], options: { threads: number; maxFileBytes?: number }): Promise<Array<FastPassed | undefined>> {
  const results = new Array<FastPassed | undefined>(files.length);
  const script = options.threads > 1 ? workerScript() : undefined;
  let next = 0;
  const take = (): { id: number; files: string[] } | undefined => {
    if (next >= files.length) return undefined;
    const id = next;
    next = Math.min(files.length, next + BATCH);
    return { id, files: files.slice(id, next) };
  };

  const workers: Array<Promise<void>> = [];
  if (script !== undefined) {
    for (let w = 0; w < options.threads - 1; w++) {
      workers.push(
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(script);
          const feed = (): void => {
            const batch = take();
            if (batch === undefined) {
              void worker.terminate().then(() => resolve());
              return;
            }
            worker.postMessage({ ...batch, ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}) } satisfies WorkerBatch);
          };
          worker.on('message', (msg: WorkerResult) => {
            msg.results.forEach((r, i) => {
              results[msg.id + i] = r ?? undefined;
            });
            feed();
          });
          worker.on('error', reject);
          feed();
        }),
      );
    }
  }
  // The main thread works too, yielding between batches so that workers are fed promptly.
  for (let batch = take(); batch !== undefined; batch = take()) {
    batch.files.forEach((f, i) => {
      results[batch!.id + i] = checkFast(f, options.maxFileBytes);
    });
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  await Promise.all(workers);
  return results;
}
