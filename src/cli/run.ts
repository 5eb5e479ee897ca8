import { CommanderError } from 'commander';
import { tally, type Diagnostic } from '../diagnostics/diagnostic.js';
import { isInputCode, isServiceCode } from '../diagnostics/codes.js';
import { InputError, UsageError } from '../errors.js';
import { ApiError } from '../client/errors.js';
import type { Io } from './io.js';
import { Redactor } from './redact.js';
import { buildProgram } from './program.js';

/** The exit codes of every command (DESIGN §2). Decided here and nowhere else. */
export const ExitCode = {
  ok: 0,
  findings: 1,
  usage: 2,
  service: 3,
  changesPending: 4,
  /** A bug in sessionctl itself; the message asks for a report. */
  internal: 70,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * The exit code of a finished run from its diagnostics: input errors (unreadable files) are 2,
 * service failures (a create or read the service refused) are 3, other errors are 1, warnings are
 * 1 only with `--strict`.
 */
export function exitCodeForDiagnostics(diagnostics: readonly Diagnostic[], options: { strict?: boolean } = {}): ExitCodeValue {
  if (diagnostics.some((d) => d.severity === 'error' && isInputCode(d.code))) return ExitCode.usage;
  if (diagnostics.some((d) => d.severity === 'error' && isServiceCode(d.code))) return ExitCode.service;
  const t = tally(diagnostics);
  if (t.errors > 0 || (options.strict === true && t.warnings > 0)) return ExitCode.findings;
  return ExitCode.ok;
}

/** Runs the CLI with `argv` (without node and script) against `io`, and returns the exit code. */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  const redactor = new Redactor();
  redactor.add(io.env['COMPOSIO_API_KEY']);
  const safeIo: Io = { ...io, stdout: redactor.wrap(io.stdout), stderr: redactor.wrap(io.stderr) };
  let exitCode: number = ExitCode.ok;
  const program = buildProgram({
    io: safeIo,
    redactor,
    setExitCode: (code) => {
      exitCode = code;
    },
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (err) {
    return exitForError(err, safeIo);
  }
}

function exitForError(err: unknown, io: Io): number {
  if (err instanceof CommanderError) {
    // commander has already written its message (or the help text) to our streams.
    return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  }
  if (err instanceof UsageError) {
    io.stderr.write(`error: ${err.message}\n`);
    if (err.hint !== undefined) io.stderr.write(`hint: ${err.hint}\n`);
    return ExitCode.usage;
  }
  if (err instanceof InputError) {
    io.stderr.write(`error: ${err.file !== undefined ? `${err.file}: ` : ''}${err.message}\n`);
    return ExitCode.usage;
  }
  if (err instanceof ApiError) {
    // The service failed or refused: what it said (slug, message, request id, fix), no stack.
    io.stderr.write(`${err.describe().join('\n')}\n`);
    return ExitCode.service;
  }
  const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
  io.stderr.write(`sessionctl: unexpected error; this is a bug, please report it with the lines below.\n${detail}\n`);
  return ExitCode.internal;
}
