import { applyPlan, type ApplyProgress, type ApplyResult } from '../apply/apply.js';
import { buildPlan, type Plan } from '../plan/plan.js';
import { publishStep } from '../apply/publish-step.js';
import { checkMassMissing, type MissingGuard } from '../plan/mass-missing.js';
import { refreshPlan } from '../plan/refresh.js';
import { bindOnRecord } from '../state/bind-on-record.js';
import { bindingFor, checkBinding, describeService, needsBinding } from '../state/binding.js';
import type { LockedState } from '../state/store.js';
import type { StateLockOptions } from '../state/file-lock.js';
import { RateLimiter } from '../util/throttle.js';
import type { Connect, SessionApi } from './connection.js';
import { loadAndValidate, type ValidatedManifests } from './inputs.js';
import { underLock } from './locked.js';
import { maskReport, outcomeOf, type RunBase, type RunOutcome } from './outcome.js';
import { planOptions, refreshable } from './plan-options.js';
import { staleness, type SavedPlan } from './saved-plan.js';
import { movedSince, pinSavedVersions } from './saved-versions.js';
import { hasRollouts, runRepairs, runRollouts } from './rollouts.js';
import { runFleetDeletions } from './fleet-deletions.js';
import type { Canary } from '../rollout/canary-size.js';
import type { RolloutProgress, RolloutResult } from '../rollout/types.js';

export interface ApplyRunOptions extends RunBase {
  connect: Connect;
  /** Requests in flight at once. Default 4. */
  concurrency?: number;
  /** Client-side limit on requests per minute (every request of the run together). */
  rateLimitPerMinute?: number;
  /** Only plan: no lock, no request. */
  dryRun?: boolean;
  /** Execute this saved plan, only while manifests and state still match it. */
  saved?: { path: string; plan: SavedPlan };
  /** Read recorded sessions first and repair their drift. Default true. */
  refresh?: boolean;
  /** Delete recorded sessions whose manifests are gone from these paths. */
  prune?: boolean;
  /** `--prune`'s scope when it is not the paths loaded (a saved plan loads files, but was made over folders). */
  pruneRoots?: readonly string[];
  /** A replace leaves the old session alive instead of deleting it. */
  keepReplaced?: boolean;
  /** Create again where a create's outcome is unknown. */
  recreateUnknown?: boolean;
  /** Differences the manifests do not declare (`added`) count as drift. */
  strict?: boolean;
  lock: StateLockOptions;
  /** When sessions gone en masse stop the run (after the refresh, before any change). */
  missing?: Omit<MissingGuard, 'service'>;
  onProgress?: (progress: ApplyProgress) => void;
  /** A rollout patches these sessions first, reads them back, and goes on only when they are on the new config. */
  canary?: Canary;
  /** A rollout stops once more sessions than this failed. */
  maxFailures?: number;
  /** After the rollouts, read every session of the per-user manifests and PATCH back those that drifted. */
  repairFleet?: boolean;
  onRolloutProgress?: (progress: RolloutProgress) => void;
  /** How long a rollout waits for creates that read the version it replaced. */
  createsWaitMs?: number;
  /** Called with the plan before any session is deleted (`--prune` lists what it deletes first). */
  beforeDeletes?: (plan: Plan) => void;
  /**
   * Called under the lock, before anything is published or sent, when `--prune` deletes per-user
   * manifests' sessions: it states how many, and throws to stop the run (past the threshold
   * without confirmation).
   */
  confirmFleetDeletes?: (plan: Plan) => void;
  /** Stops the run (SIGINT, SIGTERM); see applyPlan. */
  signal?: AbortSignal;
  graceMs?: number;
  onInterrupt?: (inFlight: number, graceMs: number) => void;
  now?: () => Date;
}

export interface ApplyRun extends RunOutcome {
  result?: ApplyResult;
}

/**
 * `apply`: validate (any error stops the run before a request), take the state lock, plan,
 * refresh recorded sessions (a drifted one is repaired), create, update, replace and delete what
 * the plan says, verify and record each, and report.
 */
export async function runApply(paths: readonly string[], options: ApplyRunOptions): Promise<ApplyRun> {
  const inputs = await loadAndValidate(paths, options);
  return maskReport(await applyInputs(paths, inputs, options), inputs.masker, false);
}

