import type { Command } from 'commander';
import type { Io } from './io.js';
import type { Redactor } from './redact.js';
import type { ValueMasker } from '../util/sensitive.js';

/** What every command gets: the outside world, and the one way to set the exit code. */
export interface CommandEnv {
  io: Io;
  redactor: Redactor;
  /** The run's sensitive values (the API key, the manifests' secrets): what the CLI writes is masked with it first. */
  masker: ValueMasker;
  setExitCode(code: number): void;
}

/** Adds one command (with its options, help and action) to the program. */
export type RegisterCommand = (program: Command, env: CommandEnv) => void;
