import { hasChanges, buildPlan, type Plan } from '../plan/plan.js';
import { planOptions, refreshable } from './plan-options.js';
import { revealStored } from '../config/sensitive-fields.js';
import { checkMassMissing, type MissingGuard } from '../plan/mass-missing.js';
import { refreshPlan } from '../plan/refresh.js';
import { describeService } from '../state/binding.js';
import { RateLimiter } from '../util/throttle.js';
import type { Connect } from './connection.js';
import { loadAndValidate } from './inputs.js';
import { makeReport, maskReport, outcomeOf, type RunBase, type RunOutcome } from './outcome.js';
import { writeSavedPlan } from './saved-plan.js';

export interface PlanRunOptions extends RunBase {
  /** Read the live config of recorded sessions (GET): a gone one is created again, a drifted one repaired. */
  refresh?: Connect;
  /** Plan the deletion of recorded sessions whose manifests are gone from these paths. */
  prune?: boolean;
  /** Plan creates where a create's outcome is unknown. */
  recreateUnknown?: boolean;
  /** `added` drift is repaired too. */
  strict?: boolean;
  concurrency?: number;
  rateLimitPerMinute?: number;
  /** When sessions gone en masse stop the run (after the refresh). */
  missing?: Omit<MissingGuard, 'service'>;
  /** Write the plan here (absolute), for `apply PLAN.json`. */
  out?: string;
  now?: () => Date;
}

export interface PlanRun extends RunOutcome {
  plan?: Plan;
  /** Whether any manifest would be created or replaced (`--detailed-exitcode`). */
  changes: boolean;
}

/** `plan`: validate, then the action per manifest against the state; no network unless refreshing. */
export async function runPlan(paths: readonly string[], options: PlanRunOptions): Promise<PlanRun> {
  const inputs = await loadAndValidate(paths, options);
  if (inputs.blocked) return maskReport({ ...outcomeOf('plan', inputs), changes: false }, inputs.masker, options.revealSensitive);
  await options.guard?.();
  const state = await options.state.load();
  let plan = buildPlan(inputs.documents, state, planOptions(paths, options));
  // Only recorded sessions are read: with none, no connection (and no key) is needed.
  if (options.refresh !== undefined && plan.items.some(refreshable)) {
    const api = await options.refresh();
    try {
      const limiter = options.rateLimitPerMinute === undefined ? undefined : new RateLimiter(options.rateLimitPerMinute);
      plan = await refreshPlan(plan, {
        getSession: (id) => api.getSession(id),
        concurrency: options.concurrency ?? 4,
        strict: options.strict === true,
        ...(options.apiVersion !== undefined ? { apiVersion: options.apiVersion } : {}),
        revealSensitive: options.revealSensitive === true,
        ...(limiter ? { limiter } : {}),
      });
    } finally {
      await api.close();
    }
    checkMassMissing(plan, { ...options.missing, service: describeService(options.service?.service ?? 'the service') });
  }
  if (options.out !== undefined) await writeSavedPlan(options.out, plan, inputs, { ...options, paths });
  const report = makeReport('plan', inputs, plan.diagnostics);
  // --show-sensitive: what a change sets is shown as it is (the state's side is a digest either way).
  report.plan = options.revealSensitive === true ? { ...plan, items: plan.items.map((i) => ({ ...i, changes: revealStored(i.changes, inputs.documents) })) } : plan;
  if (plan.publications.length > 0) report.publications = { items: plan.publications, written: false };
  return maskReport({ report, sources: inputs.sources, secrets: inputs.secrets, plan, changes: hasChanges(plan) }, inputs.masker, options.revealSensitive);
}
