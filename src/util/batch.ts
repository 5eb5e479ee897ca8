/** How a batcher groups its calls. */
export interface BatchLimits {
  /** The most calls one batch carries. */
  maxBatch: number;
  /** Batches running at once; a call that finds them all busy waits and joins the next batch. */
  maxRunning: number;
}

interface Waiting<I, O> {
  item: I;
  resolve: (out: O) => void;
  reject: (err: unknown) => void;
}

/**
 * One call per item, run as batches: calls that arrive while `maxRunning` batches are busy are
 * gathered into the next one, so under load N callers cost one round trip instead of N, and a
 * call that finds a batch free leaves at once (no timer: a lone call waits for nothing).
 * `run` answers one output per item, in order; a batch that fails rejects each of its calls.
 */
export function batcher<I, O>(run: (items: readonly I[]) => Promise<readonly O[]>, limits: BatchLimits): (item: I) => Promise<O> {
  const queue: Waiting<I, O>[] = [];
  let running = 0;
  const settle = (batch: readonly Waiting<I, O>[], out: readonly O[]): void => {
    if (out.length !== batch.length) throw new Error(`a batch of ${batch.length} answered ${out.length} results`);
    batch.forEach((w, i) => w.resolve(out[i]!));
  };
  const pump = (): void => {
    while (running < limits.maxRunning && queue.length > 0) {
      const batch = queue.splice(0, limits.maxBatch);
      running++;
      Promise.resolve()
        .then(() => run(batch.map((w) => w.item)))
        .then((out) => settle(batch, out))
        .catch((err: unknown) => batch.forEach((w) => w.reject(err)))
        .finally(() => {
          running--;
          pump();
        });
    }
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      // After the caller's turn of the event loop: the calls made in it go together even when a
      // batch is free (the first pump takes them all; the others find nothing to do).
      queueMicrotask(pump);
    });
}
