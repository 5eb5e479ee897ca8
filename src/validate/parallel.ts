import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { checkFile, type FileCheckOptions, type FileResult } from './check-file.js';
import type { WorkerBatch, WorkerResult } from './worker.js';

/**
 * Below this many files, a worker costs more than it saves: it loads the validator and warms up
 * its JIT again, ~0.1 s before it checks its first file and ~0.3-0.5 s of CPU in all on 10,000
 * files (10,000 files: 1.08 s of CPU on one thread, 1.65 s with one worker besides; bench/RESULTS.md).
 * With the fast path a clean file costs ~40-70 us, so a second thread saves ~35 us a file and
 * pays for itself from some 3,000 files on a free core. When the loader read every file (~0.5 ms
 * each) workers paid from 2,000 files.
 */
export const AUTO_PARALLEL_MIN_FILES = 5_000;
const BATCH = 250;

interface Batch {
  id: number;
  files: string[];
}

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
 * Checks `files` (`checkFile`: the fast path or the loader, then every per-document check) on
 * `threads` threads: the main thread and `threads - 1` workers take batches from one queue (the
 * main thread also takes over the batches of a worker that fails). Results are stored by
 * position, so they are the same, in the same order, whatever the thread count and timing.
 */
export async function checkAllFiles(
  files: readonly string[],
  options: { threads: number; load: FileCheckOptions },
): Promise<FileResult[]> {
  const results = new Array<FileResult>(files.length);
  const script = options.threads > 1 ? workerScript() : undefined;
  const queue: Batch[] = [];
  for (let id = 0; id < files.length; id += BATCH) queue.push({ id, files: files.slice(id, id + BATCH) });
  const runHere = async (batch: Batch): Promise<void> => {
    for (let i = 0; i < batch.files.length; i++) results[batch.id + i] = await checkFile(batch.files[i]!, options.load);
  };

  if (script !== undefined) {
    // Loaded only for a threaded run: the module costs ~5 ms of start-up.
    const { Worker } = await import('node:worker_threads');
    // A function cannot cross to a worker; only the main thread reads standard input anyway.
    const { readStdin: _, ...workerOptions } = options.load;
    const leftovers: Batch[] = [];
    const workers = Array.from(
      { length: options.threads - 1 },
      () =>
        new Promise<void>((resolve) => {
          const worker = new Worker(script, { resourceLimits: workerLimits });
          const inFlight: Batch[] = [];
          const done = (): void => void worker.terminate().then(() => resolve());
          const feed = (): boolean => {
            const next = queue.shift();
            if (next === undefined) return false;
            inFlight.push(next);
            worker.postMessage({ ...next, options: workerOptions } satisfies WorkerBatch);
            return true;
          };
          worker.on('message', (msg: WorkerResult) => {
            inFlight.splice(
              inFlight.findIndex((b) => b.id === msg.id),
              1,
            );
            msg.results.forEach((r, i) => {
              results[msg.id + i] = r;
            });
            if (!feed() && inFlight.length === 0) done();
          });
          // A worker that fails (out of memory, a bug) hands its batches back; the run goes on.
          worker.on('error', () => {
            leftovers.push(...inFlight.splice(0));
            resolve();
          });
          // Two batches in flight, so that a worker never waits while the main thread checks one.
          if (!feed()) done();
          else feed();
        }),
    );
    // The main thread checks batches too, and lets the workers' answers in between them.
    for (let batch = queue.shift(); batch !== undefined; batch = queue.shift()) {
      await runHere(batch);
      await new Promise<void>((next) => setImmediate(next));
    }
    await Promise.all(workers);
    for (const batch of leftovers) await runHere(batch);
    return results;
  }
  for (const batch of queue) await runHere(batch);
  return results;
}
