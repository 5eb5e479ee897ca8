import type { RegisterCommand } from '../command.js';
import { connector } from '../open-connection.js';
import { processLock } from '../process-lock.js';
import { addRunOptions, finishRun, projectForRun, runInputs, guardedService, stateOf, type RunFlags } from '../run-options.js';

/** `sessionctl import NAME SESSION_ID [paths..]`: adopts an existing session into the state. */
export const registerImport: RegisterCommand = (program, env) => {
  const cmd = program
    .command('import')
    .description('Adopt an existing session into the state under a manifest name; its config is read and any difference shown as drift.')
    .argument('<name>', 'the manifest name (its `name:`, or its file stem)')
    .argument('<session>', 'the session id (trs_...)')
    .argument('[paths...]', 'where the manifest is: files, folders or globs (default: `paths` of sessionctl.yaml, else the current folder)')
    .option('--strict', 'differences the manifest does not declare (added) count as drift too');
  addRunOptions(cmd, 'always')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  sessionctl import support-agent trs_1a2b3c4d5e6f sessions/',
        '  USER_ID=alice sessionctl import profile trs_9z8y7x6w5v4u profile.yaml',
        '',
        'Use it when a session exists that the state does not record: one created by hand, or one',
        'whose create had an unknown outcome (apply names them). A drifted session is adopted too; the',
        'next apply repairs it. Exit codes: 0 imported in sync, 1 imported with drift (or refused),',
        '2 usage or input error, 3 the service failed (the session is not there: 404), 5 the state could',
        'not be read, written or locked.',
      ].join('\n'),
    )
    .action(async (name: string, session: string, args: string[], flags: RunFlags & { strict?: boolean }) => {
      const project = await projectForRun('import', args, flags, env, ['.']);
      if (project === undefined) return;
      const { runImport } = await import('../../runner/run-import.js');
      const state = stateOf(flags, env, project.loaded.config.state);
      const service = await guardedService(flags, env, state, project, 'start');
      const outcome = await runImport(name, session, project.paths, {
        ...(await runInputs(flags, env, state, project, service)),
        connect: connector(flags, env, state),
        lock: processLock(env.io.stderr),
        strict: flags.strict === true,
      });
      if (outcome.imported !== undefined) env.io.stderr.write(`imported ${outcome.imported.session_id} as ${name} (user ${outcome.imported.user_id})\n`);
      await finishRun(outcome, flags, env, project);
    });
};
