import { CommanderError } from 'commander';
import { ApiError } from '../client/errors.js';
import { InputError, StateError, UsageError } from '../diagnostics/errors.js';
import type { RegisterCommand } from './command.js';
import { ExitCode } from './exit-codes.js';
import type { Io } from './io.js';
import { buildProgram } from './program.js';
import { Redactor } from './redact.js';
import { API_KEY_ENV } from '../client/api-key.js';
import { safeInline } from '../report/text.js';
import type { ValueMasker } from '../util/sensitive.js';
import { runMasker } from './sensitive-options.js';

/**
 * Runs the CLI with `argv` (without node and script) against `io`, with the given commands, and
 * returns the exit code. Every way out (a finished run, a thrown error) ends here.
 */
export async function runCli(argv: readonly string[], io: Io, commands: readonly RegisterCommand[]): Promise<number> {
  const redactor = new Redactor();
  const masker = runMasker(io.stderr, io.env, redactor);
  masker.add(io.env[API_KEY_ENV] ?? '', API_KEY_ENV);
  const safeIo: Io = { ...io, stdout: redactor.wrap(io.stdout), stderr: redactor.wrap(io.stderr) };
  let exitCode: number = ExitCode.ok;
  const env = {
    io: safeIo,
    redactor,
    masker,
    setExitCode: (code: number) => {
      exitCode = code;
    },
  };
  const program = buildProgram(env, commands);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (err) {
    return exitForError(err, safeIo, masker);
  }
}

function exitForError(err: unknown, io: Io, masker: ValueMasker): number {
  if (err instanceof CommanderError) {
    // commander has already written its message (or the help text) to our streams.
    return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  }
  // Messages quote file names, arguments and the service's words: sensitive values are masked and
  // control characters shown escaped, so that none can rewrite the terminal or forge a CI log line.
  const say = (line: string): void => io.stderr.write(`${safeInline(masker.text(line))}\n`);
  if (err instanceof UsageError) {
    say(`error: ${err.message}`);
    if (err.hint !== undefined) say(`hint: ${err.hint}`);
    return ExitCode.usage;
  }
  if (err instanceof InputError) {
    say(`error: ${err.file !== undefined ? `${err.file}: ` : ''}${err.message}`);
    return err instanceof StateError ? ExitCode.state : ExitCode.usage;
  }
  if (err instanceof ApiError) {
    // The service failed or refused: what it said (slug, message, request id, fix), no stack.
    for (const line of err.describe()) say(line);
    return ExitCode.service;
  }
  const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
  io.stderr.write(`sessionctl: unexpected error; this is a bug, please report it with the lines below.\n${detail}\n`);
  return ExitCode.internal;
}
