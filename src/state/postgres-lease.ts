/** What keeps a lease: `stop` waits for a renewal in flight, and none starts after it. */
export interface LeaseKeeper {
  stop(): Promise<void>;
}

/**
 * Renews a lock's lease every `everyMs` (a third of the lease), one renewal at a time, each
 * `everyMs` after the last ended. A renewal that finds the lock gone calls `lost` once and stops
 * the keeping. One that fails (the database or the pooler out of reach for a moment) is tried
 * again at the next turn: the lease outlasts two failed turns, and should it lapse meanwhile and
 * be taken over, the fence on the lock id refuses every later write all the same. The timer keeps
 * no process alive on its own.
 */
export function keepLease(renew: () => Promise<boolean>, everyMs: number, lost: () => void): LeaseKeeper {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let turn: Promise<void> = Promise.resolve();
  const next = (): void => {
    timer = setTimeout(() => {
      turn = renew()
        .then(
          (held) => {
            if (held || stopped) return;
            stopped = true;
            lost();
          },
          () => undefined,
        )
        .finally(() => {
          if (!stopped) next();
        });
    }, everyMs);
    timer.unref();
  };
  next();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await turn;
    },
  };
}
