type Signal = 'SIGINT' | 'SIGTERM';

/** What `Io` takes from here (its own types stay in io.ts, which imports this file). */
export interface ProcessSignals {
  onSignal(handler: (signal: Signal) => void): () => void;
  exit(code: number): void;
}

/** 128 + the signal's number, as a shell reports a process the signal ended. */
const EXIT: Record<Signal, number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * The process's SIGINT and SIGTERM, one listener for the whole run. The first signal goes to the
 * run's handlers (apply, destroy and files stop starting requests and wind down within their
 * grace time); a command with no handler, and any second signal, ends the process at once with
 * 128 + the signal's number, saying so. (A handler that swallowed the second signal, as before,
 * left a run stuck on a database that stopped answering alive through two SIGTERMs.) A command
 * that listens to the process itself (the emulator's server) keeps the first signal.
 */
export function processSignals(stderr: { write(text: string): unknown }): ProcessSignals {
  const handlers = new Set<(signal: Signal) => void>();
  let received = 0;
  const exit = (code: number): never => process.exit(code);
  const on = (signal: Signal): void => {
    received++;
    if (received === 1 && handlers.size > 0) {
      for (const handler of [...handlers]) handler(signal);
      return;
    }
    if (received === 1 && process.listenerCount(signal) > 1) return;
    stderr.write(`sessionctl: ${signal} received${received > 1 ? ' again' : ''}: stopping at once\n`);
    exit(EXIT[signal]);
  };
  process.on('SIGINT', () => on('SIGINT'));
  process.on('SIGTERM', () => on('SIGTERM'));
  return {
    onSignal: (handler) => {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
    exit,
  };
}
