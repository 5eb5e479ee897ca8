import { UsageError } from '../../diagnostics/errors.js';
import type { RegisterCommand } from '../command.js';
import { askYes } from '../confirm.js';
import { ExitCode } from '../exit-codes.js';
import { addOperateOptions, printJson, SESSION_ARG_HELP, sessionHelp, withSession, type OperateFlags } from '../operate-options.js';
import { processLock } from '../process-lock.js';
import { addLockTimeoutOption, stateOf } from '../run-options.js';

interface DeleteFlags extends OperateFlags {
  autoApprove?: boolean;
  lockTimeout?: number;
}

/**
 * `sessionctl delete SESSION`: one session, by id or recorded name, deleted on the service and
 * forgotten by the state (what destroy does for a manifest's sessions). Asks first, as destroy.
 */
export const registerDelete: RegisterCommand = (program, env) => {
  const cmd = program
    .command('delete')
    .description('Delete one session on the service (by id, or by recorded manifest name) and forget its record in the state. Asks first.')
    .argument('<session>', SESSION_ARG_HELP)
    .option('--auto-approve', 'delete without asking (needed off a terminal, e.g. in CI)');
  addLockTimeoutOption(addOperateOptions(cmd))
    .addHelpText(
      'after',
      sessionHelp(['sessionctl delete trs_1a2b3c4d5e6f', 'sessionctl delete support-agent --user-id alice --auto-approve'], [
        'A session the service no longer has (404) is reported as already gone, and its record is forgotten all the same.',
        'To forget a record without deleting the session, use `sessionctl state rm`; for every session of a manifest, `sessionctl destroy`.',
      ]),
    )
    .action(async (ref: string, flags: DeleteFlags) => {
      await withSession(ref, flags, env, async (client, id, resolved) => {
        const who = resolved.entry !== undefined ? ` (${resolved.entry.name}, user ${resolved.entry.user_id})` : '';
        if (flags.autoApprove !== true) {
          const refusal = new UsageError('delete needs a confirmation: on a terminal it asks, elsewhere pass --auto-approve', `sessionctl delete ${id} --auto-approve`);
          if (!(await askYes(env, `Delete session ${id}${who}? Only 'yes' is accepted: `, refusal))) {
            env.io.stderr.write('delete cancelled: nothing was deleted\n');
            env.setExitCode(ExitCode.usage);
            return;
          }
        }
        const { deleteRecordedSession } = await import('../../runner/run-delete.js');
        const state = stateOf(flags, env);
        const result = await deleteRecordedSession(id, { state, lock: processLock(env.io.stderr), deleteSession: (s) => client.deleteSession(s) });
        if (flags.format === 'json') {
          return printJson(env, { session_id: id, outcome: result.outcome, forgotten: result.forgotten.map((e) => ({ name: e.name, user_id: e.user_id })), state: state.location });
        }
        const done = result.outcome === 'deleted' ? `Deleted ${id}${who}` : `${id}${who} was already gone on the service`;
        const record = result.forgotten.length > 0 ? `; its record is forgotten in ${state.location}` : `; ${state.location} did not record it`;
        env.io.stdout.write(`${done}${record}.\n`);
      });
    });
};
