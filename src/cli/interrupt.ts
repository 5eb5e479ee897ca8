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

/**
 * Turns the first SIGINT or SIGTERM into an abort, so that the work in flight can stop cleanly
 * (requests end, temp files are removed); a second signal is left to the default, which ends
 * the process at once. Without `Io.onSignal` (tests) the signal never fires.
 */
export function interruptOn(env: CommandEnv): Interrupt {
  const controller = new AbortController();
  let got: 'SIGINT' | 'SIGTERM' | undefined;
  const unsubscribe = env.io.onSignal?.((signal) => {
    if (got !== undefined) {
      unsubscribe?.();
      return;
    }
    got = signal;
    controller.abort(signal);
  });
  return {
    signal: controller.signal,
    received: () => got,
    exitCode: () => (got === 'SIGINT' ? ExitCode.interrupted : got === 'SIGTERM' ? ExitCode.terminated : undefined),
    stop: () => unsubscribe?.(),
  };
}
