import { Option } from 'commander';
import type { RegisterCommand } from '../command.js';
import { exportSession, parseName, type ExportFlags } from '../export-session.js';
import { addOperateOptions, SESSION_ARG_HELP, sessionHelp, withSession } from '../operate-options.js';

/**
 * `sessionctl export SESSION`: the manifest of a live session, such that `validate` is clean and
 * `plan` against it (with the session in the state) is a no-op.
 */
export const registerExport: RegisterCommand = (program, env) => {
  const cmd = program
    .command('export')
    .description('Write the manifest of a live session (YAML with the schema modeline): defaults left out, secrets as ${VARIABLE}.')
    .argument('<session>', SESSION_ARG_HELP)
    .addOption(new Option('--name <name>', 'the manifest name (default: the recorded name, else one made from the session id)').argParser(parseName))
    .option('--out <file>', 'write the manifest to this file instead of standard output')
    .option('--force', 'replace --out when it exists')
    .option('--show-sensitive', 'write sensitive and secret-looking values as they are (not for files that go to git; refused when CI is set)');
  addOperateOptions(cmd)
    .addHelpText(
      'after',
      sessionHelp(
        ['sessionctl export trs_1a2b3c4d5e6f --name support-agent --out sessions/support-agent.yaml', 'sessionctl export support-agent > support-agent.yaml', 'sessionctl get support-agent --format yaml'],
        ['To manage the session from the new file: `sessionctl import NAME SESSION` adopts it into the state.'],
      ),
    )
    .action(async (ref: string, flags: ExportFlags) => {
      await withSession(ref, { ...flags, format: 'human' }, env, (client, id, resolved) => exportSession(client, id, resolved, flags, env));
    });
};
