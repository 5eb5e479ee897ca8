import type { Command } from 'commander';
import type { Io } from './io.js';
import type { Redactor } from './redact.js';

/** What every command gets: the outside world, and the one way to set the exit code. */
export interface CommandEnv {
  io: Io;
  redactor: Redactor;
  setExitCode(code: number): void;
}

/** Adds one command (with its options, help and action) to the program. */
export type RegisterCommand = (program: Command, env: CommandEnv) => void;
