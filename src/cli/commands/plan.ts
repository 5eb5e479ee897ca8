import { resolve } from 'node:path';
import type { RegisterCommand } from '../command.js';
import { narrowToChanged } from '../changed-since.js';
import { ExitCode } from '../exit-codes.js';
import { connector } from '../open-connection.js';
import { addMissingOptions, addRunOptions, finishRun, guardedService, missingGuard, projectForRun, runInputs, stateOf, type RunFlags } from '../run-options.js';
import type { MissingLimit } from '../../plan/mass-missing.js';
import { showSensitiveOption } from '../sensitive-options.js';

interface PlanFlags extends RunFlags {
  refresh?: boolean;
  prune?: boolean;
  recreateUnknown?: boolean;
  recreateMissing?: boolean;
  maxMissing?: MissingLimit;
  detailedExitcode?: boolean;
  out?: string;
}

/**
 * `sessionctl plan [paths..]`: per manifest the action against the state (create, replace,
 * unchanged), the request body and the expected config. No network unless `--refresh`.
 */
export const registerPlan: RegisterCommand = (program, env) => {
  const cmd = program
    .command('plan')
    .description('Show what apply would do per manifest (create, update, replace, delete with --prune, no-op), field by field at the declared lines. No network unless --refresh.')
    .argument('[paths...]', 'manifest files, folders (searched for *.yaml and *.yml), globs in quotes, or - for standard input (default: `paths` of sessionctl.yaml)')
    .option('--refresh', 'read recorded sessions (GET): a gone one is planned for create, a drifted one for an update that repairs it')
    .option('--prune', 'plan the deletion of recorded sessions whose manifests are gone from these paths (files sessionctl.yaml ignores keep theirs)')
    .option('--recreate-unknown', 'plan creates where an earlier create has an unknown outcome')
    .option('--detailed-exitcode', 'exit 4 when changes are pending (0 when none)')
    .option('--out <file>', 'save the plan; `sessionctl apply FILE` executes it only while manifests and state are unchanged')
    .option('--strict', 'warnings fail the run too (exit code 1)');
  cmd.addOption(showSensitiveOption());
  addMissingOptions(cmd);
  addRunOptions(cmd, 'refresh', false)
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  sessionctl plan sessions/',
        '  sessionctl plan sessions/ --refresh --detailed-exitcode   # 4 when apply would change something',
        '  sessionctl plan sessions/ --out plan.json --format json',
        '',
        'Exit codes: 0 ok, 1 findings, 2 usage or input error, 3 the service failed (--refresh: a session',
        'it could not read is unknown, never a no-op), 4 changes pending (only with --detailed-exitcode),',
        '5 the state could not be read.',
      ].join('\n'),
    )
    .action(async (args: string[], flags: PlanFlags) => {
      const { io } = env;
      const project = await projectForRun('plan', args, flags, env);
      if (project === undefined) return;
      const { runPlan } = await import('../../runner/run-plan.js');
      const state = stateOf(flags, env, project.loaded.config.state);
      const service = await guardedService(flags, env, state, project, 'start', flags.refresh === true);
      const selected = await narrowToChanged(project.paths, flags.changedSince, { io, ...(project.envFiles !== undefined ? { envFiles: project.envFiles } : {}) });
      const outcome = await runPlan(selected, {
        ...(await runInputs(flags, env, state, project, service)),
        ...(flags.refresh === true ? { refresh: connector(flags, env, state) } : {}),
        missing: missingGuard(flags),
        prune: flags.prune === true,
        recreateUnknown: flags.recreateUnknown === true,
        strict: flags.strict === true,
        ...(flags.out !== undefined ? { out: resolve(io.cwd, flags.out) } : {}),
      });
      await finishRun(outcome, flags, env, project, (code) => (code === ExitCode.ok && flags.detailedExitcode === true && outcome.changes ? ExitCode.changesPending : code));
    });
};
