import { ApiError } from '../client/errors.js';
import { requestBody } from '../config/request.js';
import type { ManifestData } from '../config/types.js';
import type { PublicationPlan } from '../plan/publications.js';
import { repairBody } from '../plan/patch-body.js';
import { topLevelKey } from '../plan/refresh.js';
import { storableVersion } from '../state/entry.js';
import type { Json } from '../wire/json.js';
import type { Session } from '../wire/session.js';
import { defaultBudget, stepContext } from './rollout.js';
import { Run, type RolloutOptions, type SessionStep } from './run.js';
import { drift, driftItems, readBack, refusal, refusedOutcome, rolled, type StepOutcome } from './session-step.js';
import type { RolloutFailure, RolloutResult } from './types.js';

type Body = { [key: string]: Json };

/**
 * `apply --repair-fleet`: reads every session of a per-user manifest on the version published and
 * PATCHes back those that drifted, with the rollout's machinery (its pages, workers, rate, failure
 * budget and batched record). Sessions behind are the rollout's, not read here.
 */
export async function repairFleet(plan: PublicationPlan, options: RolloutOptions): Promise<RolloutResult> {
  const ctx = stepContext(plan, options, () => undefined);
  const values = requestBody(plan.doc.data as ManifestData) as unknown as Body;
  const total = plan.fleet?.sessions ?? 0;
  const maxFailures = options.maxFailures ?? defaultBudget(total);
  const result: RolloutResult = { kind: 'repair', name: plan.name, version: plan.version, total, patched: 0, alreadyDone: 0, failed: 0, failures: [], notPatchable: 0, raced: 0, createsUnderWay: 0, untouched: 0, maxFailures };
  const run = new Run({ ...options, maxFailures }, ctx, result, repairStep(values, plan.api_version));
  await run.pass({ name: plan.name, limit: options.pageSize ?? 500 }, 'rollout');
  return run.end(run.stopped);
}

/**
 * One session's repair: read, compare (the rollout's drift), and when it drifted a PATCH of the
 * drifted top-level keys as declared (`repairBody`, as apply's refresh repairs a fixed session),
 * guarded by the config version read, so that another writer's change since is never overwritten:
 * a 409 reads it again and repairs once more. A key that holds a value the application fills from
 * its own environment is not sent from the pipeline's: such a session is reported, not repaired.
 */
export function repairStep(values: Body, apiVersion: PublicationPlan['api_version']): SessionStep {
  return async (row, ctx) => {
    if (row.version === null || row.version < ctx.version) return { kind: 'skipped' };
    const fail = (kind: RolloutFailure['kind'], message: string, fields?: string[]): StepOutcome => ({
      kind: 'failed',
      failure: { user_id: row.user_id, session_id: row.session_id, kind, message, ...(fields !== undefined ? { fields } : {}) },
    });
    let live: Session | ApiError = await readBack(row, ctx);
    for (let attempt = 0; attempt < 2; attempt++) {
      if (live instanceof ApiError) return refusedOutcome(live, fail);
      const items = driftItems(live, row.user_id, ctx);
      // Clean at the first read: nothing to do; clean after a 409: another writer repaired it, recorded.
      if (items.length === 0) return attempt === 0 ? { kind: 'in-sync' } : { kind: 'already', row: rolled(row, live, ctx), session: live };
      const keys = new Set(items.map(topLevelKey).filter((k): k is string => k !== undefined));
      const filled = [...ctx.filledByApplication].map((p) => p.split('/')[1] ?? '').find((k) => keys.has(k));
      if (filled !== undefined) return fail('patch-refused', `it drifted in ${filled}, which holds a value the application fills from its own environment: not repaired from the pipeline's value`);
      const body = repairBody(values, keys, { strict: ctx.strict, version: apiVersion });
      if (Object.keys(body).length === 0) return { kind: 'not-patchable' };
      const guard = storableVersion(live.config_version);
      await ctx.limiter?.acquire();
      try {
        const session = await ctx.api.updateSession(row.session_id, guard === null ? body : { ...body, expected_config_version: guard });
        const fields = drift(session, row, ctx);
        if (fields !== undefined) return fail('drifted', `the service answered the repair with another config than the manifest's: ${fields.join(', ')}`, fields);
        return { kind: 'patched', row: rolled(row, session, ctx), session };
      } catch (err) {
        const refused = refusal(err);
        if (refused.status !== 409) return refusedOutcome(refused, fail);
        live = await readBack(row, ctx);
      }
    }
    return fail('conflict', 'another writer changed the session again while it was repaired; a re-run reads it again');
  };
}
