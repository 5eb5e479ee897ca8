import type { Plan } from '../../plan/plan.js';
import { UsageError } from '../../diagnostics/errors.js';
import { announceDeletions, graceMs, watchRun } from '../apply-progress.js';
import type { CommandEnv, RegisterCommand } from '../command.js';
import { askYes } from '../confirm.js';
import { announceFleetDeletions, fleetRefusal, fleetThreshold, pastThreshold } from '../fleet-confirm.js';
import { fleetSessions } from '../../plan/fleet-deletions.js';
import { rolloutProgress } from '../rollout-progress.js';
import { ExitCode } from '../exit-codes.js';
import { connector } from '../open-connection.js';
import { processLock } from '../process-lock.js';
import { addRunOptions, finishRun, projectForRun, runInputs, guardedService, stateOf, type RunFlags } from '../run-options.js';

interface DestroyFlags extends RunFlags {
  autoApprove?: boolean;
  yes?: boolean;
  dryRun?: boolean;
  allRecorded?: boolean;
}

/** PATHS, or --all-recorded: exactly one of the two says what to delete. */
function checkSelection(paths: readonly string[], flags: DestroyFlags): void {
  if (flags.allRecorded === true && paths.length > 0) {
    throw new UsageError('--all-recorded deletes every session the state records; it takes no PATHS', 'drop the paths, or drop --all-recorded to delete only the sessions of those manifests');
  }
  if (flags.allRecorded !== true && paths.length === 0) {
    throw new UsageError('destroy needs PATHS (the manifests whose sessions to delete), or --all-recorded for every session the state records', 'for example: sessionctl destroy sessions/old-agent.yaml');
  }
}

/**
 * Asks on a terminal; elsewhere only --auto-approve deletes. Past `threshold` sessions of per-user
 * manifests only --yes (or 'yes' typed on a terminal) confirms: --auto-approve, which a pipeline
 * passes to every destroy, is not enough to delete a whole user base.
 */
async function confirmed(plan: Plan, flags: DestroyFlags, env: CommandEnv, threshold: number): Promise<boolean> {
  const fleets = plan.fleetDeletions ?? [];
  if (fleets.length > 0) announceFleetDeletions(fleets, env, 'destroy');
  if (plan.deletions.length > 0) announceDeletions(plan, env, 'destroy');
  if (flags.yes === true) return true;
  if (pastThreshold(fleets, threshold)) {
    const yes = await askYes(env, `Delete ${fleetSessions(fleets).toLocaleString('en-US')} sessions of every end user? Only 'yes' is accepted: `, fleetRefusal('destroy', fleets, threshold));
    if (!yes) env.io.stderr.write('destroy cancelled: nothing was deleted\n');
    return yes;
  }
  if (flags.autoApprove === true) return true;
  const refusal = new UsageError('destroy deletes sessions and needs a confirmation: on a terminal it asks, elsewhere pass --auto-approve', 'run `sessionctl destroy PATHS --dry-run` to see what it would delete');
  const yes = await askYes(env, "Delete them? Only 'yes' is accepted: ", refusal);
  if (!yes) env.io.stderr.write('destroy cancelled: nothing was deleted\n');
  return yes;
}

/** `sessionctl destroy [paths..]`: deletes the recorded sessions of those manifests and forgets them. */
export const registerDestroy: RegisterCommand = (program, env) => {
  const cmd = program
    .command('destroy')
    .description('Delete the recorded sessions of the manifests in PATHS (every user each was applied for), or with --all-recorded every session the state records, and forget them. Asks first.')
    .argument('[paths...]', 'manifest files, folders or globs whose sessions to delete')
    .option('--all-recorded', 'every session recorded in the state (this workspace), including those of renamed and removed manifests; no PATHS')
    .option('--auto-approve', 'delete without asking (needed off a terminal, e.g. in CI)')
    .option('--yes', 'delete without asking, also more sessions of per-user manifests than confirm_fleet_deletes_over (default 100), which --auto-approve does not')
    .option('--dry-run', 'show what would be deleted: no lock, no request');
  addRunOptions(cmd, 'always')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  sessionctl destroy sessions/old-agent.yaml              # lists the sessions, then asks',
        '  sessionctl destroy staging/ --auto-approve --state postgres://ci@db/sessionctl',
        '  sessionctl destroy sessions/ --dry-run',
        '  sessionctl destroy --all-recorded --state "$SESSIONCTL_STATE"  # every recorded session, manifests or not',
        '',
        'The manifests stay; only their sessions go. A create whose outcome is unknown holds no session',
        'to delete: adopt it with `sessionctl import` first, or forget it with `sessionctl state rm`.',
        '',
        'A per-user manifest (user_id: <end-user>): every recorded session of it is deleted (a 404 counts',
        'as gone), each row removed once its DELETE is answered, then its publication (the application\'s',
        'ensure creates no more). The count is stated first; past confirm_fleet_deletes_over (sessionctl.yaml,',
        'default 100) it needs --yes, in CI too. A destroy stopped anywhere (even killed) resumes on re-run.',
        'Exit codes: 0 deleted, 1 findings, 2 usage or input error (also: no confirmation, or not confirmed), 3 the service failed,',
        '5 the state could not be read, written or locked.',
      ].join('\n'),
    )
    .action(async (paths: string[], flags: DestroyFlags) => {
      checkSelection(paths, flags);
      const project = await projectForRun('destroy', paths, flags, env, flags.allRecorded === true ? [] : undefined);
      if (project === undefined) return;
      const { runDestroy } = await import('../../runner/run-destroy.js');
      const state = stateOf(flags, env, project.loaded.config.state);
      const service = await guardedService(flags, env, state, project, 'read');
      const watch = watchRun(env, 'destroy');
      try {
        const outcome = await runDestroy(paths, {
          ...(await runInputs(flags, env, state, project, service)),
          connect: connector(flags, env, state),
          lock: processLock(env.io.stderr),
          dryRun: flags.dryRun === true,
          allRecorded: flags.allRecorded === true,
          confirm: (plan) => confirmed(plan, flags, env, fleetThreshold(project.loaded.config)),
          onProgress: watch.onProgress,
          onFleetProgress: rolloutProgress(env),
          signal: watch.signal,
          graceMs: graceMs(env),
          onInterrupt: watch.onInterrupt,
        });
        const interrupted = watch.signalExit();
        // A declined confirmation is no success: a script that ran destroy must not read it as done.
        await finishRun(outcome, flags, env, project, (code) => interrupted ?? (outcome.declined === true ? ExitCode.usage : code));
      } finally {
        watch.stop();
      }
    });
};
