import { mayHaveTakenEffect, type ApiError } from '../client/errors.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Deletion } from '../plan/plan.js';
import type { AppliedItem } from './applied-item.js';
import { deleteSession, type StepContext } from './steps.js';

/**
 * `--prune` and `destroy`: deletes a recorded session and the sessions its entries still hold to
 * delete (the plan gives each session to one deletion), then forgets the entries. A delete that
 * fails leaves the entry recorded (with the left-overs not yet deleted), so the next run tries again.
 */
export async function deletionStep(deletion: Deletion, ctx: StepContext): Promise<AppliedItem> {
  const out: AppliedItem = { name: deletion.name, file: deletion.file ?? '', user_id: deletion.user_id, action: 'delete', outcome: 'deleted', session_id: deletion.session_id, drifted: false, drift: [], diagnostics: [], diff: '' };
  const failed = await deleteSession(deletion.session_id, ctx);
  if (failed !== undefined) {
    out.outcome = 'failed';
    out.diagnostics.push(deletionFailed(deletion, deletion.session_id, failed));
    return out;
  }
  const left: string[] = [];
  for (const [i, old] of deletion.leftovers.entries()) {
    // On the signal no request starts: the sessions not yet deleted stay recorded for the next run.
    if (ctx.signal?.aborted === true) {
      const rest = deletion.leftovers.slice(i);
      left.push(...rest);
      out.diagnostics.push(leftoversInterrupted(deletion, rest.length, ctx.signal.reason));
      break;
    }
    const oldFailed = await deleteSession(old, ctx);
    if (oldFailed === undefined) continue;
    left.push(old);
    out.diagnostics.push(deletionFailed(deletion, old, oldFailed));
  }
  // The other entries of the session go either way: what is left to delete is on the first one.
  for (const other of deletion.also) await ctx.state.forget(other.name, other.user_id);
  if (left.length > 0) {
    out.outcome = 'failed';
    await ctx.state.record({ ...deletion.entry, superseded: left });
    return out;
  }
  await ctx.state.forget(deletion.name, deletion.user_id);
  return out;
}

function leftoversInterrupted(deletion: Deletion, count: number, reason: unknown): Diagnostic {
  return {
    code: 'apply/interrupted',
    severity: 'error',
    message: `${deletion.name}: session ${deletion.session_id} was deleted, then the run was interrupted (${String(reason)}) before ${count === 1 ? '1 session it left was' : `${count} sessions it left were`} deleted; they stay recorded for the next run`,
  };
}

function deletionFailed(deletion: Deletion, sessionId: string, err: ApiError): Diagnostic {
  // A delete that may have happened stays recorded too: the next run's delete of a gone session counts as done.
  const what = mayHaveTakenEffect(err) ? 'may or may not have been deleted' : 'could not be deleted';
  return {
    code: 'apply/delete-failed',
    severity: 'error',
    message: `${deletion.name}: session ${sessionId} (user ${JSON.stringify(deletion.user_id)}) ${what}: ${err.message}${err.status !== undefined ? ` (HTTP ${err.status})` : ''}; it stays recorded`,
  };
}
