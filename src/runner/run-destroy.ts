import { applyPlan, type ApplyProgress, type ApplyResult } from '../apply/apply.js';
import { deletionsOf, type Plan } from '../plan/plan.js';
import { fleetDestroys } from '../plan/fleet-deletions.js';
import { isPerUser } from '../manifest/per-user.js';
import type { FleetDeleteResult } from '../rollout/fleet-delete.js';
import type { RolloutProgress } from '../rollout/types.js';
import { runFleetDeletions } from './fleet-deletions.js';
import { hasSession } from '../state/entry.js';
import type { StateLockOptions } from '../state/file-lock.js';
import type { LockedState, StateView } from '../state/store.js';
import { ValueMasker } from '../util/sensitive.js';
import { RateLimiter } from '../util/throttle.js';
import type { Connect, SessionApi } from './connection.js';
import { loadAndValidate, type ValidatedManifests } from './inputs.js';
import { underLock } from './locked.js';
import { maskReport, outcomeOf, type RunBase, type RunOutcome } from './outcome.js';

export interface DestroyRunOptions extends RunBase {
  connect: Connect;
  lock: StateLockOptions;
  /** Only show what would be deleted: no lock, no request. */
  dryRun?: boolean;
  /**
   * Every session the state records (this workspace), whatever the manifests: those of renamed and
   * removed manifests too. `paths` are then not read.
   */
  allRecorded?: boolean;
  /** Called under the lock with what is about to be deleted; false stops the run (nothing deleted). */
  confirm?: (plan: Plan) => Promise<boolean>;
  concurrency?: number;
  rateLimitPerMinute?: number;
  onProgress?: (progress: ApplyProgress) => void;
  /** Progress over the sessions of a per-user manifest. */
  onFleetProgress?: (progress: RolloutProgress) => void;
  signal?: AbortSignal;
  graceMs?: number;
  onInterrupt?: (inFlight: number, graceMs: number) => void;
}

export interface DestroyRun extends RunOutcome {
  result?: ApplyResult;
  fleets?: FleetDeleteResult[];
  /** The confirmation was refused: nothing was deleted. */
  declined?: boolean;
}

/**
 * Every recorded session of the manifests (every user each was applied for), or of the whole state,
 * as a deletion; a per-user manifest's sessions as one fleet deletion each, with its publication.
 */
function destroyPlan(inputs: ValidatedManifests, state: StateView, all: boolean): Plan {
  const names = new Set(inputs.documents.map((d) => d.name));
  const deletions = deletionsOf(
    state.list().filter((e) => (all || names.has(e.name)) && hasSession(e)),
    'destroy',
  );
  const fleetDeletions = fleetDestroys(inputs.documents, (d) => isPerUser(d.data), state, all);
  return { items: [], deletions, manifestsHash: '', stateHash: state.hashAtLoad, diagnostics: [], prunable: 0, publications: [], ...(fleetDeletions.length > 0 ? { fleetDeletions } : {}) };
}

/**
 * `destroy [paths..]`: deletes the recorded sessions of the manifests in `paths`, for every user
 * they were applied for, and forgets them. Entries whose create had an unknown outcome hold no
 * session id: they are left for `import` or `state rm`.
 */
export async function runDestroy(paths: readonly string[], options: DestroyRunOptions): Promise<DestroyRun> {
  const loaded = options.allRecorded === true ? noManifests(options) : await loadAndValidate(paths, options);
  return maskReport(await destroyLoaded(loaded, options), loaded.masker, false);
}

async function destroyLoaded(loaded: ValidatedManifests, options: DestroyRunOptions): Promise<DestroyRun> {
  // Destroy needs the manifests' names, not their users: a `${USER_ID}` left unset is no obstacle
  // (every user's session is deleted), an unset variable in `name:` is.
  const diagnostics = loaded.diagnostics.filter((d) => !(d.code === 'env/unset-variable' && d.pointer !== '/name'));
  const inputs: ValidatedManifests = { ...loaded, diagnostics, blocked: diagnostics.some((d) => d.severity === 'error') };
  if (inputs.blocked) return outcomeOf('destroy', inputs);
  await options.guard?.();
  if (options.dryRun === true) {
    const out = outcomeOf('destroy', inputs);
    out.report.plan = destroyPlan(inputs, await options.state.load(), options.allRecorded === true);
    return out;
  }
  const state = await options.state.openLocked(options.lock);
  return underLock(state, async () => {
    const plan = destroyPlan(inputs, state, options.allRecorded === true);
    if (plan.deletions.length === 0 && plan.fleetDeletions === undefined) {
      const out: DestroyRun = outcomeOf('destroy', inputs);
      out.report.plan = plan;
      return out;
    }
    // Declined: the list was shown before the question; the report says only that nothing happened.
    if (options.confirm !== undefined && !(await options.confirm(plan))) return { ...outcomeOf('destroy', inputs), declined: true };
    const api = await options.connect();
    try {
      return await deleteAll(plan, inputs, state, api, options);
    } finally {
      await api.close();
    }
  });
}

/** The fixed sessions, then each per-user manifest's (unless the run was interrupted meanwhile). */
async function deleteAll(plan: Plan, inputs: ValidatedManifests, state: LockedState, api: SessionApi, options: DestroyRunOptions): Promise<DestroyRun> {
  const limiter = options.rateLimitPerMinute === undefined ? undefined : new RateLimiter(options.rateLimitPerMinute);
  const concurrency = options.concurrency ?? 4;
  const result =
    plan.deletions.length === 0
      ? undefined
      : await applyPlan(plan, {
          api,
          state,
          cwd: options.cwd,
          concurrency,
          ...(limiter ? { limiter } : {}),
          ...(options.onProgress ? { onProgress: options.onProgress } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
          ...(options.onInterrupt ? { onInterrupt: options.onInterrupt } : {}),
        });
  if (result?.interrupted !== undefined) await api.close({ abort: true });
  const fleets = result?.interrupted !== undefined ? { results: [], diagnostics: [] } : await runFleetDeletions(plan.fleetDeletions ?? [], state, api, { concurrency, limiter, signal: options.signal, onProgress: options.onFleetProgress });
  const out: DestroyRun = outcomeOf('destroy', inputs, [...(result?.diagnostics ?? []), ...fleets.diagnostics]);
  if (result !== undefined) {
    out.report.applied = { items: result.items, tally: result.tally };
    out.result = result;
  }
  if (fleets.results.length > 0) {
    out.report.fleetDeleted = fleets.results;
    out.fleets = fleets.results;
  }
  return out;
}

/** `--all-recorded` reads no manifest: the run's inputs are empty, and nothing blocks it. */
function noManifests(options: DestroyRunOptions): ValidatedManifests {
  return { documents: [], diagnostics: [], suppressed: [], policies: [], files: [], sources: new Map(), secrets: [], sensitive: new Map(), masker: options.masker ?? new ValueMasker(), blocked: false };
}
