import { Command } from 'commander';
import { version } from '../version.js';
import type { Io } from './io.js';
import type { Redactor } from './redact.js';
import { registerCompletion } from './commands/completion.js';
import { registerEmulator } from './commands/emulator.js';
import { registerInit } from './commands/init.js';
import { registerSchema } from './commands/schema.js';
import { registerValidate } from './commands/validate.js';
import { registerPlan } from './commands/plan.js';
import { registerApply } from './commands/apply.js';
import { registerDiff } from './commands/diff.js';
import { registerGet } from './commands/get.js';
import { registerToolkits } from './commands/toolkits.js';
import { registerTools } from './commands/tools.js';
import { registerSearch } from './commands/search.js';
import { registerExecute } from './commands/execute.js';
import { registerExecuteMeta } from './commands/execute-meta.js';
import { registerLink } from './commands/link.js';
import { registerProxy } from './commands/proxy.js';
import { registerFiles } from './commands/files.js';
import { registerMcp } from './commands/mcp.js';

/** What every command gets: the outside world, and the one way to set the exit code. */
export interface CommandEnv {
  io: Io;
  redactor: Redactor;
  setExitCode(code: number): void;
}

export type RegisterCommand = (program: Command, env: CommandEnv) => void;

/** In the order `--help` lists them: the config-as-code loop, operating a session, then tooling. */
const commands: RegisterCommand[] = [
  registerValidate,
  registerPlan,
  registerApply,
  registerDiff,
  registerGet,
  registerToolkits,
  registerTools,
  registerSearch,
  registerExecute,
  registerExecuteMeta,
  registerLink,
  registerProxy,
  registerFiles,
  registerMcp,
  registerSchema,
  registerInit,
  registerCompletion,
  registerEmulator,
];

export function buildProgram(env: CommandEnv): Command {
  const program = new Command('sessionctl')
    .description('Config-as-code for Tool Router sessions: lint, plan, apply and drift-check session manifests.')
    .version(version, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => env.io.stdout.write(s),
      writeErr: (s) => env.io.stderr.write(s),
      outputError: (s, write) => write(s),
    })
    .exitOverride();
  for (const register of commands) register(program, env);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}
