import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { checkFile, type FileCheckOptions, type FileResult } from './check-file.js';
import type { WorkerBatch, WorkerResult } from './worker.js';

/**
 * Below this many files, workers cost more than they save: each loads the validator and warms up
 * its JIT again (~0.3 s of CPU here). Every file is parsed by yaml (~0.5 ms a file), so workers
 * pay off early. Measured on the 2-core VM (bench/RESULTS.md), with other work on the cores:
 * one thread against two workers, 1,000 files 0.74 s vs 0.92 s, 2,000 files 1.24 s vs 1.17 s,
 * 3,000 files 1.78 s vs 1.43 s, 10,000 files 3.9 s vs 2.9 s.
 */
export const AUTO_PARALLEL_MIN_FILES = 2_000;
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
 * Each worker's heap is kept small: a worker holds one file at a time, and a small heap is
 * collected often, which keeps the peak memory of 100,000-file runs flat (a default-sized heap
 * grows to hundreds of MB of garbage before V8 collects it).
 */
const workerLimits = { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 24 };

/**
 * Checks `files` (`checkFile`: the loader, then every per-document check) on `threads` threads. With one thread the main thread
 * does the work; with more, that many workers take batches from one queue while the main thread
 * only feeds them (and takes over the batches of a worker that fails). Results are stored by
 * position, so they are the same, in the same order, whatever the thread count and timing.
 */
export async function checkAllFiles(
  files: readonly string[],
  options: { threads: number; load: FileCheckOptions },
): Promise<FileResult[]> {
  const results = new Array<FileResult>(files.length);
  const script = options.threads > 1 ? workerScript() : undefined;
  const queue: Array<{ id: number; files: string[] }> = [];
  for (let id = 0; id < files.length; id += BATCH) queue.push({ id, files: files.slice(id, id + BATCH) });
  const runHere = async (batch: { id: number; files: string[] }): Promise<void> => {
    for (let i = 0; i < batch.files.length; i++) results[batch.id + i] = await checkFile(batch.files[i]!, options.load);
  };

  if (script !== undefined) {
    // A function cannot cross to a worker; only the main thread reads standard input anyway.
    const { readStdin: _, ...workerOptions } = options.load;
    const leftovers: Array<{ id: number; files: string[] }> = [];
    const workers = Array.from(
      { length: options.threads },
      () =>
        new Promise<void>((resolve) => {
          const worker = new Worker(script, { resourceLimits: workerLimits });
          let current: { id: number; files: string[] } | undefined;
          const feed = (): void => {
            current = queue.shift();
            if (current === undefined) {
              void worker.terminate().then(() => resolve());
              return;
            }
            worker.postMessage({ ...current, options: workerOptions } satisfies WorkerBatch);
          };
          worker.on('message', (msg: WorkerResult) => {
            msg.results.forEach((r, i) => {
              results[msg.id + i] = r;
            });
            feed();
          });
          // A worker that fails (out of memory, a bug) hands its batch back; the run goes on.
          worker.on('error', () => {
            if (current !== undefined) leftovers.push(current);
            current = undefined;
            resolve();
          });
          feed();
        }),
    );
    await Promise.all(workers);
    for (const batch of [...leftovers, ...queue.splice(0)]) await runHere(batch);
    return results;
  }
  for (const batch of queue) await runHere(batch);
  return results;
}
