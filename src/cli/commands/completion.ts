import { Argument } from 'commander';
import { formatNames } from '../../report/registry.js';
import { version } from '../../version.js';
import { bashScript } from '../completion/bash.js';
import { fishScript } from '../completion/fish.js';
import { completionModel, type CompletionCommand, type ExtraChoices } from '../completion/model.js';
import { zshScript } from '../completion/zsh.js';
import type { RegisterCommand } from '../command.js';

const shells = {
  bash: bashScript,
  zsh: zshScript,
  fish: fishScript,
} satisfies Record<string, (root: CompletionCommand, version: string) => string>;

type Shell = keyof typeof shells;

/** Values of options that take `NAME` or `NAME=FILE` and so cannot declare commander choices. */
const extraChoices: ExtraChoices = {
  '--format': formatNames,
  // Branches, remote branches and tags of the repository the user is in.
  '--changed-since': { command: ['git', 'for-each-ref', '--format=%(refname:short)', 'refs/heads', 'refs/remotes', 'refs/tags'] },
};

/** `sessionctl completion bash|zsh|fish`: a script generated from the live command tree. */
export const registerCompletion: RegisterCommand = (program, env) => {
  program
    .command('completion')
    .description('Print a shell completion script for bash, zsh or fish, generated from the commands of this version.')
    .addArgument(new Argument('<shell>', 'the shell to complete for').choices(Object.keys(shells)))
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  source <(sessionctl completion bash)                  # bash, current shell',
        '  sessionctl completion bash > ~/.local/share/bash-completion/completions/sessionctl',
        '  sessionctl completion zsh > "${fpath[1]}/_sessionctl"  # zsh',
        '  sessionctl completion fish > ~/.config/fish/completions/sessionctl.fish',
      ].join('\n'),
    )
    .action((shell: Shell) => {
      env.io.stdout.write(shells[shell](completionModel(program, extraChoices), version));
    });
};
