import { parentPort } from 'node:worker_threads';
import { checkFast, type FastPassed } from './fast-path.js';

/**
 * A fast-path worker for big runs (`parallel.ts`): it checks the batches of files the main thread
 * sends, and answers with one entry per file (the clean file's name, or null: load it fully).
 */
export interface WorkerBatch {
  id: number;
  files: string[];
  maxFileBytes?: number;
}

export interface WorkerResult {
  id: number;
  results: Array<FastPassed | null>;
}

parentPort?.on('message', (batch: WorkerBatch) => {
  const results = batch.files.map((f) => checkFast(f, batch.maxFileBytes) ?? null);
  parentPort!.postMessage({ id: batch.id, results } satisfies WorkerResult);
});
