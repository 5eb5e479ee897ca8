import { sessionIdProblem, shown } from '../../wire/session-id.js';
import { UsageError } from '../../diagnostics/errors.js';
import { narrowToChanged } from '../changed-since.js';
import type { RegisterCommand } from '../command.js';
import { connector } from '../open-connection.js';
import { rolloutProgress } from '../rollout-progress.js';
import { addRunOptions, finishRun, projectForRun, runInputs, guardedService, stateOf, type RunFlags } from '../run-options.js';
import { showSensitiveOption } from '../sensitive-options.js';

interface DiffFlags extends RunFlags {
  session?: string;
  user?: string;
  mcp?: boolean;
}

/**
 * `sessionctl diff [paths..]`: declared manifests against the sessions the state records (GET),
 * or one manifest against any session (`--session trs_...`); drift classified and located.
 */
export const registerDiff: RegisterCommand = (program, env) => {
  const cmd = program
    .command('diff')
    .description('Compare declared manifests with their deployed sessions (GET): drift, classified, at the declared line, with a unified diff.')
    .argument('[paths...]', 'manifest files, folders (searched for *.yaml and *.yml), globs in quotes, or - for standard input (default: `paths` of sessionctl.yaml)')
    .option('--session <id>', 'audit this session (trs_...) against the one manifest given, whatever the state says')
    .option('--user <id>', "only this end user's sessions: of a per-user manifest (user_id: <end-user>), that user's session with its whole diff")
    .option('--strict', 'differences the manifest does not declare (added) count as drift too')
    .option('--mcp', 'also compare the tools an agent sees at each session\'s MCP URL with the ones the manifest expects');
  cmd.addOption(showSensitiveOption());
  addRunOptions(cmd, 'always', false)
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  sessionctl diff sessions/                       # every manifest against its recorded session',
        '  sessionctl diff support.yaml --session trs_abc  # a session created at run time from the same manifest',
        '  sessionctl diff support.yaml --concurrency 32 --rate-limit 2000/min  # every end user\'s session of a per-user manifest',
        '  sessionctl diff support.yaml --user alice       # one end user\'s session, whole',
        '',
        'A per-user manifest (user_id: <end-user>) is compared with every recorded session of it, read page by',
        'page from the state: drift is summarised by field with counts and a few users. Sessions on an older',
        'published version are counted as behind (the next apply rolls them out), not as drift.',
        '',
        'Drift kinds: changed (declared, the service holds another value), dropped (declared, not echoed),',
        'added (not declared, not the documented default; drift only with --strict). Defaults are not drift.',
        'Exit codes: 0 in sync, 1 drift or a manifest not applied, 2 usage or input error, 3 the service failed,',
        '5 the state could not be read.',
      ].join('\n'),
    )
    .action(async (args: string[], flags: DiffFlags) => {
      const { io } = env;
      if (flags.session !== undefined && sessionIdProblem(flags.session) !== undefined) {
        throw new UsageError(`--session expects a session id such as trs_1a2b3c, got ${shown(flags.session)}`);
      }
      if (flags.session !== undefined && flags.user !== undefined) {
        throw new UsageError('--session and --user each name the session to compare: give one of them', 'drop --user to audit that session, or --session to read the user\'s recorded session');
      }
      const project = await projectForRun('diff', args, flags, env);
      if (project === undefined) return;
      const { runDiff } = await import('../../runner/run-diff.js');
      const state = stateOf(flags, env, project.loaded.config.state);
      const service = flags.session === undefined ? await guardedService(flags, env, state, project, 'read') : undefined;
      const selected = await narrowToChanged(project.paths, flags.changedSince, { io, ...(project.envFiles !== undefined ? { envFiles: project.envFiles } : {}) });
      const outcome = await runDiff(selected, {
        ...(await runInputs(flags, env, state, project, service)),
        connect: connector(flags, env, state),
        ...(flags.session !== undefined ? { session: flags.session } : {}),
        ...(flags.user !== undefined ? { user: flags.user } : {}),
        onFleetProgress: rolloutProgress(env),
        strict: flags.strict === true,
        mcp: flags.mcp === true,
      });
      await finishRun(outcome, flags, env, project);
    });
};
