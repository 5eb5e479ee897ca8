import { CommanderError } from 'commander';
import { ApiError } from '../client/errors.js';
import { InputError, UsageError } from '../diagnostics/errors.js';
import type { RegisterCommand } from './command.js';
import { ExitCode } from './exit-codes.js';
import type { Io } from './io.js';
import { buildProgram } from './program.js';
import { Redactor } from './redact.js';

/**
 * Runs the CLI with `argv` (without node and script) against `io`, with the given commands, and
 * returns the exit code. Every way out (a finished run, a thrown error) ends here.
 */
export async function runCli(argv: readonly string[], io: Io, commands: readonly RegisterCommand[]): Promise<number> {
  const redactor = new Redactor();
  redactor.add(io.env['COMPOSIO_API_KEY']);
  const safeIo: Io = { ...io, stdout: redactor.wrap(io.stdout), stderr: redactor.wrap(io.stderr) };
  let exitCode: number = ExitCode.ok;
  const env = {
    io: safeIo,
    redactor,
    setExitCode: (code: number) => {
      exitCode = code;
    },
  };
  const program = buildProgram(env, commands);
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
