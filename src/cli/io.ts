import { Readable } from 'node:stream';
import { processSignals } from './signals.js';

/** Where a stream's text goes. `isTTY` decides colour and progress output. */
export interface OutStream {
  write(chunk: string): void;
  readonly isTTY?: boolean;
  /** The terminal's width when it is one (process.stdout has it); tables fit it. */
  readonly columns?: number;
}

/**
 * The outside world a command may touch. Tests pass their own; only `main.ts` builds one from
 * `process`, so no command reads `process` directly.
 */
export interface Io {
  stdout: OutStream;
  stderr: OutStream;
  stdin: Readable;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /**
   * Calls `handler` on SIGINT or SIGTERM until the returned function is called. Without it (tests)
   * a run cannot be interrupted.
   */
  onSignal?: (handler: (signal: 'SIGINT' | 'SIGTERM') => void) => () => void;
  /** Ends the process at once with `code`: a run still busy when its grace time after a signal is over. Tests leave it out. */
  exit?: (code: number) => void;
}

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    ...processSignals(process.stderr),
  };
}

/** An Io that records what was written, for tests and for in-process runs. */
export function memoryIo(options: { env?: Record<string, string | undefined>; cwd?: string; stdin?: string | Buffer; tty?: boolean; stdinTty?: boolean } = {}): Io & {
  out(): string;
  err(): string;
} {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: { write: (s) => void out.push(s), isTTY: options.tty ?? false },
    stderr: { write: (s) => void err.push(s), isTTY: options.tty ?? false },
    // A terminal's answers (destroy's confirmation) when `stdinTty` says standard input is one.
    stdin: Object.assign(Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]), options.stdinTty === true ? { isTTY: true } : {}),
    env: options.env ?? {},
    cwd: options.cwd ?? '/',
    out: () => out.join(''),
    err: () => err.join(''),
  };
}
