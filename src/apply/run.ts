import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { unifiedConfigDiff } from '../config/unified.js';
import { appliedBlock, planBlock } from '../plan/blocks.js';
import { loadAndValidate } from '../plan/inputs.js';
import { buildPlan, refreshPlan, type Plan } from '../plan/plan.js';
import { makeReport, type Connect, type RunBase, type RunOutcome, type SavedPlan } from '../plan/run.js';
import { applyPlan, type ApplyProgress, type ApplyResult } from './apply.js';
import type { StateLockOptions } from '../state/file-lock.js';
import { FileStateStore } from '../state/file-store.js';
import { RateLimiter } from './throttle.js';

export interface ApplyRunOptions extends RunBase {
  connect: Connect;
  /** Creates (and refresh reads) in flight at once. Default 4. */
  concurrency?: number;
  /** Client-side limit on requests per minute (creates and reads together). */
  rateLimitPerMinute?: number;
  /** Only plan: no lock, no request. */
  dryRun?: boolean;
  /** Execute this saved plan, only while manifests and state still match it. */
  saved?: { path: string; plan: SavedPlan };
  /** Confirm recorded sessions with GET and verify their drift too. Default true. */
  refresh?: boolean;
  lock: StateLockOptions;
  onProgress?: (progress: ApplyProgress) => void;
  now?: () => Date;
}

export interface ApplyRun extends RunOutcome {
  result?: ApplyResult;
}

/**
 * `apply`: validate (any error stops the run before a request), take the state lock, plan
 * (refreshing recorded sessions), create what changed, verify and record each, and report.
 */
export async function runApply(paths: readonly string[], options: ApplyRunOptions): Promise<ApplyRun> {
  const inputs = await loadAndValidate(paths, options);
  const done = (more: Diagnostic[] = []): ApplyRun => ({ report: makeReport('apply', inputs, more), sources: inputs.sources, secrets: inputs.secrets });
  if (inputs.blocked) return done();

  if (options.dryRun === true) {
    const plan = buildPlan(inputs.documents, await FileStateStore.load(options.statePath));
    const out = done();
    out.report.plan = planBlock(plan);
    return out;
  }

  const state = await FileStateStore.openLocked(options.statePath, options.lock);
  try {
    let plan = buildPlan(inputs.documents, state);
    if (options.saved !== undefined) {
      const stale = staleness(plan, options.saved);
      if (stale !== undefined) return done([stale]);
    }
    const needsNetwork = plan.items.some((i) => i.action !== 'unchanged' || options.refresh !== false);
    if (!needsNetwork) {
      // Everything is unchanged and not to be refreshed: nothing to send, so no connection or key.
      return finish(plan, await applyPlan(plan, { createSession: () => Promise.reject(new Error('internal: apply created a session for an unchanged plan')), state }));
    }
    const api = await options.connect();
    try {
      const limiter = options.rateLimitPerMinute === undefined ? undefined : new RateLimiter(options.rateLimitPerMinute);
      const concurrency = options.concurrency ?? 4;
      if (options.refresh !== false) {
        plan = await refreshPlan(plan, { getSession: (id) => api.getSession(id), concurrency, ...(limiter ? { limiter } : {}) });
      }
      const result = await applyPlan(plan, {
        createSession: (body) => api.createSession(body),
        state,
        concurrency,
        ...(limiter ? { limiter } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.now ? { now: options.now } : {}),
      });
      return finish(plan, result);
    } finally {
      await api.close();
    }
  } finally {
    await state.unlock();
  }

  function finish(plan: Plan, result: ApplyResult): ApplyRun {
    const diffs = new Map<number, string>();
    result.items.forEach((item, n) => {
      if (item.drifted && item.effective !== undefined) {
        diffs.set(n, unifiedConfigDiff(plan.items[n]!.expected, item.effective, { expected: `${item.name} (declared)`, effective: `${item.effective.session_id} (effective)` }));
      }
    });
    const out = done(result.diagnostics);
    out.report.applied = appliedBlock(result, diffs);
    out.result = result;
    return out;
  }
}

/** A `plan/stale` finding when the manifests or the state no longer match a saved plan. */
function staleness(plan: Plan, saved: { path: string; plan: SavedPlan }): Diagnostic | undefined {
  const what = plan.manifestsHash !== saved.plan.manifests_hash ? 'the manifests (or the variables they use) changed' : plan.stateHash !== saved.plan.state_hash ? 'the state file changed' : undefined;
  if (what === undefined) return undefined;
  return {
    code: 'plan/stale',
    severity: 'error',
    message: `the saved plan is stale: ${what} since it was made (${saved.plan.created_at}); nothing was applied`,
    file: saved.path,
    hint: 'run `sessionctl plan --out` again, review it, and apply the new plan',
  };
}
