import { resolve } from 'node:path';
import type { ManifestDocument } from '../manifest/types.js';
import { SAMPLES } from '../state/fleet.js';
import type { StateView } from '../state/store.js';
import { inPruneScope, type PruneScope } from './prune.js';

/**
 * A per-user manifest whose sessions all go (`destroy` of it, or `apply --prune` once its file is
 * gone): every recorded session of it is deleted at the service and its row removed, then its
 * publication, so that the application's ensure creates no more. Counted, never listed.
 */
export interface FleetDeletion {
  name: string;
  /** The manifest file: the one given to destroy, or the one it was published from. */
  file: string | null;
  reason: 'manifest-removed' | 'destroy';
  /** Recorded sessions when planned: each is deleted at the service. */
  sessions: number;
  /** Creates of unknown outcome recorded: no session id to delete, so they stay (a person looks). */
  unknown: number;
  /** The first few users by id. */
  samples: string[];
  /** Whether a publication is there to remove once the sessions are gone. */
  published: boolean;
}

type FleetState = Pick<StateView, 'published' | 'fleet'>;

/** A per-user manifest's deletion as the state counts it now. */
export function fleetDeletionOf(name: string, file: string | null, reason: FleetDeletion['reason'], state: FleetState): FleetDeletion {
  const count = state.fleet?.get(name);
  const samples = [...(count?.samples?.values() ?? [])].flat().sort().slice(0, SAMPLES);
  return { name, file, reason, sessions: count?.sessions ?? 0, unknown: count?.unknown ?? 0, samples, published: state.published?.has(name) === true };
}

/** Whether anything of a per-user manifest is recorded: a publication, sessions, or creates. */
function recorded(d: FleetDeletion): boolean {
  return d.published || d.sessions > 0 || d.unknown > 0;
}

/**
 * `destroy`: the per-user manifests among `documents` with anything recorded, or with `all`
 * every one the state holds (published, or with sessions left by an earlier destroy).
 */
export function fleetDestroys(documents: readonly ManifestDocument[], perUser: (doc: ManifestDocument) => boolean, state: FleetState, all: boolean): FleetDeletion[] {
  const files = new Map(documents.filter(perUser).map((d) => [d.name, d.file]));
  const names = all ? new Set([...(state.published?.keys() ?? []), ...(state.fleet?.keys() ?? [])]) : new Set(files.keys());
  return [...names]
    .sort()
    .map((name) => fleetDeletionOf(name, files.get(name) ?? state.published?.get(name)?.file ?? null, 'destroy', state))
    .filter(recorded);
}

/**
 * `--prune`: the per-user manifests published from a file inside the run's paths that no manifest
 * of the run names any more. As for fixed sessions (prune.ts), a publication from a file outside
 * the paths, or that does not say which file it came from, is never pruned.
 */
export function prunableFleets(documents: readonly ManifestDocument[], state: FleetState, scope: PruneScope): FleetDeletion[] {
  const names = new Set(documents.map((d) => d.name));
  return [...(state.published?.values() ?? [])]
    .filter((p) => !names.has(p.name) && p.file !== null && inPruneScope(resolve(scope.cwd, p.file), scope))
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((p) => fleetDeletionOf(p.name, p.file, 'manifest-removed', state));
}

/** Sessions the fleet deletions delete. */
export function fleetSessions(deletions: readonly FleetDeletion[] | undefined): number {
  return (deletions ?? []).reduce((n, d) => n + d.sessions, 0);
}
