/**
 * Errors for "the run cannot continue". Everything else is a Diagnostic value. The exit code each
 * kind maps to is decided in `src/cli/run.ts` alone; the classes only say what went wrong.
 */
export class SessionctlError extends Error {
  override readonly name: string = 'SessionctlError';
}

/** Bad flags or arguments: exit code 2. */
export class UsageError extends SessionctlError {
  override readonly name: string = 'UsageError';
  constructor(
    message: string,
    /** A line that tells the user what to type instead. */
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** A file or stream that cannot be read, or nothing to work on: exit code 2. */
export class InputError extends SessionctlError {
  override readonly name: string = 'InputError';
  constructor(
    message: string,
    readonly file?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
