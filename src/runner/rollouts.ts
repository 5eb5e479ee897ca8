import type { SessionClient } from '../client/client.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Plan } from '../plan/plan.js';
import { hasRollout } from '../plan/rollout-plan.js';
import type { Canary } from '../rollout/canary-size.js';
import { rolloutDiagnostics } from '../rollout/diagnostics.js';
import { repairFleet } from '../rollout/repair.js';
import { rollOut } from '../rollout/rollout.js';
import type { RolloutProgress, RolloutResult } from '../rollout/types.js';
import type { LockedState } from '../state/store.js';
import type { RateLimiter } from '../util/throttle.js';

export interface RolloutRunOptions {
  concurrency: number;
  limiter?: RateLimiter | undefined;
  strict: boolean;
  canary?: Canary | undefined;
  maxFailures?: number | undefined;
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: RolloutProgress) => void) | undefined;
  createsWaitMs?: number | undefined;
}

/** Whether apply has sessions of per-user manifests to roll out (so it needs the service). */
export function hasRollouts(plan: Pick<Plan, 'publications'>): boolean {
  return plan.publications.some((p) => hasRollout(p.rollout));
}

/**
 * Rolls out each per-user manifest this apply published (or whose sessions are still behind from
 * an earlier run), one manifest after the other; a stop (the canary, the failure budget, a signal,
 * the state) ends the rollouts still to come too, which are then untouched.
 */
export async function runRollouts(plan: Plan, state: LockedState, api: Pick<SessionClient, 'updateSession' | 'getSession'>, options: RolloutRunOptions): Promise<{ results: RolloutResult[]; diagnostics: Diagnostic[] }> {
  const results: RolloutResult[] = [];
  const diagnostics: Diagnostic[] = [];
  const store = state.rollout;
  if (store === undefined) return { results, diagnostics };
  for (const p of plan.publications) {
    const rollout = p.rollout;
    if (!hasRollout(rollout)) continue;
    if (results.some((r) => r.stopped !== undefined) || options.signal?.aborted === true) break;
    const result = await rollOut({ ...p, rollout }, { ...options, api, store });
    results.push(result);
    diagnostics.push(...rolloutDiagnostics(result, p.doc));
  }
  return { results, diagnostics };
}

/**
 * `apply --repair-fleet`: after the rollouts, each per-user manifest's sessions on the version
 * published are read and those that drifted PATCHed back; a stop ends the repairs still to come.
 */
export async function runRepairs(plan: Plan, state: LockedState, api: Pick<SessionClient, 'updateSession' | 'getSession'>, options: RolloutRunOptions): Promise<{ results: RolloutResult[]; diagnostics: Diagnostic[] }> {
  const results: RolloutResult[] = [];
  const diagnostics: Diagnostic[] = [];
  const store = state.rollout;
  if (store === undefined) return { results, diagnostics };
  for (const p of plan.publications) {
    if ((p.fleet?.sessions ?? 0) === 0) continue;
    if (results.some((r) => r.stopped !== undefined) || options.signal?.aborted === true) break;
    const result = await repairFleet(p, { ...options, api, store });
    results.push(result);
    diagnostics.push(...rolloutDiagnostics(result, p.doc));
  }
  return { results, diagnostics };
}
