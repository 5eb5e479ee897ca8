import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { FleetDeletion } from '../plan/fleet-deletions.js';
import { fleetDeleteDiagnostics } from '../rollout/diagnostics.js';
import { deleteFleet, type FleetDeleteResult } from '../rollout/fleet-delete.js';
import type { RolloutProgress } from '../rollout/types.js';
import type { LockedState } from '../state/store.js';
import type { RateLimiter } from '../util/throttle.js';

export interface FleetDeletionsOptions {
  concurrency: number;
  limiter?: RateLimiter | undefined;
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: RolloutProgress) => void) | undefined;
  createsWaitMs?: number | undefined;
}

/**
 * Deletes the sessions of each per-user manifest that goes (destroy, `--prune`), one manifest after
 * the other, then its publication; a stop (a signal, the state) leaves the manifests still to come
 * as they are, for the next run.
 */
export async function runFleetDeletions(deletions: readonly FleetDeletion[], state: LockedState, api: { deleteSession(sessionId: string): Promise<unknown> }, options: FleetDeletionsOptions): Promise<{ results: FleetDeleteResult[]; diagnostics: Diagnostic[] }> {
  const results: FleetDeleteResult[] = [];
  const diagnostics: Diagnostic[] = [];
  const store = state.rollout;
  const unpublish = state.unpublish?.bind(state);
  if (deletions.length === 0) return { results, diagnostics };
  if (store === undefined || unpublish === undefined) throw new Error('internal: the state offers no way to delete a fleet');
  for (const d of deletions) {
    if (options.signal?.aborted === true || results.some((r) => r.stopped !== undefined)) break;
    const result = await deleteFleet(d, { ...options, store, api, unpublish: () => unpublish([d.name]) });
    results.push(result);
    diagnostics.push(...fleetDeleteDiagnostics(result));
  }
  return { results, diagnostics };
}