async function applyInputs(paths: readonly string[], inputs: ValidatedManifests, options: ApplyRunOptions): Promise<ApplyRun> {
  if (inputs.blocked) return outcomeOf('apply', inputs);
  await options.guard?.();
  const planned = planOptions(paths, options);

  if (options.dryRun === true) {
    const plan = buildPlan(inputs.documents, await options.state.load(), planned);
    const out = outcomeOf('apply', inputs, plan.diagnostics);
    out.report.plan = plan;
    if (plan.publications.length > 0) out.report.publications = { items: plan.publications, written: false };
    return out;
  }

  const state = await options.state.openLocked(options.lock);
  return underLock(state, async () => {
    // Checked again under the lock: another run may have bound the state since the command's guard.
    if (options.service !== undefined) checkBinding(state.binding, options.service, state.location);
    let plan = buildPlan(inputs.documents, state, planned);
    if (options.saved !== undefined) {
      const stale = staleness(plan, options.saved, inputs.sensitive);
      if (stale !== undefined) return outcomeOf('apply', inputs, [stale]);
    }
    if (plan.fleetDeletions !== undefined) options.confirmFleetDeletes?.(plan);
    const refresh = options.refresh !== false && plan.items.some(refreshable);
    const binding = bindingState(state, options);
    await publishStep(plan.publications, binding ?? state, options.cwd, (options.now ?? (() => new Date()))());
    // Nothing to send and nothing to read: no connection, so no key is needed.
    const mask = (text: string): string => inputs.masker.text(text);
    const repairs = options.repairFleet === true && plan.publications.some((p) => (p.fleet?.sessions ?? 0) > 0);
    if (!refresh && !repairs && !needsService(plan)) return finish(inputs, await applyPlan(plan, { ...applyOptions(options, undefined), mask, api: noApi, state: binding ?? state }), plan);
    const api = await options.connect();
    try {
      const limiter = options.rateLimitPerMinute === undefined ? undefined : new RateLimiter(options.rateLimitPerMinute);
      if (refresh) {
        plan = await refreshPlan(plan, { getSession: (id) => api.getSession(id), concurrency: options.concurrency ?? 4, strict: options.strict === true, ...(options.apiVersion !== undefined ? { apiVersion: options.apiVersion } : {}), ...(limiter ? { limiter } : {}) });
        checkMassMissing(plan, { ...options.missing, service: describeService(options.service?.service ?? 'the service') });
      }
      if (options.saved !== undefined) {
        // What runs is what was reviewed: a session another writer changed since is not PATCHed back.
        const moved = movedSince(plan, options.saved);
        if (moved.length > 0) return outcomeOf('apply', inputs, [...plan.diagnostics.filter((d) => d.severity === 'error'), ...moved]);
        plan = pinSavedVersions(plan, options.saved);
      }
      // Sessions read with this key and base URL: they are where this state's sessions live.
      if (plan.items.some((i) => i.live !== undefined)) await binding?.bindNow();
      if (plan.deletions.length > 0) options.beforeDeletes?.(plan);
      const result = await applyPlan(plan, { ...applyOptions(options, limiter), mask, api, state: binding ?? state });
      // Interrupted, and the wait is over: the requests still in flight are given up, not waited for.
      if (result.interrupted !== undefined) {
        await api.close({ abort: true });
        return finish(inputs, result, plan);
      }
      const fleet = await fleetSteps(plan, binding ?? state, api, limiter, options);
      const out = finish(inputs, { ...result, diagnostics: [...result.diagnostics, ...fleet.diagnostics] }, plan);
      if (fleet.rollouts.length > 0) out.report.rollouts = fleet.rollouts;
      if (fleet.deleted.length > 0) out.report.fleetDeleted = fleet.deleted;
      return out;
    } finally {
      await api.close();
    }
  });
}

/**
 * After the sessions of fixed users: the per-user manifests' rollouts, then (`--repair-fleet`) the
 * repair of their drifted sessions, then (`--prune`) the deletion of those whose file is gone. A
 * step that stopped (or a signal) leaves the next ones for the next run.
 */
async function fleetSteps(plan: Plan, state: LockedState, api: SessionApi, limiter: RateLimiter | undefined, options: ApplyRunOptions) {
  const concurrency = options.concurrency ?? 4;
  const common = { concurrency, limiter, strict: options.strict === true, maxFailures: options.maxFailures, signal: options.signal, onProgress: options.onRolloutProgress };
  const rolled = await runRollouts(plan, state, api, { ...common, canary: options.canary, createsWaitMs: options.createsWaitMs });
  const stopped = (results: readonly RolloutResult[]) => options.signal?.aborted === true || results.some((r) => r.stopped !== undefined);
  const repaired = options.repairFleet === true && !stopped(rolled.results) ? await runRepairs(plan, state, api, common) : { results: [], diagnostics: [] };
  const rollouts = [...rolled.results, ...repaired.results];
  const pruned = stopped(rollouts) ? { results: [], diagnostics: [] } : await runFleetDeletions(plan.fleetDeletions ?? [], state, api, { concurrency, limiter, signal: options.signal, onProgress: options.onRolloutProgress });
  return { rollouts, deleted: pruned.results, diagnostics: [...rolled.diagnostics, ...repaired.diagnostics, ...pruned.diagnostics] };
}

/** The state that binds itself to the run's service on its first recorded session; undefined when it is bound already. */
function bindingState(state: LockedState, options: ApplyRunOptions): (LockedState & { bindNow(): Promise<void> }) | undefined {
  const service = options.service;
  if (service === undefined || !needsBinding(state.binding, service)) return undefined;
  return bindOnRecord(state, () => bindingFor(service, (options.now ?? (() => new Date()))()));
}

function needsService(plan: Plan): boolean {
  return hasRollouts(plan) || plan.deletions.length > 0 || plan.fleetDeletions !== undefined || plan.items.some((i) => !i.blocked && (i.action !== 'no-op' || i.cleanup.length > 0));
}

function applyOptions(options: ApplyRunOptions, limiter: RateLimiter | undefined) {
  return {
    cwd: options.cwd,
    concurrency: options.concurrency ?? 4,
    strict: options.strict === true,
    keepReplaced: options.keepReplaced === true,
    ...(limiter ? { limiter } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
    ...(options.onInterrupt ? { onInterrupt: options.onInterrupt } : {}),
    ...(options.now ? { now: options.now } : {}),
  };
}

function finish(inputs: Parameters<typeof outcomeOf>[1], result: ApplyResult, plan: Plan): ApplyRun {
  const out: ApplyRun = outcomeOf('apply', inputs, result.diagnostics);
  out.report.applied = { items: result.items, tally: result.tally, ...(plan.orphans !== undefined && plan.orphans.length > 0 ? { orphans: plan.orphans } : {}) };
  if (plan.publications.length > 0) out.report.publications = { items: plan.publications, written: true };
  out.result = result;
  return out;
}

const noApi = {
  createSession: unreachable,
  updateSession: unreachable,
  deleteSession: unreachable,
};

function unreachable(): never {
  throw new Error('internal: apply sent a request for a plan with nothing to send');
}
