import { memoryIo } from '../../src/cli/io.js';
import { allCommands } from '../../src/cli/commands/index.js';
import { runCli as runWith } from '../../src/cli/run.js';

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  stdin?: string | Buffer;
  tty?: boolean;
  /** Standard input is a terminal (answers to a confirmation). */
  stdinTty?: boolean;
}

/** Runs sessionctl in-process against a recording Io; colour is off unless the env forces it. */
export async function runCli(argv: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  const io = memoryIo({ ...options, env: { NO_COLOR: '1', ...options.env } });
  const exitCode = await runWith(argv, io, allCommands);
  return { exitCode, stdout: io.out(), stderr: io.err() };
}
