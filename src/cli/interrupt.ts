import type { CommandEnv } from './command.js';
import { ExitCode } from './exit-codes.js';

/** The first SIGINT or SIGTERM of a run, as an AbortSignal. */
export interface Interrupt {
  signal: AbortSignal;
  /** The signal received, if one was. */
  received(): 'SIGINT' | 'SIGTERM' | undefined;
  /** The exit code the signal asks for (130 for SIGINT, 143 for SIGTERM), if one came. */
  exitCode(): number | undefined;
  stop(): void;
}

/** Past the grace time, how long the run has left to write what it says before it is ended. */
const WIND_DOWN_MS = 2_000;

/**
 * Turns the first SIGINT or SIGTERM into an abort, so that the work in flight can stop cleanly
 * (requests end, temp files are removed, outcomes are recorded). A run still busy `graceMs` (and
 * a moment to report) after it is ended there, with 130 or 143: what it waits for (a database that
 * stopped answering, a lock) cannot keep it alive. A second signal ends it at once (`Io`'s
 * listener). Without `Io.onSignal` (tests) the signal never fires.
 */
export function interruptOn(env: CommandEnv, graceMs = 10_000): Interrupt {
  const controller = new AbortController();
  let got: 'SIGINT' | 'SIGTERM' | undefined;
  let deadline: NodeJS.Timeout | undefined;
  const unsubscribe = env.io.onSignal?.((signal) => {
    if (got !== undefined) return;
    got = signal;
    controller.abort(signal);
    const exit = env.io.exit;
    if (exit === undefined) return;
    deadline = setTimeout(() => {
      env.io.stderr.write(`sessionctl: still busy ${Math.round((graceMs + WIND_DOWN_MS) / 1000)} s after ${signal}: stopping now\n`);
      exit(signal === 'SIGINT' ? ExitCode.interrupted : ExitCode.terminated);
    }, graceMs + WIND_DOWN_MS);
    // A run that ends in time is not kept alive by it.
    deadline.unref();
  });
  return {
    signal: controller.signal,
    received: () => got,
    exitCode: () => (got === 'SIGINT' ? ExitCode.interrupted : got === 'SIGTERM' ? ExitCode.terminated : undefined),
    stop: () => {
      clearTimeout(deadline);
      unsubscribe?.();
    },
  };
}
