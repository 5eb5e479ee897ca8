/** Bounded concurrency and a client-side request rate, for apply's creates and refresh reads. */

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Spaces requests evenly: a token bucket that holds a single token. The service counts requests in
 * fixed one-minute windows that start with a request's arrival (api §6.4); a bucket that could save
 * up a burst would let a run spend one window's budget at the end of a window and the next one's at
 * the start, and meet a 429. Evenly spaced requests never exceed `perMinute` in any 60-second span
 * as sent; the spacing is 1 % wider than `60 000 / perMinute` ms so that network jitter (a first
 * request that travels slower than the last) cannot squeeze one request too many into a window.
 */
const SAFETY = 1.01;

export class RateLimiter {
  private next = 0;
  private readonly interval: number;

  constructor(
    readonly perMinute: number,
    private readonly clock: Clock = realClock,
  ) {
    this.interval = (60_000 / perMinute) * SAFETY;
  }

  /** Resolves when the caller may send its next request. */
  acquire(): Promise<void> {
    const now = this.clock.now();
    const slot = Math.max(now, this.next);
    this.next = slot + this.interval;
    const wait = slot - now;
    return wait > 0 ? this.clock.sleep(wait) : Promise.resolve();
  }
}

/**
 * Parses `N/min` (also `N/s`, `N/h`, or a bare `N` per minute) into requests per minute; undefined
 * when it is not such a value.
 */
export function parseRateLimit(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(s|sec|second|m|min|minute|h|hour))?\s*$/.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2] ?? 'min';
  const perMinute = unit.startsWith('s') ? n * 60 : unit.startsWith('h') ? n / 60 : n;
  return perMinute > 0 && Number.isFinite(perMinute) ? perMinute : undefined;
}

/**
 * Runs `fn` over `items` with at most `concurrency` calls in flight; results keep the input order.
 * `fn` should not throw (apply turns failures into values); if it does, the first error rejects the
 * whole run after the calls in flight have settled.
 */
export async function mapConcurrent<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let nextIndex = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && nextIndex < items.length) {
      const i = nextIndex++;
      try {
        results[i] = await fn(items[i]!, i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}

/** At most `limit` holders at once; the others wait in order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Runs `work` once a place is free, and frees it after. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.active--;
    }
  }
}
