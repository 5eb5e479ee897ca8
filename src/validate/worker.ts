import { parentPort } from 'node:worker_threads';
import { checkFile, type FileCheckOptions, type FileResult } from './check-file.js';

/**
 * A worker for big runs (`parallel.ts`): it checks the batches of files the main thread sends,
 * each through the manifest loader and every per-document check, and answers with one plain-data
 * result per file.
 */
export interface WorkerBatch {
  id: number;
  files: string[];
  options: Omit<FileCheckOptions, 'readStdin'>;
}

export interface WorkerResult {
  id: number;
  results: FileResult[];
}

// One batch at a time: the main thread sends the next when this one is answered.
parentPort?.on('message', (batch: WorkerBatch) => {
  void (async () => {
    const results: FileResult[] = [];
    for (const f of batch.files) results.push(await checkFile(f, batch.options));
    parentPort!.postMessage({ id: batch.id, results } satisfies WorkerResult);
  })();
});
