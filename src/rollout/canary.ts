import { ApiError } from '../client/errors.js';
import type { FleetSession } from '../state/fleet.js';
import type { PageQuery, Run } from './run.js';
import { drift, readBack } from './session-step.js';
import type { CanaryResult, RolloutFailure } from './types.js';

/**
 * The canary: PATCHes the first `size` sessions behind, then reads each back (the drift check) and
 * records only those that are on the manifest's config. The rollout goes on only when all are;
 * else it stops with the others untouched, and the canary's bad sessions stay on their version (a
 * re-run after the fix reads them again through the 409 and patches them).
 */
export async function canaryStep(run: Run, page: PageQuery, size: number): Promise<CanaryResult> {
  const taken = await run.pass(page, 'canary', size);
  const bad: RolloutFailure[] = [];
  for (const { row, outcome } of taken) {
    const problem = outcome.kind === 'failed' ? outcome.failure : outcome.kind === 'patched' || outcome.kind === 'already' ? await readBackProblem(run, outcome.row) : undefined;
    if (problem === undefined) await run.settle(row, outcome, 'canary');
    else {
      bad.push(problem);
      run.fail(problem);
    }
  }
  await run.drain();
  // A canary the signal cut short proves nothing either way: the run stops as interrupted.
  const clean = bad.length === 0 && run.going;
  return { size: taken.length, clean, bad };
}

/** Why a patched canary session is not on the manifest's config when read back, or undefined. */
async function readBackProblem(run: Run, row: FleetSession): Promise<RolloutFailure | undefined> {
  const live = await readBack(row, run.ctx);
  if (live instanceof ApiError) return { user_id: row.user_id, session_id: row.session_id, kind: live.status === 404 ? 'missing' : 'patch-refused', message: `read back after the PATCH: ${live.message}` };
  const fields = drift(live, row, run.ctx);
  if (fields === undefined) return undefined;
  return { user_id: row.user_id, session_id: row.session_id, kind: 'drifted', message: `read back after the PATCH, its effective config differs from the manifest: ${fields.join(', ')}`, fields };
}
