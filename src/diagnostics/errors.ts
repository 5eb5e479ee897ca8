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

/**
 * The state could not be read, written or locked (a database that refuses or stops answering, a
 * lock another run holds, a lock lost mid-run): exit code 5, so a pipeline tells "fix the state
 * or wait" apart from "fix the command line" (2). An InputError still, for the callers that only
 * need to know that a named location failed.
 */
export class StateError extends InputError {
  override readonly name: string = 'StateError';
}
