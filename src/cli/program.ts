import { Command, Help } from 'commander';
import { version } from '../version.js';
import type { CommandEnv, RegisterCommand } from './command.js';
import { optionEnvFallbacks } from './connection.js';

/**
 * The program with the given commands (the whole CLI registers `allCommands`; the validate-only
 * bundle registers just validate), its name, version, help and error handling.
 */
export function buildProgram(env: CommandEnv, commands: readonly RegisterCommand[]): Command {
  const program = new Command('sessionctl')
    .description('Config-as-code for Tool Router sessions: lint, plan, apply and drift-check session manifests.')
    .version(version, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => env.io.stdout.write(s),
      writeErr: (s) => env.io.stderr.write(s),
      outputError: (s, write) => write(s),
    })
    .configureHelp({
      optionDescription(option) {
        const text = Help.prototype.optionDescription.call(this, option);
        const env = optionEnvFallbacks[option.long ?? ''];
        return env === undefined ? text : `${text} (env: ${env})`;
      },
    })
    .exitOverride();
  for (const register of commands) register(program, env);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}
