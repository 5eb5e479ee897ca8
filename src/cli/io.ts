import { Readable } from 'node:stream';

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
}

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    onSignal: (handler) => {
      const int = (): void => handler('SIGINT');
      const term = (): void => handler('SIGTERM');
      process.on('SIGINT', int);
      process.on('SIGTERM', term);
      return () => {
        process.off('SIGINT', int);
        process.off('SIGTERM', term);
      };
    },
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
