import { applyPlan, type ApplyProgress, type ApplyResult } from '../apply/apply.js';
import { buildPlan } from '../plan/plan.js';
import { refreshPlan } from '../plan/refresh.js';
import type { StateLockOptions } from '../state/file-lock.js';
import { RateLimiter } from '../util/throttle.js';
import type { Connect } from './connection.js';
import { loadAndValidate } from './inputs.js';
import { outcomeOf, type RunBase, type RunOutcome } from './outcome.js';
import { staleness, type SavedPlan } from './saved-plan.js';

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
  /** Differences the manifests do not declare (`added`) count as drift. */
  strict?: boolean;
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
  if (inputs.blocked) return outcomeOf('apply', inputs);

  if (options.dryRun === true) {
    const plan = buildPlan(inputs.documents, await options.state.load());
    const out = outcomeOf('apply', inputs);
    out.report.plan = { items: plan.items };
    return out;
  }

  const state = await options.state.openLocked(options.lock);
  try {
    let plan = buildPlan(inputs.documents, state);
    if (options.saved !== undefined) {
      const stale = staleness(plan, options.saved);
      if (stale !== undefined) return outcomeOf('apply', inputs, [stale]);
    }
    const needsNetwork = plan.items.some((i) => i.action !== 'unchanged' || options.refresh !== false);
    const api = needsNetwork ? await options.connect() : undefined;
    try {
      const limiter = options.rateLimitPerMinute === undefined ? undefined : new RateLimiter(options.rateLimitPerMinute);
      const concurrency = options.concurrency ?? 4;
      if (api !== undefined && options.refresh !== false) {
        plan = await refreshPlan(plan, { getSession: (id) => api.getSession(id), concurrency, ...(limiter ? { limiter } : {}) });
      }
      const result = await applyPlan(plan, {
        // Everything unchanged and not refreshed: nothing to send, so no connection or key.
        createSession: (body) => (api ?? unreachable()).createSession(body),
        state,
        concurrency,
        strict: options.strict === true,
        ...(limiter ? { limiter } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.now ? { now: options.now } : {}),
      });
      const out: ApplyRun = outcomeOf('apply', inputs, result.diagnostics);
      out.report.applied = { items: result.items, tally: result.tally };
      out.result = result;
      return out;
    } finally {
      await api?.close();
    }
  } finally {
    await state.unlock();
  }
}

function unreachable(): never {
  throw new Error('internal: apply created a session for an unchanged plan');
}
